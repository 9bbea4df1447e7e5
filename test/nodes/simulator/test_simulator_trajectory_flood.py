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
simulator_node under a flood of 10,000-point trajectories at 20 Hz.

Trajectories are read on their own thread (the executor only hands the
serialized bytes over), the newest one wins, and the parameter services
answer throughout.  How long they take is measured by
benchmarks/bench_trajectory_flood.py, not asserted here.
"""

from builtin_interfaces.msg import Duration
from dynamics_ros.model.urdf import load_urdf
import numpy as np
from oracle import example_arm_xml
from rcl_interfaces.srv import GetParameters
from ros_harness import finish, NodeProcess, reserve_domain_id, RosTester
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

POINTS = 10000
SENT = 20            # one second of trajectories at 20 Hz
DURATION = 0.5       # seconds from the first to the last point
SPACING = 0.04       # rad between the goals of two trajectories
# The default position PID holds a goal to about 0.012 rad under gravity
# (measured on Panda, within limits): less than half the spacing tells
# the goals apart.
TOLERANCE = 0.015


def long_trajectory(names, start, goal):
    """Return a 10,000-point JointTrajectory from ``start`` to ``goal``."""
    msg = JointTrajectory(joint_names=list(names))
    fractions = np.linspace(0.0, 1.0, POINTS)
    for k, fraction in enumerate(fractions):
        nanoseconds = int(round((k + 1) * DURATION / POINTS * 1e9))
        msg.points.append(JointTrajectoryPoint(
            positions=(start + fraction * (goal - start)).tolist(),
            time_from_start=Duration(sec=nanoseconds // 1000000000,
                                     nanosec=nanoseconds % 1000000000)))
    return msg


def test_the_newest_of_a_flood_of_long_trajectories_is_followed():
    domain_id = reserve_domain_id('trajectory flood')
    xml = example_arm_xml('panda')
    model = load_urdf(xml)
    names = list(model.joint_names)
    start = 0.5 * (np.clip(model.lower_limit, -2.0, 2.0)
                   + np.clip(model.upper_limit, -2.0, 2.0))
    # Each trajectory ends elsewhere: only the last one's goal is reached
    # if the newest wins.
    signs = np.where(np.arange(model.nq) % 2, 1.0, -1.0)
    goals = [start + SPACING * (k + 1) * signs for k in range(SENT)]
    messages = [long_trajectory(names, start, goal) for goal in goals]
    node = NodeProcess('simulator_node', domain_id, {
        'robot_description': xml, 'initial_positions': start.tolist(),
        'publish_rate': 100.0})
    tester = RosTester(domain_id)
    try:
        states = tester.collector(JointState, '/joint_states')
        trajectories = tester.publisher(
            JointTrajectory, '/joint_trajectory_controller/joint_trajectory')
        client = tester.node.create_client(
            GetParameters, '/simulator_node/get_parameters')
        tester.wait_for(lambda: states.messages, timeout=180.0,
                        what='the first joint_states')
        tester.wait_for_subscriber(trajectories)
        tester.wait_for(client.service_is_ready, what='get_parameters')
        answers = []
        for msg in messages:
            trajectories.publish(msg)
            request = GetParameters.Request(names=['rate'])
            future = client.call_async(request)
            tester.wait_for(future.done, what='get_parameters reply')
            answers.append(future.result().values[0].double_value)
            tester.spin(1.0 / SENT)
        assert answers == [1000.0] * SENT

        def position():
            last = states.messages[-1]
            table = dict(zip(last.name, last.position))
            return np.array([table[name] for name in names])

        def reached(goal):
            return bool(states.messages) and \
                np.max(np.abs(position() - goal)) < TOLERANCE

        states.clear()
        try:
            tester.wait_for(lambda: reached(goals[-1]),
                            what='the goal of the last trajectory')
        except AssertionError:
            raise AssertionError('at %s, the last goal is %s\n%s' % (
                position() - start, goals[-1] - start, node.output()))
        # Held there: not on its way to another (older) goal.
        tester.spin(1.0)
        assert reached(goals[-1]), position() - goals[-1]
        assert not tester.warnings('simulator_node', 'ignored')
    finally:
        finish(node, tester)
