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
them.  Both run in lockstep with this test (doc/theory/lockstep.md): the
simulator takes no step past a state the observer or the test has not
answered, and a push stamped ahead of simulated time takes effect exactly
at its stamp.  So the push is scripted: on at a stamp 1 s ahead, off 1.2 s
later.  ``collision`` must rise within 3/K of the push's stamp (simulated
time, whatever the machine's load), the estimated torques and wrench must
come to the push (J^T w with Pinocchio's Jacobian at the pushed pose), and
the flag must fall after the push ends.  Bad pushes (unknown link,
non-finite values) are dropped with a warning and change nothing.
"""

import math

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.nodes.shared.conversions import to_seconds
from geometry_msgs.msg import WrenchStamped
import numpy as np
from oracle import example_arm_xml, PinocchioOracle
import pinocchio as pin
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_harness import all_finite, answering_collector, NodeProcess, \
    reserve_domain_id, RosTester, TESTER_ANSWERS
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool

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
    """Run simulator_node and external_torque_node on the Panda in lockstep."""
    nodes = [
        NodeProcess('simulator_node', DOMAIN_ID, {
            'robot_description': XML, 'initial_positions': Q0,
            'gravity': NO_GRAVITY, 'publish_rate': 200.0,
            # Held at Q0 by the position PID from the start (no command).
            'hold_mode': 'position',
            'lockstep': True, 'real_time_factor': 0.0,
            'lockstep_peers': ['external_torques', TESTER_ANSWERS],
            # The test may stop spinning for a while (a slow machine):
            # waited for, never given up on.
            'lockstep_timeout': 600.0}),
        NodeProcess('external_torque_node', DOMAIN_ID, {
            'robot_description': XML, 'gravity': NO_GRAVITY, 'gain': GAIN,
            'thresholds': THRESHOLD, 'link': LINK, 'lockstep': True,
            'use_sim_time': True})]   # the simulator's stamps: sim time
    tester = RosTester(DOMAIN_ID)
    tester.states = answering_collector(tester)
    tester.push = tester.publisher(WrenchStamped,
                                   '/simulator_node/external_wrench')
    # Deep queues: every state is answered, so every estimate is kept.
    tester.torques = tester.collector(JointState, 'external_torques', 1000)
    tester.wrenches = tester.collector(WrenchStamped, 'external_wrench',
                                       1000)
    tester.collisions = tester.collector(Bool, 'collision', LATCHED)
    tester.wait_for(lambda: tester.torques.messages, timeout=180.0,
                    what='the first external torques')
    # The observer may answer the first state before this test has read
    # it (seen when this file ran alone): the tests start from a state.
    tester.wait_for(lambda: tester.states.messages,
                    what='the first joint state')
    tester.wait_for_subscriber(tester.push)
    tester.wait_for(lambda: tester.collisions.messages,
                    what='the first collision flag')
    yield tester
    alive = [node.alive() for node in nodes]
    statuses = [node.stop() for node in nodes]
    tester.close()
    assert all(alive) and statuses == [0, 0], '\n'.join(
        node.output() for node in nodes)


def latest(collector):
    """Return the newest message of a collector by stamp."""
    return max(collector.messages, key=lambda m: to_seconds(m.header.stamp))


def stamped(msg, seconds):
    """Return ``msg`` with its header stamped ``seconds`` (s)."""
    nanoseconds = int(round(seconds * 1e9))
    msg.header.stamp.sec = nanoseconds // 1000000000
    msg.header.stamp.nanosec = nanoseconds % 1000000000
    return msg


def wait_for_simulated(ros, seconds, what):
    """Spin until external torques stamped ``seconds`` or later came."""
    ros.wait_for(lambda: to_seconds(latest(ros.torques).header.stamp)
                 >= seconds, what=what)


def test_a_push_is_detected_within_three_time_constants_and_released(ros):
    """
    Push from a stamp ahead, then stop: detect, estimate, release.

    One scenario in one test: each step starts from where the one before
    left the arm.
    """
    assert not ros.collisions.messages[-1].data
    flags = len(ros.collisions.messages)
    quiet = max(np.max(np.abs(m.effort)) for m in ros.torques.messages[-50:])
    assert quiet < THRESHOLD, 'estimate %.3g N m before any push' % quiet
    # Simulated time stands still while the test does not answer: 1 s
    # ahead of the newest state is ahead of the simulator whatever the
    # load.
    on = to_seconds(latest(ros.states).header.stamp) + 1.0
    off = on + 1.2
    ros.push.publish(stamped(wrench_message(LINK, WRENCH), on))
    ros.push.publish(stamped(wrench_message(LINK, np.zeros(6)), off))

    # 1. Detected within 3/K of the push's stamp, in simulated time.
    ros.wait_for(lambda: ros.collisions.messages[-1].data,
                 what='collision true')

    def detected():
        return [to_seconds(m.header.stamp) for m in ros.torques.messages
                if np.max(np.abs(m.effort)) > THRESHOLD]
    ros.wait_for(detected, what='an estimate above the threshold')
    delay = min(detected()) - on
    assert 0.0 < delay <= 3.0 / GAIN, 'detected %.3f s after the push' % (
        delay)

    # 2. After 50 time constants the estimate is the push (the PID holds
    # the pushed arm).
    wait_for_simulated(ros, on + 1.0, '1 s of simulated push')
    estimate = min((m for m in ros.torques.messages
                    if to_seconds(m.header.stamp) >= on + 1.0),
                   key=lambda m: to_seconds(m.header.stamp))
    when = to_seconds(estimate.header.stamp)
    assert when < off
    state = next(m for m in ros.states.messages
                 if to_seconds(m.header.stamp) == when)
    truth = push_torques(by_name(state, 'position'))
    # Efforts held over a step and read as samples (half a step off), and
    # an arm the PID still moves a little: 2 % of the push.
    assert_close(by_name(estimate, 'effort'), truth, rtol=0.02,
                 what='external torques while pushed')

    # The wrench of that state follows its torques (the answer) out.
    def wrenches():
        return [m for m in ros.wrenches.messages
                if to_seconds(m.header.stamp) == when]
    ros.wait_for(wrenches, what='the wrench at t = %.3f s' % when)
    wrench = wrenches()[-1]
    assert wrench.header.frame_id == LINK
    assert_close([wrench.wrench.torque.x, wrench.wrench.torque.y,
                  wrench.wrench.torque.z, wrench.wrench.force.x,
                  wrench.wrench.force.y, wrench.wrench.force.z], WRENCH,
                 rtol=0.02, what='wrench while pushed')

    # 3. The push ends at its stamp: the flag falls, the estimate goes
    # back to nothing external.
    ros.wait_for(lambda: not ros.collisions.messages[-1].data,
                 what='collision false')
    assert [m.data for m in ros.collisions.messages[flags - 1:]] == [
        False, True, False]
    wait_for_simulated(ros, off + 0.2, '0.2 s of simulated time after it')
    after = [m for m in ros.torques.messages
             if to_seconds(m.header.stamp) >= off + 0.2]
    assert np.max(np.abs(after[0].effort)) < 0.1 * THRESHOLD


@pytest.mark.parametrize('link,values,words', [
    ('no_such_link', WRENCH, "frame_id 'no_such_link' is not a link"),
    (LINK, [0.0, math.nan, 0.0, 1.0, 0.0, 0.0], 'non-finite'),
    ('', WRENCH, "frame_id '' is not a link")])
def test_bad_pushes_are_dropped_with_a_reason(ros, link, values, words):
    ros.wait_for(lambda: ros.warnings('simulator_node', words),
                 action=lambda: ros.push.publish(
                     wrench_message(link, values)), every=0.5,
                 what='a warning with %r' % words)
    # 0.3 s of simulated time after the warning: still nothing external.
    warned = to_seconds(latest(ros.states).header.stamp)
    wait_for_simulated(ros, warned + 0.3, '0.3 s of simulated time')
    assert not ros.collisions.messages[-1].data
    assert np.max(np.abs(latest(ros.torques).effort)) < 0.1 * THRESHOLD


def test_everything_published_is_finite(ros):
    wait_for_simulated(ros, 0.5, '0.5 s of simulated time')
    assert all_finite(ros.torques.messages, 'effort')
    assert all_finite(ros.states.messages, 'effort')
