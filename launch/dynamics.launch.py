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
Dynamics beside a real robot: ``ros2 launch dynamics_ros dynamics.launch.py``.

Starts inverse_dynamics_node, linearization_node and external_torque_node
only.  The model comes
from the driver's robot_state_publisher (the ``robot_description`` topic,
transient-local) unless ``urdf`` names a file.  Nothing is commanded by
default: torques go to ``effort_commands``; set ``effort_topic`` to the
controller's topic (e.g. ``/effort_controller/commands``) to close the loop.

Arguments: ``urdf`` ('' = robot_description topic), ``joint_states_topic``,
``effort_topic``, ``mode`` (default gravity), ``use_sim_time``,
``namespace``, ``linearization`` and ``external_torques`` (true/false).
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare


def generate_launch_description():
    """Describe the dynamics nodes."""
    share = FindPackageShare('dynamics_ros')
    namespace = LaunchConfiguration('namespace')
    common = {'urdf_path': LaunchConfiguration('urdf'),
              'use_sim_time': LaunchConfiguration('use_sim_time')}
    remappings = [
        ('joint_states', LaunchConfiguration('joint_states_topic')),
        ('effort_commands', LaunchConfiguration('effort_topic')),
    ]

    def config(name):
        return PathJoinSubstitution([share, 'config', name])

    return LaunchDescription([
        DeclareLaunchArgument(
            'urdf', default_value='',
            description="URDF file; '' takes the robot_description topic"),
        DeclareLaunchArgument(
            'joint_states_topic', default_value='joint_states',
            description='JointState topic of the driver'),
        DeclareLaunchArgument(
            'effort_topic', default_value='effort_commands',
            description='where feed-forward torques go (Float64MultiArray)'),
        DeclareLaunchArgument(
            'mode', default_value='gravity',
            description='gravity | inverse_dynamics | computed_torque'),
        DeclareLaunchArgument('use_sim_time', default_value='false'),
        DeclareLaunchArgument('namespace', default_value=''),
        DeclareLaunchArgument(
            'linearization', default_value='true',
            description='also start linearization_node'),
        DeclareLaunchArgument(
            'external_torques', default_value='true',
            description='also start external_torque_node (external torques, '
                        'wrench, collision from joint_states efforts)'),
        Node(package='dynamics_ros', executable='inverse_dynamics_node',
             namespace=namespace, output='screen',
             parameters=[config('inverse_dynamics.yaml'), common,
                         {'mode': LaunchConfiguration('mode')}],
             remappings=remappings),
        Node(package='dynamics_ros', executable='linearization_node',
             namespace=namespace, output='screen',
             parameters=[config('linearization.yaml'), common],
             remappings=remappings,
             condition=IfCondition(LaunchConfiguration('linearization'))),
        Node(package='dynamics_ros', executable='external_torque_node',
             namespace=namespace, output='screen',
             parameters=[config('external_torque_node.yaml'), common],
             remappings=[('joint_states',
                          LaunchConfiguration('joint_states_topic'))],
             condition=IfCondition(
                 LaunchConfiguration('external_torques'))),
    ])
