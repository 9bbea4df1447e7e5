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
external_torque_node over DDS: the observer's numbers, collision, bad input.

The tester plays a driver: ``joint_states`` of a Panda held at rest
against a push at the hand (so the measured effort is g(q) - J^T w and the
external torques are exactly J^T w, J from Pinocchio), stamped every
10 ms, one message at a time (each answered before the next, so none is
lost to the best-effort subscription).  The node's ``external_torques``
must be those of the ROS-free MomentumObserver on the same samples, its
``external_wrench`` the push, and ``collision`` (latched) must rise and
fall with it.  Then every kind of bad input: dropped with a warning that
says why, the node alive, nothing non-finite published, and the next good
message answered as before.  Last, the Panda with its hand (mimic
fingers): the driver names all nine joints, the node answers for the
eight independent ones.  A test that needs the observer fresh resets it
first (``reset_observer``), so no test depends on what one before left.
"""

import math

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.estimation.momentum_observer import MomentumObserver
from dynamics_ros.nodes.shared.conversions import time_message, to_seconds
from geometry_msgs.msg import InertiaStamped, WrenchStamped
import numpy as np
from oracle import example_arm_xml, PinocchioOracle, robots_directory
from payload_plant import box_inertia, welded
import pinocchio as pin
import pytest
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_harness import all_finite, finish, inertia_stamped, NodeProcess, \
    reserve_domain_id, RosTester
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool
from std_srvs.srv import Trigger

DOMAIN_ID, HAND_DOMAIN = (reserve_domain_id(__name__) for _ in range(2))
NODE = 'external_torque_node'
XML = example_arm_xml('panda')
MODEL = dr.load_urdf(XML)
LINK = 'panda_hand'
JOINTS = list(reversed(MODEL.joint_names))   # not the model's order
Q0 = np.array([0.1, -0.6, 0.2, -2.1, 0.3, 1.6, 0.7])
WRENCH = np.array([0.5, -0.3, 0.2, 10.0, -5.0, 8.0])   # [moment; force]
GAIN, DT, THRESHOLD = 50.0, 0.01, 3.0
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)


def push_torques(model, xml, q, link, wrench):
    """Return J^T w of ``wrench`` at ``link`` with Pinocchio's Jacobian."""
    tree = model.tree if isinstance(model, dr.MimicModel) else model
    oracle = PinocchioOracle(tree, xml)
    q_tree = model.full_positions(q) if tree is not model else q
    J = pin.computeFrameJacobian(
        oracle.pin_model, oracle.data, oracle.q(q_tree),
        oracle.pin_model.getFrameId(link), pin.LOCAL)[:, oracle.idx_v]
    tau = J.T @ np.concatenate((wrench[3:], wrench[:3]))
    return tau if tree is model else np.asarray(model.G).T @ tau


PUSH = push_torques(MODEL, XML, Q0, LINK, WRENCH)
GRAVITY = dr.gravity_torques(MODEL, Q0)


def state(seconds, effort, names=JOINTS, q=Q0, model=MODEL):
    """Return a driver's JointState at rest at ``q``, effort model order."""
    order = [model.joint_index(name) for name in names]
    msg = JointState(name=list(names),
                     position=[float(q[i]) for i in order],
                     velocity=[0.0] * len(names),
                     effort=[float(effort[i]) for i in order])
    msg.header.stamp = time_message(seconds)
    return msg


def in_model_order(msg, model=MODEL):
    """Return the effort of ``msg`` in model order."""
    values = dict(zip(msg.name, msg.effort))
    return np.array([values[name] for name in model.joint_names])


@pytest.fixture(scope='module')
def ros():
    """Run the node on the Panda; a tester with its topics."""
    node = NodeProcess(NODE, DOMAIN_ID, {
        'robot_description': XML, 'joints': JOINTS, 'gain': GAIN,
        'thresholds': THRESHOLD, 'hysteresis': 0.2, 'link': LINK,
        'max_gap': 0.5, 'max_state_age': 0.0})   # stamps from 1 s: no check
    tester = RosTester(DOMAIN_ID)
    tester.states = tester.publisher(JointState, 'joint_states')
    tester.torques = tester.collector(JointState, 'external_torques')
    tester.wrenches = tester.collector(WrenchStamped, 'external_wrench')
    tester.collisions = tester.collector(Bool, 'collision', LATCHED)
    tester.clock = 1.0
    tester.wait_for(lambda: tester.collisions.messages, what='collision')
    tester.wait_for_subscriber(tester.states)
    yield tester
    finish(node, tester)
    assert all_finite(tester.torques.messages, 'effort')


