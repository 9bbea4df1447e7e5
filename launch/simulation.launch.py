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
Simulate an arm and control it: ``ros2 launch dynamics_ros simulation.launch.py``.

Starts simulator_node (the arm on ros2_control/Gazebo joint topics),
inverse_dynamics_node (its ``effort_commands`` remapped onto the simulator's
``effort_controller/commands``), linearization_node, external_torque_node
(push the arm through the simulator's ``~/external_wrench``), and
robot_state_publisher when it is installed.  Send a reference trajectory to
``joint_trajectory`` (trajectory_msgs/JointTrajectory) to make the arm move.

Arguments: ``urdf`` (default: the shipped PUMA 560), ``use_sim_time``
(true: every node runs on the simulator's /clock), ``namespace``, ``mode``
(gravity | inverse_dynamics | computed_torque).
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import Command, FindExecutable, \
    LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare


def robot_state_publisher(context, *args, **kwargs):
    """Start robot_state_publisher if the package is installed."""
    try:
        from ament_index_python.packages import get_package_share_directory
        get_package_share_directory('robot_state_publisher')
    except Exception:  # not installed: the simulation runs without it
        return []
    description = ParameterValue(Command(
        [FindExecutable(name='xacro'), ' ', LaunchConfiguration('urdf')]),
        value_type=str)
    return [Node(
        package='robot_state_publisher', executable='robot_state_publisher',
        namespace=LaunchConfiguration('namespace'),
        parameters=[{'robot_description': description,
                     'use_sim_time': LaunchConfiguration('use_sim_time')}])]


def generate_launch_description():
    """Describe the simulation graph."""
    share = FindPackageShare('dynamics_ros')
    urdf = LaunchConfiguration('urdf')
    namespace = LaunchConfiguration('namespace')
    common = {'urdf_path': urdf,
              'use_sim_time': LaunchConfiguration('use_sim_time')}

    def config(name):
        return PathJoinSubstitution([share, 'config', name])

    return LaunchDescription([
        DeclareLaunchArgument(
            'urdf', default_value=PathJoinSubstitution(
                [share, 'urdf', 'puma560.urdf']),
            description='URDF (or xacro) file of the arm'),
        DeclareLaunchArgument(
            'use_sim_time', default_value='true',
            description='run every node on the simulator /clock'),
        DeclareLaunchArgument(
            'namespace', default_value='',
            description='namespace of all nodes and topics'),
        DeclareLaunchArgument(
            'mode', default_value='computed_torque',
            description='inverse_dynamics_node mode: gravity | '
                        'inverse_dynamics | computed_torque'),
        Node(package='dynamics_ros', executable='simulator_node',
             namespace=namespace, output='screen',
             parameters=[config('simulator.yaml'), common]),
        Node(package='dynamics_ros', executable='inverse_dynamics_node',
             namespace=namespace, output='screen',
             parameters=[config('inverse_dynamics.yaml'), common,
                         {'mode': LaunchConfiguration('mode')}],
             remappings=[('effort_commands', 'effort_controller/commands')]),
        Node(package='dynamics_ros', executable='linearization_node',
             namespace=namespace, output='screen',
             parameters=[config('linearization.yaml'), common],
             remappings=[('effort_commands', 'effort_controller/commands')]),
        Node(package='dynamics_ros', executable='external_torque_node',
             namespace=namespace, output='screen',
             parameters=[config('external_torque_node.yaml'), common]),
        OpaqueFunction(function=robot_state_publisher),
    ])
