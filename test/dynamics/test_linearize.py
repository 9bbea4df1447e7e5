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
dr.linearize and dr.linearize_trajectory.

(A, B) for x = [q; qd], u = tau against central differences of
``forward_dynamics`` (with the damping torque -damping * qd the linear model
includes) and against Pinocchio's computeABADerivatives; the discrete model
against ``scipy.signal.cont2discrete(..., 'zoh')``.
"""

from conftest import assert_close, central_difference
import dynamics_ros as dr
from dynamics_ros.resources import robot_urdf
import numpy as np
from oracle import example_arm_xml, oracle_for, pinocchio_model, random_state, \
    with_armature
import pytest
from robot_sets import robot_sources
from scipy.signal import cont2discrete
from urdf_factory import random_urdf

ROBOTS = robot_sources()


@pytest.fixture(scope='module', params=ROBOTS, ids=[r[0] for r in ROBOTS])
def robot(request):
    """(model, oracle) for one robot."""
    return oracle_for(request.param[1])


def state_derivative(model, x, tau):
    """dx/dt = [qd; qdd] with the damping torque the linearization models."""
    n = model.nq
    q, qd = x[:n], x[n:]
    return np.concatenate((qd, dr.forward_dynamics(
        model, q, qd, tau - model.damping * qd)))


def finite_difference_model(model, q, qd, tau):
    """Return (A, B) by central differences of forward_dynamics."""
    x = np.concatenate((q, qd))
    A = central_difference(lambda y: state_derivative(model, y, tau), x)
    B = central_difference(lambda u: state_derivative(model, x, u), tau)
    return A, B


def test_linearize_matches_pinocchio(robot):
    """A and B equal Pinocchio's ABA derivatives (1e-9) at random states."""
    model, oracle = robot
    rng = np.random.default_rng(50)
    for _ in range(3):
        q, qd, _, tau = random_state(model, rng)
        A, B = dr.linearize(model, q, qd, tau)
        A_pin, B_pin = pinocchio_model(model, oracle, q, qd, tau)
        assert_close(A[model.nq:], A_pin[model.nq:], what='A')
        assert_close(B, B_pin, what='B')
        assert np.array_equal(A[:model.nq], A_pin[:model.nq])


def test_linearize_matches_finite_differences(robot):
    """
    A and B equal central differences of forward_dynamics (1e-6).

    Step 1e-6: truncation and rounding errors stay near 1e-9 relative,
    well inside the issue's 1e-6.
    """
    model, _ = robot
    rng = np.random.default_rng(51)
    q, qd, _, tau = random_state(model, rng)
    A, B = dr.linearize(model, q, qd, tau)
    A_fd, B_fd = finite_difference_model(model, q, qd, tau)
    assert_close(A, A_fd, 1e-6, what='A')
    assert_close(B, B_fd, 1e-6, what='B')


def test_damping_and_armature_enter_the_model():
    """Both change A and B, and the result still matches differences."""
    model = dr.load_urdf(random_urdf(52, n_movable=5, tree=True))
    n = model.nq
    rng = np.random.default_rng(52)
    q, qd, _, tau = random_state(model, rng)
    A0, B0 = dr.linearize(model, q, qd, tau)
    damped = model.copy(damping=np.linspace(0.5, 2.5, n),
                        armature=np.linspace(0.05, 0.3, n))
    A, B = dr.linearize(damped, q, qd, tau)
    assert np.abs(A - A0).max() > 1e-2 and np.abs(B - B0).max() > 1e-3
    A_fd, B_fd = finite_difference_model(damped, q, qd, tau)
    assert_close(A, A_fd, 1e-6, what='A')
    assert_close(B, B_fd, 1e-6, what='B')
    # At rest the only velocity feedback is the damping: -M^-1 D.
    zero = np.zeros(n)
    g = dr.gravity_torques(damped, q)
    A, B = dr.linearize(damped, q, zero, g)
    M = dr.mass_matrix(damped, q)
    assert_close(A[n:, n:], -np.linalg.solve(M, np.diag(damped.damping)))
    assert_close(B[n:], np.linalg.inv(M))


def test_armature_against_pinocchio():
    """Rotor inertia in A and B as in Pinocchio's model.armature."""
    model, oracle = with_armature(
        *oracle_for(example_arm_xml('xarm7')), np.full(7, 0.2))
    rng = np.random.default_rng(53)
    q, qd, _, tau = random_state(model, rng)
    A, B = dr.linearize(model, q, qd, tau)
    A_pin, B_pin = pinocchio_model(model, oracle, q, qd, tau)
    assert_close(A[model.nq:], A_pin[model.nq:], what='A')
    assert_close(B, B_pin, what='B')


