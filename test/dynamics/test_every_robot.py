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
Every URDF of example-robot-data against Pinocchio.

Every ``.urdf`` below ``robots/`` (a glob, not a list) that Pinocchio loads
as a fixed-base tree (``mimic=True`` when the file has ``<mimic>`` tags)
must load with ``dr.load_urdf`` and defaults (warnings allowed), and its
inverse dynamics, mass matrix, bias and gravity torques must equal
Pinocchio's to 1e-9 relative at a few random states inside the limits.
Forward dynamics equals ``pin.aba`` for models without mimic joints; for
mimic models (where Pinocchio 4.1 has no ABA) M qdd + h = tau holds with
our own M and h, and qdd equals M^-1 (tau - h) of Pinocchio's reduced M and
h.  Batches (N, nq) equal single calls.

Pinocchio's reduced parser refuses a mimic joint that it visits before its
master (it walks sibling joints in name order, and the master must exist
when the mimic joint is added): romeo and talos_full_v2 are such files.
They are held to Pinocchio's model of every movable joint mapped through
our q_tree = G q + offset (``oracle.ProjectedOracle``) instead.

The session writes one table row per file to ``test-reports/every_robot.md``
below the repository root (gitignored) and prints its path.
"""

import os
import warnings
import xml.etree.ElementTree as ElementTree
import zlib

from conftest import assert_close, REPO_ROOT
import dynamics_ros as dr
import numpy as np
from oracle import keep_chain, mimic_tags, pin, PinocchioOracle, \
    ProjectedOracle, random_state, robots_directory, urdf_files
import oracle_record
import pytest

ROOT = REPO_ROOT
REPORT = os.path.join(ROOT, 'test-reports', 'every_robot.md')
FILES = urdf_files()
RTOL = 1e-9
# Batched kernels may sum in another order than one call does (SIMD lanes,
# BLAS from 12 joints on) and fuse multiply-adds (``fast/lanes.py``): equal
# to rounding, far below the oracle's 1e-9.  Where a quantity is
# ill-conditioned, a batch may differ from the single call by as much as the
# single call differs from Pinocchio: ABA's pivots are tiny at iCub's finger
# links, where a forward-dynamics batch differs from the single call by
# 7.7e-12 and the single call from Pinocchio by 3.7e-11.
BATCH_RTOL = 1e-12
QUANTITIES = ('ID', 'M', 'h', 'g', 'FD')
PANDA = os.path.join('panda_description', 'urdf', 'panda.urdf')
# Without Pinocchio its answers are those stored (oracle_record.py).
PINOCCHIO = pin.__version__ if pin is not None else \
    '(its answers stored by scripts/write_oracle_calls.py)'


class Row:
    """What the report says about one URDF."""

    def __init__(self, relative):
        """Start the row of ``relative`` (path below robots/)."""
        self.file = relative
        self.nq = None
        self.mimic = 0
        self.pinocchio = 'not tried'
        self.ours = 'not tried'
        self.warnings = []
        self.errors = {}
        self.batch = None
        self.batch_over = []  # quantities whose batch differs by more
        self.status = 'not run'
        self.notes = []

    def error(self, what, actual, expected, scale=None):
        """Keep the largest relative error of quantity ``what``."""
        actual = np.asarray(actual, dtype=float)
        expected = np.asarray(expected, dtype=float)
        if scale is None:
            scale = float(np.max(np.abs(expected), initial=0.0))
        value = float(np.max(np.abs(actual - expected), initial=0.0)) / max(
            scale, 1e-12)
        self.errors[what] = max(self.errors.get(what, 0.0), value)


@pytest.fixture(scope='module')
def report(request):
    """Rows of the files run; the Markdown table is written at the end."""
    rows = {}
    yield rows
    write_report(rows)
    message = 'every_robot report (%d files): %s' % (len(rows), REPORT)
    # Past pytest's output capture, so the path shows in a passing run.
    plugins = request.config.pluginmanager
    reporter = plugins.getplugin('terminalreporter')
    capture = plugins.getplugin('capturemanager')
    if reporter is None or capture is None:
        print(message)
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line('\n' + message)


def write_report(rows):
    """Write the table of ``rows`` as Markdown to REPORT."""
    os.makedirs(os.path.dirname(REPORT), exist_ok=True)
    ordered = [rows[name] for name in sorted(rows)]
    lines = [
        '# Every robot of example-robot-data against Pinocchio %s' %
        PINOCCHIO, '',
        'Written by test/dynamics/test_every_robot.py.  Relative error: max |ours - '
        'Pinocchio| / max |Pinocchio| over %s random states (2 above 30 '
        'joints); tolerance %g.  FD of a mimic model: the larger of the '
        'residual |M qdd + h - tau| / |tau| (our M, h) and the difference '
        "from M^-1 (tau - h) of Pinocchio's reduced M and h.  batch: "
        'largest relative difference of (N, nq) calls from single calls.  '
        'Pinocchio: yes; mimic=True (its reduced model); full only (its '
        'reduced parser refuses, its model of every joint is mapped '
        'through G); mimic ignored (a mimic tag names a joint that does '
        'not exist: its model with mimic=False, as our loader warns and '
        'does); no.' % (3, RTOL), '',
        '| robot file | nq | mimic | Pinocchio | dynamics_ros (warnings) | '
        + ' | '.join(QUANTITIES) + ' | batch | status |',
        '|' + '---|' * (7 + len(QUANTITIES))]
    for row in ordered:
        cells = [row.file, '-' if row.nq is None else str(row.nq),
                 str(row.mimic), row.pinocchio,
                 '%s (%d)' % (row.ours, len(row.warnings))
                 if row.ours == 'yes' else row.ours]
        cells += ['%.1e' % row.errors[what] if what in row.errors else '-'
                  for what in QUANTITIES]
        cells.append('-' if row.batch is None else '%.1e' % row.batch)
        cells.append(row.status)
        lines.append('| ' + ' | '.join(cell.replace('|', '/').replace(
            '\n', ' ') for cell in cells) + ' |')
    kinds = {}
    for row in ordered:
        kinds[row.pinocchio] = kinds.get(row.pinocchio, 0) + 1
    summary = '%d of %d files run.  Pinocchio: %s.  dynamics_ros loads ' \
        '%d; %d agree with Pinocchio.' % (
            len(ordered), len(FILES), ', '.join(
                '%s %d' % item for item in sorted(kinds.items())),
            sum(row.ours == 'yes' for row in ordered),
            sum(row.status == 'agree' for row in ordered))
    lines += ['', summary, '', '## Notes', '']
    for row in ordered:
        for note in row.notes + ['warning: %s' % w for w in row.warnings]:
            lines.append('- `%s`: %s' % (row.file, note.replace('\n', ' ')))
    with open(REPORT, 'w', encoding='utf-8') as stream:
        stream.write('\n'.join(lines) + '\n')


def load_pinocchio(xml, mimic):
    """Return (whether Pinocchio builds the URDF, its error message)."""
    def build():
        try:
            pin.buildModelFromXML(xml, mimic=mimic)
        except (RuntimeError, ValueError) as error:
            return False, str(error)
        return True, ''
    return oracle_record.call('builds', (oracle_record.digest(xml), mimic),
                              build)


def load_ours(path, row):
    """dr.load_urdf with defaults; warnings recorded in ``row``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        try:
            model = dr.load_urdf(path)
        except Exception as error:  # noqa: B902 - the report names any
            row.ours = 'no: %s: %s' % (type(error).__name__, error)
            return None, error
    row.warnings = ['%s: %s' % (w.category.__name__, w.message)
                    for w in caught]
    row.ours = 'yes'
    row.nq = model.nq
    return model, None


