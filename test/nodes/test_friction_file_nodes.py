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
friction_file in the nodes: the identified friction used where it acts.

external_torque_node over DDS, the driver a Panda swinging its elbow
through direction reversals with sign-sharp Coulomb plus viscous friction
in its efforts (the plant is sharper than the file's tanh, as a real
gearbox is).  Without friction_file every reversal is a "collision";
with it, set at run time, the node's external torques are those of the
ROS-free MomentumObserver given the same friction (1e-9) and no collision
is flagged, while a push is still found.  linearization_node's A about a
moving state is linearize_with_friction's (checked against Pinocchio in
test/dynamics/test_linearize.py).
"""

import os

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.dynamics.friction import JointFriction, write_friction
from dynamics_ros.dynamics.linearize import linearize_with_friction
from dynamics_ros.estimation.momentum_observer import MomentumObserver
from dynamics_ros.nodes.shared.conversions import time_message, to_seconds
import numpy as np
from oracle import example_arm_xml
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_harness import finish, NodeProcess, reserve_domain_id, RosTester
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool, Float64MultiArray
from std_srvs.srv import Trigger

OBSERVER_DOMAIN, LINEARIZATION_DOMAIN, SIMULATOR_DOMAIN = (
    reserve_domain_id(__name__) for _ in range(3))
XML = example_arm_xml('panda')
MODEL = dr.load_urdf(XML)
Q0 = np.array([0.1, -0.6, 0.2, -2.1, 0.3, 1.6, 0.7])
GAIN, DT, THRESHOLD = 50.0, 0.01, 1.0
VISCOUS, COULOMB = 0.8, 2.0
FRICTION = JointFriction(MODEL.joint_names, VISCOUS, COULOMB,
                         smoothing=0.01)
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)


def swing(t):
    """Return (q, qd, qdd) of the elbow swinging 0.3 rad at 1 Hz."""
    w = 2.0 * np.pi
    shape = np.zeros(MODEL.nq)
    shape[3] = 0.3
    return (Q0 + shape * np.sin(w * t), shape * w * np.cos(w * t),
            -shape * w * w * np.sin(w * t))


def measured_effort(q, qd, qdd, push=0.0):
    """Return the driver's effort: rigid body, sharp friction, less a push."""
    return (dr.inverse_dynamics(MODEL, q, qd, qdd) + VISCOUS * qd
            + COULOMB * np.sign(qd) - push)


def state(t, q, qd, effort):
    """Return a driver's JointState in model order."""
    msg = JointState(name=list(MODEL.joint_names), position=list(q),
                     velocity=list(qd), effort=list(effort))
    msg.header.stamp = time_message(t)
    return msg


@pytest.fixture(scope='module')
def ros(tmp_path_factory):
    """Run external_torque_node on the Panda without friction_file."""
    path = os.path.join(str(tmp_path_factory.mktemp('friction')),
                        'friction.yaml')
    write_friction(FRICTION, path)
    node = NodeProcess('external_torque_node', OBSERVER_DOMAIN, {
        'robot_description': XML, 'gain': GAIN, 'thresholds': THRESHOLD,
        'hysteresis': 0.2, 'max_gap': 0.5, 'max_state_age': 0.0})
    tester = RosTester(OBSERVER_DOMAIN)
    tester.states = tester.publisher(JointState, 'joint_states')
    tester.torques = tester.collector(JointState, 'external_torques')
    tester.collisions = tester.collector(Bool, 'collision', LATCHED)
    tester.friction_path, tester.node_process = path, node
    tester.clock = 1.0
    tester.wait_for(lambda: tester.collisions.messages, what='collision')
    tester.wait_for_subscriber(tester.states)
    yield tester
    finish(node, tester)


def answer(ros, msg):
    """Send one joint state; return the effort of the answer, model order."""
    stamp = to_seconds(msg.header.stamp)

    def answered():
        return [m for m in ros.torques.messages
                if to_seconds(m.header.stamp) == stamp]
    ros.wait_for(answered, action=lambda: ros.states.publish(msg),
                 every=1.0, what='external_torques at %.3f s' % stamp)
    values = dict(zip(answered()[0].name, answered()[0].effort))
    return np.array([values[name] for name in MODEL.joint_names])


def play(ros, seconds, observer=None, push=0.0):
    """Swing for ``seconds``; return the node's estimates (and the twin's)."""
    ours, twins = [], []
    for _ in range(int(round(seconds / DT))):
        ros.clock += DT
        t = to_seconds(time_message(ros.clock))   # as the node receives it
        q, qd, qdd = swing(t)
        effort = measured_effort(q, qd, qdd, push)
        ours.append(answer(ros, state(t, q, qd, effort)))
        if observer is not None:
            twins.append(observer.update(t, q, qd, effort).torques)
    return np.array(ours), np.array(twins)


