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
Properties of the dynamics that hold whatever the robot.

Also the closed-form cases: the planar two-link arm (Nasser's analytic
check, docs/papers/nasser_1990.md) and the static gravity torques of
Kane and Levinson's Stanford Arm (Eqs. 129-133, docs/papers/kane_1983.md).
"""

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.resources import robot_urdf
import numpy as np
from oracle import random_state
import pytest
from urdf_factory import random_urdf

SHIPPED = ['two_link_planar', 'puma560', 'stanford_arm']
MODELS = [(name, robot_urdf(name)) for name in SHIPPED] + [
    ('random_tree', random_urdf(21, n_movable=9, tree=True))]


@pytest.fixture(scope='module', params=MODELS, ids=[m[0] for m in MODELS])
def model(request):
    """Load a shipped or generated model."""
    return dr.load_urdf(request.param[1])


def test_mass_matrix_symmetric_positive_definite(model):
    """M(q) is symmetric with positive eigenvalues at random states."""
    rng = np.random.default_rng(7)
    for _ in range(50):
        M = dr.mass_matrix(model, random_state(model, rng)[0])
        assert_close(M, M.T)
        assert np.linalg.eigvalsh(M).min() > 0.0


def test_forward_inverts_inverse_dynamics(model):
    """forward_dynamics(q, qd, inverse_dynamics(q, qd, qdd)) == qdd."""
    rng = np.random.default_rng(8)
    for _ in range(50):
        q, qd, qdd, _ = random_state(model, rng)
        tau = dr.inverse_dynamics(model, q, qd, qdd)
        assert_close(dr.forward_dynamics(model, q, qd, tau), qdd)


def test_inverse_dynamics_is_m_qdd_plus_h(model):
    """Check tau = M(q) qdd + h(q, qd) and h = C qd + g."""
    rng = np.random.default_rng(9)
    for _ in range(20):
        q, qd, qdd, _ = random_state(model, rng)
        tau = dr.inverse_dynamics(model, q, qd, qdd)
        h = dr.bias_forces(model, q, qd)
        assert_close(tau, dr.mass_matrix(model, q) @ qdd + h)
        assert_close(h, dr.coriolis_matrix(model, q, qd) @ qd
                     + dr.gravity_torques(model, q))


def test_armature_adds_to_the_mass_matrix_diagonal(model):
    """Rotor inertia enters M's diagonal, ID and FD consistently."""
    heavy = model.copy(armature=np.linspace(0.1, 0.5, model.nq))
    rng = np.random.default_rng(10)
    q, qd, qdd, _ = random_state(model, rng)
    assert_close(dr.mass_matrix(heavy, q),
                 dr.mass_matrix(model, q) + np.diag(heavy.armature))
    tau = dr.inverse_dynamics(heavy, q, qd, qdd)
    assert_close(dr.forward_dynamics(heavy, q, qd, tau), qdd)


def two_link_reference(q, qd, qdd, g=9.81):
    """Textbook closed form of the shipped two-link arm (Nasser's check)."""
    l1, m1, m2 = 1.0, 2.0, 1.5
    lc1, lc2 = 0.5, 0.4
    I1, I2 = m1 * 1.0 ** 2 / 12, m2 * 0.8 ** 2 / 12
    c2, s2 = np.cos(q[1]), np.sin(q[1])
    M = np.array([
        [m1 * lc1 ** 2 + I1 + m2 * (l1 ** 2 + lc2 ** 2 + 2 * l1 * lc2 * c2)
         + I2, m2 * (lc2 ** 2 + l1 * lc2 * c2) + I2],
        [m2 * (lc2 ** 2 + l1 * lc2 * c2) + I2, m2 * lc2 ** 2 + I2]])
    c = np.array([-m2 * l1 * lc2 * s2 * (2 * qd[0] * qd[1] + qd[1] ** 2),
                  m2 * l1 * lc2 * s2 * qd[0] ** 2])
    gravity = np.array([
        (m1 * lc1 + m2 * l1) * g * np.cos(q[0])
        + m2 * lc2 * g * np.cos(q[0] + q[1]),
        m2 * lc2 * g * np.cos(q[0] + q[1])])
    return M, c, gravity


