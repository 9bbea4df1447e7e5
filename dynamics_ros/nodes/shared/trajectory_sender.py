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

"""Publish one planned trajectory (plain arrays) as a JointTrajectory."""

import time

import rclpy
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint


def trajectory_message(plan):
    """Return the JointTrajectory of ``plan`` (names, times and arrays)."""
    message = JointTrajectory(joint_names=list(plan.joint_names))
    for k, t in enumerate(plan.times):
        point = JointTrajectoryPoint(
            positions=plan.positions[k].tolist(),
            velocities=plan.velocities[k].tolist(),
            accelerations=plan.accelerations[k].tolist())
        nanoseconds = int(round(float(t) * 1e9))
        point.time_from_start.sec = nanoseconds // 10 ** 9
        point.time_from_start.nanosec = nanoseconds % 10 ** 9
        message.points.append(point)
    return message


def send_trajectory(plan, topic, timeout):
    """
    Publish ``plan`` once a subscriber listens; False if none within timeout.

    Reliable and transient-local, so a controller that matches late still
    gets it while this process lives.
    """
    rclpy.init()
    try:
        node = rclpy.create_node('excite')
        publisher = node.create_publisher(JointTrajectory, topic, QoSProfile(
            depth=1, reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL))
        message = trajectory_message(plan)
        deadline = time.monotonic() + timeout
        while publisher.get_subscription_count() == 0:
            if time.monotonic() > deadline:
                return False
            rclpy.spin_once(node, timeout_sec=0.1)
        publisher.publish(message)
        # Let the reliable transport deliver it before the node goes.
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            rclpy.spin_once(node, timeout_sec=0.1)
        node.destroy_node()
        return True
    finally:
        rclpy.shutdown()
