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
inverse_dynamics_node and linearization_node when states stop or time jumps.

What doc/nodes/ promises of max_state_age and jump_policy, nodes as processes:

- on sim time, the tester playing the driver and its ``/clock``: after a
  gap in ``joint_states`` (the driver stops for 2 s mid-trajectory and
  resumes where the arm stopped) the first commands are not saturated:
  the reference did not run ahead, it holds the position where the states
  resumed (a gap beyond 1 s is a jump) or resumes where it paused (a
  shorter gap);
- ``/clock`` jumping +3 h and back: no saturated command, the reference
  held (computed torque then gives exactly g(q));
- linearization_node stops publishing models once its state is older than
  ``max_state_age``;
- a Panda's arm and its gripper on one ``joint_states``, the arm's driver
  25 times as often as the gripper's: every arm message is answered with
  the whole model's torques (Pinocchio to 1e-9).
"""

import time

from builtin_interfaces.msg import Duration
from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.nodes.shared.conversions import time_message, to_seconds
import numpy as np
import oracle
import pytest
from ros_harness import finish, inverse_dynamics_topics, \
    linearization_topics, NodeProcess, reserve_domain_id, RosTester
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

SIM_DOMAIN, LIN_DOMAIN, HAND_DOMAIN = (
    reserve_domain_id(__name__) for _ in range(3))
NODE = 'inverse_dynamics_node'
XML = oracle.example_arm_xml('panda')
MODEL, ORACLE = oracle.oracle_for(XML)
LIMITS = MODEL.effort_limit            # 87 N m, 12 N m on the last three
Q0 = np.array([0.1, -0.6, 0.2, -2.1, 0.3, 1.6, 0.7])
MOVE = np.array([0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6])   # rad over DURATION
DURATION = 2.0
DT = 0.01


def trajectory(start):
    """Return Q0 -> Q0 + MOVE, linear over DURATION, from ``start`` s."""
    msg = JointTrajectory(joint_names=list(MODEL.joint_names))
    msg.header.stamp = time_message(start)
    for seconds, q in ((0.0, Q0), (DURATION, Q0 + MOVE)):
        point = JointTrajectoryPoint(positions=q.tolist())
        point.time_from_start = Duration(sec=int(seconds))
        msg.points.append(point)
    return msg


def reference(start, t):
    """Return the trajectory's (q, qd) at ``t``."""
    s = min(max((t - start) / DURATION, 0.0), 1.0)
    inside = 0.0 < (t - start) < DURATION
    return Q0 + s * MOVE, (MOVE / DURATION if inside else 0.0 * MOVE)


def state(seconds, q, qd, names=None):
    """Return a JointState of the arm stamped ``seconds``."""
    names = list(MODEL.joint_names) if names is None else names
    msg = JointState(name=names, position=[float(x) for x in q],
                     velocity=[float(x) for x in qd])
    msg.header.stamp = time_message(seconds)
    return msg


def answer(ros, msg, before=None):
    """Send ``msg`` (after ``before()``) until answered; return the effort."""
    stamp = to_seconds(msg.header.stamp)

    def answers():
        return [m for m in ros.feedforward.messages
                if abs(to_seconds(m.header.stamp) - stamp) < 1e-6]

    def send():
        if before is not None:
            before()
        ros.states.publish(msg)
    ros.wait_for(answers, action=send, every=0.2,
                 what='the answer at %.3f s' % stamp)
    return np.array(answers()[0].effort)


def warm_up(ros, q, names=None):
    """Send fresh states until one is answered: the kernels are loaded."""
    ros.wait_for(lambda: ros.feedforward.messages, action=lambda: ros.states.
                 publish(state(time.time(), q, [0.0] * len(q), names)),
                 every=0.05, what='a first answer')


def saturated(effort):
    """Return True if a joint's effort is at its limit."""
    return bool(np.any(np.abs(effort) >= LIMITS * (1.0 - 1e-9)))


def start_node(domain, **parameters):
    """Run inverse_dynamics_node (computed torque) and a tester."""
    values = {'robot_description': XML, 'mode': 'computed_torque'}
    values.update(parameters)
    node = NodeProcess(NODE, domain, values)
    tester = inverse_dynamics_topics(RosTester(domain))
    tester.clock_publisher = tester.publisher(Clock, '/clock')
    tester.wait_for_subscriber(tester.trajectories)
    return node, tester