def answer(ros, msg):
    """Send one joint state; return the external_torques answering it."""
    stamp = to_seconds(msg.header.stamp)

    def answered():
        return [m for m in ros.torques.messages
                if to_seconds(m.header.stamp) == stamp]
    ros.wait_for(answered, action=lambda: ros.states.publish(msg),
                 every=1.0, what='external_torques at %.3f s' % stamp)
    return answered()[0]


def send(ros, effort, count):
    """Send ``count`` samples DT apart; return the (t, effort) sent."""
    sent = []
    for _ in range(count):
        ros.clock += DT
        msg = state(ros.clock, effort)
        sent.append((to_seconds(msg.header.stamp), effort))   # as received
        answer(ros, msg)
    return sent


def start_over(ros):
    """Reset the node's observer; wait until no collision is flagged."""
    client = ros.node.create_client(Trigger, '/%s/reset_observer' % NODE)
    try:
        ros.wait_for(client.service_is_ready, what='reset_observer')
        future = client.call_async(Trigger.Request())
        ros.wait_for(future.done, what='reset reply')
    finally:
        ros.node.destroy_client(client)
    assert future.result().success, future.result().message
    ros.wait_for(lambda: not ros.collisions.messages[-1].data,
                 what='collision ended by the reset')


def test_torques_are_the_observers_and_the_push_is_found(ros):
    start_over(ros)   # the integral starts at the first sample, as below
    sent = send(ros, GRAVITY, 5) + send(ros, GRAVITY - PUSH, 60)
    observer = MomentumObserver(MODEL, GAIN)
    expected = [observer.update(t, Q0, np.zeros(7), effort).torques
                for t, effort in sent]
    by_stamp = {to_seconds(m.header.stamp): m for m in ros.torques.messages}
    for (t, _), torques in zip(sent, expected):
        msg = by_stamp[t]
        assert list(msg.name) == JOINTS and not msg.position
        assert_close(in_model_order(msg), torques, rtol=1e-9,
                     scale=np.max(np.abs(PUSH)), what='at %.2f s' % t)
    # 60 samples of 10 ms after the push: 30 time constants, converged.
    assert_close(expected[-1], PUSH, rtol=1e-9)
    ros.wait_for(lambda: ros.wrenches.messages and to_seconds(
        ros.wrenches.messages[-1].header.stamp) == sent[-1][0],
        what='the last wrench')
    msg = ros.wrenches.messages[-1]
    assert msg.header.frame_id == LINK
    wrench = [msg.wrench.torque.x, msg.wrench.torque.y, msg.wrench.torque.z,
              msg.wrench.force.x, msg.wrench.force.y, msg.wrench.force.z]
    assert_close(wrench, WRENCH, rtol=1e-6, what='wrench at the hand')


def test_collision_is_latched_and_falls_after_the_push(ros):
    start_over(ros)
    changes, logs = len(ros.collisions.messages), len(ros.logs.messages)
    send(ros, GRAVITY - PUSH, 30)
    ros.wait_for(lambda: ros.collisions.messages[-1].data,
                 what='collision true')
    # A late subscriber gets the current state (transient local).
    late = ros.collector(Bool, 'collision', LATCHED)
    ros.wait_for(lambda: late.messages, what='latched collision')
    assert late.messages[-1].data is True
    ros.wait_for(lambda: any('collision: panda_joint' in m.msg for m in
                             ros.logs.messages[logs:] if m.name == NODE),
                 what='the collision logged')
    send(ros, GRAVITY, 40)
    ros.wait_for(lambda: not ros.collisions.messages[-1].data,
                 what='collision false')
    assert [m.data for m in ros.collisions.messages[changes:]] == [
        True, False]
    ros.wait_for(lambda: any('collision ended' in m.msg for m in
                             ros.logs.messages[logs:] if m.name == NODE),
                 what='the end of the collision logged')


