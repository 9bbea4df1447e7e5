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
simulator_node when its commands go stale (doc/nodes/simulator_node.md).

The tester holds a Panda at a pose (a position command), then commands
its efforts (gravity there plus a push on two joints) at 100 Hz for 0.1 s
and then stops, as a controller that
died mid-move.  After ``command_timeout`` the simulator falls back to
holding the pose where the timeout struck (position PID plus the gravity
torques of its own model, see JointCommands.hold_pose) and says so once:
the arm stays within 0.05 rad of that pose.  The held effort alone would
have swung the arm over its whole range (test_sim_command_timeout).

``command_timeout`` is 0.25 s here: the arm must not be flying faster than
the effort limits can brake when the hold starts (the hold can only brake
with the joints' limited torques), and a shorter timeout keeps the test's
move short.  The default (0.5 s) is what doc/nodes/simulator_node.md
states (its parameter table, rendered from simulator/parameters.py).
"""

import re

import dynamics_ros as dr
from dynamics_ros.nodes.shared.conversions import to_seconds
import numpy as np
import oracle
import pytest
from ros_harness import finish, NodeProcess, reserve_domain_id, RosTester, \
    simulator_topics
from std_msgs.msg import Float64MultiArray

DOMAIN_ID = reserve_domain_id(__name__)
NODE = 'simulator_node'
XML = oracle.example_arm_xml('panda')
MODEL = dr.load_urdf(XML)
Q0 = np.array([0.0, -0.3, 0.0, -2.0, 0.0, 1.8, 0.8])
PUSH = np.array([0.0, 2.0, 0.0, 2.0, 0.0, 0.0, 0.0])
TIMEOUT = 0.25


@pytest.fixture(scope='module')
def ros():
    """Run the simulator in real time, every step published."""
    node = NodeProcess(NODE, DOMAIN_ID, {
        'robot_description': XML, 'initial_positions': Q0.tolist(),
        'publish_rate': 0.0, 'real_time_factor': 1.0,
        'command_timeout': TIMEOUT})
    tester = simulator_topics(RosTester(DOMAIN_ID), 'effort', 'position')
    tester.wait_for(lambda: tester.states.messages, what='joint_states')
    tester.wait_for_subscriber(tester.effort)
    yield tester
    finish(node, tester)


def positions(msg):
    """Return the joint positions of a joint_states message, model order."""
    table = dict(zip(msg.name, msg.position))
    return np.array([table[name] for name in MODEL.joint_names])


def test_a_stale_effort_command_falls_back_to_holding_the_pose(ros):
    # Held at Q0 first (until a command arrives the joints are limp), until
    # it is at rest there.
    ros.wait_for_subscriber(ros.position)
    ros.position.publish(Float64MultiArray(data=Q0.tolist()))

    def at_rest():
        recent = ros.states.messages[-50:]
        return len(recent) == 50 and all(
            np.max(np.abs(m.velocity)) < 1e-3 for m in recent)
    ros.wait_for(at_rest, what='the arm at rest at Q0')
    # The controller's last command, then it dies: the effort acts for
    # command_timeout of simulated time, whatever the pacing.
    ros.effort.publish(Float64MultiArray(data=(
        dr.gravity_torques(MODEL, Q0) + PUSH).tolist()))
    ros.wait_for(lambda: ros.warnings(NODE, 'timed out'),
                 what='the timeout warning')
    text = ros.warnings(NODE, 'timed out')[0]
    struck = float(re.search(r'at t = ([0-9.]+) s', text).group(1))
    ros.wait_for(lambda: max(to_seconds(m.header.stamp)
                             for m in ros.states.messages) > struck + 1.0,
                 what='1 s of simulated time after the timeout')
    states = sorted(ros.states.messages, key=lambda m: to_seconds(
        m.header.stamp))
    at_strike = [m for m in states if to_seconds(m.header.stamp) >= struck
                 - 1e-9]
    pose = positions(at_strike[0])
    assert np.max(np.abs(pose - Q0)) > 0.05, 'the arm did not move'
    after = np.array([positions(m) for m in at_strike])
    assert to_seconds(at_strike[-1].header.stamp) > struck + 1.0
    worst = np.max(np.abs(after - pose))
    assert worst < 0.05, 'moved %.3f rad after the timeout' % worst
    # One line for the timeout, not one per step.
    assert len(ros.warnings(NODE, 'timed out')) == 1
