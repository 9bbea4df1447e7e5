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
Bad input never crashes a node and never produces a non-finite output.

inverse_dynamics_node (computed_torque, URDF from ``robot_description``)
and linearization_node (URDF from ``urdf_path``) share one joint_states
topic.  Every bad message must be dropped with a warning naming the fault,
both nodes must stay alive, everything they publish must be finite, and a
good message afterwards must still get the right answer.
"""

import math
import os
import tempfile

from builtin_interfaces.msg import Duration
from conftest import assert_close
import numpy as np
import oracle
import pytest
from ros_harness import all_finite, NodeProcess, reserve_domain_id, \
    RosTester
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

DOMAIN_ID = reserve_domain_id(__name__)
ID_NODE = 'inverse_dynamics_node'
LIN_NODE = 'linearization_node'
XML = oracle.example_arm_xml('panda')
MODEL, ORACLE = oracle.oracle_for(XML)
NAMES = list(MODEL.joint_names)
NAN, INF = math.nan, math.inf


@pytest.fixture(scope='module')
def ros():
    """Run both nodes and a tester collecting everything they publish."""
    directory = tempfile.TemporaryDirectory(prefix='dr_bad_input_')
    path = os.path.join(directory.name, 'panda.urdf')
    with open(path, 'w', encoding='utf-8') as stream:
        stream.write(XML)
    nodes = [
        NodeProcess(ID_NODE, DOMAIN_ID, {'robot_description': XML,
                                         'mode': 'computed_torque'}),
        # Its command input remapped: the tester's bad commands must not
        # be mistaken for the other node's output.
        NodeProcess(LIN_NODE, DOMAIN_ID, {'urdf_path': path, 'rate': 50.0},
                    remaps={'effort_commands': 'linearization_commands'})]
    tester = RosTester(DOMAIN_ID)
    tester.states = tester.publisher(JointState, 'joint_states')
    tester.trajectories = tester.publisher(JointTrajectory,
                                           'joint_trajectory')
    tester.annotate = tester.publisher(JointTrajectory, 'trajectory_in')
    tester.commands = tester.publisher(Float64MultiArray,
                                       'linearization_commands')
    tester.outputs = {
        'effort_commands': tester.collector(Float64MultiArray,
                                            'effort_commands'),
        'feedforward': tester.collector(JointState, 'feedforward'),
        'trajectory_out': tester.collector(JointTrajectory,
                                           'trajectory_out'),
        'A': tester.collector(Float64MultiArray, 'state_space/A'),
        'B': tester.collector(Float64MultiArray, 'state_space/B'),
        'operating_point': tester.collector(JointState,
                                            'state_space/operating_point')}
    yield tester
    alive = {node.node_name: node.alive() for node in nodes}
    outputs = {node.node_name: node.output() for node in nodes}
    statuses = [node.stop() for node in nodes]
    tester.close()
    directory.cleanup()
    assert all(alive.values()), 'a node died: %s\n%s' % (alive, outputs)
    assert statuses == [0, 0], [node.output() for node in nodes]


def expect_warning(ros, node, text, publish, prefix=''):
    """Publish a bad message until ``node`` warns ``prefix``...``text``."""
    ros.wait_for(lambda: [m for m in ros.warnings(node, text)
                          if m.startswith(prefix)], action=publish,
                 what='%s warning %r' % (node, prefix + '...' + text))


def state(names=NAMES, position=None, velocity=None, effort=None):
    """Return a JointState with the given fields (default: valid)."""
    q = np.linspace(0.1, 0.7, len(names)) if position is None else position
    return JointState(name=list(names), position=[float(x) for x in q],
                      velocity=[] if velocity is None else
                      [float(x) for x in velocity],
                      effort=[] if effort is None else
                      [float(x) for x in effort])


BAD_STATES = [
    ('empty', JointState(), 'empty JointState'),
    ('unknown names', state(['foo', 'bar']), 'is missing joints'),
    ('missing names', state(NAMES[:5]), 'is missing joints panda_joint6'),
    ('duplicated name', state(NAMES + ['panda_joint3']), 'twice'),
    ('short position', state(position=[0.1] * 6),
     'position has 6 values for 7 names'),
    ('long velocity', state(velocity=[0.0] * 8),
     'velocity has 8 values for 7 names'),
    ('short effort', state(effort=[0.0] * 2),
     'effort has 2 values for 7 names'),
    ('NaN position', state(position=[0.1, NAN, 0.2, 0.3, 0.4, 0.5, 0.6]),
     "position of joint 'panda_joint2' is nan"),
    ('inf velocity', state(velocity=[0.0] * 6 + [INF]),
     "velocity of joint 'panda_joint7' is inf"),
]


@pytest.mark.parametrize('case,msg,text', BAD_STATES,
                         ids=[case for case, _, _ in BAD_STATES])
def test_bad_joint_states_are_dropped_with_a_warning(ros, case, msg, text):
    for node in (ID_NODE, LIN_NODE):
        expect_warning(ros, node, text, lambda: ros.states.publish(msg))


def test_overflowing_state_publishes_nothing(ros):
    # Finite but absurd: torques overflow, so nothing may be published
    # (computed torque reads the velocities; gravity mode would not).
    assert ros.set_parameters(ID_NODE, mode='computed_torque')[0].successful
    msg = state(velocity=[1e200] * 7)
    expect_warning(ros, ID_NODE, 'not finite',
                   lambda: ros.states.publish(msg))
    expect_warning(ros, LIN_NODE, 'no linearization published',
                   lambda: ros.states.publish(msg))


def trajectory(names=NAMES, times=(0.0, 1.0), positions=None):
    """Return a JointTrajectory of positions (default: valid)."""
    msg = JointTrajectory(joint_names=list(names))
    for k, t in enumerate(times):
        point = JointTrajectoryPoint(time_from_start=Duration(
            sec=int(t), nanosec=int(round((t - int(t)) * 1e9))))
        point.positions = ([0.1 * k] * len(names) if positions is None
                           else [float(x) for x in positions[k]])
        msg.points.append(point)
    return msg


BAD_TRAJECTORIES = [
    ('no points', trajectory(times=()), 'has no points'),
    ('unknown joint', trajectory(NAMES + ['gripper']),
     'not controlled'),
    ('missing joint', trajectory(NAMES[1:]), 'is missing joints panda_joint1'),
    ('time going back', trajectory(times=(1.0, 0.5)), 'strictly increasing'),
    ('NaN position', trajectory(positions=[[0.0] * 7, [NAN] * 7]),
     'JointTrajectory point 1 positions'),
    ('short position', trajectory(positions=[[0.0] * 7, [0.0] * 3]),
     'positions has 3 values for 7 names'),
]


@pytest.mark.parametrize('case,msg,text', BAD_TRAJECTORIES,
                         ids=[case for case, _, _ in BAD_TRAJECTORIES])
def test_bad_trajectories_are_dropped_with_a_warning(ros, case, msg, text):
    expect_warning(ros, ID_NODE, text, lambda: ros.trajectories.publish(msg),
                   'joint_trajectory ignored: ')
    expect_warning(ros, ID_NODE, text, lambda: ros.annotate.publish(msg),
                   'trajectory_in ignored: ')


BAD_COMMANDS = [
    ('wrong size', [1.0] * 3, 'size (3) does not match number of joints (7)'),
    ('NaN', [1.0] * 6 + [NAN], 'non-finite'),
    ('all NaN', [NAN] * 7, 'all NaN'),
]


@pytest.mark.parametrize('case,data,text', BAD_COMMANDS,
                         ids=[case for case, _, _ in BAD_COMMANDS])
def test_bad_effort_commands_are_dropped_with_a_warning(ros, case, data,
                                                        text):
    msg = Float64MultiArray(data=data)
    expect_warning(ros, LIN_NODE, text, lambda: ros.commands.publish(msg))


def test_warnings_are_throttled(ros):
    msg = state(position=[0.1] * 6 + [-INF])
    text = "position of joint 'panda_joint7' is -inf"
    expect_warning(ros, ID_NODE, text, lambda: ros.states.publish(msg))
    # 20 more, each followed by a good state whose answer says it was read
    # (one subscription, read in order): none lost to a busy machine, so
    # a node that warned of each would log 20 lines.
    good, replies = state(velocity=[0.0] * 7), ros.outputs['feedforward']
    for k in range(20):
        count = len(replies.messages)
        ros.states.publish(msg)
        ros.states.publish(good)
        ros.wait_for(lambda: len(replies.messages) > count,
                     what='the answer to good state %d' % k)
    ros.spin(0.5)   # the lines logged before the last answer: come
    assert len(ros.warnings(ID_NODE, text)) < 10


def test_bytes_that_are_no_joint_state_are_dropped_with_a_warning(ros):
    # inverse_dynamics_node takes joint_states serialized and reads them
    # itself: damaged bytes reach it and must be refused, not read.
    damaged = b'\x00\x01\x00\x00' + b'\xff' * 40
    expect_warning(ros, ID_NODE, 'not a JointState',
                   lambda: ros.states.publish(damaged))


def test_nodes_still_answer_correctly_and_never_published_non_finite(ros):
    q = np.linspace(-0.5, 0.5, 7)
    ros.outputs['feedforward'].clear()
    good = state(position=q)
    ros.wait_for(lambda: ros.outputs['feedforward'].messages,
                 action=lambda: ros.states.publish(good), what='a reply')
    # The values are checked in test_nodes_inverse_dynamics; here: alive,
    # answering, and finite.
    reply = ros.outputs['feedforward'].messages[-1]
    assert len(reply.effort) == 7
    ros.outputs['operating_point'].clear()
    ros.wait_for(lambda: [m for m in ros.outputs['operating_point'].messages
                          if np.array_equal(m.position, q)],
                 action=lambda: ros.states.publish(good), every=0.2,
                 what='operating point')
    point = [m for m in ros.outputs['operating_point'].messages
             if np.array_equal(m.position, q)][-1]
    assert len(point.effort) == 7 and np.all(np.isfinite(point.effort))
    fields = {'effort_commands': 'data', 'feedforward': 'effort',
              'A': 'data', 'B': 'data', 'operating_point': 'effort',
              'trajectory_out': 'points'}
    for topic, collector in ros.outputs.items():
        if topic == 'trajectory_out':
            assert not collector.messages, 'a bad trajectory was annotated'
            continue
        assert all_finite(collector.messages, fields[topic]), topic
        if topic == 'operating_point':
            assert all_finite(collector.messages, 'position')
            assert all_finite(collector.messages, 'velocity')


def test_good_input_after_bad_gives_the_oracle_value(ros):
    results = ros.set_parameters(ID_NODE, mode='gravity')
    assert results[0].successful
    try:
        gravity_after_bad_input(ros)
    finally:   # the mode the other tests expect
        ros.set_parameters(ID_NODE, mode='computed_torque')


def gravity_after_bad_input(ros):
    """Require g(q) (Pinocchio) for a good state: the node answers right."""
    q = np.linspace(0.3, -0.3, 7)
    good = state(position=q)
    collector = ros.outputs['feedforward']
    expected = ORACLE.gravity(q)

    def close(effort):
        scale = np.max(np.abs(expected))
        return np.max(np.abs(np.asarray(effort) - expected)) <= 1e-9 * scale

    ros.wait_for(lambda: any(close(m.effort) for m in collector.messages),
                 action=lambda: ros.states.publish(good),
                 what='gravity torques after bad input')
    reply = [m for m in collector.messages if close(m.effort)][-1]
    assert_close(reply.effort, expected)