def test_reset_observer_service(ros):
    send(ros, GRAVITY - PUSH, 30)
    ros.wait_for(lambda: ros.collisions.messages[-1].data,
                 what='collision true')
    start_over(ros)   # the reset ends the collision
    # The first sample after the reset starts the integral: estimate 0.
    ros.clock += DT
    first = answer(ros, state(ros.clock, GRAVITY - PUSH))
    assert not np.any(in_model_order(first))
    send(ros, GRAVITY, 40)


def bad_messages():
    """Return (what, message, words of the warning) of each bad input."""
    t = 1000.0   # after every good stamp: only the fault can drop it
    no_effort = state(t, GRAVITY)
    no_effort.effort = []
    no_velocity = state(t, GRAVITY)
    no_velocity.velocity = []
    nan_position = state(t, GRAVITY)
    nan_position.position[2] = math.nan
    inf_effort = state(t, GRAVITY)
    inf_effort.effort[0] = math.inf
    short = state(t, GRAVITY)
    short.effort = short.effort[:5]
    missing = state(t, GRAVITY, names=JOINTS[:6])
    unknown = state(t, GRAVITY)
    unknown.name[3] = 'no_such_joint'
    twice = state(t, GRAVITY)
    twice.name[1] = twice.name[0]
    long_name = state(t, GRAVITY)
    long_name.name[4] = 'j' * 100000
    huge = state(t, GRAVITY)
    huge.velocity[0] = 1e200   # finite, but the model's terms overflow
    empty = JointState()
    return [('no effort', no_effort, 'no effort'),
            ('no velocity', no_velocity, 'no velocity'),
            ('NaN position', nan_position, 'position of joint'),
            ('inf effort', inf_effort, 'effort of joint'),
            ('wrong size', short, 'effort has 5 values for 7 names'),
            ('missing joint', missing, 'missing joints'),
            ('unknown name', unknown, 'no_such_joint'),
            ('duplicate name', twice, 'twice'),
            ('overflowing velocity', huge, 'non-finite M or h'),
            ('100k-character name', long_name, 'unknown joints jjjj'),
            ('empty', empty, 'no joint names')]


@pytest.mark.parametrize('what,msg,words', bad_messages(),
                         ids=[case[0] for case in bad_messages()])
def test_bad_joint_states_are_dropped_with_a_reason(ros, what, msg, words):
    before = len(ros.torques.messages)
    ros.wait_for(lambda: ros.warnings(NODE, words),
                 action=lambda: ros.states.publish(msg), every=0.5,
                 what='a warning with %r' % words)
    assert all(len(text) < 2500 for text in ros.warnings(NODE, words))
    # Still alive, and the next good sample is answered, finite; the bad
    # ones went before it on the one topic, so an answer to one of them
    # would have come before its answer.
    ros.clock += DT
    msg = answer(ros, state(ros.clock, GRAVITY))
    assert np.all(np.isfinite(msg.effort))
    assert [to_seconds(m.header.stamp) for m in ros.torques.messages[
        before:]] == [to_seconds(msg.header.stamp)], 'a bad one answered'


def test_time_going_back_and_gaps_are_said(ros):
    send(ros, GRAVITY, 1)   # a sample to go back from, alone too
    stamp = ros.clock - 0.5
    ros.wait_for(lambda: ros.warnings(NODE, 'time went back'),
                 action=lambda: ros.states.publish(state(stamp, GRAVITY)),
                 every=0.5, what='the warning on time going back')
    ros.clock += 1.0   # more than max_gap (0.5 s)
    answer(ros, state(ros.clock, GRAVITY))
    ros.wait_for(lambda: ros.warnings(NODE, 'integral restarted'),
                 what='the gap warning')


