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
The model source of every node, through inverse_dynamics_node over DDS.

The node starts in namespace /arm with no URDF and ``use_sim_time``; the
URDF arrives on the relative, transient-local ``robot_description`` topic
(as robot_state_publisher sends it), is replaced by another robot, survives
a broken URDF, and follows ``gravity`` / ``joints`` changes.  The two-link
arm's gravity torques are checked against the closed form (Nasser's
analytic check, docs/papers/nasser_1990.md); Panda's against Pinocchio.
A test that needs the two-link arm in use publishes it first; the nodes
that wait for a model run in a domain of their own where none comes.
"""

import os
import time

from builtin_interfaces.msg import Time
from conftest import assert_close, REPO_ROOT
import numpy as np
import oracle
import pytest
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_harness import all_finite, finish, NodeProcess, \
    reserve_domain_id, RosTester, TIMEOUT
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String

DOMAIN_ID = reserve_domain_id(__name__)
STARTUP_DOMAIN_ID = reserve_domain_id(__name__)  # nodes that exit at once
WAITING_DOMAIN_ID = reserve_domain_id(__name__)  # nodes with no model
NAMESPACE = '/arm'
NODE = 'arm/inverse_dynamics_node'
LOGGER = 'arm.inverse_dynamics_node'
URDF_DIR = os.path.join(REPO_ROOT, 'urdf')
with open(os.path.join(URDF_DIR, 'two_link_planar.urdf'),
          encoding='utf-8') as _stream:
    TWO_LINK = _stream.read()
PANDA = oracle.example_arm_xml('panda')
INFO = 20
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)


def two_link_gravity(q, g=9.81):
    """Closed-form gravity torques of urdf/two_link_planar.urdf."""
    m1, m2, l1, lc1, lc2 = 2.0, 1.5, 1.0, 0.5, 0.4
    g2 = m2 * lc2 * g * np.cos(q[0] + q[1])
    return np.array([(m1 * lc1 + m2 * l1) * g * np.cos(q[0]) + g2, g2])


@pytest.fixture(scope='module')
def ros():
    """Run the node (no URDF, sim time) and a tester."""
    node = NodeProcess('inverse_dynamics_node', DOMAIN_ID,
                       {'use_sim_time': True}, namespace=NAMESPACE)
    tester = RosTester(DOMAIN_ID)
    tester.states = tester.publisher(JointState, 'arm/joint_states')
    tester.description = tester.publisher(String, 'arm/robot_description',
                                          LATCHED)
    tester.clock = tester.publisher(Clock, '/clock')
    tester.feedforward = tester.collector(JointState, 'arm/feedforward')
    tester.seconds = 100
    yield tester
    finish(node, tester)


def torques(ros, names, q):
    """Publish an unstamped state; return (names, tau) of the reply."""
    ros.seconds += 1
    now = Time(sec=ros.seconds, nanosec=250000000)
    msg = JointState(name=list(names), position=[float(x) for x in q])

    def send():
        ros.clock.publish(Clock(clock=now))
        ros.states.publish(msg)

    def replies():
        # Zero stamp: the node stamps with its clock, here /clock.
        return [m for m in ros.feedforward.messages if m.header.stamp == now]

    ros.feedforward.clear()
    ros.wait_for(replies, action=send, what='feedforward at sim time')
    assert all_finite(ros.feedforward.messages, 'effort')
    reply = replies()[-1]
    return list(reply.name), np.array(reply.effort)


@pytest.fixture(scope='module')
def waiting():
    """Run the node as ``ros`` does, and linearization_node: no URDF comes."""
    nodes = [NodeProcess('inverse_dynamics_node', WAITING_DOMAIN_ID,
                         {'use_sim_time': True}, namespace=NAMESPACE),
             NodeProcess('linearization_node', WAITING_DOMAIN_ID)]
    tester = RosTester(WAITING_DOMAIN_ID)
    tester.feedforward = tester.collector(JointState, 'arm/feedforward')
    yield tester
    alive = [node.alive() for node in nodes]
    statuses = [node.stop() for node in nodes]
    tester.close()
    assert all(alive) and statuses == [0, 0], [
        node.output() for node in nodes]


def test_waits_for_a_model_without_crashing(waiting):
    states = waiting.publisher(JointState, 'arm/joint_states')
    msg = JointState(name=['shoulder', 'elbow'], position=[0.1, 0.2])
    waiting.wait_for(lambda: waiting.warnings(LOGGER, 'no robot model yet'),
                     action=lambda: states.publish(msg),
                     what='"no model" warning')
    assert not waiting.feedforward.messages


def test_linearization_inputs_before_a_model_are_dropped_with_a_warning(
        waiting):
    """joint_states and effort_commands alike: warned, not silently lost."""
    commands = waiting.publisher(Float64MultiArray, 'effort_commands')
    states = waiting.publisher(JointState, 'joint_states')
    for topic, publisher, msg in (
            ('effort_commands', commands,
             Float64MultiArray(data=[1.0, 2.0])),
            ('joint_states', states,
             JointState(name=['shoulder'], position=[0.1]))):
        waiting.wait_for(lambda: waiting.warnings(
            'linearization_node', topic + ' ignored: no robot model yet'),
            action=lambda: publisher.publish(msg),
            what='"%s ignored" warning' % topic)


def use_two_link(ros):
    """Make the two-link arm the node's model, whatever a test before left."""
    ros.description.publish(String(data=TWO_LINK))
    q = np.array([0.3, -0.7])
    end = time.monotonic() + TIMEOUT
    while True:   # until the node answers with it (the Panda refuses)
        names, tau = torques(ros, ['shoulder', 'elbow'], q)
        if names == ['shoulder', 'elbow'] and np.allclose(
                tau, two_link_gravity(q), rtol=1e-9, atol=0.0):
            return
        assert time.monotonic() < end, (names, tau)
        ros.spin(0.1)


