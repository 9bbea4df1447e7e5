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
Compiled derivatives and linearization.

``inverse_dynamics_derivatives``, ``forward_dynamics_derivatives``,
``linearize`` and ``linearize_trajectory`` on the compiled path, against
Pinocchio's computeRNEADerivatives / computeABADerivatives (1e-9) on the
example arms and generated trees, one state and batches, with external
wrenches, armature and damping; against the numpy reference path, which
is held to Pinocchio too; batches against single calls; the numpy
fallback.  No timing: benchmarks/compare.py measures speed.
"""

import os
import subprocess
import sys

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros import fast
from dynamics_ros.dynamics.aba_derivatives import \
    reference_forward_dynamics_derivatives
from dynamics_ros.dynamics.linearize import reference_linearize, \
    reference_linearize_trajectory
from dynamics_ros.dynamics.rnea_derivatives import \
    reference_inverse_dynamics_derivatives
from dynamics_ros.resources import robot_urdf
import numpy as np
from oracle import example_arm_xml, EXAMPLE_ARMS, oracle_for, \
    pin_aba_derivatives, pin_rnea_derivatives, pinocchio_model, \
    random_state, with_armature
import pytest
from robot_sets import breadth_first, generated_robots, long_robots

pytest.importorskip('numba')

STATES = 6
ROBOTS = ([(name, None) for name in EXAMPLE_ARMS] + generated_robots()
          + long_robots())
RNEA_NAMES = ('dtau_dq', 'dtau_dqd', 'M')
ABA_NAMES = ('dqdd_dq', 'dqdd_dqd', 'Minv')


@pytest.fixture(scope='module', params=ROBOTS, ids=[r[0] for r in ROBOTS])
def robot(request):
    """(model, oracle) for one robot of test_dynamics_oracle."""
    name, xml = request.param
    return oracle_for(xml if xml is not None else example_arm_xml(name))


@pytest.fixture(autouse=True)
def compiled_path_on():
    """Run every test with the compiled path on, whatever came before."""
    previous = fast.enable(True)
    yield
    fast.enable(previous)


def random_batch(model, seed, count=STATES):
    """Return q, qd, qdd, tau (count, nq) and f_ext (count, nq, 6)."""
    rng = np.random.default_rng(seed)
    states = [random_state(model, rng) for _ in range(count)]
    q, qd, qdd, tau = (np.array(column) for column in zip(*states))
    return q, qd, qdd, tau, rng.uniform(-10.0, 10.0, (count, model.nq, 6))


def assert_all_close(ours, theirs, names, rtol=1e-9, what=''):
    """assert_close for each member of two tuples of arrays."""
    for name, a, b in zip(names, ours, theirs):
        assert_close(a, b, rtol, what='%s %s' % (what, name))


def test_derivative_modules_are_compiled():
    """The three public functions reach the compiled kernels."""
    model = dr.load_urdf(robot_urdf('puma560'))
    zero = np.zeros(model.nq)
    dr.linearize(model, zero, zero, zero)
    for name in fast.DERIVATIVE_MODULES:
        assert name in vars(fast), name
    assert fast.linearize.linearize_kernel.signatures
    assert model.packed_model is not None


def test_rnea_derivatives_match_pinocchio(robot):
    """dtau/dq, dtau/dqd, M: one state, with wrenches, and a batch."""
    model, oracle = robot
    q, qd, qdd, _, f_ext = random_batch(model, 60)
    for k in range(2):
        assert_all_close(
            dr.inverse_dynamics_derivatives(model, q[k], qd[k], qdd[k]),
            pin_rnea_derivatives(oracle, q[k], qd[k], qdd[k]), RNEA_NAMES)
    batch = dr.inverse_dynamics_derivatives(model, q, qd, qdd, f_ext)
    assert batch[0].shape == (STATES, model.nq, model.nq)
    for k in range(STATES):
        assert_all_close([part[k] for part in batch], pin_rnea_derivatives(
            oracle, q[k], qd[k], qdd[k], f_ext[k]), RNEA_NAMES,
            what='state %d' % k)


def test_aba_derivatives_match_pinocchio(robot):
    """dqdd/dq, dqdd/dqd, M^-1: one state, with wrenches, and a batch."""
    model, oracle = robot
    q, qd, _, tau, f_ext = random_batch(model, 61)
    for k in range(2):
        assert_all_close(
            dr.forward_dynamics_derivatives(model, q[k], qd[k], tau[k]),
            pin_aba_derivatives(oracle, q[k], qd[k], tau[k]), ABA_NAMES)
        assert_all_close(
            dr.forward_dynamics_derivatives(model, q[k], qd[k], tau[k],
                                            f_ext[k]),
            pin_aba_derivatives(oracle, q[k], qd[k], tau[k], f_ext[k]),
            ABA_NAMES, what='f_ext')
    batch = dr.forward_dynamics_derivatives(model, q, qd, tau, f_ext)
    for k in range(STATES):
        assert_all_close([part[k] for part in batch], pin_aba_derivatives(
            oracle, q[k], qd[k], tau[k], f_ext[k]), ABA_NAMES,
            what='state %d' % k)


def test_linearize_matches_pinocchio(robot):
    """(A, B) of one state and of a batch equal computeABADerivatives."""
    model, oracle = robot
    n = model.nq
    model = model.copy(damping=np.linspace(0.2, 1.4, n))
    q, qd, _, tau, _ = random_batch(model, 62)
    A, B = dr.linearize(model, q, qd, tau)
    assert A.shape == (STATES, 2 * n, 2 * n) and B.shape == (STATES, 2 * n, n)
    for k in range(STATES):
        A_pin, B_pin = pinocchio_model(model, oracle, q[k], qd[k], tau[k])
        assert np.array_equal(A[k, :n], A_pin[:n])
        assert_close(A[k, n:], A_pin[n:], what='A %d' % k)
        assert_close(B[k], B_pin, what='B %d' % k)
        A_one, B_one = dr.linearize(model, q[k], qd[k], tau[k])
        assert_close(A_one, A[k], what='A single %d' % k)
        assert_close(B_one, B[k], what='B single %d' % k)


def test_reference_path_matches_pinocchio(robot):
    """The numpy reference functions stay correct beside the fast path."""
    model, oracle = robot
    q, qd, qdd, tau, f_ext = random_batch(model, 63, count=2)
    for k in range(2):
        assert_all_close(reference_inverse_dynamics_derivatives(
            model, q[k], qd[k], qdd[k], f_ext[k]), pin_rnea_derivatives(
            oracle, q[k], qd[k], qdd[k], f_ext[k]), RNEA_NAMES)
        assert_all_close(reference_forward_dynamics_derivatives(
            model, q[k], qd[k], tau[k], f_ext[k]), pin_aba_derivatives(
            oracle, q[k], qd[k], tau[k], f_ext[k]), ABA_NAMES)
        assert_all_close(reference_linearize(model, q[k], qd[k], tau[k]),
                         pinocchio_model(model, oracle, q[k], qd[k], tau[k]),
                         ('A', 'B'))


def test_fast_equals_reference(robot):
    """Both paths agree on every output, external wrenches included."""
    model, _ = robot
    model = model.copy(damping=np.linspace(0.1, 0.7, model.nq),
                       armature=np.linspace(0.01, 0.05, model.nq))
    q, qd, qdd, tau, f_ext = random_batch(model, 64, count=3)
    for k in range(3):
        assert_all_close(
            dr.inverse_dynamics_derivatives(model, q[k], qd[k], qdd[k],
                                            f_ext[k]),
            reference_inverse_dynamics_derivatives(model, q[k], qd[k],
                                                   qdd[k], f_ext[k]),
            RNEA_NAMES)
        assert_all_close(
            dr.forward_dynamics_derivatives(model, q[k], qd[k], tau[k],
                                            f_ext[k]),
            reference_forward_dynamics_derivatives(model, q[k], qd[k],
                                                   tau[k], f_ext[k]),
            ABA_NAMES)
        assert_all_close(dr.linearize(model, q[k], qd[k], tau[k]),
                         reference_linearize(model, q[k], qd[k], tau[k]),
                         ('A', 'B'))


def test_armature_against_pinocchio():
    """Rotor inertia enters M, M^-1 and (A, B) as Pinocchio's armature."""
    model, oracle = with_armature(
        *oracle_for(example_arm_xml('kinova')), np.linspace(0.1, 0.4, 6))
    q, qd, qdd, tau, _ = random_batch(model, 65, count=2)
    assert_all_close(
        (dr.inverse_dynamics_derivatives(model, q, qd, qdd)[2][1],),
        pin_rnea_derivatives(oracle, q[1], qd[1], qdd[1])[2:], ('M',))
    assert_all_close(
        [part[1] for part in dr.forward_dynamics_derivatives(model, q, qd,
                                                             tau)],
        pin_aba_derivatives(oracle, q[1], qd[1], tau[1]), ABA_NAMES)
    assert_all_close(dr.linearize(model, q[0], qd[0], tau[0]),
                     pinocchio_model(model, oracle, q[0], qd[0], tau[0]),
                     ('A', 'B'))