@pytest.fixture(scope='module')
def sim():
    """Run the node on sim time: the tester's /clock (the gap tests too)."""
    node, tester = start_node(SIM_DOMAIN, use_sim_time=True)
    tester.time = 100.0
    yield tester
    finish(node, tester)


def sim_answer(ros, t, q, qd):
    """Publish /clock and the state at sim time ``t``; return the effort."""
    return answer(ros, state(t, q, qd), before=lambda: ros.clock_publisher.
                  publish(Clock(clock=time_message(t))))


def follow_for(ros, start, seconds):
    """Play a driver tracking the trajectory for ``seconds``; last q."""
    q = Q0
    for _ in range(int(round(seconds / DT))):
        ros.time += DT
        q, qd = reference(start, ros.time)
        effort = sim_answer(ros, ros.time, q, qd)
        assert not saturated(effort), effort
    return q


@pytest.mark.parametrize('gap', [2.0, 0.5])
def test_after_a_gap_the_first_commands_are_not_saturated(sim, gap):
    sim.time += DT
    sim_answer(sim, sim.time, Q0, 0 * Q0)   # the hold: Q0
    start = sim.time + 0.1
    sim.trajectories.publish(trajectory(start))
    sim.spin(0.3)
    q = follow_for(sim, start, 0.8)
    sim.time += gap   # no joint_states: the arm stopped where it was
    efforts = []
    for _ in range(3):
        sim.time += DT
        efforts.append(sim_answer(sim, sim.time, q, 0 * q))
    assert not any(saturated(effort) for effort in efforts), efforts
    if gap > 1.0:
        # A jump: the reference holds the position where the states
        # resumed; computed torque at rest there is g(q) exactly.
        assert_close(efforts[0], ORACLE.gravity(q), 1e-9, 'g(q) held')


def test_clock_jumping_three_hours_and_back(sim):
    sim.time += DT
    sim_answer(sim, sim.time, Q0, 0 * Q0)
    start = sim.time + 0.1
    sim.trajectories.publish(trajectory(start))
    sim.spin(0.3)
    q = Q0
    for _ in range(60):   # 0.6 s along the trajectory
        sim.time += DT
        q, qd = reference(start, sim.time)
        effort = sim_answer(sim, sim.time, q, qd)
        assert not saturated(effort)
        assert_close(effort, ORACLE.bias(q, qd), 1e-9, 'on the reference')
    for t in (sim.time + 3 * 3600.0, sim.time + 3 * 3600.0 + DT,
              sim.time + DT, sim.time + 2 * DT):
        effort = sim_answer(sim, t, q, 0 * q)
        assert not saturated(effort), effort
        # The reference held where the arm is: computed torque is g(q).
        assert_close(effort, ORACLE.gravity(q), 1e-9, 'held at %g s' % t)
    sim.time += 2 * DT   # the last state's time: the next test goes on


@pytest.fixture(scope='module')
def linear():
    """linearization_node at 50 Hz on the wall clock."""
    node = NodeProcess('linearization_node', LIN_DOMAIN, {
        'robot_description': XML, 'rate': 50.0})
    tester = linearization_topics(RosTester(LIN_DOMAIN))
    tester.wait_for_subscriber(tester.states)
    yield tester
    finish(node, tester)


def test_linearization_stops_on_states_older_than_max_state_age(linear):
    # Fresh states: models (the first linearization loads its kernels).
    linear.wait_for(lambda: linear.a.messages, action=lambda: linear.states.
                    publish(state(time.time(), Q0, 0 * Q0)), every=0.02,
                    what='a model about fresh states')
    # No more states: once the last is older than max_state_age (0.1 s)
    # the models stop (50 a second before).  Waited for as a second
    # without one, however late a loaded machine ran the node's timer; a
    # node that kept publishing never gives that second.
    heard = {'count': -1, 'since': 0.0}

    def quiet_for_a_second():
        count = len(linear.a.messages) + len(linear.point.messages)
        if count != heard['count']:
            heard.update(count=count, since=time.monotonic())
        return time.monotonic() - heard['since'] >= 1.0
    linear.wait_for(quiet_for_a_second, what='a second without a model')
    linear.wait_for(lambda: linear.warnings('linearization_node',
                                            'max_state_age'),
                    what='the warning of a state older than max_state_age')


