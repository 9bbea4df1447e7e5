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
ROS 2 nodes: thin adapters between topics and the dynamics core.

One sub-package per node (its node class, parameter table, inputs and
state) and ``shared`` for what every node uses; ``tracking_demo`` runs two
of them in one process for ``python -m dynamics_ros demo``.
"""

# Each console script (setup.py) and the module whose main() it runs.
NODE_MODULES = {
    'inverse_dynamics_node': 'dynamics_ros.nodes.inverse_dynamics.node',
    'linearization_node': 'dynamics_ros.nodes.linearization.node',
    'simulator_node': 'dynamics_ros.nodes.simulator.node',
    'external_torque_node': 'dynamics_ros.nodes.external_torque.node',
    'payload_estimation_node': 'dynamics_ros.nodes.payload_estimation.node',
}
