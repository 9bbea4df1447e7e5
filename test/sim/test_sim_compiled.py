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
Test the compiled simulator step against the Python step it stands in for.

The kernel (dynamics_ros.fast.sim_step) does the Python step's arithmetic
operation for operation, in the same order, and calls the same ABA
recursion; the steps where friction or a limit acts end in the same Python
impulse code.  So the states are compared for exact equality, which is
stronger than the usual 1e-9: a reordered sum or a missed damping term
would show up as a difference of rounding size.

Also the serialized messages simulator_node publishes: they must read back
as the JointState and Clock it published before.
"""

import os

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros import fast
from dynamics_ros.sim import compiled_step
from dynamics_ros.sim.controllers import default_gains, JointCommands
from dynamics_ros.sim.simulator import Simulator
import numpy as np
from oracle import example_arm_xml, robots_directory
import pytest
from robot_sets import robot_sources
from sim_twins import (assert_near_state, assert_same_state, Spy,
                       step_near, take_state)
from urdf_factory import random_urdf

pytestmark = pytest.mark.skipif(not fast.ENABLED,
                                reason='the compiled path is off')

STEPS = 400


def twins(model, integrator, **options):
    """Return a compiled simulator (spied on) and a Python one."""
    compiled = Simulator(model, dt=1e-3, integrator_name=integrator,
                         **options)
    python = Simulator(model, dt=1e-3, integrator_name=integrator, **options)
    assert compiled.compiled is not None
    compiled.compiled = Spy(compiled.compiled)
    python.compiled = None
    return compiled, python


@pytest.fixture(scope='module')
def panda():
    """Return the Panda model (damped joints, limits, effort limits)."""
    return dr.load_urdf(example_arm_xml('panda'))


@pytest.mark.parametrize('integrator', ['rk4', 'semi_implicit_euler'])
def test_panda_under_a_position_pid_steps_as_in_python(panda, integrator):
    q0 = 0.5 * (np.clip(panda.lower_limit, -2.0, 2.0)
                + np.clip(panda.upper_limit, -2.0, 2.0))
    compiled, python = twins(panda, integrator, q0=q0)
    controllers = [JointCommands(panda, *default_gains(panda, q0))
                   for _ in range(2)]
    for commands in controllers:
        commands.command_position(q0 + 0.3)
    for _ in range(STEPS):
        for simulator, commands in zip((compiled, python), controllers):
            simulator.step(commands(simulator.t, simulator.q, simulator.qd,
                                    simulator.dt))
        assert_same_state(compiled, python)
    # Every step went through the kernel, and the arm moved towards the
    # target (a kernel that did nothing would stay at q0).
    assert len(compiled.compiled.statuses) == STEPS
    assert np.all(np.abs(compiled.q - q0) > 1e-3)


@pytest.mark.parametrize('friction', [False, True])
@pytest.mark.parametrize('integrator', ['rk4', 'semi_implicit_euler'])
def test_limits_friction_saturation_and_wrap_as_in_python(friction,
                                                          integrator):
    # A tree with prismatic and continuous joints, damping, and efforts
    # above the effort limit (100) driving joints onto their limits.  The
    # impulses of friction and the stops are solved in the kernel too
    # (fast/joint_impulses.py), M^-1 by Cholesky against the Python
    # step's np.linalg.inv: equal to rounding, each step taken from the
    # same state (take_state).
    model = dr.load_urdf(random_urdf(1, 6, tree=True, prismatic=True,
                                     continuous=True))
    rng = np.random.default_rng(7)
    model.damping = rng.uniform(0.0, 0.5, model.nq)
    if friction:
        model.friction = np.where(rng.uniform(size=model.nq) < 0.5,
                                  rng.uniform(0.5, 3.0, model.nq), 0.0)
    compiled, python = twins(model, integrator, qd0=rng.normal(size=6))
    wraps = saturated = at_limits = 0
    for k in range(STEPS):
        effort = 150.0 * np.sin(0.02 * k + np.arange(model.nq))
        before = compiled.q.copy()
        compiled.step(effort)
        python.step(effort)
        assert_near_state(compiled, python)
        take_state(compiled, python)
        wraps += np.sum(np.abs(compiled.q - before) > np.pi)
        saturated += np.sum(np.abs(compiled.applied_effort) == 100.0)
        at_limits += np.sum((python.q == model.upper_limit)
                            | (python.q == model.lower_limit))
    statuses = compiled.compiled.statuses
    kernel = compiled.compiled.kernel
    assert wraps > 0 and saturated > 0 and at_limits > 0
    assert set(statuses) == {kernel.DONE}   # no step left to Python


@pytest.mark.parametrize('name, xml', robot_sources(),
                         ids=[name for name, _ in robot_sources()])
def test_every_arm_pressed_onto_its_limits_steps_as_in_python(name, xml):
    # Each arm of the dynamics tests (example-robot-data's, the shipped
    # ones, generated trees) from its lower limits (0 where a joint has
    # none), pushed further down at a third of its effort limit, with
    # Coulomb friction on every joint: the stops and the friction act on
    # every step, several joints at once, in the kernel as in Python.
    model = dr.load_urdf(xml)
    model.friction = np.full(model.nq, 0.5)
    lower = np.where(np.isfinite(model.lower_limit), model.lower_limit, 0.0)
    compiled, python = twins(model, 'rk4', q0=lower)
    effort = -np.minimum(model.effort_limit, 1e3) / 3.0
    on_stops = 0
    for _ in range(100):
        compiled.step(effort)
        python.step(effort)
        assert_near_state(compiled, python)
        take_state(compiled, python)
        on_stops += np.sum(python.q == model.lower_limit)
    assert on_stops > 0
    assert set(compiled.compiled.statuses) == {compiled.compiled.kernel.DONE}


@pytest.mark.parametrize('integrator', ['rk4', 'semi_implicit_euler'])
def test_friction_holds_and_lets_go_as_in_python(integrator):
    # Coulomb friction on every joint and efforts around its level: joints
    # stick (a velocity of exactly zero, the impulse inside its bounds)
    # and slide by turns, several at once (the active-set method).
    model = dr.load_urdf(random_urdf(3, 5, prismatic=True))
    model.friction = np.full(model.nq, 2.0)
    compiled, python = twins(model, integrator)
    stuck = sliding = 0   # steps: two joints held; none
    for k in range(STEPS):
        effort = 2.5 * np.sin(0.03 * k + 1.3 * np.arange(model.nq))
        compiled.step(effort)
        python.step(effort)
        assert_near_state(compiled, python)
        take_state(compiled, python)
        stuck += np.sum(python.qd == 0.0) >= 2
        sliding += np.all(python.qd != 0.0)
    assert stuck > 0 and sliding > 0   # two at once on some steps
    kernel = compiled.compiled.kernel
    assert set(compiled.compiled.statuses) == {kernel.DONE}


def test_no_effort_and_effort_lists_as_in_python(panda):
    compiled, python = twins(panda, 'rk4', qd0=np.linspace(-1.0, 1.0, 7))
    for effort in (None, [1.0, -2.0, 3.0, -4.0, 5.0, -6.0, 7.0],
                   np.arange(7, dtype=int), np.ones((7, 1))):
        compiled.step(effort)
        python.step(effort)
        assert_same_state(compiled, python)
    assert len(compiled.compiled.statuses) == 4


@pytest.mark.parametrize('effort', [
    np.ones(6), np.array([np.nan] + [0.0] * 6),
    np.array([np.inf, -np.inf] + [0.0] * 5), [np.inf] + [0.0] * 6])
def test_bad_efforts_raise_the_python_step_errors(panda, effort):
    compiled, python = twins(panda, 'rk4')
    errors = []
    for simulator in (compiled, python):
        with pytest.raises(ValueError) as error:
            simulator.step(effort)
        errors.append(str(error.value))
        assert simulator.steps == 0
    assert errors[0] == errors[1]
    assert 'effort must be 7 finite values' in errors[0]


@pytest.mark.parametrize('friction', [False, True])
def test_divergence_raises_the_python_step_error(friction):
    # Without limits the kernel says DIVERGED; with friction the step ends
    # in impulses, and on a state no longer finite the kernel leaves them
    # to Python (CONSTRAIN).  Either way Python's error, where it diverged.
    model = dr.load_urdf(example_arm_xml('panda'))
    if friction:
        model.friction = np.full(model.nq, 0.5)
    else:
        model.lower_limit = np.full(model.nq, -np.inf)
        model.upper_limit = np.full(model.nq, np.inf)
    compiled, python = twins(model, 'rk4', qd0=np.full(7, 1e200))
    errors = []
    for simulator in (compiled, python):
        with pytest.raises(FloatingPointError) as error:
            simulator.step()
        errors.append(str(error.value))
    assert errors[0] == errors[1]
    assert 'diverged at t = 0 s' in errors[0]
    kernel = compiled.compiled.kernel
    assert compiled.compiled.statuses == [
        kernel.CONSTRAIN if friction else kernel.DIVERGED]


def test_a_changed_model_is_packed_again(panda):
    model = dr.load_urdf(example_arm_xml('panda'))
    compiled, python = twins(model, 'rk4', qd0=np.ones(7))
    compiled.step()
    python.step()
    # Assigning a field drops the packed copy: the kernel must see it.
    model.damping = np.full(7, 2.0)
    model.effort_limit = np.full(7, 0.5)
    for simulator in (compiled, python):
        simulator.step(np.full(7, 3.0))
    assert_same_state(compiled, python)
    assert np.all(compiled.applied_effort == 0.5)


def test_switching_the_compiled_path_off_steps_in_python(panda):
    compiled, python = twins(panda, 'rk4', qd0=np.ones(7))
    previous = fast.enable(False)
    try:
        compiled.step(np.ones(7))
    finally:
        fast.enable(previous)
    python.step(np.ones(7))
    assert compiled.compiled.statuses == []
    # The numpy reference ABA against the compiled one: equal to 1e-9.
    assert_close(compiled.zd, python.zd, what='velocities')
    assert_close(compiled.z, python.z, what='positions')


def test_the_adaptive_integrator_has_no_compiled_step(panda):
    assert Simulator(panda, integrator_name='adaptive').compiled is None


def test_serialized_joint_states_read_back_as_messages():
    rclpy_serialization = pytest.importorskip('rclpy.serialization')
    from dynamics_ros.nodes.shared.conversions import (
        joint_state_message, time_message)
    from dynamics_ros.nodes.shared.serialized_message import (
        serialized_clock, serialized_joint_state)
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState
    names = ['joint_%d' % k for k in range(7)]
    serialized = serialized_joint_state(names)
    clock = serialized_clock()
    assert serialized is not None and clock is not None
    rng = np.random.default_rng(3)
    for t in (0.0, 0.001, 12.345, 4.0e5 + 1e-3):
        values = rng.normal(size=(3, 7))
        nanoseconds = int(round(t * 1e9))
        data = serialized.serialized(nanoseconds, values)
        expected = joint_state_message(names, time_message(t), *values)
        assert rclpy_serialization.deserialize_message(
            data, JointState) == expected
        assert rclpy_serialization.deserialize_message(
            clock.serialized(nanoseconds), Clock) == Clock(
                clock=time_message(t))


def test_a_kernel_that_fails_to_load_leaves_the_python_step(
        panda, monkeypatch):
    monkeypatch.setattr(compiled_step, 'load_kernel', lambda: None)
    compiled = Simulator(panda, dt=1e-3, qd0=np.ones(7))
    python = Simulator(panda, dt=1e-3, qd0=np.ones(7))
    python.compiled = None
    assert compiled.compiled is not None   # loaded on the first step
    for simulator in (compiled, python):
        simulator.step(np.ones(7))
    assert compiled.compiled is None
    assert_same_state(compiled, python)


@pytest.mark.parametrize('integrator', ['rk4', 'semi_implicit_euler'])
def test_stiff_damping_is_solved_in_the_kernel_as_in_python(integrator):
    # xArm7's wrist damping is stiff (implicit); without its Coulomb
    # friction the steps end in the kernel's solve (DONE), and with a
    # position PID whose dampers are handed over too.  The kernel's
    # Cholesky against numpy's inverse: equal to rounding.
    model = dr.load_urdf(os.path.join(robots_directory(), 'xarm_description',
                                      'urdf', 'xarm7.urdf'))
    model.friction = np.zeros(model.nq)
    q0 = np.full(model.nq, 0.3)
    compiled, python = twins(model, integrator, q0=q0)
    assert compiled.implicit
    controllers = []
    for simulator in (compiled, python):
        commands = JointCommands(model, *default_gains(model, q0))
        simulator.hand_over(commands, warn=False)
        commands.command_position(q0 + 0.4)
        controllers.append(commands)
    for _ in range(STEPS):
        for simulator, commands in zip((compiled, python), controllers):
            simulator.step(commands(simulator.t, simulator.q, simulator.qd,
                                    simulator.dt), commands.damping)
        assert_near_state(compiled, python)
    kernel = compiled.compiled.kernel
    assert kernel.DONE in compiled.compiled.statuses
    assert np.all(np.abs(compiled.q - q0) > 1e-3)


@pytest.mark.parametrize('hold', [False, True])
def test_stiff_damping_with_friction_is_solved_with_the_impulses(hold):
    # xArm7 as its URDF has it: stiff wrist damping and Coulomb friction
    # on every joint, so every step ends in the impulses, the damping
    # (the joints' and the handed-over dampers) solved with them
    # (Simulator.constrain), in the kernel as in Python.
    model = dr.load_urdf(os.path.join(robots_directory(), 'xarm_description',
                                      'urdf', 'xarm7.urdf'))
    assert np.all(model.friction > 0.0)
    q0 = np.full(model.nq, 0.3)
    compiled, python, (held, commanded) = held_pose_twins(
        model, 'rk4', q0, q0 + 0.4, hand_over=True)
    assert compiled.implicit
    for _ in range(STEPS):
        step_near(compiled, python, held, commanded, hold)
    assert held.damping is not None   # dampers handed over on every step
    assert set(compiled.compiled.statuses) == {compiled.compiled.kernel.DONE}
    # The arm moved; the last wrist joint, whose PID pulls less than its
    # friction holds (its inertia, and so its gains, are small), stuck.
    assert np.all(np.abs(compiled.q[:-1] - q0[:-1]) > 1e-3)
    assert compiled.q[-1] == q0[-1] and compiled.qd[-1] == 0.0


def held_pose_twins(model, integrator, q0, target, hand_over):
    """Return twins (compiled, Python) and a position hold for each."""
    compiled, python = twins(model, integrator, q0=q0)
    controllers = []
    for simulator in (compiled, python):
        commands = JointCommands(model, *default_gains(model, q0))
        if hand_over:
            simulator.hand_over(commands, warn=False)
        commands.command_position(target)
        controllers.append(commands)
    return compiled, python, controllers


@pytest.mark.parametrize('integrator', ['rk4', 'semi_implicit_euler'])
def test_a_position_hold_computed_in_the_kernel_steps_as_its_effort(
        panda, integrator):
    # hold_step computes p (target - q) - d qd inside the kernel: the same
    # numbers as the Python step under the effort JointCommands returns.
    q0 = 0.5 * (np.clip(panda.lower_limit, -2.0, 2.0)
                + np.clip(panda.upper_limit, -2.0, 2.0))
    compiled, python, (held, commanded) = held_pose_twins(
        panda, integrator, q0, q0 + 0.3, hand_over=False)
    for _ in range(STEPS):
        compiled.hold_step(*held.hold(), held.damping)
        python.step(commanded(python.t, python.q, python.qd, python.dt),
                    commanded.damping)
        assert_same_state(compiled, python)
    assert len(compiled.compiled.statuses) == STEPS
    assert np.all(np.abs(compiled.q - q0) > 1e-3)


def test_a_position_hold_with_handed_over_dampers_steps_as_in_python():
    # xArm7 (stiff wrist damping, no friction): the hold's dampers go to
    # the kernel's implicit solve; Cholesky against numpy's inverse.
    model = dr.load_urdf(os.path.join(robots_directory(), 'xarm_description',
                                      'urdf', 'xarm7.urdf'))
    model.friction = np.zeros(model.nq)
    q0 = np.full(model.nq, 0.3)
    compiled, python, (held, commanded) = held_pose_twins(
        model, 'rk4', q0, q0 + 0.4, hand_over=True)
    assert held.hold() is not None and held.damping is not None
    for _ in range(STEPS):
        compiled.hold_step(*held.hold(), held.damping)
        python.step(commanded(python.t, python.q, python.qd, python.dt),
                    commanded.damping)
        assert_near_state(compiled, python)
    assert compiled.compiled.kernel.DONE in compiled.compiled.statuses
    assert np.all(np.abs(compiled.q - q0) > 1e-3)


def test_a_hold_that_is_not_a_position_hold_is_none(panda):
    commands = JointCommands(panda, *default_gains(panda, np.zeros(7)))
    assert commands.hold() is None   # no command yet: zero effort
    commands.command_velocity(np.ones(7))
    assert commands.hold() is None
    commands.command_position(np.full(7, 0.1))
    p, target, d = commands.hold()
    assert np.array_equal(target, np.full(7, 0.1))
    assert np.array_equal(p, commands.position_pid.p)


def test_a_non_finite_hold_raises_the_python_step_error(panda):
    compiled, python = twins(panda, 'rk4')
    p, d = np.ones(7), np.ones(7)
    target = np.array([np.nan] + [0.0] * 6)
    errors = []
    for simulator in (compiled, python):
        with pytest.raises(ValueError) as error:
            simulator.hold_step(p, target, d)
        errors.append(str(error.value))
        assert simulator.steps == 0
    assert errors[0] == errors[1]
    assert 'effort must be 7 finite values' in errors[0]
    # The hold's kernel refused it, then the step it fell back to did.
    bad = compiled.compiled.kernel.BAD_EFFORT
    assert compiled.compiled.statuses == [bad, bad]


def test_a_hold_of_int_arrays_falls_back_to_the_held_effort_step(panda):
    # The hold's kernel takes float vectors only: gains given as int arrays
    # fall back to step() with the effort computed in numpy, the same
    # numbers as the float hold.
    compiled, python = twins(panda, 'rk4')
    target = np.full(7, 0.1)
    compiled.hold_step(np.full(7, 100), target, np.full(7, 10))
    python.hold_step(np.full(7, 100.0), target, np.full(7, 10.0))
    assert_same_state(compiled, python)
    # The refused hold left no status; its fallback took the held-effort
    # step, compiled.
    assert len(compiled.compiled.statuses) == 1
