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
simulator_node pushed through ~/external_wrench, watched by external_torque_node.

Two processes over DDS, as beside a real arm: simulator_node simulates the
Panda (without gravity, held at its start pose by the position PID), publishing
``joint_states`` with the actuators' efforts; external_torque_node reads
them.  A push at the hand through the simulator's ``~/external_wrench``
must raise ``collision`` within 3/K of the push (measured from the last
simulated time the tester had seen when it sent the push, so DDS latency
counts against the node), the estimated torques and wrench must come to
the push (J^T w with Pinocchio's Jacobian at the pushed pose), and the
flag must fall after the push ends.  Bad pushes (unknown link, non-finite
values) are dropped with a warning and change nothing.
"""

import math

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.nodes.conversions import to_seconds
from geometry_msgs.msg import WrenchStamped
import numpy as np
from oracle import example_arm_xml, PinocchioOracle
import pinocchio as pin
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_harness import all_finite, NodeProcess, reserve_domain_id, \
    RosTester, simulator_topics
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool, Float64MultiArray

DOMAIN_ID = reserve_domain_id(__name__)
XML = example_arm_xml('panda')
MODEL = dr.load_urdf(XML)
LINK = 'panda_hand'
Q0 = [0.1, -0.6, 0.2, -2.1, 0.3, 1.6, 0.7]
WRENCH = np.array([0.5, -0.3, 0.2, 10.0, -5.0, 8.0])   # [moment; force]
GAIN, THRESHOLD = 50.0, 2.5
# Without gravity the arm rests at its start pose until pushed (with it, it
# would fall onto its joint limits before the position PID holds it, and
# the limits' reactions are external torques too).
NO_GRAVITY = [0.0, 0.0, 0.0]
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
ORACLE = PinocchioOracle(MODEL, XML)


def push_torques(q):
    """Return J^T w of WRENCH at the hand, Pinocchio's Jacobian."""
    J = pin.computeFrameJacobian(
        ORACLE.pin_model, ORACLE.data, ORACLE.q(q),
        ORACLE.pin_model.getFrameId(LINK), pin.LOCAL)[:, ORACLE.idx_v]
    return J.T @ np.concatenate((WRENCH[3:], WRENCH[:3]))


def wrench_message(link, values):
    """Return a WrenchStamped [moment; force] on ``link``."""
    msg = WrenchStamped()
    msg.header.frame_id = link
    (msg.wrench.torque.x, msg.wrench.torque.y, msg.wrench.torque.z,
     msg.wrench.force.x, msg.wrench.force.y, msg.wrench.force.z) = (
        float(v) for v in values)
    return msg


def by_name(msg, field):
    """Return a JointState field in model order."""
    values = dict(zip(msg.name, getattr(msg, field)))
    return np.array([values[name] for name in MODEL.joint_names])


@pytest.fixture(scope='module')
def ros():
    """Run simulator_node and external_torque_node on the Panda."""
    nodes = [
        NodeProcess('simulator_node', DOMAIN_ID, {
            'robot_description': XML, 'initial_positions': Q0,
            'gravity': NO_GRAVITY, 'publish_rate': 200.0,
            'real_time_factor': 1.0}),
        NodeProcess('external_torque_node', DOMAIN_ID, {
            'robot_description': XML, 'gravity': NO_GRAVITY, 'gain': GAIN,
            'thresholds': THRESHOLD, 'link': LINK,
            'use_sim_time': True})]   # the simulator's stamps: sim time
    tester = RosTester(DOMAIN_ID)
    simulator_topics(tester, 'position')
    tester.push = tester.publisher(WrenchStamped,
                                   '/simulator_node/external_wrench')
    tester.torques = tester.collector(JointState, 'external_torques')
    tester.wrenches = tester.collector(WrenchStamped, 'external_wrench')
    tester.collisions = tester.collector(Bool, 'collision', LATCHED)
    tester.wait_for(lambda: tester.torques.messages, timeout=180.0,
                    what='the first external torques')
    tester.wait_for_subscriber(tester.position)
    tester.wait_for_subscriber(tester.push)
    tester.position.publish(Float64MultiArray(data=Q0))
    tester.spin(1.0)   # the PID settles: no collision before the push
    yield tester
    alive = [node.alive() for node in nodes]
    statuses = [node.stop() for node in nodes]
    tester.close()
    assert all(alive) and statuses == [0, 0], '\n'.join(
        node.output() for node in nodes)


def latest(collector):
    """Return the newest message of a collector by stamp."""
    return max(collector.messages, key=lambda m: to_seconds(m.header.stamp))


def test_a_push_raises_collision_within_three_time_constants(ros):
    assert not ros.collisions.messages[-1].data
    quiet = max(np.max(np.abs(m.effort)) for m in ros.torques.messages[-50:])
    assert quiet < THRESHOLD, 'estimate %.3g N m before any push' % quiet
    ros.spin(0.1)   # the tester's backlog read: its newest state is recent
    sent = to_seconds(latest(ros.states).header.stamp)
    ros.torques.clear()
    ros.push.publish(wrench_message(LINK, WRENCH))
    ros.wait_for(lambda: ros.collisions.messages[-1].data,
                 what='collision true')

    def detected():
        return [to_seconds(m.header.stamp) for m in ros.torques.messages
                if np.max(np.abs(m.effort)) > THRESHOLD]
    ros.wait_for(detected, what='an estimate above the threshold')
    delay = min(detected()) - sent
    assert 0.0 < delay <= 3.0 / GAIN, 'detected %.3f s after the push' % (
        delay)
    ros.push_sent = sent


def test_the_estimate_comes_to_the_push(ros):
    # 50 time constants of simulated time (a loaded machine simulates
    # slower than real time); the PID holds the pushed arm.
    ros.wait_for(lambda: to_seconds(latest(ros.states).header.stamp)
                 > ros.push_sent + 1.0, what='1 s of simulated push')
    ros.spin(0.2)
    states = {to_seconds(m.header.stamp): m for m in ros.states.messages}
    estimate = max((m for m in ros.torques.messages
                    if to_seconds(m.header.stamp) in states),
                   key=lambda m: to_seconds(m.header.stamp))
    state = states[to_seconds(estimate.header.stamp)]
    assert to_seconds(state.header.stamp) > ros.push_sent + 1.0
    truth = push_torques(by_name(state, 'position'))
    # Efforts held over a step and read as samples (half a step off), and
    # an arm the PID still moves a little: 2 % of the push.
    assert_close(by_name(estimate, 'effort'), truth, rtol=0.02,
                 what='external torques while pushed')
    wrench = latest(ros.wrenches)
    assert wrench.header.frame_id == LINK
    assert_close([wrench.wrench.torque.x, wrench.wrench.torque.y,
                  wrench.wrench.torque.z, wrench.wrench.force.x,
                  wrench.wrench.force.y, wrench.wrench.force.z], WRENCH,
                 rtol=0.02, what='wrench while pushed')


def test_collision_falls_after_the_push_ends(ros):
    assert ros.collisions.messages[-1].data
    ended = to_seconds(latest(ros.states).header.stamp)
    ros.push.publish(wrench_message(LINK, np.zeros(6)))
    ros.wait_for(lambda: not ros.collisions.messages[-1].data,
                 what='collision false')
    assert [m.data for m in ros.collisions.messages] == [False, True, False]
    # Back to nothing external (simulated time, however fast it runs).
    ros.wait_for(lambda: to_seconds(latest(ros.torques).header.stamp)
                 > ended + 0.2, what='0.2 s of simulated time without push')
    assert np.max(np.abs(latest(ros.torques).effort)) < 0.1 * THRESHOLD


@pytest.mark.parametrize('link,values,words', [
    ('no_such_link', WRENCH, "frame_id 'no_such_link' is not a link"),
    (LINK, [0.0, math.nan, 0.0, 1.0, 0.0, 0.0], 'non-finite'),
    ('', WRENCH, "frame_id '' is not a link")])
def test_bad_pushes_are_dropped_with_a_reason(ros, link, values, words):
    ros.wait_for(lambda: ros.warnings('simulator_node', words),
                 action=lambda: ros.push.publish(
                     wrench_message(link, values)), every=0.5,
                 what='a warning with %r' % words)
    ros.spin(0.3)
    assert not ros.collisions.messages[-1].data
    assert np.max(np.abs(latest(ros.torques).effort)) < 0.1 * THRESHOLD


def test_everything_published_is_finite(ros):
    assert all_finite(ros.torques.messages, 'effort')
    assert all_finite(ros.states.messages, 'effort')