def test_model_from_the_robot_description_topic(ros):
    ros.description.publish(String(data=TWO_LINK))
    q = np.array([0.3, -0.7])
    names, tau = torques(ros, ['elbow', 'shoulder'], q[::-1])
    assert names == ['shoulder', 'elbow']  # default: model order
    assert_close(tau, two_link_gravity(q), what='two-link gravity')


def test_broken_urdf_keeps_the_previous_model(ros):
    use_two_link(ros)
    logs = len(ros.logs.messages)
    ros.description.publish(String(data='<robot name="broken"><link '))
    ros.wait_for(lambda: any('URDF rejected' in m.msg
                             for m in ros.logs.messages[logs:]
                             if m.name == LOGGER),
                 what='"URDF rejected" warning')
    q = np.array([1.1, 0.4])
    names, tau = torques(ros, ['shoulder', 'elbow'], q)
    assert_close(tau, two_link_gravity(q), what='previous model')


def test_gravity_and_joints_change_at_run_time(ros):
    use_two_link(ros)
    results = ros.set_parameters(NODE, gravity=[0.0, 0.0, -3.71],
                                 joints=['elbow', 'shoulder'])
    assert all(r.successful for r in results), [r.reason for r in results]
    q = np.array([0.2, 0.5])
    names, tau = torques(ros, ['shoulder', 'elbow'], q)
    assert names == ['elbow', 'shoulder']
    assert_close(tau, two_link_gravity(q, 3.71)[::-1], what='Mars gravity')
    bad = ros.set_parameters(NODE, joints=['elbow', 'wrist'])
    assert not bad[0].successful and 'wrist' in bad[0].reason
    results = ros.set_parameters(NODE, gravity=[0.0, 0.0, -9.81],
                                 joints=['shoulder', 'elbow'])
    assert all(r.successful for r in results)


def test_wrong_descriptions_are_refused_by_name_not_echoed(ros):
    """Run-time sets: a secret file's text never reaches the reply."""
    use_two_link(ros)
    bad = ros.set_parameters(NODE, urdf_path='/etc/passwd')
    assert not bad[0].successful
    assert "'/etc/passwd' is not XML" in bad[0].reason
    assert 'root:' not in bad[0].reason
    twice = TWO_LINK.replace('<joint name="elbow"', '<joint name="shoulder"')
    bad = ros.set_parameters(NODE, robot_description=twice)
    assert not bad[0].successful
    assert "joint 'shoulder' is defined twice" in bad[0].reason
    q = np.array([0.3, -0.2])
    names, tau = torques(ros, ['shoulder', 'elbow'], q)
    assert_close(tau, two_link_gravity(q), what='the model kept')


def test_a_new_robot_replaces_the_model(ros):
    # A joints order set for the old robot would not fit the new one.
    unset = Parameter('joints', Parameter.Type.STRING_ARRAY, [])
    assert ros.set_parameters(NODE, joints=unset)[0].successful
    ros.description.publish(String(data=PANDA))
    model, panda = oracle.oracle_for(PANDA)
    q = oracle.random_state(model, np.random.default_rng(21))[0]
    ros.wait_for(lambda: ros.warnings(LOGGER, "model 'panda'", level=INFO),
                 what='the Panda model')
    names, tau = torques(ros, model.joint_names, q)
    assert names == model.joint_names
    assert_close(tau, panda.gravity(q), what='Panda after the switch')


def test_invalid_start_up_parameters_exit_with_the_reason():
    node = NodeProcess('inverse_dynamics_node', STARTUP_DOMAIN_ID, {
        'urdf_path': os.path.join(URDF_DIR, 'two_link_planar.urdf'),
        'payload': {'mass': -2.0}})
    try:
        assert node.wait_exit() == 1
        assert 'payload mass must be finite and >= 0' in node.output()
    finally:
        node.stop()


@pytest.mark.parametrize('path, reason', [
    (URDF_DIR, "URDF path '%s' is a directory, not a file" % URDF_DIR),
    ('/no/such/robot.urdf', "URDF file '/no/such/robot.urdf' does not exist"),
    ('/etc/passwd', "URDF file '/etc/passwd' is not XML (it does not "
                    'start with "<")'),
])
def test_an_unusable_urdf_path_stops_the_node(path, reason):
    """Given a URDF it cannot use, the node exits with why; no file text."""
    node = NodeProcess('inverse_dynamics_node', STARTUP_DOMAIN_ID,
                       {'urdf_path': path})
    try:
        assert node.wait_exit() == 1
        output = node.output()
        assert 'cannot start: urdf_path: ' + reason in output
        # Nothing of the file reaches the log (or a parameter reply).
        assert 'root:' not in output
    finally:
        node.stop()