def states(model, relative):
    """Return a few random states, seeded by the file name (reproducible)."""
    rng = np.random.default_rng(zlib.crc32(relative.encode()))
    return [random_state(model, rng)
            for _ in range(2 if model.nq > 30 else 3)]


def singular(M):
    """Tell whether M is singular to rounding (a joint moving no mass)."""
    if M.size == 0:
        return False
    eigenvalues = np.linalg.eigvalsh(M)
    return eigenvalues[0] <= 1e-12 * max(eigenvalues[-1], 1e-300)


def compare(model, oracle, row, relative, reduced):
    """
    Fill ``row.errors`` and ``row.batch``: ours against ``oracle``.

    ``reduced``: the model has mimic joints, so forward dynamics is held to
    M qdd + h = tau and to Pinocchio's M and h rather than to pin.aba.
    """
    rows = states(model, relative)
    single = {name: [] for name in ('ID', 'M', 'h', 'g', 'FD')}
    for q, qd, qdd, tau in rows:
        single['ID'].append(dr.inverse_dynamics(model, q, qd, qdd))
        row.error('ID', single['ID'][-1], oracle.rnea(q, qd, qdd))
        single['M'].append(dr.mass_matrix(model, q))
        reference_M = oracle.crba(q)
        row.error('M', single['M'][-1], reference_M)
        single['h'].append(dr.bias_forces(model, q, qd))
        row.error('h', single['h'][-1], oracle.bias(q, qd))
        single['g'].append(dr.gravity_torques(model, q))
        row.error('g', single['g'][-1], oracle.gravity(q))
        if single['FD'] is None:
            continue
        try:
            qdd_ours = dr.forward_dynamics(model, q, qd, tau)
        except dr.ModelError as error:
            # Refused for joints that move no mass: right where Pinocchio's
            # M is singular too (its ABA would divide by zero).
            if not singular(reference_M):
                raise
            row.notes.append('FD refused, M singular in Pinocchio too: %s'
                             % error)
            single['FD'] = None
            continue
        single['FD'].append(qdd_ours)
        if reduced:
            row.error('FD', single['M'][-1] @ qdd_ours + single['h'][-1],
                      tau)
            row.error('FD', qdd_ours, oracle.forward(q, qd, tau))
        else:
            row.error('FD', qdd_ours, oracle.aba(q, qd, tau))
    # Batches: every quantity of all states in one call, equal to singles.
    Q, QD, QDD, TAU = (np.array(part) for part in zip(*rows))
    batched = {'ID': dr.inverse_dynamics(model, Q, QD, QDD),
               'M': dr.mass_matrix(model, Q),
               'h': dr.bias_forces(model, Q, QD),
               'g': dr.gravity_torques(model, Q)}
    if single['FD'] is not None:
        batched['FD'] = dr.forward_dynamics(model, Q, QD, TAU)
    else:
        del single['FD']
    row.batch = 0.0
    for name, value in batched.items():
        expected = np.array(single[name])
        assert np.shape(value) == expected.shape, name
        scale = max(float(np.max(np.abs(expected), initial=0.0)), 1e-12)
        difference = float(np.max(np.abs(np.asarray(value) - expected),
                                  initial=0.0)) / scale
        row.batch = max(row.batch, difference)
        if difference > max(BATCH_RTOL, row.errors.get(name, 0.0)):
            row.batch_over.append(name)
    return batched, single