def test_zero_order_hold_matches_cont2discrete():
    """A_d, B_d equal scipy.signal.cont2discrete(..., 'zoh')."""
    model = dr.load_urdf(example_arm_xml('panda'))
    n = model.nq
    rng = np.random.default_rng(54)
    q, qd, _, tau = random_state(model, rng)
    A, B = dr.linearize(model, q, qd, tau)
    for dt in (1e-3, 0.01, 0.1):
        A_d, B_d = dr.linearize(model, q, qd, tau, dt=dt)
        expected = cont2discrete(
            (A, B, np.eye(2 * n), np.zeros((2 * n, n))), dt, method='zoh')
        assert_close(A_d, expected[0], what='A_d')
        assert_close(B_d, expected[1], what='B_d')
    # First order in dt: A_d = I + A dt + O(dt^2).
    A_d, B_d = dr.linearize(model, q, qd, tau, dt=1e-6)
    assert_close((A_d - np.eye(2 * n)) / 1e-6, A, 1e-5)


def test_linear_model_predicts_a_perturbed_motion():
    """
    One ZOH step of the linear model predicts the nonlinear step.

    About an equilibrium (qd = 0, tau = g(q)) the only error is second order
    in the 1e-4 perturbation: the bound is 1e-4 of the response.  About a
    moving state A(t) also varies along the nominal path within the step, an
    error of order dt^2 dA/dt: with dt = 1 ms the bound is 1 %.
    """
    model = dr.load_urdf(robot_urdf('puma560'))
    n = model.nq
    rng = np.random.default_rng(55)
    q, qd, _, tau = random_state(model, rng)
    cases = [(np.zeros(n), dr.gravity_torques(model, q), 1e-2, 1e-4),
             (qd, tau, 1e-3, 1e-2)]
    for velocity, torque, dt, bound in cases:
        x0 = np.concatenate((q, velocity))
        dx = 1e-4 * rng.normal(size=2 * n)
        du = 1e-4 * rng.normal(size=n)
        actual = (runge_kutta(model, x0 + dx, torque + du, dt)
                  - runge_kutta(model, x0, torque, dt))
        A_d, B_d = dr.linearize(model, q, velocity, torque, dt=dt)
        error = np.linalg.norm(A_d @ dx + B_d @ du - actual)
        assert error < bound * np.linalg.norm(actual)


def runge_kutta(model, x, tau, duration, steps=100):
    """Integrate dx/dt = f(x, tau) over ``duration`` (classical RK4)."""
    h = duration / steps
    for _ in range(steps):
        k1 = state_derivative(model, x, tau)
        k2 = state_derivative(model, x + h / 2 * k1, tau)
        k3 = state_derivative(model, x + h / 2 * k2, tau)
        k4 = state_derivative(model, x + h * k3, tau)
        x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return x


def test_linearize_trajectory():
    """A(t), B(t) and tau(t) along a trajectory, continuous and discrete."""
    model = dr.load_urdf(example_arm_xml('z1'))
    n = model.nq
    t = np.linspace(0.0, 1.0, 6) ** 1.5
    phase = np.outer(t, np.linspace(1.0, 2.0, n)) + 0.3
    q, qd, qdd = np.sin(phase), np.cos(phase), -np.sin(phase)
    A, B, tau = dr.linearize_trajectory(model, t, q, qd, qdd)
    assert A.shape == (6, 2 * n, 2 * n) and B.shape == (6, 2 * n, n)
    for k in range(t.size):
        # The torques reproduce the motion through damped forward dynamics.
        assert_close(tau[k], dr.inverse_dynamics(model, q[k], qd[k], qdd[k])
                     + model.damping * qd[k], what='tau')
        assert_close(dr.forward_dynamics(
            model, q[k], qd[k], tau[k] - model.damping * qd[k]), qdd[k])
        A_k, B_k = dr.linearize(model, q[k], qd[k], tau[k])
        assert_close(A[k], A_k, what='A')
        assert_close(B[k], B_k, what='B')
    A_d, B_d, tau_d = dr.linearize_trajectory(model, t, q, qd, qdd,
                                              discrete=True)
    assert A_d.shape == (5, 2 * n, 2 * n) and B_d.shape == (5, 2 * n, n)
    assert_close(tau_d, tau)
    for k, dt in enumerate(np.diff(t)):
        A_k, B_k = dr.linearize(model, q[k], qd[k], tau[k], dt=dt)
        assert_close(A_d[k], A_k, what='A_d')
        assert_close(B_d[k], B_k, what='B_d')


