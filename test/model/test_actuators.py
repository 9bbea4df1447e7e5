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
Geared DC motors at the joints: the 3M-state model with voltage input.

Oracles: central differences of the plant's state derivative (1e-6:
step 1e-6 on states of order 1); the analytic first-order current of a
locked rotor, i = V/R (1 - exp(-R t / L)) (1e-6); the textbook motor on a
pure inertia written out here, integrated exactly with expm (1e-8); the
feed-forward voltage driving the plant along its nominal motion (RK4 at
0.2 ms over 0.3 s: 1e-6 rad).
"""

from conftest import assert_close, single_joint, textbook_motor
import dynamics_ros as dr
from dynamics_ros.dynamics.actuated import actuated_state_derivative, \
    hand_state_model, linearize_actuated, nominal_voltage, reflected_model
from dynamics_ros.errors import ModelError
from dynamics_ros.model.actuators import load_actuators, \
    motors_from_mapping
from dynamics_ros.resources import robot_urdf
import numpy as np
from oracle import example_arm_xml
import pytest
from scipy.linalg import expm
from urdf_factory import random_urdf

MOTOR = dict(gear_ratio=50.0, rotor_inertia=2e-5, torque_constant=0.06,
             back_emf=0.06, resistance=1.5, inductance=2e-3, damping=1e-5)


def motors_for(model, scale=1.0):
    """Return the same motor at every joint, gear ratios varied per joint."""
    spec = {}
    for k, name in enumerate(model.joint_names):
        entry = dict(MOTOR)
        entry['gear_ratio'] = scale * MOTOR['gear_ratio'] * (1 + 0.2 * k)
        spec[name] = entry
    return motors_from_mapping(spec, model.joint_names)


def rk4(f, x, h, steps, t0=0.0):
    """Integrate dx/dt = f(t, x); return the final state."""
    t = t0
    for _ in range(steps):
        k1 = f(t, x)
        k2 = f(t + h / 2, x + h / 2 * k1)
        k3 = f(t + h / 2, x + h / 2 * k2)
        k4 = f(t + h, x + h * k3)
        x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += h
    return x


def test_linearization_equals_central_differences_of_the_plant():
    """A and B (eqs. 2-241 to 2-252) on Panda with motors (1e-6)."""
    model = dr.load_urdf(example_arm_xml('panda'))
    motors = motors_for(model)
    rng = np.random.default_rng(30)
    n = model.nq
    q, qd = rng.uniform(-1.0, 1.0, (2, n))
    i, V = rng.uniform(-2.0, 2.0, (2, n))
    A, B = linearize_actuated(model, motors, q, qd, i)
    x = np.concatenate((q, qd, i))
    eps = 1e-6
    A_fd = np.array([
        (actuated_state_derivative(model, motors, x + eps * e, V)
         - actuated_state_derivative(model, motors, x - eps * e, V))
        / (2 * eps) for e in np.eye(3 * n)]).T
    B_fd = np.array([
        (actuated_state_derivative(model, motors, x, V + eps * e)
         - actuated_state_derivative(model, motors, x, V - eps * e))
        / (2 * eps) for e in np.eye(n)]).T
    assert_close(A, A_fd, 1e-6)
    assert_close(B, B_fd, 1e-6)
    # Freeman's blocks: F33 = -R/L, G31 = 1/L, F32 = -k_e n / L.
    assert_close(np.diag(A[2 * n:, 2 * n:]), np.full(n, -1.5 / 2e-3))
    assert_close(np.diag(B[2 * n:]), np.full(n, 1.0 / 2e-3))
    assert_close(np.diag(A[2 * n:, n:2 * n]),
                 -0.06 * motors.gear_ratio / 2e-3)


def test_step_response_at_a_locked_joint_is_first_order():
    """
    A locked joint (a 1e12 kg m^2 load): i = V/R (1 - exp(-R t / L)).

    The simulated plant (RK4, h = L/R / 200) against the analytic
    electrical time constant L/R, at 1, 2 and 5 time constants.
    """
    model = single_joint(1e12)
    motors = motors_from_mapping({'joint': MOTOR}, ['joint'])
    V = np.array([12.0])
    tau_e = MOTOR['inductance'] / MOTOR['resistance']
    h = tau_e / 200
    reflected = reflected_model(model, motors)
    x = np.zeros(3)
    elapsed = 0
    for multiple in (1, 2, 5):
        steps = 200 * multiple - elapsed
        x = rk4(lambda t, s: actuated_state_derivative(
            model, motors, s, V, reflected), x, h, steps)
        elapsed += steps
        expected = 12.0 / 1.5 * (1 - np.exp(-multiple))
        assert abs(x[2] - expected) <= 1e-6 * (12.0 / 1.5)
    assert abs(x[1]) < 1e-9                    # the joint did not move


def test_motor_on_an_inertia_equals_the_textbook_equations():
    """
    Free joint: the plant equals J_tot w_dot = n k_t i - n^2 b_m w.

    With L i_dot = V - R i - k_e n w and J_tot = J_load + n^2 J_m (the
    rotor reflected through the gear, eq. 2-233), solved exactly by expm.
    """
    load = 0.3
    model = single_joint(load)
    motors = motors_from_mapping({'joint': MOTOR}, ['joint'])
    A, B = textbook_motor(MOTOR, load)
    V = 6.0
    T = 0.05
    augmented = np.zeros((4, 4))
    augmented[:3, :3], augmented[:3, 3] = A, B * V
    expected = expm(augmented * T)[:3, 3]
    reflected = reflected_model(model, motors)
    x = rk4(lambda t, s: actuated_state_derivative(
        model, motors, s, np.array([V]), reflected), np.zeros(3), 1e-5,
        int(round(T / 1e-5)))
    assert_close(x, expected, 1e-8)
    A_lin, B_lin = linearize_actuated(model, motors, [0.0], [0.0], [0.0])
    assert_close(A_lin, A)
    assert_close(B_lin[:, 0], B)


def test_nominal_voltage_drives_the_plant_along_the_motion():
    """
    Freeman's feed-forward voltage (eqs. 2-237 to 2-240) on a 2-link arm.

    q(t) = q0 + a sin(w t): the voltages from q, qd, qdd and the jerk,
    fed to the plant from the nominal state, keep it on q(t) (open loop,
    RK4 at 0.2 ms, 0.3 s).
    """
    model = dr.load_urdf(robot_urdf('two_link_planar'))
    motors = motors_for(model)
    q0, a, w = np.array([0.3, -0.5]), np.array([0.4, 0.6]), \
        np.array([3.0, 5.0])

    def motion(t):
        s, c = np.sin(w * t), np.cos(w * t)
        return (q0 + a * s, a * w * c, -a * w * w * s, -a * w ** 3 * c)

    def voltage(t):
        return nominal_voltage(model, motors, *motion(t))[0]

    reflected = reflected_model(model, motors)
    q, qd, _, _ = motion(0.0)
    i0 = nominal_voltage(model, motors, *motion(0.0))[1]
    x = rk4(lambda t, s: actuated_state_derivative(
        model, motors, s, voltage(t), reflected),
        np.concatenate((q, qd, i0)), 2e-4, 1500)
    q_end, qd_end, _, _ = motion(0.3)
    assert np.abs(x[:2] - q_end).max() < 1e-6
    assert np.abs(x[2:4] - qd_end).max() < 1e-5
    # The jerk term matters: without it (L i_dot = 0) the arm drifts off.
    assert np.abs(voltage(0.1) - nominal_voltage(
        model, motors, *motion(0.1)[:3], np.zeros(2))[0]).max() > 1e-3


def test_yaml_and_bad_values_are_named():
    """A YAML beside the URDF loads; each bad entry names joint and key."""
    model = dr.load_urdf(robot_urdf('two_link_planar'))
    lines = ['actuators:']
    for name in model.joint_names:
        lines.append('  %s: {gear_ratio: 30, rotor_inertia: 1.0e-5, '
                     'torque_constant: 0.05, back_emf: 0.05, '
                     'resistance: 2.0, inductance: 1.0e-3}' % name)
    motors = load_actuators('\n'.join(lines) + '\n', model)
    assert_close(motors.gear_ratio, [30.0, 30.0])
    assert_close(motors.damping, [0.0, 0.0])
    joint = model.joint_names[0]
    bad = {name: dict(MOTOR) for name in model.joint_names}
    bad[joint]['resistance'] = -1.0
    with pytest.raises(ModelError, match='%s.*resistance must be > 0'
                       % joint):
        load_actuators({'actuators': bad}, model)
    bad[joint] = dict(MOTOR, colour='red')
    with pytest.raises(ModelError, match='unknown key.*colour'):
        load_actuators({'actuators': bad}, model)
    with pytest.raises(ModelError, match='no motor entry'):
        load_actuators({'actuators': {joint: dict(MOTOR)}}, model)
    with pytest.raises(ModelError, match='no movable joint'):
        load_actuators({'actuators': dict(bad, elbow_x=dict(MOTOR))}, model)
    with pytest.raises(ModelError, match='no such file'):
        load_actuators('/nonexistent/motors.yaml', model)
    with pytest.raises(ModelError, match='"actuators"'):
        load_actuators({'motors': {}}, model)


def test_hand_referenced_state_model_equals_differences_of_the_plant():
    """
    Eqs. 3-48 to 3-53: the 3M-state model in hand perturbations.

    For joint-state perturbations dx (and dV) of a 3-joint arm, the hand
    perturbations du, du_dot, du_ddot and di_dot are taken by central
    differences of the plant and of u = P(phi), u_dot = J phi_dot, u_ddot
    = J phi_ddot + phi_dot^T H phi_dot; the model must map (du, du_dot,
    di, dV) to (du_ddot, di_dot) (1e-6).
    """
    model = dr.load_urdf(random_urdf(41, n_movable=3, prismatic=False,
                                     continuous=False))
    motors = motors_for(model)
    link = [name for name, (body, _, _) in model.frames.items()
            if body == model.nq - 1][-1]
    point = np.array([0.1, -0.05, 0.2])
    rng = np.random.default_rng(42)
    n = model.nq
    q, qd = rng.uniform(-1.0, 1.0, (2, n))
    i, V = rng.uniform(-2.0, 2.0, (2, n))
    A_hat, B_hat = hand_state_model(model, motors, q, qd, i, V, link, point)

    def hand(x, voltage):
        phi, phi_dot, current = x[:n], x[n:2 * n], x[2 * n:]
        rates = actuated_state_derivative(model, motors, x, voltage)
        rotation, translation = dr.link_pose(model, phi, link)
        G, H = dr.influence_coefficients(model, phi, link, point)
        u_ddot = G[3:] @ rates[n:2 * n] + dr.quadratic(H[3:], phi_dot)
        return np.concatenate((translation + rotation @ point,
                               G[3:] @ phi_dot, current, u_ddot,
                               rates[2 * n:]))

    x = np.concatenate((q, qd, i))
    h = 1e-6
    for _ in range(4):
        dx, dV = rng.uniform(-1.0, 1.0, 3 * n), rng.uniform(-1.0, 1.0, n)
        delta = (hand(x + h * dx, V + h * dV)
                 - hand(x - h * dx, V - h * dV)) / (2 * h)
        state, rates = delta[:3 * n], delta[3 * n:]
        predicted = A_hat @ state + B_hat @ dV
        assert_close(predicted[:n], state[n:2 * n], 1e-6)
        assert_close(predicted[n:], rates, 1e-6)