def joint_types(xml):
    """Joint name -> type of a URDF."""
    return {joint.get('name'): joint.get('type')
            for joint in ElementTree.fromstring(xml).iter('joint')
            if joint.get('type') is not None}


def masters_exist(xml, tags):
    """Tell whether every mimic joint of ``tags`` follows a movable one."""
    kinds = joint_types(xml)
    return all(kinds.get(master) in ('revolute', 'continuous', 'prismatic')
               for master, _, _, _ in tags.values())


def note_collapsed_limits(model, row):
    """
    Note independent joints whose limits a mimic coupling shrank to a point.

    MimicModel intersects a master's limits with its mimic joints' limits
    taken through the map; limits written for the other sign of the
    multiplier leave one position (PR2's gripper: [0, 0.548] with
    multiplier -1), and the joint can then not move.
    """
    if not isinstance(model, dr.MimicModel):
        return
    for k, name in enumerate(model.joint_names):
        own = model.tree.joint_index(name)
        if (model.upper_limit[k] - model.lower_limit[k] <= 0.0
                < model.tree.upper_limit[own] - model.tree.lower_limit[own]):
            row.notes.append(
                'limits of %r narrowed to the single position %g by its '
                'mimic joints (its own: [%g, %g])' % (
                    name, model.lower_limit[k], model.tree.lower_limit[own],
                    model.tree.upper_limit[own]))


