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
The dynamics core against Pinocchio, 200 random states per robot.

Robots: example-robot-data's arms (Panda cut at the hand, UR5, UR10,
Kinova, xArm7, Z1) and generated URDFs with branching trees, prismatic and
continuous joints, rotated joint and inertial frames and fixed-joint chains.
Joints are matched by name, so any difference in ordering is caught too.
"""

from conftest import assert_close
import dynamics_ros as dr
import numpy as np
from oracle import example_arm_xml, EXAMPLE_ARMS, oracle_for, random_state
import pytest
from robot_sets import generated_robots

STATES = 200


ROBOTS = [(name, None) for name in EXAMPLE_ARMS] + generated_robots()


@pytest.fixture(scope='module', params=ROBOTS, ids=[r[0] for r in ROBOTS])
def robot(request):
    """(model, oracle) for one robot."""
    name, xml = request.param
    return oracle_for(xml if xml is not None else example_arm_xml(name))


def test_features_are_exercised():
    """The generated robots really contain what the oracle test claims."""
    models = [dr.load_urdf(xml) for _, xml in generated_robots()]
    assert any((m.parent[1:] != np.arange(m.nq - 1)).any() for m in models)
    assert any((m.joint_type == dr.PRISMATIC).any() for m in models)
    assert any(m.continuous.any() for m in models)
    assert any(len(m.frames) > m.nq + 1 for m in models)  # fixed links


def test_inverse_dynamics_matches_pinocchio(robot):
    """RNEA with and without external wrenches equals pin.rnea."""
    model, oracle = robot
    rng = np.random.default_rng(1)
    for k in range(STATES):
        q, qd, qdd, _ = random_state(model, rng)
        assert_close(dr.inverse_dynamics(model, q, qd, qdd),
                     oracle.rnea(q, qd, qdd), what='tau state %d' % k)
    f_ext = rng.normal(size=(model.nq, 6))
    assert_close(dr.inverse_dynamics(model, q, qd, qdd, f_ext),
                 oracle.rnea(q, qd, qdd, f_ext), what='tau with f_ext')


def test_mass_matrix_matches_pinocchio(robot):
    """CRBA equals pin.crba (upper triangle mirrored)."""
    model, oracle = robot
    rng = np.random.default_rng(2)
    for k in range(STATES):
        q = random_state(model, rng)[0]
        assert_close(dr.mass_matrix(model, q), oracle.crba(q),
                     what='M state %d' % k)


def test_forward_dynamics_matches_pinocchio(robot):
    """ABA with and without external wrenches equals pin.aba."""
    model, oracle = robot
    rng = np.random.default_rng(3)
    for k in range(STATES):
        q, qd, _, tau = random_state(model, rng)
        assert_close(dr.forward_dynamics(model, q, qd, tau),
                     oracle.aba(q, qd, tau), what='qdd state %d' % k)
    f_ext = rng.normal(size=(model.nq, 6))
    assert_close(dr.forward_dynamics(model, q, qd, tau, f_ext),
                 oracle.aba(q, qd, tau, f_ext), what='qdd with f_ext')


def test_gravity_and_bias_match_pinocchio(robot):
    """g(q) and h(q, qd) equal Pinocchio's generalized gravity and NLE."""
    model, oracle = robot
    rng = np.random.default_rng(4)
    for k in range(STATES):
        q, qd, _, _ = random_state(model, rng)
        assert_close(dr.gravity_torques(model, q), oracle.gravity(q),
                     what='g state %d' % k)
        assert_close(dr.bias_forces(model, q, qd), oracle.bias(q, qd),
                     what='h state %d' % k)


def mass_matrix_rate(model, q, qd, step=1e-3):
    """
    Return dM/dt along qd by a fourth-order central difference.

    The truncation error is O(step^4) ~ 1e-12 relative and the round-off
    O(eps / step) ~ 1e-13, both far below the 1e-9 the test asks for.
    """
    def M(s):
        return dr.mass_matrix(model, q + s * qd)
    return (M(-2 * step) - 8 * M(-step) + 8 * M(step) - M(2 * step)) / (
        12 * step)


def test_coriolis_matrix_properties(robot):
    """C qd = h - g, dM/dt - 2C skew-symmetric, C equals Pinocchio's."""
    model, oracle = robot
    rng = np.random.default_rng(5)
    for k in range(20):
        q, qd, _, _ = random_state(model, rng)
        C = dr.coriolis_matrix(model, q, qd)
        h_minus_g = dr.bias_forces(model, q, qd) - dr.gravity_torques(
            model, q)
        assert_close(C @ qd, h_minus_g, what='C qd state %d' % k)
        assert_close(C, oracle.coriolis(q, qd), what='C state %d' % k)
        M_dot = mass_matrix_rate(model, q, qd)
        N = M_dot - 2 * C
        assert_close(N + N.T, np.zeros_like(N), what='skew state %d' % k,
                     scale=np.abs(M_dot).max())