def test_two_link_planar_closed_form():
    """M, Coriolis and gravity of the two-link arm equal the closed form."""
    model = dr.load_urdf(robot_urdf('two_link_planar'))
    rng = np.random.default_rng(11)
    for _ in range(50):
        q, qd, qdd, tau = random_state(model, rng)
        M, c, g = two_link_reference(q, qd, qdd)
        assert_close(dr.mass_matrix(model, q), M)
        assert_close(dr.gravity_torques(model, q), g)
        assert_close(dr.bias_forces(model, q, qd), c + g)
        assert_close(dr.forward_dynamics(model, q, qd, tau),
                     np.linalg.solve(M, tau - c - g))


KANE_MASSES = dict(C=4.0, D=1.0, E=0.6, F=0.5)
KANE_LENGTHS = dict(L2=0.6, L3=0.2, L5=0.7, L6=0.06)


def kane_static_torques(kane_q, g=9.81):
    """
    Return Kane & Levinson's static torques, Eqs. 129-133 with u = 0.

    ``kane_q`` is (q1..q6) in the paper's numbering; the result is
    (tau1..tau5, sigma) with the paper's signs (docs/papers/kane_1983.md).
    """
    q1, q2, q3, q4, q5, q6 = kane_q
    m, L = KANE_MASSES, KANE_LENGTHS
    s2, c2, s3, c3 = np.sin(q2), np.cos(q2), np.sin(q3), np.cos(q3)
    s4, c4 = np.sin(q4), np.cos(q4)
    wrist = m['E'] * L['L6'] + m['F'] * L['L3']
    return np.array([
        0.0,
        g * (((m['C'] + m['D']) * q6 + m['D'] * L['L5']) * s2
             + wrist * (c4 * s2 + c3 * s4 * c2)
             + (m['E'] + m['F']) * (q6 + L['L2']) * s2),
        -g * wrist * s2 * s3 * s4,
        g * wrist * (c2 * s4 + s2 * c3 * c4),
        0.0,
        -g * (m['C'] + m['D'] + m['E'] + m['F']) * c2])


def to_model_torques(kane_tau):
    """
    Map the paper's (tau1..tau5, sigma) to this model's joint torques.

    Model joints are q1, q2, q6, q3, q4, q5 along the chain; tau2..tau5 and
    sigma act on the inboard body, so the joint torques are their negatives.
    """
    t1, t2, t3, t4, t5, sigma = kane_tau
    return np.array([t1, -t2, -sigma, -t3, -t4, -t5])


def test_stanford_arm_static_gravity_torques():
    """Gravity torques equal Kane & Levinson's Eqs. 129-133 (u = 0)."""
    model = dr.load_urdf(robot_urdf('stanford_arm'))
    # Two poses worked from the paper's formulas (g = 9.81; values in
    # docs/papers/kane_1983.md): tau2 and tau4, then tau2, tau3, tau4, sigma.
    q = np.array([0.0, np.pi / 2, 0.0, 0.0, 0.0, 0.0])
    assert_close(dr.gravity_torques(model, q),
                 [0.0, -14.675760, 0.0, 0.0, -1.334160, 0.0], rtol=1e-7)
    kane = np.array([np.pi / 3] * 5 + [0.1])
    q = kane[[0, 1, 5, 2, 3, 4]]
    assert_close(dr.gravity_torques(model, q),
                 [0.0, -17.603109, 29.920500, 0.866562, -0.866562, 0.0],
                 rtol=1e-7)
    # Those values have 6-7 significant digits: hence 1e-7 above.  At
    # random poses the closed form itself is the reference, to 1e-9.
    rng = np.random.default_rng(12)
    for _ in range(50):
        kane = np.concatenate((rng.uniform(-np.pi, np.pi, 5),
                               rng.uniform(-0.3, 0.3, 1)))
        q = kane[[0, 1, 5, 2, 3, 4]]
        assert_close(dr.gravity_torques(model, q),
                     to_model_torques(kane_static_torques(kane)))


def test_puma560_zero_pose_gravity_matches_published_value():
    """g(0) of the PUMA 560 is the toolbox's [0 37.4837 0.2489 0 0 0]."""
    model = dr.load_urdf(robot_urdf('puma560'))
    # The published value has four decimals: tolerance 1e-4 absolute.
    assert np.allclose(dr.gravity_torques(model, np.zeros(6)),
                       [0.0, 37.4837, 0.2489, 0.0, 0.0, 0.0], atol=1e-4)
