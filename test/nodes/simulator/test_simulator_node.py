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
Drive simulator_node from another process as a Gazebo/ros2_control user would.

Commands go out on ``/effort_controller/commands``,
``/position_controller/commands``, ``/velocity_controller/commands`` and
``/joint_trajectory_controller/joint_trajectory``; ``/joint_states`` and
``/clock`` come back.  Every motion is checked against the ROS-free
Simulator started from a state the node published: the same steps must give
the same states.  The node runs in lockstep with this test
(doc/theory/lockstep.md): it takes no step past a joint state the test has
not read, so none is lost however loaded the machine (one test needs the
first state after a model swap).  The checks compare simulated states, so
nothing depends on wall-clock timing.  Each test starts with ~/reset.
"""

import os

from builtin_interfaces.msg import Duration
from conftest import assert_close, REPO_ROOT
import dynamics_ros as dr
from dynamics_ros.control.trajectory import Trajectory
from dynamics_ros.nodes.shared.conversions import time_message, to_seconds
from dynamics_ros.sim.controllers import JointCommands, PidGains
from dynamics_ros.sim.simulator import Simulator
import numpy as np
import pytest
from ros_harness import answering_collector, finish, NodeProcess, \
    reorder, reserve_domain_id, RosTester, stamp_of, TESTER_ANSWERS
from rosgraph_msgs.msg import Clock
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

DOMAIN_ID = reserve_domain_id(__name__)
# Nodes that must exit at once, apart from the shared node's domain.
EXIT_DOMAIN_ID = reserve_domain_id(__name__)
NODE = 'simulator_node'
URDF = os.path.join(REPO_ROOT, 'urdf', 'two_link_planar.urdf')
MODEL = dr.load_urdf(URDF)
JOINTS = ['elbow', 'shoulder']          # not the model order, on purpose
HANGING = {'shoulder': -np.pi / 2, 'elbow': 0.0}
DT = 1e-3
POSITION_GAINS = {'shoulder': (200.0, 20.0), 'elbow': (100.0, 8.0)}
VELOCITY_GAIN = {'shoulder': 30.0, 'elbow': 6.0}


def in_joints_order(table):
    """Return a list of per-joint values in JOINTS order."""
    return [float(table[name]) for name in JOINTS]


def in_model_order(values, names):
    """Return ``values`` (ordered as ``names``) in model joint order."""
    return reorder(values, names, MODEL.joint_names)


@pytest.fixture(scope='module')
def ros():
    """Run the simulator node and a tester in this module's domain."""
    node = NodeProcess(NODE, DOMAIN_ID, {
        'urdf_path': URDF, 'joints': JOINTS, 'rate': 1.0 / DT,
        'integrator': 'rk4', 'real_time_factor': 0.0, 'publish_rate': 200.0,
        # Paced by this test, which may stop spinning for a while.
        'lockstep': True, 'lockstep_peers': [TESTER_ANSWERS],
        'lockstep_timeout': 600.0,
        # The commands here are held on purpose (replayed against the
        # ROS-free Simulator): no timeout.
        'command_timeout': 0.0,
        # Replayed from zero effort, as the ROS-free Simulator starts, and a
        # reset is told by its zero effort: no hold of the pose.
        'hold_mode': 'none',
        'initial_positions': in_joints_order(HANGING),
        'pos_kp': in_joints_order({k: v[0] for k, v in
                                   POSITION_GAINS.items()}),
        'pos_kd': in_joints_order({k: v[1] for k, v in
                                   POSITION_GAINS.items()}),
        'pos_ki': [0.0], 'vel_kp': in_joints_order(VELOCITY_GAIN),
        'vel_ki': [0.0], 'vel_kd': [0.0]})
    tester = RosTester(DOMAIN_ID)
    tester.process = node
    tester.commands = {
        mode: tester.publisher(Float64MultiArray,
                               '/%s_controller/commands' % mode)
        for mode in ('effort', 'position', 'velocity')}
    tester.trajectories = tester.publisher(
        JointTrajectory, '/joint_trajectory_controller/joint_trajectory')
    tester.states = answering_collector(tester, '/joint_states')
    tester.clock = tester.collector(Clock, '/clock')
    tester.reset_client = tester.node.create_client(Trigger,
                                                    '/%s/reset' % NODE)
    # The first step may wait for the compiled dynamics kernels to load
    # (or compile, after a change): a generous wait, once.
    tester.wait_for(lambda: tester.states.messages, timeout=180.0,
                    what='the first joint_states')
    yield tester
    finish(node, tester)


