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
external_torque_node when time misbehaves (doc/nodes/every_node.md), over DDS.

The tester plays a simulator on sim time: it publishes ``/clock`` and a
Panda's ``joint_states`` at rest (no gravity, so the measured effort is
minus the external torque), stamped with that clock, every 10 ms; the
node runs with ``use_sim_time``.  One future stamp (+1000 s), and then
``/clock`` going back 50 s with the states (a simulator restart): the
node's next estimates resume within two samples, and a push applied right
after is detected.  A flood of future stamps gives at most one warning of
that kind a second, the repeats counted in the next line.

The tester paces itself on the node's answers (a state goes out once the
one before is answered; the node reads ``joint_states`` with the sensor-data
QoS, keep last 5, so a burst on a busy machine would lose states), and the
node's clock is the tester's ``/clock``: no assertion depends on how fast
the machine answers, nor on what a test before left.
"""

import re
import time

import dynamics_ros as dr
from dynamics_ros.nodes.shared.conversions import time_message, to_seconds
import numpy as np
from oracle import example_arm_xml
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_harness import finish, NodeProcess, reserve_domain_id, RosTester, \
    TIMEOUT
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool

DOMAIN_ID = reserve_domain_id(__name__)
NODE = 'external_torque_node'
XML = example_arm_xml('panda')
MODEL = dr.load_urdf(XML, gravity=(0.0, 0.0, 0.0))
Q0 = np.array([0.1, -0.6, 0.2, -2.1, 0.3, 1.6, 0.7])
PUSH = np.array([0.0, 10.0, 0.0, 0.0, 0.0, 0.0, 0.0])   # N m on joint 2
GAIN, DT, THRESHOLD = 50.0, 0.01, 5.0
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)


@pytest.fixture(scope='module')
def ros():
    """Run the node on sim time; a tester playing the simulator."""
    node = NodeProcess(NODE, DOMAIN_ID, {
        'robot_description': XML, 'gravity': [0.0, 0.0, 0.0],
        'gain': GAIN, 'thresholds': THRESHOLD, 'use_sim_time': True})
    tester = RosTester(DOMAIN_ID)
    tester.states = tester.publisher(JointState, 'joint_states')
    tester.clock_publisher = tester.publisher(Clock, '/clock')
    tester.torques = tester.collector(JointState, 'external_torques')
    tester.collisions = tester.collector(Bool, 'collision', LATCHED)
    tester.time = 100.0
    tester.wait_for(lambda: tester.collisions.messages, what='collision')
    tester.wait_for_subscriber(tester.states)
    yield tester
    finish(node, tester)


def state(seconds, effort):
    """Return a JointState of the Panda at rest at Q0, stamped ``seconds``."""
    msg = JointState(name=list(MODEL.joint_names), position=Q0.tolist(),
                     velocity=[0.0] * MODEL.nq,
                     effort=[float(x) for x in effort])
    msg.header.stamp = time_message(seconds)
    return msg


def tick(ros, seconds, effort):
    """Publish /clock at ``seconds`` and a state stamped with it."""
    ros.clock_publisher.publish(Clock(clock=time_message(seconds)))
    ros.states.publish(state(seconds, effort))


def answered(ros, seconds):
    """Return the estimates stamped ``seconds``."""
    return [m for m in ros.torques.messages
            if abs(to_seconds(m.header.stamp) - seconds) < 1e-6]


def step(ros, effort, wait=True):
    """Advance the tester's clock by DT and send a state (answered)."""
    ros.time += DT
    t = ros.time
    if wait:
        ros.wait_for(lambda: answered(ros, t),
                     action=lambda: tick(ros, t, effort), every=0.2,
                     what='the estimate at %.3f s' % t)
    else:
        tick(ros, t, effort)
    return t