# --- an arm and its gripper on one joint_states ------------------------------

HAND_XML = open(oracle.os.path.join(
    oracle.robots_directory(), 'panda_description', 'urdf',
    'panda.urdf'), encoding='utf-8').read()
HAND = dr.load_urdf(HAND_XML)
HAND_ORACLE = oracle.ProjectedOracle(HAND, HAND_XML)
ARM = list(MODEL.joint_names)
FINGERS = ['panda_finger_joint1', 'panda_finger_joint2']   # 2 mimics 1


@pytest.fixture(scope='module')
def hand():
    """inverse_dynamics_node on the Panda with its hand, gravity mode."""
    # max_state_age 1 s: a loaded test machine may delay the node by more
    # than 0.1 s; merging is what is tested here, the gripper's state
    # being 0.25 s old at most (the test sends it at least that often).
    node = NodeProcess(NODE, HAND_DOMAIN, {'robot_description': HAND_XML,
                                           'mode': 'gravity',
                                           'max_state_age': 1.0})
    tester = inverse_dynamics_topics(RosTester(HAND_DOMAIN))
    tester.gripper = tester.publisher(JointState, 'joint_states')
    # A history deep enough for every answer of the test.
    tester.replies = tester.collector(JointState, 'feedforward', 5000)
    tester.wait_for_subscriber(tester.states)
    tester.wait_for_subscriber(tester.gripper)
    yield tester
    finish(node, tester)


def test_arm_and_gripper_drivers_are_answered_whole(hand):
    # A robot's arm driver publishes 25 times as often as its gripper's
    # (500 Hz and 20 Hz on a Panda). The ratio is what the merging sees,
    # not the rate: each arm state goes out once the answer to the one
    # before is in, so no message is lost to a busy machine (the
    # sensor-data QoS keeps the last 5 only) and every one must be
    # answered, whatever the load.
    warm_up(hand, list(Q0) + [0.01, 0.01], ARM + FINGERS)
    sent, fingers = [], []
    last_gripper = 0.0
    for k in range(1, 401):
        # Every 25th arm state, and at least every 0.25 s so the
        # gripper's state never ages past max_state_age on a slow machine.
        if k % 25 == 1 or time.monotonic() - last_gripper > 0.25:
            last_gripper = time.monotonic()
            finger = 0.01 + 0.02 * (len(fingers) % 2)
            fingers.append(finger)
            msg = JointState(name=FINGERS, position=[finger, finger])
            msg.header.stamp = time_message(time.time())
            hand.gripper.publish(msg)   # no velocities: a gripper driver
        q = Q0 + 0.001 * k
        t = time.time()
        hand.states.publish(state(t, q, 0 * q, ARM))
        sent.append((t, q, fingers[-2:]))
        key = round(t, 6)
        try:
            hand.wait_for(lambda: any(
                round(to_seconds(m.header.stamp), 6) == key
                for m in hand.replies.messages[-5:]), timeout=5.0,
                what='the answer to arm state %d' % k)
        except AssertionError:
            pass   # counted below
    hand.spin(0.5)
    replies = {round(to_seconds(m.header.stamp), 6): m
               for m in hand.replies.messages}
    unanswered = [t for t, _, _ in sent if round(t, 6) not in replies]
    assert not unanswered, (len(unanswered), len(sent),
                            hand.warnings(NODE))
    checked = 0
    for t, q, recent in sent:
        reply = replies.get(round(t, 6))
        if reply is None:
            continue
        names = list(reply.name)
        index = [HAND.joint_index(name) for name in names]
        # The latest gripper value the node had: the last sent or the one
        # before (two publishers: no order between them).
        errors = []
        for finger in recent:
            full = np.empty(HAND.nq)
            full[[HAND.joint_index(name) for name in ARM]] = q
            full[HAND.joint_index(FINGERS[0])] = finger
            expected = HAND_ORACLE.gravity(full)[index]
            errors.append(np.max(np.abs(np.array(reply.effort) - expected))
                          / max(1.0, np.max(np.abs(expected))))
        assert min(errors) < 1e-9, errors
        checked += 1
    assert checked == len(sent) == 400