def reset(ros):
    """
    Call ~/reset; return the first joint state after it.

    Messages already on their way are told apart by their stamps: the
    first state at zero effort after the reply starts the new run, and only
    states from then on count (``recent``).
    """
    ros.wait_for(ros.reset_client.service_is_ready, what='~/reset service')
    future = ros.reset_client.call_async(Trigger.Request())
    ros.wait_for(future.done, what='~/reset reply')
    assert future.result().success, '%s\n%s' % (
        future.result().message, ros.process.output())
    ros.states.clear()
    ros.clock.clear()

    def at_rest():
        return [m for m in ros.states.messages if not any(m.effort)]

    ros.wait_for(at_rest, what='a joint state after the reset')
    first = min(at_rest(), key=stamp_of)
    ros.reset_time = stamp_of(first)
    return first


def recent(ros):
    """Return the joint states received since the last reset, in order."""
    return sorted((m for m in ros.states.messages
                   if stamp_of(m) >= ros.reset_time), key=stamp_of)


def command(ros, mode, values):
    """
    Publish a command in JOINTS order; wait until joint_states show it.

    Once, to a matched reliable subscription (delivered): a repeat still
    on its way could arrive after the next test's reset.
    """
    msg = Float64MultiArray(data=[float(v) for v in values])
    expected = in_model_order(values, JOINTS)

    def applied():
        return any(effort_matches(m, mode, expected) for m in recent(ros))

    ros.wait_for_subscriber(ros.commands[mode])
    ros.commands[mode].publish(msg)
    ros.wait_for(applied, what='%s command applied' % mode)


def effort_matches(msg, mode, expected):
    """Return whether a joint state shows the command ``expected``."""
    effort = in_model_order(msg.effort, msg.name)
    if mode == 'effort':
        return np.array_equal(effort, expected)
    return np.any(effort != 0.0)   # a PID is acting (after reset: zero)


def pair_after(ros, first_time, seconds=0.3):
    """Return two joint states: at/after ``first_time`` and ``seconds`` on."""
    def found():
        times = [stamp_of(m) for m in recent(ros)]
        return any(t >= first_time for t in times) and \
            max(times) >= min(t for t in times if t >= first_time) + seconds

    ros.wait_for(found, what='joint states %g s apart' % seconds)
    messages = recent(ros)
    first = next(m for m in messages if stamp_of(m) >= first_time)
    second = next(m for m in messages
                  if stamp_of(m) >= stamp_of(first) + seconds)
    return first, second


def replay(first, second, commands=None, effort=None, model=MODEL):
    """Run the ROS-free Simulator from ``first``; compare with ``second``."""
    assert list(first.name) == JOINTS
    simulator = Simulator(
        model, dt=DT, q0=in_model_order(first.position, first.name),
        qd0=in_model_order(first.velocity, first.name),
        start_time=stamp_of(first))
    steps = int(round((stamp_of(second) - stamp_of(first)) / DT))
    assert steps > 100
    for _ in range(steps):
        simulator.step(effort if commands is None else commands(
            simulator.t, simulator.q, simulator.qd, DT))
    # Same model, integrator, step and arithmetic as the node: the
    # trajectories agree to rounding.
    assert_close(simulator.q, in_model_order(second.position, second.name),
                 rtol=1e-9, what='positions')
    assert_close(simulator.qd, in_model_order(second.velocity, second.name),
                 rtol=1e-9, what='velocities')
    assert_close(simulator.applied_effort,
                 in_model_order(second.effort, second.name), rtol=1e-9,
                 what='applied efforts')
    return simulator


def controller():
    """Return ROS-free JointCommands with the node's gains."""
    order = MODEL.joint_names
    zero = np.zeros(MODEL.nq)
    return JointCommands(
        MODEL,
        PidGains(p=[POSITION_GAINS[j][0] for j in order], i=zero,
                 d=[POSITION_GAINS[j][1] for j in order]),
        PidGains(p=[VELOCITY_GAIN[j] for j in order], i=zero, d=zero))