def resumed_within_two_samples(ros, effort):
    """
    Send ten samples once each: all from the third on are answered.

    The first two go out together (the node may drop them); each of the
    others once the one before is answered, however long that takes.
    """
    times = [step(ros, effort, wait=False) for _ in range(2)]
    for _ in range(8):
        t = step(ros, effort, wait=False)
        times.append(t)
        ros.wait_for(lambda: answered(ros, t),
                     what='the estimate at %.3f s (sent once)' % t)
    missing = [t for t in times[2:] if not answered(ros, t)]
    assert not missing, 'no estimate at %s' % missing


def test_settles_with_no_push(ros):
    for _ in range(20):
        step(ros, np.zeros(MODEL.nq))
    assert not ros.collisions.messages[-1].data


def test_a_future_stamp_does_not_blind_the_observer(ros):
    step(ros, np.zeros(MODEL.nq))   # the node's clock runs
    future = ros.time + 1000.0
    for _ in range(3):
        ros.states.publish(state(future, np.zeros(MODEL.nq)))
    resumed_within_two_samples(ros, np.zeros(MODEL.nq))
    # Read before the samples answered after them: not on the node's
    # clock, dropped.
    assert not answered(ros, future)
    push_is_detected(ros)


def test_clock_going_back_does_not_blind_the_observer(ros):
    ros.time -= 50.0   # the simulator restarted, 50 s back
    ros.clock_publisher.publish(Clock(clock=time_message(ros.time)))
    ros.spin(0.2)
    step(ros, np.zeros(MODEL.nq))   # answered: the integral restarted
    resumed_within_two_samples(ros, np.zeros(MODEL.nq))
    push_is_detected(ros)


def push_is_detected(ros):
    """Push on joint 2 (effort = -push at rest): detected, then released."""
    ros.torques.clear()
    for _ in range(15):   # 0.15 s: 7.5 time constants
        step(ros, -PUSH)
    estimate = ros.torques.messages[-1].effort
    assert abs(estimate[1] - PUSH[1]) < 0.05 * PUSH[1], estimate
    ros.wait_for(lambda: ros.collisions.messages[-1].data,
                 what='collision true')
    for _ in range(30):
        step(ros, np.zeros(MODEL.nq))
    ros.wait_for(lambda: not ros.collisions.messages[-1].data,
                 what='collision false')


AHEAD = 'ahead of the node clock'
REPEATS = re.compile(r' \(x(\d+) in the last ')


def ahead_lines(ros):
    """Return the node's /rosout lines about states stamped ahead."""
    return [m for m in ros.logs.messages
            if m.name == NODE and AHEAD in m.msg]


def test_warnings_of_one_kind_at_most_once_a_second(ros):
    # The node's clock is the tester's /clock: run alone, this test must
    # start it first (on a clock that never ran, no stamp is 'ahead').
    step(ros, np.zeros(MODEL.nq))
    before = len(ahead_lines(ros))
    future = ros.time + 1000.0
    sent = 0
    end = time.monotonic() + TIMEOUT
    # Future stamps, each followed by a state it must be read before (one
    # subscription reads in order): the flood goes on until the throttle
    # lets a second line of the kind through, however slow the machine
    # and whatever period an earlier test left the kind at.
    while len(ahead_lines(ros)) < before + 2:
        assert time.monotonic() < end, [m.msg for m in ahead_lines(ros)]
        sent += 1
        ros.states.publish(state(future + sent * DT, np.zeros(MODEL.nq)))
        step(ros, np.zeros(MODEL.nq))
    lines = ahead_lines(ros)
    stamps = [to_seconds(m.stamp) for m in lines]
    # Throttled to 1/s at most (a flood unthrottled fails: it sent
    # hundreds), and the next line counts the repeats (a kind silenced
    # after its first line never gives one, and times out above).
    assert all(b - a >= 0.99 for a, b in zip(stamps, stamps[1:])), stamps
    assert len(lines) - before < sent, (sent, [m.msg for m in lines])
    counts = [int(match.group(1)) for match in
              (REPEATS.search(m.msg) for m in lines[before + 1:]) if match]
    assert counts and max(counts) >= 2, [m.msg for m in lines]
    resumed_within_two_samples(ros, np.zeros(MODEL.nq))