def test_wrenches_change_the_derivatives():
    """f_ext moves dtau/dq (they turn with the bodies), and as Pinocchio."""
    model, oracle = oracle_for(example_arm_xml('ur5'))
    q, qd, qdd, _, f_ext = random_batch(model, 66, count=1)
    plain = dr.inverse_dynamics_derivatives(model, q[0], qd[0], qdd[0])
    loaded = dr.inverse_dynamics_derivatives(model, q[0], qd[0], qdd[0],
                                             f_ext[0].tolist())
    assert np.abs(loaded[0] - plain[0]).max() > 1e-2
    assert_close(loaded[1], plain[1])
    assert_all_close(loaded, pin_rnea_derivatives(
        oracle, q[0], qd[0], qdd[0], f_ext[0]), RNEA_NAMES)


def test_shared_arguments_and_wrenches_in_batches():
    """(nq,) arguments and (nq, 6) wrenches are shared by all N states."""
    model = dr.load_urdf(robot_urdf('puma560'))
    q, qd, qdd, tau, f_ext = random_batch(model, 67, count=4)
    batch = dr.inverse_dynamics_derivatives(model, q, qd[0], qdd, f_ext[1])
    ours = dr.forward_dynamics_derivatives(model, q[2], qd, tau[3])
    A, B = dr.linearize(model, q, qd, tau[0])
    for k in range(4):
        assert_all_close([part[k] for part in batch],
                         dr.inverse_dynamics_derivatives(
                             model, q[k], qd[0], qdd[k], f_ext[1]),
                         RNEA_NAMES)
        assert_all_close([part[k] for part in ours],
                         dr.forward_dynamics_derivatives(
                             model, q[2], qd[k], tau[3]), ABA_NAMES)
        assert_all_close((A[k], B[k]), dr.linearize(model, q[k], qd[k],
                                                    tau[0]), ('A', 'B'))
    assert np.abs(A[0] - A[1]).max() > 1e-3


