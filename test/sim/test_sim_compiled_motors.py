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
The compiled step of a motor-driven arm against its Python step.

The kernel (dynamics_ros.fast.motor_step) does the arithmetic of
MotorDrivenPlant.motor_step - the drive law, CurrentOverStep or the
coupled winding equation, the integrator's stages through the same ABA -
in the same order, so the states (joints, currents, voltages, torques)
are compared for exact equality, step after step, as test_sim_compiled
does for the rigid arm.  Steps the kernel leaves to Python (impulses,
stiff damping, joint friction set on the simulator) must agree as well.
"""

import os
import warnings

from conftest import REPO_ROOT, single_joint
import dynamics_ros as dr
from dynamics_ros import fast
from dynamics_ros.dynamics.friction import JointFriction
from dynamics_ros.model.actuators import load_actuators, \
    motors_from_mapping
from dynamics_ros.resources import robot_urdf
import numpy as np
from oracle import example_arm_xml
import pytest
from sim_twins import assert_same_state, run_commanded, Spy

pytestmark = pytest.mark.skipif(not fast.ENABLED,
                                reason='the compiled path is off')

STEPS = 500
MOTOR = dict(rotor_inertia=2e-5, torque_constant=0.06, back_emf=0.06,
             resistance=1.5, inductance=2e-3, damping=1e-5,
             voltage_limit=48.0)


def motors_for(model):
    """Return 50:1 motors (ratios varied per joint), L/R = 1.3 ms."""
    return motors_from_mapping(
        {name: dict(MOTOR, gear_ratio=50.0 * (1 + 0.2 * k))
         for k, name in enumerate(model.joint_names)}, model.joint_names)


@pytest.fixture(scope='module')
def panda():
    """Return the Panda arm (example-robot-data) and its motors."""
    model = dr.load_urdf(example_arm_xml('panda'))
    return model, motors_for(model)


@pytest.fixture(scope='module')
def two_link():
    """Return the two-link arm and the motors shipped for it."""
    model = dr.load_urdf(robot_urdf('two_link_planar'))
    return model, load_actuators(os.path.join(
        REPO_ROOT, 'config', 'actuators_two_link_planar.yaml'), model)


def twins(model, motors, integration, integrator='rk4', dt=1e-3,
          **options):
    """Return a compiled simulator (spied on) and a Python one."""
    made = [dr.Simulator(model, dt=dt, integrator_name=integrator,
                         actuators=motors, motor_integration=integration,
                         **options) for _ in range(2)]
    compiled, python = made
    assert compiled.compiled is not None
    compiled.compiled = Spy(compiled.compiled)
    python.compiled = None
    return compiled, python


def assert_same_motors(compiled, python):
    """Assert the same state, effort, currents and voltages, bit for bit."""
    assert_same_state(compiled, python)
    for field in ('current', 'applied_voltage'):
        a, b = getattr(compiled, field), getattr(python, field)
        assert np.array_equal(a, b), '%s differs by %g' % (
            field, np.max(np.abs(a - b)))


def step_both(compiled, python, steps):
    """Take ``steps`` steps of both at their inputs; compare each."""
    for _ in range(steps):
        for simulator in (compiled, python):
            simulator.step()
        assert_same_motors(compiled, python)


def start_and_target(model):
    """Return a start pose inside the limits and a target 0.3 rad away."""
    q0 = 0.5 * (np.clip(model.lower_limit, -2.0, 2.0)
                + np.clip(model.upper_limit, -2.0, 2.0))
    return q0, q0 + 0.3


@pytest.mark.parametrize('integration', ['exponential', 'coupled'])
@pytest.mark.parametrize('integrator', ['rk4', 'semi_implicit_euler'])
def test_panda_under_a_position_pid_steps_as_in_python_to_the_bit(
        panda, integration, integrator):
    # The drive law in the kernel: the PID's effort turned into voltages.
    model, motors = panda
    q0, target = start_and_target(model)
    compiled, python = twins(model, motors, integration, integrator, q0=q0)
    run_commanded((compiled, python), model, q0, target, STEPS,
                  assert_same_motors)
    statuses = compiled.compiled.statuses
    assert statuses == [compiled.compiled.kernel.DONE] * STEPS
    # The arm moved toward the target through its motors (a step that did
    # nothing would leave it at q0 with zero current).
    assert np.all(np.abs(compiled.q - q0) > 1e-3)
    assert np.all(compiled.current != 0.0)


@pytest.mark.parametrize('integration', ['exponential', 'coupled'])
def test_voltages_held_step_as_in_python_to_the_bit(two_link, integration):
    # Voltages given (step_voltage, set_voltage), none beyond the supply.
    model, motors = two_link
    compiled, python = twins(model, motors, integration)
    for k in range(STEPS):
        voltage = 6.0 * np.array([np.sin(0.01 * k), np.cos(0.013 * k)])
        for simulator in (compiled, python):
            if k % 2:
                simulator.step_voltage(voltage)
            else:
                simulator.set_voltage(-voltage)
                simulator.step()
        assert_same_motors(compiled, python)
    assert compiled.compiled.statuses == [
        compiled.compiled.kernel.DONE] * STEPS
    assert np.all(np.abs(compiled.qd) > 1e-3)


@pytest.mark.parametrize('integration', ['exponential', 'coupled'])
def test_steps_onto_a_limit_end_in_the_python_impulses(two_link,
                                                       integration):
    # 48 V runs both joints onto their upper limits: the kernel says
    # CONSTRAIN and the Python step's impulses and stalled currents finish
    # those steps.
    model, motors = two_link
    compiled, python = twins(model, motors, integration)
    for simulator in (compiled, python):
        simulator.set_voltage([100.0, 100.0])   # clipped to 48 V
    step_both(compiled, python, STEPS)
    kernel = compiled.compiled.kernel
    statuses = compiled.compiled.statuses
    assert len(statuses) == STEPS and kernel.DONE in statuses
    assert statuses.count(kernel.CONSTRAIN) > 100
    assert np.array_equal(compiled.q, model.upper_limit)


def test_stiff_damping_and_dampers_are_finished_in_python(two_link):
    # implicit_damping=True: the reflected damping is solved implicitly
    # after the kernel's step; a controller damper makes the voltage in
    # Python, which the kernel then takes.
    model, motors = two_link
    q0, target = start_and_target(model)
    compiled, python = twins(model, motors, 'exponential', q0=q0,
                             implicit_damping=True)
    assert compiled.implicit
    gains, reference = np.array([5.0, 2.0]), np.array([0.2, -0.1])
    run_commanded((compiled, python), model, q0, target, STEPS,
                  assert_same_motors,
                  lambda k: (gains, reference) if k % 3 else None)
    assert compiled.compiled.statuses == [
        compiled.compiled.kernel.DONE] * STEPS


def test_joint_friction_and_a_push_take_the_python_step(two_link):
    # Friction set on the simulator and an external wrench act inside the
    # integration: no kernel call, and the same numbers.
    model, motors = two_link
    q0, _ = start_and_target(model)
    compiled, python = twins(model, motors, 'coupled', q0=q0)
    friction = JointFriction(model.joint_names, [0.3, 0.2], [0.5, 0.4])
    for simulator in (compiled, python):
        simulator.set_joint_friction(friction)
        simulator.set_voltage([10.0, -8.0])
    step_both(compiled, python, 100)
    assert compiled.compiled.statuses == []
    for simulator in (compiled, python):
        simulator.set_joint_friction(None)
        simulator.set_external_wrench('tool0',
                                      [0.0, 0.0, 0.1, 1.0, 0.0, 0.0])
    step_both(compiled, python, 100)
    assert compiled.compiled.statuses == []
    for simulator in (compiled, python):
        simulator.set_external_wrench()
    step_both(compiled, python, 100)
    assert compiled.compiled.statuses == [
        compiled.compiled.kernel.DONE] * 100


def test_a_bad_effort_is_refused_as_by_the_python_step(two_link):
    model, motors = two_link
    compiled, python = twins(model, motors, 'exponential')
    for simulator in (compiled, python):
        with pytest.raises(ValueError, match='effort must be 2 finite'):
            simulator.step(np.array([1.0, np.nan]))
        with pytest.raises(ValueError, match='effort must be 2 finite'):
            simulator.step([1.0, 2.0, 3.0])
        assert simulator.steps == 0
    assert compiled.compiled.statuses == [
        compiled.compiled.kernel.BAD_EFFORT]
    # A list and None are taken as the Python step takes them.
    for simulator in (compiled, python):
        simulator.step([0.5, -0.5])
        simulator.step()
    assert_same_motors(compiled, python)


def diverging_rotor_twins():
    """
    Return twins of a free rotor braked by its back EMF, set to diverge.

    The brake is explicit in the exponential update, here at 2.5 times its
    rate (stable up to 2): the speed grows 1.6 times a step until it
    overflows.
    """
    model = single_joint(0.0)
    motors = motors_from_mapping({'joint': dict(
        MOTOR, gear_ratio=50.0, inductance=1e-6)}, ['joint'])
    rate = MOTOR['torque_constant'] * MOTOR['back_emf'] / (
        MOTOR['resistance'] * MOTOR['rotor_inertia'])
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')   # check_step's, on purpose
        return twins(model, motors, 'exponential', qd0=[1.0],
                     dt=2.5 / rate)


def failures_of(simulators, step):
    """Return (steps taken, error) of each simulator until ``step`` raises."""
    failures = []
    for simulator in simulators:
        with np.errstate(all='ignore'), \
                pytest.raises(FloatingPointError) as error:
            for _ in range(5000):
                step(simulator)
        failures.append((simulator.steps, str(error.value)))
    return failures


def test_a_diverging_motor_fails_at_the_same_step_with_the_same_error():
    # The kernel hands the steps whose state nears the overflow to the
    # Python step, which raises; both simulators stop at the same step
    # with the same message.
    compiled, python = diverging_rotor_twins()
    failures = failures_of((compiled, python),
                           lambda simulator: simulator.step_voltage([0.0]))
    assert failures[0] == failures[1]
    assert 'diverged' in failures[0][1] and failures[0][0] > 1000
    kernel = compiled.compiled.kernel
    statuses = compiled.compiled.statuses
    assert statuses[0] == kernel.DONE and statuses[-1] == kernel.DIVERGED


def test_a_held_effort_that_diverges_calls_the_kernel_once_a_step():
    # The same rotor, driven by the drive law from a held effort: the
    # kernel refuses the steps near the overflow (DIVERGED, some 30 of
    # them) and the Python step takes them.  It must not try the kernel a
    # second time on the drive law's voltages (it was called twice on each
    # such step: 2541 calls for 2510 steps).
    compiled, python = diverging_rotor_twins()
    failures = failures_of((compiled, python),
                           lambda simulator: simulator.step(np.array([0.0])))
    assert failures[0] == failures[1]
    statuses = compiled.compiled.statuses
    kernel = compiled.compiled.kernel
    assert statuses.count(kernel.DIVERGED) > 1   # Python took several
    assert len(statuses) == failures[0][0] + 1   # the failing step's too


def test_a_control_law_drives_the_kernel_through_its_voltages(two_link):
    # An effort given as a function is sampled at the step's start (the
    # drive is a sampled device): the drive law runs in Python, the kernel
    # takes the voltages.
    model, motors = two_link
    compiled, python = twins(model, motors, 'coupled')

    def law(t, q, qd):
        return np.array([20.0 * np.sin(5.0 * t), -10.0]) - 2.0 * qd

    for _ in range(STEPS):
        for simulator in (compiled, python):
            simulator.step(law)
        assert_same_motors(compiled, python)
    assert compiled.compiled.statuses == [
        compiled.compiled.kernel.DONE] * STEPS
    assert np.all(np.abs(compiled.qd) > 1e-3)