@pytest.mark.parametrize('relative', FILES, ids=FILES)
def test_robot(relative, report):
    """One URDF: loads as Pinocchio does and its dynamics agree."""
    row = report[relative] = Row(relative)
    path = os.path.join(robots_directory(), relative)
    with open(path, encoding='utf-8') as stream:
        xml = stream.read()
    tags = mimic_tags(xml)
    movable_tags = {name: tag for name, tag in tags.items()
                    if tag[3] != 'fixed'}
    row.mimic = len(movable_tags)
    builds, pin_error = load_pinocchio(xml, mimic=bool(tags))
    if builds:
        row.pinocchio = 'mimic=True' if tags else 'yes'
    elif tags and load_pinocchio(xml, mimic=False)[0]:
        if masters_exist(xml, movable_tags):
            # Pinocchio's own limitation (see the module docstring): the
            # coupling is valid, so we must load it; the reference is
            # Pinocchio's model of every joint, projected.
            row.pinocchio = 'full only'
            row.notes.append('Pinocchio mimic=True refuses (%s); compared '
                             'with its full model through G' % pin_error)
        else:
            row.pinocchio = 'mimic ignored'
            row.notes.append('Pinocchio mimic=True refuses (%s): a mimic '
                             'tag names a joint missing from the file'
                             % pin_error)
    else:
        row.pinocchio = 'no'
        row.notes.append('Pinocchio refuses: %s' % pin_error.strip())
    model, error = load_ours(path, row)

    if row.pinocchio == 'no':
        # Outside the acceptance: whatever Pinocchio cannot build is not
        # held to it.
        row.status = 'not compared (Pinocchio refuses)'
        pytest.skip(row.status)
    if row.pinocchio == 'mimic ignored':
        # Outside the acceptance too (Pinocchio's reduced model refuses),
        # but such a file must not load silently as something else: a
        # refusal or a warning naming the missing master.  Loaded, it is
        # the robot without those couplings, as Pinocchio's mimic=False.
        missing = sorted({tag[0] for tag in movable_tags.values()
                          if tag[0] not in joint_types(xml)})
        named = str(error) if model is None else ' '.join(row.warnings)
        assert any(repr(name) in named for name in missing), (
            'a mimic joint follows %s, missing from the file; expected a '
            'refusal or a warning naming it, got: %s' % (
                missing, named or 'a silent load'))
        if model is None:
            row.status = 'refused, naming %s' % ', '.join(missing)
            return
        tags = {}
    if model is None:
        row.status = 'FAIL: not loaded'
        pytest.fail('%s: Pinocchio loads it (%s), dr.load_urdf refuses: %s'
                    % (relative, row.pinocchio, row.ours))
    note_collapsed_limits(model, row)
    reduced = isinstance(model, dr.MimicModel) and bool(model.mimic)
    # The coupling as the URDF states it (mimic tags of fixed joints are
    # moot; a tag naming a missing joint was ignored above).
    assert (model.mimic if reduced else {}) == {
        name: tag[:3] for name, tag in movable_tags.items()
        if row.pinocchio != 'mimic ignored'}
    try:
        if row.pinocchio == 'full only':
            assert reduced, 'the mimic joints were not coupled'
            oracle = ProjectedOracle(model, xml)
        else:
            oracle = PinocchioOracle(model, xml, mimic=bool(tags))
        compare(model, oracle, row, relative, reduced)
    except Exception as failure:  # noqa: B902 - recorded, then re-raised
        row.status = 'FAIL: %s: %s' % (type(failure).__name__, failure)
        raise
    worse = sorted(what for what, value in row.errors.items()
                   if value > RTOL)
    if row.batch_over:
        worse.append('batch of ' + ', '.join(row.batch_over))
    row.status = 'agree' if not worse else 'FAIL: ' + ', '.join(worse)
    assert not worse, '%s: %s' % (relative, ', '.join(
        '%s %.2e' % (what, row.errors.get(what, row.batch))
        for what in worse))


def test_every_file_is_in_the_walk():
    """The walk finds every URDF of the wheel (69 in example-robot-data 6)."""
    assert len(FILES) >= 69
    assert PANDA in FILES