def test_batch_shapes_and_any_array_like():
    """N = 0, 1, more; lists, ints and strided arrays are converted."""
    model = dr.load_urdf(robot_urdf('stanford_arm'))
    n = model.nq
    q, qd, qdd, tau, _ = random_batch(model, 68, count=3)
    for count in (0, 1, 3):
        parts = dr.inverse_dynamics_derivatives(model, q[:count],
                                                qd[:count], qdd[:count])
        assert [part.shape for part in parts] == [(count, n, n)] * 3
        parts = dr.forward_dynamics_derivatives(model, q[:count],
                                                qd[:count], tau[:count])
        assert [part.shape for part in parts] == [(count, n, n)] * 3
        A, B = dr.linearize(model, q[:count], qd[:count], tau[:count])
        assert A.shape == (count, 2 * n, 2 * n) and B.shape == (count,
                                                                2 * n, n)
    expected = dr.linearize(model, q[0], qd[0], tau[0])
    strided = np.repeat(q[0], 2)[::2]
    assert_all_close(dr.linearize(model, strided, list(qd[0]),
                                  tuple(tau[0])), expected, ('A', 'B'))
    zero = np.zeros(n, dtype=int)
    assert_all_close(dr.forward_dynamics_derivatives(model, zero, zero, zero),
                     dr.forward_dynamics_derivatives(
                         model, np.zeros(n), np.zeros(n), np.zeros(n)),
                     ABA_NAMES)