def reset(ros):
    """Call ~/reset_observer and wait for the collision to end."""
    client = ros.node.create_client(Trigger,
                                    '/external_torque_node/reset_observer')
    ros.wait_for(client.service_is_ready, what='reset_observer')
    future = client.call_async(Trigger.Request())
    ros.wait_for(future.done, what='reset reply')
    assert future.result().success
    ros.node.destroy_client(client)


def test_reversals_are_collisions_without_the_friction_file(ros):
    """Sharp Coulomb friction at each reversal shows as about 2 x 2 N m."""
    assert all(r.successful for r in ros.set_parameters(
        'external_torque_node', friction_file=''))   # whatever came before
    reset(ros)
    ros.wait_for(lambda: not ros.collisions.messages[-1].data,
                 what='collision ended by the reset')
    estimates, _ = play(ros, 1.2)
    assert np.max(np.abs(estimates[:, 3])) > 2.0 * THRESHOLD
    ros.wait_for(lambda: ros.collisions.messages[-1].data,
                 what='a false collision at a reversal')


def test_with_the_friction_file_motion_is_free_and_a_push_is_found(ros):
    """Set at run time: the observer's twin given the file, no collision."""
    results = ros.set_parameters('external_torque_node',
                                 friction_file=ros.friction_path)
    assert all(r.successful for r in results), results
    try:
        free_motion_and_a_push(ros)
    finally:
        ros.set_parameters('external_torque_node', friction_file='')


def free_motion_and_a_push(ros):
    """Swing with the file set: the twin's estimates; then push."""
    reset(ros)
    ros.wait_for(lambda: not ros.collisions.messages[-1].data,
                 what='collision ended by the reset')
    ros.clock += DT
    observer = MomentumObserver(MODEL, GAIN, 1, 0.5, friction=FRICTION)
    t = to_seconds(time_message(ros.clock))
    q, qd, qdd = swing(t)
    effort = measured_effort(q, qd, qdd)
    answer(ros, state(t, q, qd, effort))   # the integral starts here
    observer.update(t, q, qd, effort)
    estimates, twins = play(ros, 2.0, observer)
    assert_close(estimates, twins, what='node vs MomentumObserver')
    assert np.max(np.abs(estimates)) < 0.5 * THRESHOLD
    assert not any(m.data for m in ros.collisions.messages[-1:])
    push = np.zeros(MODEL.nq)
    push[1] = 5.0
    play(ros, 0.3, push=push)
    ros.wait_for(lambda: ros.collisions.messages[-1].data,
                 what='the push found')


def test_a_bad_friction_file_is_refused_with_the_reason(ros):
    """A directory: refused, naming the path, the file in use kept."""
    folder = os.path.dirname(ros.friction_path)
    results = ros.set_parameters('external_torque_node',
                                 friction_file=folder)
    assert not results[0].successful
    assert 'friction_file' in results[0].reason
    assert folder in results[0].reason


def test_linearization_node_uses_the_friction_file(tmp_path):
    """A about a moving state is linearize_with_friction's, not the plain."""
    path = str(tmp_path / 'friction.yaml')
    write_friction(FRICTION, path)
    node = NodeProcess('linearization_node', LINEARIZATION_DOMAIN, {
        'robot_description': XML, 'rate': 20.0, 'friction_file': path,
        'max_state_age': 0.0})
    tester = RosTester(LINEARIZATION_DOMAIN)
    try:
        states = tester.publisher(JointState, 'joint_states')
        matrices = tester.collector(Float64MultiArray, 'state_space/A')
        tester.wait_for_subscriber(states)
        q, qd, _ = swing(0.05)
        tau = dr.gravity_torques(MODEL, q)
        tester.wait_for(lambda: matrices.messages,
                        action=lambda: states.publish(state(1.0, q, qd, tau)),
                        every=0.5, what='state_space/A')
        n = MODEL.nq
        A = np.array(matrices.messages[-1].data).reshape(2 * n, 2 * n)
        expected, _ = linearize_with_friction(MODEL, q, qd, tau, FRICTION)
        assert_close(A, expected, what='A with friction')
        plain, _ = dr.linearize(MODEL, q, qd, tau)
        assert np.max(np.abs(A - plain)) > 1.0
    finally:
        finish(node, tester)


def test_simulator_node_says_which_friction_it_simulates(tmp_path):
    """simulator_node logs the file and its joints once, and keeps running."""
    path = str(tmp_path / 'friction.yaml')
    write_friction(FRICTION, path)
    node = NodeProcess('simulator_node', SIMULATOR_DOMAIN, {
        'robot_description': XML, 'friction_file': path,
        'real_time_factor': 0.0})
    tester = RosTester(SIMULATOR_DOMAIN)
    try:
        states = tester.collector(JointState, 'joint_states')
        node.wait_for_output('friction_file')
        tester.wait_for(lambda: len(states.messages) > 5, what='states')
        assert 'loaded: viscous and Coulomb friction of 7 of the 7 joints' \
            in node.output()
        assert node.output().count('friction_file') == 1
    finally:
        finish(node, tester)
