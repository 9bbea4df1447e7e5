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
QoS profiles of dynamics_ros topics (see docs ros2-conventions.md, QoS rules).

- ``STATE_QOS``: subscribe to ``joint_states`` like robot_state_publisher
  (sensor data: best effort, keep last 5), which matches reliable and
  best-effort publishers alike;
- ``PUBLISH_QOS``: everything dynamics_ros publishes (reliable, depth 10),
  which serves reliable and best-effort subscribers;
- ``COMMAND_QOS``: subscriptions to commands and trajectories (reliable,
  depth 10, like ros2_control's SystemDefaultsQoS);
- ``LOCKSTEP_QOS``: joint states and their answers in lockstep (reliable,
  depth 100): a simulator in lockstep waits for every answer, so none may
  be lost; it has at most one state outstanding, so depth never binds
  while the peers keep up;
- ``POLLED_STATE_QOS``: ``joint_states`` read at a node's own rate
  (``PolledSubscription``: best effort like ``STATE_QOS``, keep last 100:
  a tick at 10 Hz merges every state of a 1 kHz driver, and of several
  publishers each sending part of the joints);
- ``DESCRIPTION_QOS``: the ``robot_description`` topic (reliable,
  transient-local, depth 1: the latched URDF robot_state_publisher sends).
"""

from rclpy.qos import (DurabilityPolicy, HistoryPolicy, qos_profile_sensor_data,
                       QoSProfile, ReliabilityPolicy)

STATE_QOS = qos_profile_sensor_data

PUBLISH_QOS = QoSProfile(depth=10, history=HistoryPolicy.KEEP_LAST,
                         reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.VOLATILE)

COMMAND_QOS = PUBLISH_QOS

LOCKSTEP_QOS = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST,
                          reliability=ReliabilityPolicy.RELIABLE,
                          durability=DurabilityPolicy.VOLATILE)

POLLED_STATE_QOS = QoSProfile(depth=100, history=HistoryPolicy.KEEP_LAST,
                              reliability=ReliabilityPolicy.BEST_EFFORT,
                              durability=DurabilityPolicy.VOLATILE)

DESCRIPTION_QOS = QoSProfile(depth=1, history=HistoryPolicy.KEEP_LAST,
                             reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
