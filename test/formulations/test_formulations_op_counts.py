# Copyright 2026 The dynamics_ros Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
Operation counting: the counting rules and every count, exactly.

Each count is pinned to the integer our implementations give today, beside
the published one it is compared with; doc/theory/operation_counts.md has
the reason for each difference.  A change to a formulation that changes its
count must change the pinned number and that page's table with it.

The integers hold on any machine: the generic chains are counted on their
DH tables' own numbers, and constants within op_counts.STRUCTURAL_TOLERANCE
of 0 or +-1 are structural (a zero of exact arithmetic comes out of numpy's
products as 0 or 1e-17 depending on the BLAS kernel).  Checked by hand
under OpenBLAS kernels Haswell and Sandybridge and with OPENBLAS_CORETYPE
unset; the tests leave the variable as they find it.
"""

import warnings

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.flexible.examples import mackay_three_link_arm
from dynamics_ros.flexible.inverse_dynamics import inverse_dynamics
from dynamics_ros.formulations.kane import kane_source
from dynamics_ros.formulations.lagrange import lagrange_inverse_dynamics
from dynamics_ros.formulations.lagrange_turney import \
    turney_lagrange_inverse_dynamics
from dynamics_ros.formulations.newton_euler_links import \
    newton_euler_inverse_dynamics
from dynamics_ros.formulations.op_counts import Count, count_call, \
    count_flexible, count_formulations, count_source, Counted, \
    critical_path, generic_chain, MACKAY_TABLE_4_1, PUBLISHED, \
    STANFORD_ARM_PUBLISHED, turney_lagrange_term_counts, \
    turney_parallel_steps, turney_term_counts
from dynamics_ros.model.dh import from_dh
from dynamics_ros.model.urdf_writer import to_urdf
from dynamics_ros.resources import robot_urdf
import numpy as np
from oracle import oracle_for, random_state
from urdf_factory import random_urdf


def test_counting_rules():
    """Constants fold, 0 and +-1 are free, the rest is counted."""
    count = Count()
    x, y = Counted(2.0, count), Counted(3.0, count)
    assert (x * 0.0) == 0.0 and count == Count()
    assert (x * 1.0) is x and (x + 0.0) is x and (0.0 - x).value == -2.0
    assert count == Count()
    z = (x * y + 2.5 * x - y) / y + x ** 3
    assert count == Count(mults=1 + 1 + 1 + 2, adds=3, divs=1)
    assert abs(float(z) - ((6.0 + 5.0 - 3.0) / 3.0 + 8.0)) < 1e-15
    np.cos(x)
    assert count.trig == 1


def test_counted_run_computes_the_same_torques():
    """A counted run is the float run: same values, ops on the side."""
    chain = generic_chain(5, seed=2)
    rng = np.random.default_rng(2)
    q, qd, qdd = rng.uniform(-1, 1, (3, 5))
    count, tau = count_call(
        lambda a, b, c: newton_euler_inverse_dynamics(chain, a, b, c),
        q, qd, qdd)
    assert_close(tau, newton_euler_inverse_dynamics(chain, q, qd, qdd),
                 1e-15)
    assert count == Count(mults=547, adds=413, divs=0, trig=10)


def test_count_source_of_generated_code():
    """Generated code is counted from its syntax tree."""
    source = ('def f(q):\n    c0 = cos(q[0])\n'
              '    return [2*c0**3 + c0/q[1] - 1, -c0]\n')
    assert count_source(source, ('f',)) == Count(mults=4, adds=2, divs=1,
                                                 trig=1)


def pair(count):
    """Return (mults, adds) of a Count."""
    return count.mults, count.adds


def published(name, n):
    """Return a PUBLISHED law at n as integers."""
    mults, adds = PUBLISHED[name][1](n)
    assert mults == round(mults) and adds == round(adds)
    return round(mults), round(adds)


# Ours on the generic chain, n = 1..8 (mults, adds).
GENERIC = {
    'lagrange': [(69, 45), (294, 196), (732, 489), (1445, 960), (2495, 1645),
                 (3944, 2580), (5854, 3801), (8287, 5344)],
    'newton_euler': [(59, 34), (178, 125), (301, 221), (424, 317),
                     (547, 413), (670, 509), (793, 605), (916, 701)],
    'modified_newton_euler': [(49, 31), (150, 115), (255, 205), (360, 295),
                              (465, 385), (570, 475), (675, 565),
                              (780, 655)],
    'nasser': [(49, 26), (317, 227), (652, 493), (1000, 774),
               (1348, 1055), (1696, 1336), (2044, 1617), (2392, 1898)],
    'strobed_mass_matrix': [(4, 0), (96, 65), (293, 205), (595, 422),
                            (999, 713), (1505, 1078), (2113, 1517),
                            (2823, 2030)],
}


def test_generic_chain_counts_exactly():
    """
    Every formulation's count on the generic chain, n = 1..8, exactly.

    The recursive ones follow exact laws (Newton-Euler 123n - 68 / 96n -
    67 and modified 105n - 60 / 90n - 65 from n = 2, Nasser 348n - 392 /
    281n - 350 from n = 3) and Lagrange a cubic at every n ((62n^3 +
    267n^2 + 115n - 30) / 6 / 6n^3 + 35n^2 + 4n), like Turney's Table 1
    (O(n) against O(n^3)).
    """
    counts = {n: count_formulations(n, kane=False) for n in range(1, 9)}
    for name, expected in GENERIC.items():
        assert [pair(counts[n][name]) for n in range(1, 9)] == expected, name
    for n in range(1, 9):
        assert pair(counts[n]['lagrange']) == (
            (62 * n ** 3 + 267 * n ** 2 + 115 * n - 30) // 6,
            6 * n ** 3 + 35 * n ** 2 + 4 * n)
    for n in range(2, 9):
        assert pair(counts[n]['newton_euler']) == (123 * n - 68, 96 * n - 67)
        assert pair(counts[n]['modified_newton_euler']) == (
            105 * n - 60, 90 * n - 65)
    for n in range(3, 9):
        assert pair(counts[n]['nasser']) == (348 * n - 392, 281 * n - 350)
        # sin/cos apart: one pair per revolute joint and evaluation.
        assert counts[n]['newton_euler'].trig == 2 * n
        assert counts[n]['nasser'].divs == n         # one per joint (D^-1)


def test_kane_counts_on_the_generic_chain():
    """
    Kane's generated equations on the generic chain, n = 1..6, exactly.

    Faster than linear (second differences positive; common
    subexpressions keep it off an exact polynomial): the explicit M_u u_dot
    = F needs all n^2 mass-matrix entries; Kane and Levinson publish only
    the Stanford Arm's count.
    """
    kane = [pair(count_source(kane_source(from_dh(generic_chain(n))), (
        'inverse_dynamics_u', 'speeds', 'speed_derivatives')))
        for n in range(1, 7)]
    assert kane == [(9, 2), (139, 80), (423, 277), (823, 552), (1326, 903),
                    (1924, 1316)]
    assert np.all(np.diff([m for m, _ in kane], 2) > 0)


def test_counts_beside_the_published_ones_at_six_joints():
    """At n = 6: ours against Turney's Table 1, Hollerbach's LWP and Nasser."""
    six = count_formulations(6, kane=False)
    rows = [  # (ours, published key, ours pinned, published)
        ('lagrange', 'lagrange', (3944, 2580), (5916, 4840)),
        ('newton_euler', 'newton_euler', (670, 509), (636, 591)),
        ('newton_euler', 'newton_euler_lwp', (670, 509), (852, 738)),
        ('modified_newton_euler', 'modified_newton_euler', (570, 475),
         (513, 504)),
        ('nasser', 'nasser', (1696, 1336), (1687, 1254)),
        ('nasser', 'nasser_n_links', (1696, 1336), (1429, 1063)),
    ]
    for name, key, ours, theirs in rows:
        assert pair(six[name]) == ours, name
        assert published(key, 6) == theirs, key


def test_modified_newton_euler_with_principal_axes():
    """
    Turney's 513 / 504 assumes K_i diagonal (principal axes).

    With principal-axis inertias ours is 498 / 403 (full tensors: 570 /
    475), below his count: the structural zeros of z = (0, 0, 1) and of
    the DH rotation are free here, while forming R_i from cos and sin (24,
    not in Table 4) is counted.  The diagonal K_i saves 72 / 72 of the
    moment terms: the off-diagonal products of inertia are exact zeros of
    the table (read back from a model they were 1e-17 residues, which cost
    operations on some BLAS kernels and not on others).
    """
    rows = turney_term_counts('modified_newton_euler', 6,
                              principal_axes=True)
    total = sum((ours for _, ours, _ in rows), Count())
    assert pair(total) == (498, 403)
    full = turney_term_counts('modified_newton_euler', 6)
    assert [pair(ours) for _, ours, _ in full][4] == (254, 236)
    assert pair(rows[4][1]) == (182, 164)
    assert sum(theirs[0] for _, _, theirs in rows) == 513
    assert sum(theirs[1] for _, _, theirs in rows) == 504


# Turney's Tables 3 and 4 at n = 6, term by term: (ours, published).
TURNEY_TABLE_3_AT_6 = [
    ((39, 27), (54, 42)),      # omega_i
    ((51, 38), (54, 54)),      # alpha_i
    ((142, 108), (144, 144)),  # A_i, a_i
    ((102, 84), (54, 54)),     # a-bar_i
    ((300, 246), (330, 297)),  # f_i and the moment terms
    ((12, 6), (0, 0)),         # tau_i = z . n_i (not in Table 3)
    ((24, 0), (0, 0)),         # cos, sin and R_i (not in Table 3)
]
TURNEY_TABLE_4_AT_6 = [
    ((39, 27), (54, 42)),      # omega_i
    ((51, 38), (54, 54)),      # alpha_i
    ((33, 46), (36, 54)),      # A_i
    ((157, 122), (162, 129)),  # a_i, m_i a-bar_i
    ((254, 236), (207, 225)),  # f_i, Tr{A K sigma^t} and the moment terms
    ((12, 6), (0, 0)),         # tau_i
    ((24, 0), (0, 0)),         # cos, sin and R_i
]


def test_turney_tables_3_and_4_term_by_term():
    """
    Per-term counts at n = 6 against Turney's Tables 3 and 4.

    Our statements are booked to his terms (op_counts.TURNEY_TERMS); the
    terms cover the whole count, and his rows sum to his Table 1.
    """
    for name, expected, total in (
            ('newton_euler', TURNEY_TABLE_3_AT_6, (636, 591)),
            ('modified_newton_euler', TURNEY_TABLE_4_AT_6, (513, 504))):
        rows = turney_term_counts(name, 6)
        assert [(pair(ours), theirs) for _, ours, theirs in rows] == \
            expected, name
        assert tuple(np.sum([theirs for _, _, theirs in rows], 0)) == total
        assert published(name, 6) == total


def test_stanford_arm_counts_beside_kane_and_levinson():
    """
    The Stanford Arm (its own zero offsets and right-angle twists).

    Kane and Levinson's table (p. 17): 646 / 394 for their eqs. 118-123;
    our generated Kane code 604 / 355 with u = qd, 792 / 448 with their
    generalized speeds (it also counts u, u_dot from qd, qdd and W^T).
    """
    model = dr.load_urdf(robot_urdf('stanford_arm'))
    counts = count_formulations(model)
    assert {name: pair(c) for name, c in counts.items()} == {
        'lagrange': (1433, 757), 'newton_euler': (228, 161),
        'modified_newton_euler': (200, 175), 'nasser': (691, 481),
        'strobed_mass_matrix': (351, 218), 'kane': (604, 355)}
    speeds = count_source(kane_source(model, 'stanford'), (
        'inverse_dynamics_u', 'speeds', 'speed_derivatives'))
    assert pair(speeds) == (792, 448)
    assert [(m, a) for _, m, a in STANFORD_ARM_PUBLISHED] == [
        (2195, 1719), (1541, 1196), (852, 738), (646, 394)]


def test_critical_path_rules():
    """A step per counted operation after its operands; free ones none."""
    def expression(v):
        x, y, z, w = v
        return [((x * y) + z) * w, x * y + z * w, -(x * 1.0) + 0.0,
                (x + y) + (z + w), x ** 3]
    path, count, value = critical_path(expression, [2.0, 3.0, 5.0, 7.0])
    assert path == (2, 1)
    assert count == Count(mults=2 + 2 + 0 + 0 + 2, adds=1 + 1 + 0 + 3)
    assert list(value) == [77.0, 41.0, -2.0, 17.0, 8.0]
    parts = [critical_path(lambda v, k=k: [expression(v)[k]],
                           [2.0, 3.0, 5.0, 7.0])[0] for k in range(5)]
    assert parts == [(2, 1), (1, 1), (0, 0), (0, 2), (2, 0)]


def test_turney_table_5_parallel_steps():
    """
    Table 5 (27n + 42 / 27n + 41 steps) beside our critical path.

    Turney schedules whole terms (each done serially: omega_{i+2},
    alpha_{i+2}, A_{i+1}, a_i, ... 18 / 15 a link) concurrently across
    links.  With one step per operation as soon as its operands exist, the
    modified Newton-Euler's dependency graph (sums added as written) is
    2n + 4 multiplications and 6n additions deep: 8n + 4 steps for 105n -
    60 + 90n - 65 operations, principal axes or not.  The chain runs out
    to the tip and back: each link adds one multiplication and three
    additions on the way out and as many on the way in (tau_n is 13 / 27
    steps deep at n = 8, tau_1 20 / 48).
    """
    for n in range(1, 9):
        path, count = turney_parallel_steps(n)
        assert path == (2 * n + 4, 6 * n), n
        assert pair(count) == GENERIC['modified_newton_euler'][n - 1]
        assert turney_parallel_steps(n, principal_axes=True)[0] == path
        theirs = published('modified_newton_euler_parallel', n)
        assert path[0] < theirs[0] and path[1] < theirs[1]
    assert published('modified_newton_euler_parallel', 6) == (204, 203)


# Turney's Table 2 at n = 6, row by row: (ours, published).  Ours runs
# lagrange_turney (his Appendix's organisation, every matrix entry counted).
TURNEY_TABLE_2_AT_6 = [
    ((960, 720), (960, 720)),      # T_j^i: 15 full 4x4 products
    ((960, 720), (960, 720)),      # dT_0^i/dq_j: 15 products
    ((2240, 1680), (2240, 1680)),  # d2T: 35 products (Appendix: 16n(n^2-1)
                                   # additions, an arithmetic slip)
    ((1672, 1984), (1336, 1312)),  # delta_q: see the test
    ((336, 330), (336, 330)),      # traces
    ((84, 78), (84, 78)),          # gravity
    ((36, 0), (0, 0)),             # cos, sin and T_{i-1}^i (not in Table 2)
    ((0, 6), (0, 0)),              # tau_i = kinetic + gravity (not in it)
]


def test_turney_lagrange_table_2_row_by_row():
    """
    Lagrange as Turney's Appendix does it: five of Table 2's rows exactly.

    T_j^i, dT, d2T (one full 4x4 product, 64 / 48, per T multiplication;
    Q insertions free), the traces (16 / 15 each, n - i additions across q)
    and gravity (4 / 3 each) equal his rows at every n; the d2T additions
    are Table 2's 8n(n^2 - 1), not the Appendix's 16n(n^2 - 1) (48
    additions times sum_i i(i - 1)/2 products).  The delta row cannot be
    reached by an evaluation that computes the torque: per link q it costs
    8.5q(q + 1) + 16q + 64 / 16q(q + 1) + 32 here.  His additions per q are
    the same 16q(q + 1) + 32, but Table 2 sums them to (16/3)(n^3 - n) +
    32n instead of (16/3)n(n + 1)(n + 2) + 32n; his multiplications scale
    only q(q - 1)/2 second derivatives, leaving out the q terms d2T/dq_j^2
    qd_j^2 (16 each).  Table 2 also leaves out joining the kinetic and
    gravity sums (n additions) and forming T_{i-1}^i from cos and sin.
    """
    for n in range(1, 9):
        rows = turney_lagrange_term_counts(n)[0]
        ours = [pair(count) for _, count, _ in rows]
        theirs = [published for _, _, published in rows]
        for row in (0, 1, 2, 4, 5):
            assert ours[row] == theirs[row], (n, rows[row][0])
        assert ours[3] == (
            17 * n * (n + 1) * (n + 2) // 6 + 8 * n * (n + 1) + 64 * n,
            16 * n * (n + 1) * (n + 2) // 3 + 32 * n)
        assert ours[3][1] == sum(16 * q * (q + 1) + 32
                                 for q in range(1, n + 1))
        assert theirs[3][1] == sum(16 * q * (q - 1) + 32
                                   for q in range(1, n + 1))
        # His rows sum to his Table 1 total.
        assert tuple(np.sum(theirs, 0)) == published('lagrange', n)
        assert ours[7] == (0, n)
    rows = turney_lagrange_term_counts(6)[0]
    assert [(pair(ours), theirs) for _, ours, theirs in rows] == \
        TURNEY_TABLE_2_AT_6
    total = sum((ours for _, ours, _ in rows), Count())
    assert pair(total) == (6288, 5518) and total.trig == 12
    assert published('lagrange', 6) == (5916, 4840)
    # Ours less the delta row's difference and the rows Table 2 leaves out
    # is his total.
    assert (6288 - (1672 - 1336) - 36, 5518 - (1984 - 1312) - 6) == (
        5916, 4840)


def test_turney_lagrange_computes_the_torques():
    """
    The counted organisation is a real evaluation: Pinocchio's torques.

    The counted run on the generic 6-link chain (1e-9 against Pinocchio's
    RNEA on the same model written as URDF, 1e-12 against our Lagrange),
    and the float run on the Stanford Arm (prismatic joint 3), PUMA 560 and
    a mixed revolute / prismatic chain.
    """
    _, model, (q, qd, qdd), tau = turney_lagrange_term_counts(6)
    with warnings.catch_warnings():
        # The generic chain's random inertias need not be physical; both
        # sides use them as given.
        warnings.simplefilter('ignore', dr.ModelWarning)
        oracle = oracle_for(to_urdf(model))[1]
    assert_close(tau, oracle.rnea(q, qd, qdd), 1e-9, 'counted run')
    assert_close(tau, lagrange_inverse_dynamics(model, q, qd, qdd), 1e-12)
    assert np.max(np.abs(tau)) > 10.0
    rng = np.random.default_rng(3)
    for xml in (robot_urdf('stanford_arm'), robot_urdf('puma560'),
                random_urdf(11, n_movable=4)):
        if not xml.lstrip().startswith('<'):
            with open(xml, encoding='utf-8') as stream:
                xml = stream.read()
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', dr.ModelWarning)
            model, oracle = oracle_for(xml)
        for _ in range(2):
            q, qd, qdd, _ = random_state(model, rng)
            assert_close(turney_lagrange_inverse_dynamics(model, q, qd, qdd),
                         oracle.rnea(q, qd, qdd), 1e-9, model.name)


# Mackay's three-link arm (sec. 3.3.5, links 2 and 3 flexible), by modes per
# bending plane: ours (recursive; FLX's I(z) zdd + R organisation; the same
# with every matrix entry counted), each (mults, adds).
MACKAY_OURS = {
    0: ((226, 124), (370, 183), (3552, 2675)),
    1: ((950, 603), (1939, 1196), (7580, 5967)),
    2: ((1101, 714), (2762, 1705), (11472, 9423)),
}


def test_mackay_table_4_1_three_link_arm():
    """
    The flexible inverse dynamics counted beside Mackay's Table 4.1.

    dynamics_ros.flexible runs on counted numbers (object arrays) and gives
    the float run's forces (1e-12).  Ours, recursive (one forward and one
    backward pass of Book's 4x4 recursion, zeros of the model free): 226 /
    124 rigid, 950 / 603 with one mode per plane, against FLX's 4637 / 2715
    and 10345 / 8513.  FLX forms I(z) and R and returns I zdd - R, in
    general matrix subroutines: counted that way (our mass matrix, then the
    product) it is 370 / 183 and 1939 / 1196 with structural zeros free,
    near SYMFLX (445 / 213, 2659 / 1313: it also drops x0 and x+-1), and
    3552 / 2675 and 7580 / 5967 with every matrix entry counted, the
    nearest we come to FLX; the rest is FLX's own organisation (separate
    A_i, S_i and L_i products, Mackay's reason) and the arm's geometry
    (Fig. 3.22 is missing: ours is flexible.examples' choice).
    """
    for modes, expected in MACKAY_OURS.items():
        fm = mackay_three_link_arm(modes)
        counts = []
        for organisation, every_entry in (('recursive', False),
                                          ('inertia', False),
                                          ('inertia', True)):
            count, (z, zd, zdd), force = count_flexible(
                fm, organisation=organisation, every_entry=every_entry)
            assert_close(force, inverse_dynamics(fm, z, zd, zdd), 1e-12,
                         organisation)
            assert count.trig == 6 and count.divs == 0
            counts.append(pair(count))
        assert tuple(counts) == expected, modes
        # Beside the thesis: every entry counted, ours is below FLX's
        # general-matrix count; with structural zeros free, the I(z) zdd +
        # R organisation is below SYMFLX's (which drops x0 and x+-1 too);
        # the recursion is below both.
        flx = MACKAY_TABLE_4_1['FLX'][modes]
        assert all(a < b for a, b in zip(counts[2], flx))
        assert all(a < b for a, b in zip(counts[0], counts[1]))
        symflx = MACKAY_TABLE_4_1['SYMFLX, unused Z### removed'].get(modes)
        if symflx is not None:
            assert all(a < b for a, b in zip(counts[1], symflx))
            raw = MACKAY_TABLE_4_1['SYMFLX, raw output'][modes]
            assert all(a < b for a, b in zip(symflx, raw))
    # The rigid rows of Table 4.1 are Table 1.1's laws at n = 3, as the
    # thesis says; at n = 6 those laws give Table 1.1's printed numbers
    # (Uicker-Kahn's columns printed swapped: its multiplication law gives
    # the 51456 printed as additions).
    for row, key, at_6 in (
            ('Uicker-Kahn (Table 1.1 at n = 3)', 'uicker_kahn', 51456),
            ('Hollerbach 4x4 (Table 1.1 at n = 3)', 'hollerbach_4x4', 4388)):
        assert MACKAY_TABLE_4_1[row] == {0: published(key, 3)}
        assert published(key, 6)[0] == at_6
    assert published('hollerbach_3x3', 6) == (2195, 1719)
    assert published('newton_euler_lwp', 6) == (852, 738)