def test_discrete_batch_equals_single_calls():
    """A batch with dt: the zero-order hold of each state."""
    model = dr.load_urdf(example_arm_xml('z1'))
    q, qd, _, tau, _ = random_batch(model, 69, count=3)
    A_d, B_d = dr.linearize(model, q, qd, tau, dt=0.01)
    for k in range(3):
        assert_all_close((A_d[k], B_d[k]),
                         dr.linearize(model, q[k], qd[k], tau[k], dt=0.01),
                         ('A_d', 'B_d'))


def test_trajectory_equals_reference():
    """linearize_trajectory compiled equals its numpy reference."""
    model = dr.load_urdf(example_arm_xml('xarm7'))
    model = model.copy(damping=np.full(model.nq, 0.3))
    q, qd, qdd, _, _ = random_batch(model, 70, count=4)
    t = np.linspace(0.0, 0.3, 4)
    A, B, tau = dr.linearize_trajectory(model, t, q, qd, qdd)
    A_ref, B_ref, tau_ref = reference_linearize_trajectory(model, q, qd, qdd)
    assert_all_close((A, B, tau), (A_ref, B_ref, tau_ref), ('A', 'B', 'tau'))
    assert_close(tau[2], dr.inverse_dynamics(model, q[2], qd[2], qdd[2])
                 + model.damping * qd[2])


def test_any_body_numbering():
    """Bodies numbered breadth-first: the same Jacobians, permuted."""
    xml = generated_robots()[0][1]
    model = dr.load_urdf(xml)
    order, shuffled = breadth_first(model)
    q, qd, qdd, tau, _ = random_batch(model, 71, count=2)
    ix = np.ix_(order, order)
    ours = dr.inverse_dynamics_derivatives(shuffled, q[:, order],
                                           qd[:, order], qdd[:, order])
    expected = dr.inverse_dynamics_derivatives(model, q, qd, qdd)
    for name, a, b in zip(RNEA_NAMES, ours, expected):
        for k in range(2):
            assert_close(a[k], b[k][ix], what=name)
    ours = dr.forward_dynamics_derivatives(shuffled, q[1, order],
                                           qd[1, order], tau[1, order])
    expected = dr.forward_dynamics_derivatives(model, q[1], qd[1], tau[1])
    for name, a, b in zip(ABA_NAMES, ours, expected):
        assert_close(a, b[ix], what=name)


def test_singular_inertia_is_refused():
    """A massless model: ModelError, naming the state of a batch."""
    model = dr.load_urdf(robot_urdf('two_link_planar'))
    massless = model.copy(mass=np.zeros(model.nq),
                          inertia_com=np.zeros((model.nq, 3, 3)))
    zero = np.zeros(model.nq)
    named = 'joints shoulder, elbow move no mass or inertia'
    for function in (dr.forward_dynamics, dr.forward_dynamics_derivatives,
                     dr.linearize):
        with pytest.raises(dr.ModelError, match=named):
            function(massless, zero, zero, zero)
    # Point masses on the elbow's axis: that joint moves no mass.
    on_axis = model.copy(com=np.zeros((model.nq, 3)),
                         inertia_com=np.zeros((model.nq, 3, 3)))
    with pytest.raises(dr.ModelError, match='joints elbow move no mass'):
        dr.forward_dynamics(on_axis, zero, zero, zero)
    # One point mass on the forearm, none on the upper arm, placed so that
    # it sits on the shoulder axis at q = 0 only: M is singular there alone,
    # so only the factorization can tell, state by state.
    massless = model.copy(mass=[0.0, 1.5], com=[[0, 0, 0], [-1, 0, 0]],
                          inertia_com=np.zeros((model.nq, 3, 3)))
    with pytest.raises(dr.ModelError, match='state 0 of the batch'):
        dr.linearize(massless, np.zeros((2, model.nq)), zero, zero)
    with pytest.raises(dr.ModelError, match='state 0 of the batch'):
        dr.forward_dynamics_derivatives(massless, zero, np.zeros((3, 2)),
                                        zero)
    with pytest.raises(dr.ModelError, match='positive definite'):
        dr.linearize_trajectory(massless, [0.0, 0.1], np.zeros((2, 2)),
                                np.zeros((2, 2)), np.zeros((2, 2)))


