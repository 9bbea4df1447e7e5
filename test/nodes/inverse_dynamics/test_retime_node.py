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
inverse_dynamics_node retimes trajectories; simulator_node plays them.

The messages of ``nodes.inverse_dynamics.trajectory_retiming`` on their own, then over DDS
(real processes, localhost, a domain of this module): a JointTrajectory
that asks the Panda for more effort than it has goes to ``trajectory_in``
of inverse_dynamics_node in ``trajectory_mode: retime``; the retimed one
comes back on ``trajectory_out`` with a report on
``trajectory_feasibility``; played on simulator_node under the same
node's computed torque, in lockstep (doc/theory/lockstep.md: its
``feedforward`` answers each joint state and is the simulator's effort, so
no command comes late however loaded the machine), the efforts the
simulator applies never reach the effort limits (a clipped effort is
applied at exactly the limit) and the node warns of no saturation.  A
path gravity alone overloads is refused: a report, a warning, nothing on
``trajectory_out``.
"""

from builtin_interfaces.msg import Time
from dynamics_ros.control.feasibility import Limits, limits_in_use
from dynamics_ros.control.retime import annotate_or_retime, retime
from dynamics_ros.control.trajectory import Trajectory
from dynamics_ros.nodes.inverse_dynamics.trajectory_retiming import (
    duration_message, output_message, report_message)
import numpy as np
import oracle
import pytest
from ros_harness import (answering_collector, finish, NodeProcess,
                         reserve_domain_id, RosTester, stamp_of,
                         TESTER_ANSWERS)
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
import yaml

DOMAIN = reserve_domain_id(__name__)
XML = oracle.example_arm_xml('panda')
MODEL, _ = oracle.oracle_for(XML)
NAMES = list(MODEL.joint_names)
ACCELERATION = 3.0 * np.array([15, 7.5, 10, 12.5, 15, 20, 20.0])
HOME = np.array([0.0, -0.3, 0.0, -2.0, 0.0, 1.8, 0.8])
MARGIN = 0.9
# s of simulated time between the newest state the test answered and the
# trajectory's start: the simulator is at most a state past it.
LEAD = 0.5


def waypoints():
    """Five waypoints around HOME (seeded)."""
    rng = np.random.default_rng(25)
    return HOME + 0.35 * rng.uniform(-1.0, 1.0, (5, 7))


def quick_message(names=NAMES):
    """Return the waypoints timed by velocity and acceleration alone."""
    limits = limits_in_use(MODEL, acceleration_limits=ACCELERATION)
    kinematic = Limits(np.full(7, np.inf), limits.velocity,
                       limits.acceleration)
    quick = retime(MODEL, waypoints(), kinematic)
    index = [NAMES.index(name) for name in names]
    return output_message(JointTrajectory(joint_names=list(names)), quick,
                          np.array(index), np.zeros_like(quick.positions))


def test_duration_message_rounds_to_nanoseconds():
    assert (duration_message(2.75).sec, duration_message(2.75).nanosec) == \
        (2, 750000000)
    assert duration_message(0.9999999999).sec == 1


def test_output_message_keeps_the_input_joint_order():
    names = NAMES[::-1]
    msg = quick_message(names)
    assert msg.joint_names == names and len(msg.points) > 100
    first, last = msg.points[0], msg.points[-1]
    assert np.allclose(first.positions, waypoints()[0][::-1], atol=1e-12)
    assert np.allclose(last.positions, waypoints()[-1][::-1], atol=1e-12)
    assert len(first.velocities) == len(first.accelerations) == 7
    seconds = [p.time_from_start.sec + 1e-9 * p.time_from_start.nanosec
               for p in msg.points]
    assert np.all(np.diff(seconds) > 0.0)


def test_report_message_is_yaml_of_the_outcome():
    msg = quick_message()
    times = np.array([p.time_from_start.sec + 1e-9 * p.time_from_start
                      .nanosec for p in msg.points])
    arrays = [np.array([getattr(p, field) for p in msg.points])
              for field in ('positions', 'velocities', 'accelerations')]
    trajectory = Trajectory(times, *arrays, np.ones(len(times), bool),
                            np.ones(len(times), bool))
    limits = limits_in_use(MODEL, acceleration_limits=ACCELERATION)
    report = yaml.safe_load(report_message(annotate_or_retime(
        MODEL, trajectory, limits, 'annotate')).data)
    assert report['mode'] == 'annotate' and not report['feasible']
    assert report['first_violation']['kind'] == 'effort'
    assert report['first_violation']['joint'] in NAMES
    assert report['first_violation']['margin'] < 0.0


# -- over DDS ---------------------------------------------------------------

@pytest.fixture(scope='module')
def ros():
    """simulator_node and inverse_dynamics_node (computed torque, retime)."""
    start = waypoints()[0]
    # Lockstep with computed torque (the effort peer) and this test: no
    # state is lost to the test, and simulated time waits for both.
    simulator = NodeProcess('simulator_node', DOMAIN, {
        'robot_description': XML, 'publish_rate': 500.0,
        'lockstep': True, 'real_time_factor': 0.0,
        'lockstep_peers': ['feedforward', TESTER_ANSWERS],
        'lockstep_effort_peer': 'feedforward', 'lockstep_timeout': 600.0,
        'initial_positions': start.tolist()})
    inverse = NodeProcess('inverse_dynamics_node', DOMAIN, {
        'robot_description': XML, 'mode': 'computed_torque',
        'use_sim_time': True, 'lockstep': True, 'trajectory_mode': 'retime',
        'trajectory_margin': MARGIN,
        'acceleration_limits': ACCELERATION.tolist()})
    tester = RosTester(DOMAIN)
    tester.retime = tester.publisher(JointTrajectory, 'trajectory_in')
    tester.play = tester.publisher(JointTrajectory, 'joint_trajectory')
    tester.retimed = tester.collector(JointTrajectory, 'trajectory_out')
    tester.reports = tester.collector(String, 'trajectory_feasibility')
    tester.states = answering_collector(tester)
    tester.feedforward = tester.collector(JointState, 'feedforward')
    tester.reset = tester.node.create_client(Trigger, '/simulator_node/reset')
    tester.wait_for_subscriber(tester.retime)
    tester.wait_for_subscriber(tester.play)
    # The kernels may compile first: a generous wait, once.
    tester.wait_for(lambda: tester.feedforward.messages, timeout=180.0,
                    what='computed torque answering')
    yield tester
    finish(inverse, tester)
    assert simulator.alive(), simulator.output()
    assert simulator.stop() == 0


def simulated_now(tester):
    """Return the stamp (s) of the latest joint_states."""
    return max(stamp_of(m) for m in tester.states.messages)


def test_retimed_trajectory_plays_without_clipping(ros):
    quick = quick_message()
    ros.reports.clear()
    ros.retime.publish(quick)
    ros.wait_for(lambda: ros.retimed.messages and ros.reports.messages,
                 what='trajectory_out and its report')
    retimed = ros.retimed.messages[-1]
    report = yaml.safe_load(ros.reports.messages[-1].data)
    assert report['mode'] == 'retime' and report['retimed']
    assert report['feasible'] and report['published']
    assert report['output_duration'] > report['input_duration']
    efforts = np.array([p.effort for p in retimed.points])
    assert np.all(np.abs(efforts) <= MARGIN * MODEL.effort_limit + 1e-9)

    # The node holds the first waypoint; the simulator is reset to it (in
    # lockstep the arm never fell: computed torque held it from the start).
    hold = JointTrajectory(joint_names=NAMES, points=[JointTrajectoryPoint(
        positions=waypoints()[0].tolist())])
    ros.play.publish(hold)
    ros.wait_for(ros.reset.service_is_ready, what='~/reset')
    future = ros.reset.call_async(Trigger.Request())
    ros.wait_for(future.done, what='the reset')
    assert future.result().success
    reset_at = float(future.result().message.split('t = ')[1].split()[0])
    ros.wait_for(lambda: simulated_now(ros) > reset_at + 0.1,
                 what='states after the reset')
    ros.logs.clear()
    begin = simulated_now(ros) + LEAD
    retimed.header.stamp = Time(sec=int(begin),
                                nanosec=int(round((begin % 1.0) * 1e9)))
    ros.states.clear()
    ros.play.publish(retimed)
    end = begin + report['output_duration']
    ros.wait_for(lambda: ros.states.messages
                 and simulated_now(ros) > end + 0.3,
                 what='the simulator to play the trajectory')
    played = [m for m in ros.states.messages
              if begin <= stamp_of(m) <= end + 0.3]
    applied = np.array([m.effort for m in played])
    use = np.abs(applied) / MODEL.effort_limit
    # Computed torque adds feedback to the feed-forward (at most 90 % of the
    # limits): the applied efforts stay below the limits, none clipped.
    i, j = np.unravel_index(int(np.argmax(use)), use.shape)
    assert use.max() < 1.0, 'effort of %s at %.4f of its limit at t = ' \
        '%.3f s of %.3f s; warnings: %s' % (
            NAMES[j], use.max(), stamp_of(played[i]) - begin,
            report['output_duration'],
            ros.warnings('inverse_dynamics_node')[:3])
    assert use.max() > 0.5     # the motion did load the motors
    final = np.array(played[-1].position)
    assert np.max(np.abs(final - waypoints()[-1])) < 0.01
    assert not ros.warnings('inverse_dynamics_node', 'saturated')


def test_gravity_infeasible_path_is_refused(ros):
    results = ros.set_parameters('inverse_dynamics_node', **{
        'payload.mass': 8.0, 'payload.com': [0.0, 0.0, 0.05]})
    assert all(r.successful for r in results), [r.reason for r in results]
    try:
        msg = JointTrajectory(joint_names=NAMES)
        for seconds, q in ((0.0, [0.0, 0.0, 0.0, -0.2, 0.0, 0.2, 0.8]),
                           (2.0, [0.0, 1.5, 0.0, -0.1, 0.0, 1.6, 0.8])):
            msg.points.append(JointTrajectoryPoint(
                positions=q, time_from_start=duration_message(seconds)))
        ros.retimed.clear()
        ros.reports.clear()
        ros.wait_for(lambda: any(
            'refused' in yaml.safe_load(m.data)
            for m in ros.reports.messages),
            action=lambda: ros.retime.publish(msg), every=1.0,
            what='the refusal')
        report = [yaml.safe_load(m.data) for m in ros.reports.messages
                  if 'refused' in yaml.safe_load(m.data)][-1]
        assert not report['published'] and 'panda_joint2' in \
            report['refused']
        ros.spin(0.5)
        assert not ros.retimed.messages
        ros.wait_for(lambda: ros.warnings('inverse_dynamics_node',
                                          'trajectory_in refused'),
                     what='the warning')
    finally:
        ros.set_parameters('inverse_dynamics_node', **{
            'payload.mass': 0.0})
