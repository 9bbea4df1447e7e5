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
The compiled Coriolis matrix (``fast/coriolis.py``) against two oracles.

Pinocchio's computeCoriolisMatrix (1e-9 relative) and our numpy reference
(``reference_coriolis_matrix``, 1e-12: the same quantity by another route,
Jacobians and root-frame inertias instead of subtree sums), one state and
batches, on arms, generated trees and chains, and a MimicModel, whose C is
G^T C_tree G of Pinocchio's C of the unreduced tree.
"""

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros import fast
from dynamics_ros.dynamics.coriolis import reference_coriolis_matrix
from dynamics_ros.model.mimic_model import MimicModel
import numpy as np
from oracle import example_arm_xml, oracle_for, random_state
import pytest
from urdf_factory import random_urdf, serial_chain_urdf

pytest.importorskip('numba')

STATES = 6
ROBOTS = {
    'panda': lambda: example_arm_xml('panda'),
    'ur5': lambda: example_arm_xml('ur5'),
    'tree_mixed': lambda: random_urdf(11, n_movable=8, tree=True),
    'chain_prismatic': lambda: random_urdf(12, n_movable=6,
                                           continuous=False),
    'tree_16': lambda: random_urdf(22, n_movable=16, tree=True),
    'chain_33': lambda: serial_chain_urdf(33, seed=33),
}


@pytest.fixture(autouse=True)
def compiled_path_on():
    """Run every test with the compiled path on, whatever came before."""
    previous = fast.enable(True)
    yield
    fast.enable(previous)


@pytest.fixture(scope='module', params=sorted(ROBOTS))
def robot(request):
    """(model, oracle) of one robot."""
    return oracle_for(ROBOTS[request.param]())


def batch(model, seed, count=STATES):
    """Return q, qd of ``count`` random states, stacked."""
    rng = np.random.default_rng(seed)
    rows = [random_state(model, rng) for _ in range(count)]
    return np.array([row[0] for row in rows]), np.array([row[1]
                                                        for row in rows])


def test_the_compiled_kernel_runs():
    """coriolis_matrix reaches fast.coriolis (not the numpy path)."""
    model = oracle_for(example_arm_xml('panda'))[0]
    q, qd = batch(model, 0, 1)
    dr.coriolis_matrix(model, q[0], qd[0])
    assert fast.coriolis.coriolis_kernel.signatures
    assert model.packed_model is not None


def test_equals_pinocchio_and_the_numpy_reference(robot):
    """One state at a time: Pinocchio at 1e-9, numpy reference at 1e-12."""
    model, oracle = robot
    q, qd = batch(model, 1)
    for k in range(STATES):
        C = dr.coriolis_matrix(model, q[k], qd[k])
        assert_close(C, oracle.coriolis(q[k], qd[k]), what='state %d' % k)
        assert_close(C, reference_coriolis_matrix(model, q[k], qd[k]),
                     rtol=1e-12, what='reference, state %d' % k)
    # Not the zero matrix, nor symmetric (dM/dt - 2C is skew instead).
    assert np.abs(C).max() > 1e-3 and np.abs(C - C.T).max() > 1e-3


def test_batches_equal_pinocchio(robot):
    """(N, nq) arguments give (N, nq, nq), a shared (nq,) qd too."""
    model, oracle = robot
    q, qd = batch(model, 2)
    C = dr.coriolis_matrix(model, q, qd)
    shared = dr.coriolis_matrix(model, q, qd[0])
    assert C.shape == (STATES, model.nq, model.nq)
    for k in range(STATES):
        assert_close(C[k], oracle.coriolis(q[k], qd[k]), what='state %d' % k)
        assert_close(shared[k], oracle.coriolis(q[k], qd[0]),
                     what='shared qd, state %d' % k)
    assert np.abs(C[0] - C[1]).max() > 1e-6


def test_c_times_qd_is_the_velocity_torque(robot):
    """C qd = h - g (the kernel shares no code with bias_forces' RNEA)."""
    model, _ = robot
    q, qd = batch(model, 3)
    C = dr.coriolis_matrix(model, q, qd)
    assert_close(np.einsum('kij,kj->ki', C, qd),
                 dr.bias_forces(model, q, qd) - dr.gravity_torques(model, q))


def test_a_mimic_model_is_the_projection_of_pinocchio():
    """MimicModel: G^T C_tree G, with Pinocchio's C of the tree."""
    tree, oracle = oracle_for(example_arm_xml('panda'))
    model = MimicModel(tree, {'panda_joint7': ('panda_joint5', -0.5, 0.1),
                              'panda_joint5': ('panda_joint3', 2.0, -0.2)})
    rng = np.random.default_rng(4)
    q = rng.uniform(-0.5, 0.5, (STATES, model.nq))
    qd = rng.uniform(-2.0, 2.0, (STATES, model.nq))
    C = dr.coriolis_matrix(model, q, qd)
    G = model.G
    for k in range(STATES):
        expected = G.T @ oracle.coriolis(model.full_positions(q[k]),
                                         model.full_velocities(qd[k])) @ G
        assert_close(C[k], expected, what='state %d' % k)
        assert_close(dr.coriolis_matrix(model, q[k], qd[k]), expected,
                     what='one state %d' % k)


def test_bad_arguments_are_refused():
    """Wrong shapes raise ValueError naming the argument."""
    model = oracle_for(example_arm_xml('ur5'))[0]
    with pytest.raises(ValueError, match='qd must have 6 values'):
        dr.coriolis_matrix(model, np.zeros(6), np.zeros(5))
    with pytest.raises(ValueError, match='samples'):
        dr.coriolis_matrix(model, np.zeros((3, 6)), np.zeros((2, 6)))
