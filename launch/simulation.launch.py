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

Arguments (``--show-args`` describes each): ``urdf`` (default: the shipped
PUMA 560; a .xacro is expanded with ``xacro_args``, e.g.
``xacro_args:='name:=ur ur_type:=ur5e'``), ``root_link``, ``tip_link`` and
``joints`` (cut a gripper away or keep it), ``publish_rate``,
``use_sim_time``, ``namespace``, ``mode``, ``payload_estimation``,
``lockstep``, ``real_time_factor``.

With ``lockstep:=true`` the simulator steps in lockstep with the three
nodes that answer its joint states (doc/theory/lockstep.md): it waits for
inverse_dynamics_node's ``feedforward`` (whose efforts it applies: the
``effort_commands`` remapping is then not made), external_torque_node's
``external_torques`` and linearization_node's
``state_space/operating_point`` before each step after a published state,
so a run repeats to the bit on any machine; ``real_time_factor:=0`` then
runs it as fast as the round trips allow.

With ``payload_estimation:=true`` the payload loop runs too:
payload_estimation_node estimates what the arm holds when its
``~/estimate_payload`` service is called, and inverse_dynamics_node and
external_torque_node follow its ``payload`` topic (``follow_payload``).
The simulated arm picks a payload up when the simulator's ``payload.*``
parameters are set (``ros2 param set /simulator_node payload.mass 2.0``).
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import Command, FindExecutable, \
    LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare

# The answer topics of the peers in lockstep; the first gives the efforts.
LOCKSTEP_PEERS = ('feedforward', 'external_torques',
                  'state_space/operating_point')


def robot_state_publisher(context, *args, **kwargs):
    """Start robot_state_publisher if the package is installed."""
    try:
        from ament_index_python.packages import get_package_share_directory
        get_package_share_directory('robot_state_publisher')
    except Exception:  # not installed: the simulation runs without it
        return []
    # The same xacro arguments as our nodes get, so both see one robot.
    description = ParameterValue(Command(
        [FindExecutable(name='xacro'), ' ', LaunchConfiguration('urdf'),
         ' ', LaunchConfiguration('xacro_args')]), value_type=str)
    return [Node(
        package='robot_state_publisher', executable='robot_state_publisher',
        namespace=LaunchConfiguration('namespace'),
        parameters=[{'robot_description': description,
                     'use_sim_time': LaunchConfiguration('use_sim_time')}])]


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
    """Start the four nodes on the model the arguments describe."""
    share = FindPackageShare('dynamics_ros')
    namespace = LaunchConfiguration('namespace')
    common = dict(model_parameters(context),
                  use_sim_time=LaunchConfiguration('use_sim_time'))
    # The simulator is the clock: it publishes /clock and reads none, on
    # the wall clock as ros_gz_bridge is.  On use_sim_time it would also
    # subscribe to its own ticks and wake for each.
    simulator = {'use_sim_time': False}
    for name in ('publish_rate', 'real_time_factor'):
        value = context.perform_substitution(LaunchConfiguration(name))
        if value:
            simulator[name] = float(value)
    lockstep = context.perform_substitution(
        LaunchConfiguration('lockstep')).lower() == 'true'
    peer = {'lockstep': lockstep}
    # Without lockstep the efforts reach the simulator as a ros2_control
    # effort controller's commands; in lockstep by the stamped answers.
    efforts = [] if lockstep else [
        ('effort_commands', 'effort_controller/commands')]
    if lockstep:
        simulator.update(
            lockstep=True, lockstep_peers=list(LOCKSTEP_PEERS),
            lockstep_effort_peer=LOCKSTEP_PEERS[0])

    def config(name):
        return PathJoinSubstitution([share, 'config', name])

    payload = context.perform_substitution(
        LaunchConfiguration('payload_estimation')).lower() == 'true'
    follow = {'follow_payload': payload}
    estimation = [Node(
        package='dynamics_ros', executable='payload_estimation_node',
        namespace=namespace, output='screen',
        parameters=[config('payload_estimation_node.yaml'), common])] \
        if payload else []
    return [
        Node(package='dynamics_ros', executable='simulator_node',
             namespace=namespace, output='screen',
             parameters=[config('simulator.yaml'), common, simulator]),
        Node(package='dynamics_ros', executable='inverse_dynamics_node',
             namespace=namespace, output='screen',
             parameters=[config('inverse_dynamics.yaml'), common,
                         {'mode': LaunchConfiguration('mode')}, follow,
                         peer],
             remappings=efforts),
        Node(package='dynamics_ros', executable='linearization_node',
             namespace=namespace, output='screen',
             parameters=[config('linearization.yaml'), common, peer],
             remappings=efforts),
        Node(package='dynamics_ros', executable='external_torque_node',
             namespace=namespace, output='screen',
             parameters=[config('external_torque_node.yaml'), common,
                         follow, peer]),
    ] + estimation


def generate_launch_description():
    """Describe the simulation graph."""
    share = FindPackageShare('dynamics_ros')
    return LaunchDescription([
        DeclareLaunchArgument(
            'urdf', default_value=PathJoinSubstitution(
                [share, 'urdf', 'puma560.urdf']),
            description='URDF or .xacro file of the arm (the nodes and '
                        'robot_state_publisher read it)'),
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
            'publish_rate', default_value='',
            description="simulator joint_states rate in Hz ('' = "
                        'config/simulator.yaml)'),
        DeclareLaunchArgument(
            'real_time_factor', default_value='',
            description="simulated / wall time, 0 = as fast as possible ('' "
                        '= config/simulator.yaml)'),
        DeclareLaunchArgument(
            'lockstep', default_value='false',
            description='true: the simulator steps in lockstep with '
                        'inverse_dynamics_node, external_torque_node and '
                        'linearization_node (a run repeats to the bit)'),
        DeclareLaunchArgument(
            'use_sim_time', default_value='true',
            description='run every node on the simulator /clock (the '
                        'simulator itself, its source, on the wall clock)'),
        DeclareLaunchArgument(
            'namespace', default_value='',
            description='namespace of all nodes and topics'),
        DeclareLaunchArgument(
            'mode', default_value='computed_torque',
            description='inverse_dynamics_node mode: gravity | '
                        'inverse_dynamics | computed_torque'),
        DeclareLaunchArgument(
            'payload_estimation', default_value='false',
            description='true: start payload_estimation_node and let '
                        'inverse_dynamics_node and external_torque_node '
                        'follow its payload topic'),
        OpaqueFunction(function=nodes),
        OpaqueFunction(function=robot_state_publisher),
    ])
