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
The simulator with geared DC motors (Simulator(..., actuators=motors)).

Oracles we did not write into the simulator: the analytic first-order
current of a locked rotor, i = V/R (1 - exp(-R t / L)), from the motor
data; the textbook motor on a pure inertia solved exactly by expm; one
classical rk4 step of ``actuated_state_derivative`` (written out here);
the linearization of the 3M-state model against central differences of
the simulator's one-step map, at an equilibrium where that map's
Jacobian is rk4's polynomial of dt A exactly.
"""

import os
import warnings

from conftest import assert_close, REPO_ROOT, single_joint, textbook_motor
import dynamics_ros as dr
from dynamics_ros.dynamics.actuated import actuated_state_derivative, \
    linearize_actuated
from dynamics_ros.errors import ModelError, ModelWarning
from dynamics_ros.model.actuators import load_actuators, \
    motors_from_mapping
from dynamics_ros.resources import robot_urdf
from dynamics_ros.sim.controllers import default_gains, JointCommands
import numpy as np
from oracle import example_arm_xml
import pytest
from scipy.linalg import expm

MOTOR = dict(gear_ratio=50.0, rotor_inertia=2e-5, torque_constant=0.06,
             back_emf=0.06, resistance=1.5, inductance=2e-3, damping=1e-5)
V_STEP = 12.0
CONFIG = os.path.join(REPO_ROOT, 'config')


def motors_for(model, **changes):
    """Return MOTOR at every joint (gear ratios varied per joint)."""
    spec = {}
    for k, name in enumerate(model.joint_names):
        entry = dict(MOTOR, **changes)
        entry['gear_ratio'] = MOTOR['gear_ratio'] * (1 + 0.2 * k)
        spec[name] = entry
    return motors_from_mapping(spec, model.joint_names)


def one_motor(**changes):
    """Return DCMotors of MOTOR (with ``changes``) for single_joint."""
    return motors_from_mapping({'joint': dict(MOTOR, **changes)}, ['joint'])


def rk4_step(f, x, h):
    """One classical Runge-Kutta step of dx/dt = f(x)."""
    k1 = f(x)
    k2 = f(x + h / 2 * k1)
    k3 = f(x + h / 2 * k2)
    k4 = f(x + h * k3)
    return x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def panda():
    """Return Panda (example-robot-data) and its motors."""
    model = dr.load_urdf(example_arm_xml('panda'))
    return model, motors_for(model)


@pytest.mark.parametrize('compiled', [True, False])
@pytest.mark.parametrize('dt', [1e-4, 1e-3, 1e-2])
def test_locked_joint_current_is_the_analytic_first_order_response(
        dt, compiled):
    """
    A locked joint (1e12 kg m^2) under a voltage step, exponential update.

    i(t) = V/R (1 - exp(-R t / L)) with R = 1.5 ohm, L = 2 mH (L/R =
    1.33 ms) to 1e-9 at every step, also at 10 ms, 7.5 times L/R (an
    explicit rk4 step of the winding is unstable from 2.785); the joint
    torque reported is n k_t i.  The Python step and the compiled one
    (fast/motor_step.py, where the compiled path is on).
    """
    model = single_joint(1e12)
    motors = one_motor()
    sim = dr.Simulator(model, dt=dt, actuators=motors,
                       motor_integration='exponential')
    assert (sim.compiled is not None) == dr.fast.ENABLED
    if not compiled:
        sim.compiled = None
    R, L = MOTOR['resistance'], MOTOR['inductance']
    for k in range(1, int(round(0.02 / dt)) + 1):
        sim.step_voltage([V_STEP])
        expected = V_STEP / R * (1 - np.exp(-R * k * dt / L))
        assert abs(sim.current[0] - expected) <= 1e-9 * V_STEP / R, k
        assert_close(sim.applied_effort, [MOTOR['gear_ratio']
                                          * MOTOR['torque_constant']
                                          * sim.current[0]], 1e-15)
    assert abs(sim.qd[0]) < 1e-9                 # locked: it did not move


def test_locked_joint_under_the_drive_law_reaches_the_commanded_torque():
    """
    An effort command through the ideal voltage drive, locked joint.

    V = R tau / (n k_t) (no effort limit on this joint): the torque
    n k_t i rises as tau (1 - exp(-R t / L)), to 1e-9; with voltage_limit
    6 V the current stops at 6 V / R.
    """
    model = single_joint(1e12)
    gain = MOTOR['gear_ratio'] * MOTOR['torque_constant']
    R, L = MOTOR['resistance'], MOTOR['inductance']
    sim = dr.Simulator(model, dt=5e-4, actuators=one_motor(),
                       motor_integration='exponential')
    tau = 15.0
    for k in range(1, 41):
        sim.step([tau])
        assert abs(sim.applied_effort[0] - tau * (
            1 - np.exp(-R * k * 5e-4 / L))) <= 1e-9 * tau
    assert_close(sim.applied_voltage, [R * tau / gain], 1e-12)
    limited = dr.Simulator(model, dt=5e-4, actuators=one_motor(
        voltage_limit=6.0))
    for _ in range(200):
        limited.step([tau])
    assert_close(limited.applied_voltage, [6.0], 1e-15)
    assert_close(limited.current, [6.0 / R], 1e-9)


def test_coupled_step_equals_rk4_of_the_3m_state_model():
    """
    One 'coupled' step on Panda equals rk4 of actuated_state_derivative.

    Steps of 0.1 ms.

    From a random state with currents, at random voltages: the rotor
    inertia and damping reflected, the torque n k_t i, the back EMF, to
    1e-12.  The same over 1 ms (10 rk4 steps of 0.1 ms).
    """
    model, motors = panda()
    rng = np.random.default_rng(19)
    n = model.nq
    q = rng.uniform(0.3, 0.7) * (model.lower_limit + model.upper_limit) \
        + rng.uniform(-0.2, 0.2, n)
    q = np.clip(q, model.lower_limit + 0.1, model.upper_limit - 0.1)
    qd = rng.uniform(-1.0, 1.0, n)
    i = rng.uniform(-3.0, 3.0, n)
    V = rng.uniform(-10.0, 10.0, n)
    sim = dr.Simulator(model, dt=1e-4, actuators=motors, q0=q, qd0=qd,
                       motor_integration='coupled', implicit_damping=False)
    sim.current = i.copy()
    x = np.concatenate((q, qd, i))

    def f(state):
        return actuated_state_derivative(model, motors, state, V)

    for step in range(10):
        sim.step_voltage(V)
        x = rk4_step(f, x, 1e-4)
        assert_close(sim.actuated_state(), x, 1e-12, what='step %d' % step)
    assert_close(sim.applied_effort, motors.gear_ratio
                 * motors.torque_constant * x[2 * n:], 1e-12)


@pytest.mark.parametrize('integration', ['coupled', 'exponential'])
def test_motor_on_an_inertia_equals_the_textbook_motor(integration):
    """
    Free joint: J_tot w_dot = n k_t i - n^2 b_m w, L i_dot = V - R i - k_e n w.

    J_tot = J_load + n^2 J_m (the rotor through the gear); the linear
    system solved exactly by expm over 50 ms.  'coupled' (rk4, 0.1 ms) to
    1e-9; 'exponential' (second order in the back-EMF coupling) at 0.2
    and 0.1 ms: within 1e-5 and its error divided by 4 (3.5 to 4.5) when
    the step is halved, which a first-order update (the speed held over
    the step) would not give.
    """
    load = 0.3
    model = single_joint(load)
    motors = one_motor()
    A, B = textbook_motor(MOTOR, load)
    T, V = 0.05, 6.0
    augmented = np.zeros((4, 4))
    augmented[:3, :3], augmented[:3, 3] = A, B * V
    expected = expm(augmented * T)[:3, 3]

    def run(dt):
        sim = dr.Simulator(model, dt=dt, actuators=motors,
                           motor_integration=integration)
        for _ in range(int(round(T / dt))):
            sim.step_voltage([V])
        return sim.actuated_state()

    if integration == 'coupled':
        assert_close(run(1e-4), expected, 1e-9)
        return
    errors = [np.abs(run(dt) - expected).max() / np.abs(expected).max()
              for dt in (2e-4, 1e-4)]
    assert errors[0] < 1e-5
    assert 3.5 < errors[0] / errors[1] < 4.5, errors


def test_exponential_update_is_second_order_on_panda():
    """
    Panda at fixed voltages for 0.1 s: the exponential update converges.

    Against 'coupled' at 10 us (fourth order, stable there): the error
    of the velocities at 1, 0.5 and 0.25 ms falls by about 4 each halving
    (3 to 5: second order), and at 1 ms stays below 1e-4 rad/s.
    """
    model, motors = panda()
    V = np.linspace(-3.0, 3.0, model.nq)

    def run(integration, dt):
        sim = dr.Simulator(model, dt=dt, actuators=motors,
                           motor_integration=integration)
        for _ in range(int(round(0.1 / dt))):
            sim.step_voltage(V)
        return sim.actuated_state()

    reference = run('coupled', 1e-5)
    n = model.nq
    errors = [np.abs(run('exponential', dt) - reference)[n:2 * n].max()
              for dt in (1e-3, 5e-4, 2.5e-4)]
    assert errors[0] < 1e-4, errors
    for coarse, fine in zip(errors, errors[1:]):
        assert 3.0 < coarse / fine < 5.0, errors


def test_linearization_equals_central_differences_of_the_simulated_plant():
    """
    linearize_actuated's A, B against the simulator's one-step map (1e-6).

    At a static equilibrium of Panda (qd = 0, i = g(q) / (n k_t), V = R i)
    the one-step map of rk4 has the Jacobian P(dt A) and the input matrix
    dt Q(dt A) B exactly (P, Q rk4's polynomials), so central differences
    of the simulated plant (1 ms 'coupled' steps) hold A and B to 1e-6 of
    the map's scale; they are first checked to be an equilibrium.
    """
    model, motors = panda()
    n, h = model.nq, 1e-3
    q = np.array([0.1, -0.4, 0.2, -1.8, 0.3, 1.2, 0.5])
    i0 = dr.gravity_torques(model, q) / (motors.gear_ratio
                                         * motors.torque_constant)
    V0 = motors.resistance * i0
    A, B = linearize_actuated(model, motors, q, np.zeros(n), i0)

    def plant(x, V):
        sim = dr.Simulator(model, dt=h, actuators=motors, q0=x[:n],
                           qd0=x[n:2 * n], motor_integration='coupled',
                           implicit_damping=False)
        sim.current = x[2 * n:].copy()
        sim.step_voltage(V)
        return sim.actuated_state()

    x0 = np.concatenate((q, np.zeros(n), i0))
    assert np.abs(plant(x0, V0) - x0).max() < 1e-14
    eps = 1e-6
    J_x = np.array([(plant(x0 + eps * e, V0) - plant(x0 - eps * e, V0))
                    / (2 * eps) for e in np.eye(3 * n)]).T
    J_V = np.array([(plant(x0, V0 + eps * e) - plant(x0, V0 - eps * e))
                    / (2 * eps) for e in np.eye(n)]).T
    Z = h * A
    P = np.eye(3 * n) + Z + Z @ Z / 2 + Z @ Z @ Z / 6 + Z @ Z @ Z @ Z / 24
    Q = np.eye(3 * n) + Z / 2 + Z @ Z / 6 + Z @ Z @ Z / 24
    assert_close(J_x, P, 1e-6)
    assert_close(J_V, h * Q @ B, 1e-6)
    # The motor blocks matter at this step (not the identity alone).
    assert np.abs(P - np.eye(3 * n)).max() > 0.1


def test_a_position_command_holds_through_the_motors():
    """
    The position PID of JointCommands drives Panda through the motors.

    2 s at 1 kHz with gravity: finite, the joints within 0.02 rad of a
    target 0.2 rad away (a PD without integral leaves a gravity offset,
    0.006 rad here),
    and the effort reported is n k_t i of the windings.
    """
    model, motors = panda()
    sim = dr.Simulator(model, dt=1e-3, actuators=motors)
    commands = JointCommands(model, *default_gains(sim.model, sim.q))
    sim.hand_over(commands)
    assert commands.damping is None               # nothing handed over
    target = np.clip(sim.q + 0.2, model.lower_limit, model.upper_limit)
    commands.command_position(target)
    for _ in range(2000):
        sim.step(commands(sim.t, sim.q, sim.qd, sim.dt), commands.damping)
    assert np.all(np.isfinite(sim.actuated_state()))
    assert np.abs(sim.q - target).max() < 0.02
    assert_close(sim.applied_effort, motors.gear_ratio
                 * motors.torque_constant * sim.current, 1e-15)


def test_set_voltage_holds_until_cleared_and_reset_clears_it():
    """set_voltage overrides the drive law; reset and None end it."""
    model = single_joint(1e12)
    sim = dr.Simulator(model, dt=1e-3, actuators=one_motor(
        voltage_limit=10.0))
    sim.set_voltage([25.0])                       # clipped to the limit
    for _ in range(50):
        sim.step([0.0])
    assert_close(sim.applied_voltage, [10.0], 1e-15)
    assert_close(sim.current, [10.0 / MOTOR['resistance']], 1e-9)
    sim.set_voltage(None)
    sim.step([0.0])
    assert_close(sim.applied_voltage, [0.0], scale=1.0)
    sim.set_voltage([5.0])
    sim.reset()
    assert sim.voltage is None and not np.any(sim.current)


def test_stiff_windings_are_warned_about_or_taken_exactly():
    """
    Stiff windings: L/R = 10 us at 1 kHz (dt R/L = 100).

    'coupled' warns, and 'auto' takes the exponential update, which is
    exact and stays finite.
    """
    model = single_joint(1e12)
    motors = one_motor(inductance=1.5e-5)
    with pytest.warns(ModelWarning, match='motor winding R / L'):
        dr.Simulator(model, dt=1e-3, actuators=motors,
                     motor_integration='coupled')
    sim = dr.Simulator(model, dt=1e-3, actuators=motors)
    assert sim.motor_integration == 'exponential'
    sim.step_voltage([V_STEP])
    assert_close(sim.current, [V_STEP / MOTOR['resistance']], 1e-12)
    slow = dr.Simulator(model, dt=1e-3, actuators=one_motor())
    assert slow.motor_integration == 'coupled'   # dt R/L = 0.75


def test_bad_uses_are_refused_with_the_reason():
    """Wrong models, motors, voltages and options raise naming them."""
    model = dr.load_urdf(robot_urdf('two_link_planar'))
    motors = motors_for(model)
    plain = dr.Simulator(model)
    assert plain.compiled is not None or not dr.fast.ENABLED
    with pytest.raises(ValueError, match='no actuators'):
        plain.step_voltage([1.0, 2.0])
    sim = dr.Simulator(model, actuators=motors)
    with pytest.raises(ValueError, match='voltage must be 2 finite'):
        sim.step_voltage([1.0, np.nan])
    with pytest.raises(ValueError, match='voltage must be 2 finite'):
        sim.set_voltage([1.0])
    with pytest.raises(ValueError, match="motor_integration.*'euler'"):
        dr.Simulator(model, actuators=motors, motor_integration='euler')
    with pytest.raises(ModelError, match='the motors are for joints'):
        dr.Simulator(single_joint(1.0), actuators=motors)
    flexible = dr.load_flexible(
        {'flexible_links': {'fore_link': {'length': 0.8, 'mass': 1.5,
                                          'EI': 120.0, 'modes': 1}}},
        model=model)
    with pytest.raises(ModelError, match='flexible model'):
        dr.Simulator(flexible, actuators=motors)
    with pytest.raises(ModelError, match='voltage_limit must be > 0'):
        motors_for(model, voltage_limit=0.0)
    text = 'actuators:\n' + ''.join(
        '  %s: {gear_ratio: 30, rotor_inertia: 1.0e-5, torque_constant: '
        '0.05, back_emf: 0.05, resistance: 2.0, inductance: 1.0e-3, '
        'voltage_limit: .inf}\n' % name for name in model.joint_names)
    assert np.all(np.isinf(load_actuators(text, model).voltage_limit))


@pytest.mark.parametrize('integration', ['coupled', 'exponential'])
def test_a_motor_stalled_on_a_joint_limit_draws_v_over_r(integration):
    """
    The shipped two-link motors at 48 V run both joints onto their limits.

    Stalled there (qd = 0 after each step's stop impulse), each winding
    carries V / R = 96 A (1e-9) and the joint torque is n k_t V / R; the
    back EMF of the motion the impulse undid is not charged to it.
    """
    model = dr.load_urdf(robot_urdf('two_link_planar'))
    motors = load_actuators(os.path.join(CONFIG, 'actuators_two_link_planar'
                                         '.yaml'), model)
    sim = dr.Simulator(model, dt=1e-3, actuators=motors,
                       motor_integration=integration)
    sim.set_voltage([100.0, 100.0])                # clipped to 48 V
    for _ in range(1000):
        sim.step()
    assert_close(sim.q, model.upper_limit, 1e-15)
    stall = 48.0 / 0.5
    assert_close(sim.current, [stall, stall], 1e-9)
    assert_close(sim.applied_effort, motors.gear_ratio
                 * motors.torque_constant * stall, 1e-9)


def test_run_records_the_currents():
    """Simulator.run logs the winding currents beside the joints."""
    model = single_joint(1e12)
    sim = dr.Simulator(model, dt=1e-3, actuators=one_motor(),
                       motor_integration='exponential')
    sim.set_voltage([V_STEP])
    log = sim.run(0.01, record_every=5)
    R, L = MOTOR['resistance'], MOTOR['inductance']
    assert_close(log.time, [0.0, 0.005, 0.01], 1e-12)
    assert_close(log.current[:, 0], V_STEP / R * (1 - np.exp(
        -R * log.time / L)), 1e-9)
    assert dr.Simulator(model).run(0.002).current is None


def test_exponential_back_emf_is_stable_to_twice_its_rate():
    """
    A free rotor braked by its back EMF (V = 0, L/R = 0.67 us): stable.

    The back EMF is a damper n^2 k_t k_e / R on J = n^2 J_m (rate
    lambda = 72 1/s), held explicit: the speed over a step decays by
    1 - x + x^2 / 2 (x = dt lambda), stable below x = 2.  At x = 1.8 it
    decays (check_step warns, from x = 1); at x = 2.2 it grows.  The
    start current is the one of the speed of the step before, so a scheme
    taking its slope from that current lags a step and fails at 0.85.
    """
    model = single_joint(0.0)                     # the rotor alone
    motors = one_motor(inductance=1e-6)
    n = MOTOR['gear_ratio']
    rate = n * n * MOTOR['torque_constant'] * MOTOR['back_emf'] / (
        MOTOR['resistance'] * n * n * MOTOR['rotor_inertia'])

    def speed_after(x, steps=100):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            sim = dr.Simulator(model, dt=x / rate, actuators=motors, qd0=[1.0])
        assert sim.motor_integration == 'exponential'
        with np.errstate(all='ignore'):
            for _ in range(steps):
                sim.step_voltage([0.0])
        return abs(sim.qd[0]), [str(w.message) for w in caught]

    quiet, texts = speed_after(0.8)
    assert quiet < 1e-20 and not texts
    decaying, texts = speed_after(1.8)
    assert decaying < (1 - 1.8 + 1.8 ** 2 / 2) ** 50
    assert any('motor back EMF damping' in text for text in texts)
    assert speed_after(2.2, 40)[0] > 1e3