def test_bad_input_is_named():
    """Bad dt, shapes and sample times raise ValueError saying what."""
    model = dr.load_urdf(robot_urdf('two_link_planar'))
    zero = np.zeros(model.nq)
    for dt in (0.0, -0.1, np.nan):
        with pytest.raises(ValueError, match='dt'):
            dr.linearize(model, zero, zero, zero, dt=dt)
    with pytest.raises(ValueError, match='tau'):
        dr.linearize(model, zero, zero, np.zeros(3))
    # Hanging down is stable, upright is not: over 1e9 s it overflows.
    upright = np.array([np.pi / 2, 0.0])
    with pytest.raises(ValueError, match=r'dt = 1e\+09 s is too long a '
                                         'zero-order hold'):
        dr.linearize(model, upright, zero, zero, dt=1e9)
    samples = np.zeros((3, model.nq))
    with pytest.raises(ValueError, match='increasing'):
        dr.linearize_trajectory(model, [0.0, 0.2, 0.1], samples, samples,
                                samples)
    with pytest.raises(ValueError, match='qd must have shape'):
        dr.linearize_trajectory(model, [0.0, 0.1, 0.2], samples,
                                samples[:2], samples)
    with pytest.raises(ValueError, match='two sample times'):
        dr.linearize_trajectory(model, [0.0], samples[:1], samples[:1],
                                samples[:1], discrete=True)


def identified_friction(model, rng):
    """Return a JointFriction with every joint's viscous and Coulomb terms."""
    from dynamics_ros.dynamics.friction import JointFriction
    return JointFriction(model.joint_names,
                         rng.uniform(0.1, 2.0, model.nq),
                         rng.uniform(0.2, 3.0, model.nq),
                         rng.uniform(-0.5, 0.5, model.nq), smoothing=0.05)


def test_friction_slope_is_the_derivative_of_the_torque():
    """slope(qd) equals central differences of torque(qd) (1e-7)."""
    model = dr.load_urdf(example_arm_xml('panda'))
    rng = np.random.default_rng(60)
    friction = identified_friction(model, rng)
    for qd in (rng.uniform(-0.1, 0.1, model.nq), np.zeros(model.nq),
               rng.uniform(-2.0, 2.0, model.nq)):
        step = 1e-7
        expected = (friction.torque(qd + step) - friction.torque(
            qd - step)) / (2 * step)
        assert_close(friction.slope(qd), expected, 1e-7, what='slope')
    # At rest the Coulomb term is as steep as coulomb / smoothing.
    assert_close(friction.slope(np.zeros(model.nq)), friction.viscous
                 + friction.coulomb / 0.05, what='slope at rest')


def test_linearize_with_friction_matches_pinocchio(robot):
    """
    Identified friction: A equals Pinocchio's ABA derivatives at tau - f.

    Oracle: computeABADerivatives at the torque left after friction gives
    dqdd/dq; dqdd/dqd loses M^-1 diag(df/dqd), df/dqd checked above by
    differences; B is M^-1 unchanged.  Near rest (0.02 rad/s) the Coulomb
    slope dominates, so a wrong velocity block cannot pass.
    """
    from dynamics_ros.dynamics.linearize import linearize_with_friction, \
        zero_order_hold
    model, oracle = robot
    rng = np.random.default_rng(61)
    friction = identified_friction(model, rng)
    n = model.nq
    for speed in (2.0, 0.02):
        q, qd, _, tau = random_state(model, rng)
        qd = qd * speed / 2.0
        A, B = linearize_with_friction(model, q, qd, tau, friction)
        effective = tau - friction.torque(qd, offset=False)
        A_pin, B_pin = pinocchio_model(model, oracle, q, qd, effective)
        A_pin[n:, n:] -= B_pin[n:] * friction.slope(qd)
        assert_close(A, A_pin, what='A with friction')
        assert_close(B, B_pin, what='B with friction')
        assert not np.allclose(A, dr.linearize(model, q, qd, tau)[0])
    A_d, B_d = linearize_with_friction(model, q, qd, tau, friction, dt=0.01)
    expected = zero_order_hold(A, B, 0.01)
    assert_close(A_d, expected[0], what='discrete A')
    assert_close(B_d, expected[1], what='discrete B')