def test_bad_shapes_name_the_argument():
    """Wrong sizes raise ValueError naming the argument, batches too."""
    model = dr.load_urdf(robot_urdf('puma560'))
    q, qd, qdd, tau, f_ext = random_batch(model, 72, count=3)
    with pytest.raises(ValueError, match='qdd must have 6 values'):
        dr.inverse_dynamics_derivatives(model, q[0], qd[0], qdd[0, :4])
    with pytest.raises(ValueError, match='qd has 2 samples'):
        dr.forward_dynamics_derivatives(model, q, qd[:2], tau)
    with pytest.raises(ValueError, match='f_ext'):
        dr.inverse_dynamics_derivatives(model, q, qd, qdd, f_ext[:2])
    with pytest.raises(ValueError, match='tau'):
        dr.linearize(model, q, qd, np.zeros((3, 5)))


def test_switching_the_compiled_path_off():
    """enable(False) runs the numpy reference, batches included."""
    model = dr.load_urdf(robot_urdf('puma560'))
    q, qd, qdd, tau, f_ext = random_batch(model, 73, count=3)
    compiled = (dr.inverse_dynamics_derivatives(model, q, qd, qdd, f_ext),
                dr.forward_dynamics_derivatives(model, q, qd, tau),
                dr.linearize(model, q, qd, tau))
    fast.enable(False)
    reference = (dr.inverse_dynamics_derivatives(model, q, qd, qdd, f_ext),
                 dr.forward_dynamics_derivatives(model, q, qd, tau),
                 dr.linearize(model, q, qd, tau))
    for ours, theirs in zip(compiled, reference):
        assert_all_close(ours, theirs, ('first', 'second', 'third'))
    empty = dr.linearize(model, q[:0], qd[:0], tau[:0])
    assert empty[0].shape == (0, 12, 12) and empty[1].shape == (0, 12, 6)


FALLBACK = """
import sys
sys.modules['numba'] = None  # as on a machine without numba
import numpy as np
import dynamics_ros as dr
from dynamics_ros import fast
model = dr.load_urdf(sys.argv[1])
q = np.load(sys.argv[2])
print(fast.AVAILABLE, fast.ENABLED)
parts = (dr.inverse_dynamics_derivatives(model, q, 0.5 * q, q[::-1])
         + dr.forward_dynamics_derivatives(model, q[0], q, q)
         + dr.linearize(model, q, q[1], q, dt=0.01))
np.save(sys.argv[3], np.concatenate([part.ravel() for part in parts]))
"""


def test_without_numba_the_numpy_path_runs(tmp_path):
    """Derivatives and linearize compute (batches too) without numba."""
    model = dr.load_urdf(robot_urdf('puma560'))
    q = random_batch(model, 74, count=3)[0]
    np.save(tmp_path / 'q.npy', q)
    result = subprocess.run(
        [sys.executable, '-c', FALLBACK, robot_urdf('puma560'),
         str(tmp_path / 'q.npy'), str(tmp_path / 'out.npy')],
        capture_output=True, text=True, timeout=120,
        env=dict(os.environ, PYTHONWARNINGS='ignore'))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ['False', 'False']
    parts = (dr.inverse_dynamics_derivatives(model, q, 0.5 * q, q[::-1])
             + dr.forward_dynamics_derivatives(model, q[0], q, q)
             + dr.linearize(model, q, q[1], q, dt=0.01))
    assert_close(np.load(tmp_path / 'out.npy'),
                 np.concatenate([part.ravel() for part in parts]))
