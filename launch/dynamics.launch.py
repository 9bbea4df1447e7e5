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

Arguments (``--show-args`` describes each): ``urdf`` ('' = the
robot_description topic) with ``xacro_args`` for a .xacro file,
``root_link``, ``tip_link``, ``joints``, ``joint_states_topic``,
``effort_topic``, ``mode`` (default gravity), ``use_sim_time``,
``namespace``, ``linearization`` and ``external_torques`` (true/false).
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare


def model_parameters(context):
    """
    Return the model parameters every node shares, from the arguments.

    ``xacro_args`` and ``joints`` are written on the command line as one
    space-separated string and become string arrays here; an empty one is
    left out, since ROS 2 cannot type an empty list.
    """
    def argument(name):
        return context.perform_substitution(LaunchConfiguration(name))

    parameters = {'urdf_path': argument('urdf'),
                  'root_link': argument('root_link'),
                  'tip_link': argument('tip_link')}
    for name in ('xacro_args', 'joints'):
        words = argument(name).split()
        if words:
            parameters[name] = words
    return parameters


def nodes(context, *args, **kwargs):
    """Start the dynamics nodes on the model the arguments describe."""
    share = FindPackageShare('dynamics_ros')
    namespace = LaunchConfiguration('namespace')
    common = dict(model_parameters(context),
                  use_sim_time=LaunchConfiguration('use_sim_time'))
    remappings = [
        ('joint_states', LaunchConfiguration('joint_states_topic')),
        ('effort_commands', LaunchConfiguration('effort_topic')),
    ]

    def config(name):
        return PathJoinSubstitution([share, 'config', name])

    return [
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
    ]


def generate_launch_description():
    """Describe the dynamics nodes."""
    return LaunchDescription([
        DeclareLaunchArgument(
            'urdf', default_value='',
            description="URDF or .xacro file; '' takes the "
                        'robot_description topic'),
        DeclareLaunchArgument(
            'xacro_args', default_value='',
            description='xacro arguments of a .xacro urdf, space-separated: '
                        "'name:=ur ur_type:=ur5e'"),
        DeclareLaunchArgument(
            'root_link', default_value='',
            description="link that becomes the fixed base ('' = the "
                        'URDF root)'),
        DeclareLaunchArgument(
            'tip_link', default_value='',
            description='keep only the chain root_link -> tip_link, e.g. '
                        "panda_link8 to cut a gripper away ('' = the whole "
                        'tree)'),
        DeclareLaunchArgument(
            'joints', default_value='',
            description='space-separated joint names the nodes use, in '
                        "their order ('' = every movable joint)"),
        DeclareLaunchArgument(
            'joint_states_topic', default_value='joint_states',
            description='JointState topic of the driver'),
        DeclareLaunchArgument(
            'effort_topic', default_value='effort_commands',
            description='where feed-forward torques go (Float64MultiArray)'),
        DeclareLaunchArgument(
            'mode', default_value='gravity',
            description='gravity | inverse_dynamics | computed_torque'),
        DeclareLaunchArgument(
            'use_sim_time', default_value='false',
            description='run the nodes on /clock (true beside a simulator)'),
        DeclareLaunchArgument(
            'namespace', default_value='',
            description='namespace of all nodes and topics'),
        DeclareLaunchArgument(
            'linearization', default_value='true',
            description='also start linearization_node'),
        DeclareLaunchArgument(
            'external_torques', default_value='true',
            description='also start external_torque_node (external torques, '
                        'wrench, collision from joint_states efforts)'),
        OpaqueFunction(function=nodes),
    ])