def test_effort_commands_drive_the_arm_like_the_ros_free_simulator(ros):
    reset(ros)
    effort = [3.0, -1.0]   # JOINTS order: elbow, shoulder
    command(ros, 'effort', effort)
    applied = [m for m in recent(ros) if effort_matches(
        m, 'effort', in_model_order(effort, JOINTS))]
    first, second = pair_after(ros, min(stamp_of(m) for m in applied))
    replay(first, second, effort=in_model_order(effort, JOINTS))
    # /clock: ticks a whole number of steps apart, never going back,
    # reaching the joint states' time.  A tick may repeat: a state this
    # test is slow to answer is published again with its /clock
    # (lockstep's republish, doc/theory/lockstep.md).  A tick may be
    # missing (best effort).
    ros.wait_for(lambda: max(to_seconds(m.clock) for m in ros.clock.messages)
                 >= stamp_of(second), what='/clock at the joint states')
    ticks = np.array([to_seconds(m.clock) for m in ros.clock.messages])
    assert np.all(np.diff(ticks) >= 0.0)
    steps = np.diff(ticks) / DT
    assert_close(steps, np.round(steps), rtol=1e-6, scale=1.0)


def test_clock_rate_ticks_with_the_states_only(ros):
    # clock_rate below publish_rate (200 Hz): /clock ticks with each
    # joint_states message and at no other step (at every step, the
    # default, 4 of 5 ticks fall between states).  Ticks reach the tester
    # before their state: lockstep waits for its answer to each.
    results = ros.set_parameters(NODE, clock_rate=50.0)
    assert all(result.successful for result in results), results
    try:
        reset(ros)
        ros.wait_for(lambda: len(recent(ros)) >= 22,
                     what='22 joint states at clock_rate 50 Hz')
        # Unique: lockstep may publish a state again, with its tick.  The
        # first state's tick may have come before the reset cleared them.
        states = np.unique([stamp_of(m) for m in recent(ros)])[1:21]
        ros.wait_for(lambda: max(to_seconds(m.clock) for m in
                                 ros.clock.messages) >= states[-1],
                     what='/clock at the 21st state')
        ticks = np.unique([to_seconds(m.clock) for m in ros.clock.messages])
        ticks = ticks[(ticks >= states[0]) & (ticks <= states[-1])]
        assert_close(ticks, states, scale=1.0)
        assert_close(np.diff(states), 5 * DT * np.ones(19), rtol=1e-6,
                     scale=1.0)
    finally:
        results = ros.set_parameters(NODE, clock_rate=0.0)
        assert all(result.successful for result in results), results


def test_position_commands_go_through_the_pid(ros):
    reset(ros)
    target = [0.5, -1.0]   # elbow, shoulder
    command(ros, 'position', target)
    applied = [m for m in recent(ros) if any(m.effort)]
    first, second = pair_after(ros, min(stamp_of(m) for m in applied))
    commands = controller()
    commands.command_position(in_model_order(target, JOINTS))
    replay(first, second, commands)


def test_velocity_commands_go_through_the_pid(ros):
    reset(ros)
    velocity = [0.3, 0.2]
    command(ros, 'velocity', velocity)
    applied = [m for m in recent(ros) if any(m.effort)]
    first, second = pair_after(ros, min(stamp_of(m) for m in applied))
    commands = controller()
    commands.command_velocity(in_model_order(velocity, JOINTS))
    replay(first, second, commands)