def test_pinocchio_mimic_convention():
    """
    Pinocchio's reduced model means q_m = multiplier * q_master + offset.

    The Panda's finger coupling rewritten with a multiplier and an offset
    that are not 1 and 0: every joint placement of Pinocchio's reduced
    model equals its full model at q_m = m q + o (computed here from the
    XML, not by dynamics_ros), and so do G^T M G and G^T tau; our model of
    the same XML agrees with the reduced model.
    """
    with open(os.path.join(robots_directory(), PANDA),
              encoding='utf-8') as stream:
        tree = ElementTree.fromstring(stream.read())
    multiplier, offset = -0.5, 0.01
    for joint in tree.iter('joint'):
        tag = joint.find('mimic')
        if tag is not None:
            tag.set('multiplier', repr(multiplier))
            tag.set('offset', repr(offset))
    xml = ElementTree.tostring(tree, encoding='unicode')
    rng = np.random.default_rng(3)
    q = rng.uniform(0.0, 0.04, 8)
    q_full = np.append(q, multiplier * q[7] + offset)
    G = np.vstack([np.eye(8), np.eye(8)[7] * multiplier])
    qd, qdd = rng.uniform(-1, 1, 8), rng.uniform(-1, 1, 8)

    def answers():
        reduced = pin.buildModelFromXML(xml, mimic=True)
        full = pin.buildModelFromXML(xml)
        mimic = reduced.joints[reduced.getJointId('panda_finger_joint2')]
        reduced_data, full_data = reduced.createData(), full.createData()
        pin.forwardKinematics(reduced, reduced_data, q)
        pin.forwardKinematics(full, full_data, q_full)
        placements = tuple(
            (name, reduced_data.oMi[reduced.getJointId(name)].homogeneous,
             full_data.oMi[full.getJointId(name)].homogeneous)
            for name in full.names[1:])
        M_reduced = pin.crba(reduced, reduced_data, q)
        M_full = pin.crba(full, full_data, q_full)
        return ((reduced.nv, full.nv), (mimic.extract().scaling,
                                        mimic.extract().offset),
                placements, M_reduced, M_full,
                pin.rnea(reduced, reduced_data, q, qd, qdd),
                pin.rnea(full, full_data, q_full, G @ qd, G @ qdd))
    # Pinocchio's answers through oracle_record: stored where it is missing.
    (sizes, (scaling, shift), placements, M_reduced, M_full, tau_reduced,
     tau_full) = oracle_record.call(
        'reduced and full models', (oracle_record.digest(xml), q, q_full,
                                    qd, qdd, G), answers)
    assert sizes == (8, 9)
    assert (scaling, shift) == (multiplier, offset)
    for name, a, b in placements:
        assert_close(a, b, what=name)
    M_full = np.triu(M_full) + np.triu(M_full, 1).T
    assert_close(np.triu(M_reduced) + np.triu(M_reduced, 1).T,
                 G.T @ M_full @ G, what='M')
    assert_close(tau_reduced, G.T @ tau_full, what='rnea')
    # Ours, by name (Pinocchio's order is its own depth-first one).
    model = dr.load_urdf(xml)
    assert dict(zip(model.full_joint_names, model.full_positions(
        q)))['panda_finger_joint2'] == pytest.approx(
            multiplier * q[7] + offset)
    oracle = PinocchioOracle(model, xml, mimic=True)
    for q, qd, qdd, _ in [random_state(model, rng) for _ in range(3)]:
        assert_close(dr.mass_matrix(model, q), oracle.crba(q), what='M')
        assert_close(dr.inverse_dynamics(model, q, qd, qdd),
                     oracle.rnea(q, qd, qdd), what='ID')


def test_panda_hand_changes_gravity_torques():
    """
    Cutting the Panda's hand off changes its gravity torques.

    The hand (0.73 kg) and its fingers (2 x 0.015 kg, coupled by a mimic
    joint) hang on the flange ``panda_link8``.  The full model's gravity
    torques of the arm differ from those of the model cut at the flange
    (by 3.5 N m, 16 %, on joint 4 here) and from those of the model cut at
    the hand (the fingers alone: 0.14 N m), and equal Pinocchio's reduced
    model.  The cut model equals Pinocchio's model of the URDF with the
    hand removed, so the difference is the hand's weight, not a fault.
    """
    path = os.path.join(robots_directory(), PANDA)
    with open(path, encoding='utf-8') as stream:
        xml = stream.read()
    full = dr.load_urdf(path)
    cut = dr.load_urdf(path, tip_link='panda_link8')
    no_fingers = dr.load_urdf(path, tip_link='panda_hand')
    assert isinstance(full, dr.MimicModel)
    assert full.mimic == {'panda_finger_joint2': (
        'panda_finger_joint1', 1.0, 0.0)}
    assert full.joint_names[:7] == cut.joint_names == no_fingers.joint_names
    assert (full.nq, cut.nq) == (8, 7)
    # Elbow bent, wrist pitched: the hand has a lever arm about joints 2-6.
    q = np.array([0.3, -0.4, 0.2, -2.0, 0.5, 1.6, 0.7, 0.02])
    g_full = dr.gravity_torques(full, q)
    g_cut = dr.gravity_torques(cut, q[:7])
    assert_close(g_full, PinocchioOracle(full, xml, mimic=True).gravity(q),
                 what='full model g')
    assert_close(g_cut, PinocchioOracle(
        cut, keep_chain(xml, None, 'panda_link8')).gravity(q[:7]),
        what='cut model g')
    difference = np.abs(g_full[:7] - g_cut)
    assert np.max(difference) > 3.0, difference
    assert np.count_nonzero(difference > 0.1) >= 4, difference
    fingers = np.abs(g_full[:7] - dr.gravity_torques(no_fingers, q[:7]))
    assert 0.05 < np.max(fingers) < 0.5, fingers