BAD_PARAMETERS = [
    ('gain', 0.0, 'gain must be > 0'),
    ('gain', -5.0, 'gain must be > 0'),
    ('gain', math.nan, 'gain must be > 0'),
    ('gain', [1.0, 2.0], 'gain has 2 values'),
    ('gain', 'fast', 'gain must be a number'),
    ('order', 3, 'order must be 1 or 2'),
    ('thresholds', [1.0] * 6, 'thresholds has 6 values'),
    ('thresholds', -1.0, 'thresholds must be finite and > 0'),
    ('thresholds', math.inf, 'thresholds must be finite and > 0'),
    ('hysteresis', 1.0, 'hysteresis must be in [0, 1)'),
    ('hysteresis', -0.1, 'hysteresis must be in [0, 1)'),
    ('max_gap', 0.0, 'max_gap must be finite and > 0'),
    ('link', 'no_such_link', "link 'no_such_link' is not a link"),
    ('frame', 'x' * 1000, 'is not a link'),
    ('wrench_damping', -1.0, 'wrench_damping must be finite and >= 0'),
]


@pytest.mark.parametrize('name,value,words', BAD_PARAMETERS,
                         ids=['%s=%.20r' % (n, v) for n, v, _ in
                              BAD_PARAMETERS])
def test_bad_parameters_are_refused_with_the_reason(ros, name, value, words):
    result, = ros.set_parameters(NODE, **{name: value})
    assert not result.successful
    assert words in result.reason, result.reason
    assert len(result.reason) < 600


def test_good_parameters_take_effect(ros):
    per_joint = [float(10 + k) for k in range(7)]   # joints order
    results = ros.set_parameters(NODE, gain=per_joint, order=2,
                                 thresholds=1.5, frame='panda_link0')
    assert all(r.successful for r in results), results
    send(ros, GRAVITY, 3)
    ros.wrenches.clear()
    send(ros, GRAVITY - PUSH, 5)
    ros.wait_for(lambda: ros.wrenches.messages, what='a wrench')
    assert ros.wrenches.messages[-1].header.frame_id == 'panda_link0'
    results = ros.set_parameters(NODE, gain=GAIN, order=1, thresholds=3.0,
                                 frame='')
    assert all(r.successful for r in results)
    send(ros, GRAVITY, 60)


def wrench_frame_with_link(ros, link):
    """Set ``link``, push; return the frame of the wrench that follows."""
    assert ros.set_parameters(NODE, link=link)[0].successful
    send(ros, GRAVITY, 3)
    ros.wrenches.clear()
    send(ros, GRAVITY - PUSH, 5)
    ros.wait_for(lambda: ros.wrenches.messages, what='a wrench')
    return ros.wrenches.messages[-1].header.frame_id


def test_with_no_link_the_wrench_is_at_the_tip(ros):
    """With link '' and no tip_link: the end of the chain, panda_hand."""
    assert wrench_frame_with_link(ros, 'panda_link4') == 'panda_link4'
    assert wrench_frame_with_link(ros, '') == 'panda_hand'
    ros.wait_for(lambda: [m for m in ros.logs.messages if m.name == NODE
                          and "external_wrench on link 'panda_hand'"
                          in m.msg], what='the link said')
    send(ros, GRAVITY, 60)


def test_nothing_published_was_ever_non_finite(ros):
    send(ros, GRAVITY - PUSH, 5)   # at least these, alone
    assert ros.torques.messages
    assert all_finite(ros.torques.messages, 'effort')
    for msg in ros.wrenches.messages:
        values = [msg.wrench.force.x, msg.wrench.force.y, msg.wrench.force.z,
                  msg.wrench.torque.x, msg.wrench.torque.y,
                  msg.wrench.torque.z]
        assert all(math.isfinite(v) for v in values)


def test_an_unset_parameter_type_is_refused(ros):
    result, = ros.set_parameters(NODE, gain=Parameter(
        'gain', Parameter.Type.STRING_ARRAY, ['a']))
    assert not result.successful and 'gain' in result.reason


# --- the Panda with its hand: mimic fingers ---------------------------------