def test_a_trajectory_is_followed_with_its_effort_feedforward(ros):
    start = stamp_of(reset(ros)) + 1.0
    times = np.array([0.0, 0.4, 0.8, 1.2])
    # Waypoints in model order (shoulder, elbow); the message names the
    # joints the other way round.
    positions = np.array([[-1.5, 0.1], [-1.2, 0.4], [-1.0, 0.6],
                          [-1.1, 0.5]])
    velocities = np.array([[0.0, 0.0], [0.6, 0.6], [0.2, 0.2], [0.0, 0.0]])
    efforts = np.array([dr.gravity_torques(MODEL, q) for q in positions])
    msg = JointTrajectory(joint_names=['elbow', 'shoulder'])
    msg.header.stamp = time_message(start)
    for t, q, qd, tau in zip(times, positions, velocities, efforts):
        seconds = int(t)
        msg.points.append(JointTrajectoryPoint(
            positions=q[::-1].tolist(), velocities=qd[::-1].tolist(),
            effort=tau[::-1].tolist(), time_from_start=Duration(
                sec=seconds, nanosec=int(round((t - seconds) * 1e9)))))
    ros.wait_for(lambda: any(any(m.effort) for m in recent(ros)),
                 action=lambda: ros.trajectories.publish(msg), every=0.5,
                 what='the trajectory followed')
    # From the first state both after the receipt (the PID acts) and inside
    # the trajectory: before its first point it starts from the state at
    # receipt, which the test does not know exactly.
    received = min(stamp_of(m) for m in recent(ros) if any(m.effort))
    first, second = pair_after(ros, max(received, start + 0.05), seconds=1.0)
    trajectory = Trajectory(times, positions, velocities,
                            np.zeros_like(positions), np.ones(4, bool),
                            np.zeros(4, bool), start_time=start)
    commands = controller()
    commands.follow(trajectory, efforts)
    replay(first, second, commands)


def test_bad_commands_are_rejected_and_the_previous_one_kept(ros):
    reset(ros)
    command(ros, 'effort', [2.0, 1.0])
    expected = in_model_order([2.0, 1.0], JOINTS)
    for data, reason in (([1.0, 2.0, 3.0], 'size (3) does not match'),
                         ([1.0, float('inf')], 'non-finite')):
        ros.wait_for(lambda: ros.warnings(NODE, reason),
                     action=lambda: ros.commands['effort'].publish(
                         Float64MultiArray(data=data)),
                     every=0.5, what='warning %r' % reason)
    ros.states.clear()
    ros.wait_for(lambda: len(ros.states.messages) > 20, what='joint states')
    assert all(np.array_equal(in_model_order(m.effort, m.name), expected)
               for m in recent(ros))


def test_reset_returns_to_the_initial_state(ros):
    reset(ros)
    command(ros, 'effort', [5.0, 5.0])
    ros.wait_for(lambda: max(abs(v) for m in recent(ros)
                             for v in m.velocity) > 1.0, what='motion')
    msg = reset(ros)
    # Hanging straight down is an equilibrium: still there after the reset.
    assert_close(in_model_order(msg.position, msg.name),
                 [HANGING['shoulder'], HANGING['elbow']], rtol=1e-9)
    assert np.max(np.abs(msg.velocity)) < 1e-9
    assert list(msg.effort) == [0.0, 0.0]


def test_a_new_model_restarts_the_simulation_with_time_running_on(ros):
    reset(ros)
    command(ros, 'effort', [1.0, 1.0])
    before = max(stamp_of(m) for m in recent(ros))
    sideways = [-9.81, 0.0, 0.0]   # gravity along -x: the arm swings over
    results = ros.set_parameters(NODE, gravity=sideways)
    assert all(r.successful for r in results), [r.reason for r in results]

    def restarted():
        return [m for m in recent(ros)
                if stamp_of(m) > before and not any(m.effort)]

    ros.wait_for(restarted, what='joint states of the new model')
    first = min(restarted(), key=stamp_of)
    try:
        # Back at the initial positions (a step or a few after the swap).
        assert abs(in_model_order(first.position, first.name)[1]) < 0.01
        _, second = pair_after(ros, stamp_of(first))
        replay(first, second, effort=np.zeros(2),
               model=dr.load_urdf(URDF, gravity=sideways))
    finally:
        ros.set_parameters(NODE, gravity=[0.0, 0.0, -9.81])


def test_a_bad_parameter_stops_the_node_with_the_reason():
    node = NodeProcess(NODE, EXIT_DOMAIN_ID, {
        'urdf_path': URDF, 'integrator': 'euler'})
    status = node.wait_exit()
    output = node.output()
    node.stop()
    assert status == 1
    assert "integrator 'euler' is not one of rk4" in output


def test_a_parameter_of_the_wrong_type_stops_the_node_with_the_reason():
    """Integers where doubles are declared: exit 1 and say so, no traceback."""
    node = NodeProcess(NODE, EXIT_DOMAIN_ID, {
        'urdf_path': URDF, 'initial_positions': [0, 0]})
    status = node.wait_exit()
    output = node.output()
    node.stop()
    assert status == 1
    assert "'initial_positions'" in output and 'DOUBLE_ARRAY' in output
    assert 'Traceback' not in output
