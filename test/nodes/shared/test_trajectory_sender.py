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

"""``excite --send``: a planned trajectory arrives over DDS as planned."""

import subprocess
import sys
import textwrap

import numpy as np
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_harness import node_environment, reserve_domain_id, RosTester
from trajectory_msgs.msg import JointTrajectory

TOPIC = '/joint_trajectory_controller/joint_trajectory'

SENDER = textwrap.dedent("""
    import sys
    from types import SimpleNamespace
    import numpy as np
    from dynamics_ros.nodes.shared.trajectory_sender import send_trajectory
    t = np.array([0.5, 1.0, 1.25])
    plan = SimpleNamespace(
        joint_names=['a', 'b'], times=t,
        positions=np.column_stack((t, -t)),
        velocities=np.column_stack((2 * t, t)),
        accelerations=np.column_stack((t ** 2, 0 * t)))
    sys.exit(0 if send_trajectory(plan, %r, 60.0) else 3)
""" % TOPIC)


def test_a_sent_plan_arrives_as_planned():
    domain_id = reserve_domain_id('trajectory sender')
    tester = RosTester(domain_id)
    try:
        trajectories = tester.collector(JointTrajectory, TOPIC, QoSProfile(
            depth=1, reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL))
        sender = subprocess.Popen([sys.executable, '-c', SENDER],
                                  env=node_environment(domain_id))
        tester.wait_for(lambda: trajectories.messages,
                        what='the sent trajectory')
        assert sender.wait(60) == 0
        msg = trajectories.messages[0]
        t = np.array([0.5, 1.0, 1.25])
        assert list(msg.joint_names) == ['a', 'b']
        assert [p.time_from_start.sec + 1e-9 * p.time_from_start.nanosec
                for p in msg.points] == t.tolist()
        assert np.array_equal([p.positions for p in msg.points],
                              np.column_stack((t, -t)))
        assert np.array_equal([p.velocities for p in msg.points],
                              np.column_stack((2 * t, t)))
        assert np.array_equal([p.accelerations for p in msg.points],
                              np.column_stack((t ** 2, 0 * t)))
    finally:
        tester.close()