def test_an_arm_with_a_gripper_answers_for_its_independent_joints():
    path = '%s/panda_description/urdf/panda.urdf' % robots_directory()
    with open(path, encoding='utf-8') as stream:
        xml = stream.read()
    model = dr.load_urdf(xml)
    assert isinstance(model, dr.MimicModel) and model.nq == 8
    q = np.r_[Q0, 0.02]
    push = push_torques(model, xml, q, LINK, WRENCH)
    gravity = dr.gravity_torques(model, q)
    node = NodeProcess(NODE, HAND_DOMAIN, {
        'robot_description': xml, 'gain': GAIN, 'link': LINK,
        'max_state_age': 0.0})   # stamps from 1 s: no age check
    tester = RosTester(HAND_DOMAIN)
    try:
        tester.states = tester.publisher(JointState, 'joint_states')
        tester.torques = tester.collector(JointState, 'external_torques')
        tester.wrenches = tester.collector(WrenchStamped, 'external_wrench')
        names = list(model.full_joint_names)   # all 9, as a driver does
        efforts = [np.r_[gravity]] * 3 + [gravity - push] * 50
        full = model.full_positions(q)
        for k, effort in enumerate(efforts):
            # The mimic finger's effort is not read: any value will do.
            full_effort = [float(effort[model.joint_index(name)])
                           if name in model.joint_names else 123.0
                           for name in names]
            msg = JointState(name=names, position=list(full),
                             velocity=[0.0] * 9, effort=full_effort)
            msg.header.stamp = time_message(1.0 + DT * k)
            stamp = to_seconds(msg.header.stamp)
            tester.wait_for(lambda s=stamp: any(
                to_seconds(m.header.stamp) == s
                for m in tester.torques.messages),
                action=lambda m=msg: tester.states.publish(m), every=1.0,
                what='answer %d' % k)
        last = tester.torques.messages[-1]
        assert list(last.name) == list(model.joint_names)
        assert_close(in_model_order(last, model), push, rtol=1e-9,
                     what='external torques of the independent joints')
        tester.wait_for(lambda: tester.wrenches.messages and to_seconds(
            tester.wrenches.messages[-1].header.stamp) == stamp,
            what='the last wrench')
        msg = tester.wrenches.messages[-1]
        assert_close([msg.wrench.torque.x, msg.wrench.torque.y,
                      msg.wrench.torque.z, msg.wrench.force.x,
                      msg.wrench.force.y, msg.wrench.force.z], WRENCH,
                     rtol=1e-6, what='wrench at the hand')
    finally:
        finish(node, tester)


def test_follow_payload_takes_the_held_object_out(ros):
    # The driver's arm holds 1.6 kg at its last link (no tip_link set: the
    # payload parameters' frame), Pinocchio with the payload welded there:
    # to the observer without it, an external torque.
    tip = MODEL.body_names[-1]
    mass, com = 1.6, [0.03, -0.02, 0.16]
    inertia = box_inertia(mass, (0.10, 0.16, 0.22))
    held = PinocchioOracle(MODEL, welded(XML, tip, mass, com, inertia)).rnea(
        Q0, np.zeros(7), np.zeros(7))
    sent = send(ros, held, 40)
    by_stamp = {to_seconds(m.header.stamp): m for m in ros.torques.messages}
    assert np.max(np.abs(in_model_order(by_stamp[sent[-1][0]]))) > 1.0
    payloads = ros.publisher(InertiaStamped, 'payload', LATCHED)
    msg = inertia_stamped('', mass, com, inertia)
    # Off by default; then a frame that is not the tip link is refused.
    assert ros.set_parameters(NODE, follow_payload=True)[0].successful
    msg.header.frame_id = LINK   # a link, not the tip link
    ros.wait_for(lambda: ros.warnings(NODE, 'payload ignored: frame'),
                 action=lambda: payloads.publish(msg), every=1.0,
                 what='the wrong frame refused')
    msg.header.frame_id = tip
    ros.wait_for(lambda: ros.warnings(NODE, 'payload from the payload '
                                      'topic', 20),
                 action=lambda: payloads.publish(msg), every=1.0,
                 what='the payload applied')
    # The observer starts over on the model holding it: nothing external.
    sent = send(ros, held, 40)
    by_stamp = {to_seconds(m.header.stamp): m for m in ros.torques.messages}
    assert_close(in_model_order(by_stamp[sent[-1][0]]), np.zeros(7),
                 scale=np.max(np.abs(held)), rtol=1e-9,
                 what='external torques with the payload known')
    assert all(result.successful for result in ros.set_parameters(
        NODE, follow_payload=False, payload__mass=0.0))
    ros.node.destroy_publisher(payloads)
    send(ros, GRAVITY, 40)   # the next tests' arm, observer settled
