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
simulator_node: the arm simulated on Gazebo / ros2_control joint topics.

A controller written for Gazebo + ros2_control drives it unchanged.

Publishes (relative names, reliable, depth 10):

- ``joint_states`` (sensor_msgs/JointState, ``joints`` order: position,
  velocity and the effort actually applied, after saturation), stamped with
  the simulated time, every ``1 / publish_rate`` simulated seconds;
- ``/clock`` (rosgraph_msgs/Clock) every step when ``publish_clock``;
- ``flexible_state`` (sensor_msgs/JointState), only with ``flexible_config``:
  the modal amplitudes (position) and rates (velocity) named
  ``<link>/xy1``, ``<link>/xz1``, ..., then each flexible link's tip
  deflection ``<link>/tip_y``, ``<link>/tip_z`` (m, in the beam frame) and
  its rate; stamped and published with ``joint_states``.

Commands (one value per joint in ``joints`` order, like
forward_command_controller; a wrong-size or non-finite command is dropped
with a throttled warning and the previous command kept):

- ``effort_controller/commands`` (std_msgs/Float64MultiArray): efforts;
- ``position_controller/commands``: positions, held by a per-joint PID on
  effort (``pos_kp``, ``pos_ki``, ``pos_kd``, ``pos_max_integral_error``, as
  gazebo_ros2_control's ``position_pid`` interface);
- ``velocity_controller/commands``: velocities, PID ``vel_*``;
- ``joint_trajectory_controller/joint_trajectory``
  (trajectory_msgs/JointTrajectory): sampled as joint_trajectory_controller
  samples it (dynamics_ros.control.trajectory), followed by the position PID
  with the points' ``effort`` as feed-forward when every point has one.
  ``header.stamp`` zero starts it on receipt, else at that simulated time.

The last command received decides the mode; until one arrives the joints
get zero effort.  Service ``~/reset`` (std_srvs/Trigger): back to the initial
state, zero effort and no push; simulated time runs on (no jump back of
/clock).

A push: ``~/external_wrench`` (geometry_msgs/WrenchStamped) applies the
wrench to the link named in ``header.frame_id``, expressed in that link's
frame and about its origin (the ROS convention), as joint torques J^T w
added to the actuators' each step, held until the next message (all zero:
no push).  ``joint_states`` effort stays the actuators' torque, as a
driver's does, so external_torque_node can find the push.  An unknown
link or a non-finite value is dropped with a throttled warning.

Parameters: ``rate`` (integration Hz, 1000), ``integrator`` (rk4 |
semi_implicit_euler | adaptive), ``real_time_factor`` (1.0 paces to the wall
clock, 0 runs as fast as possible), ``publish_rate`` (joint_states Hz of
simulated time, 100; 0 = every step), ``publish_clock`` (true),
``initial_positions`` (``joints`` order; unset: zero, or mid-range where
zero is outside the limits), the PID gains above (one value, or one per
joint; unset: ``pid_bandwidth`` Hz, 10, scaled by each joint's inertia at
the initial positions, see dynamics_ros.sim.controllers.default_gains), and
the model parameters of dynamics_ros.nodes.model_source.  A new model
(parameters or the ``robot_description`` topic) restarts the simulation
from the initial positions (initial positions that do not fit it are
warned about and the default start used).

Every set of these parameters at run time is checked (``parameter_problem``
for the ranges of ``SCALARS``, the integrator's name, finite initial
positions and gains >= 0; then, with a model, the simulation it gives is
built) and takes effect, or is refused with a reason quoting the value
(cut to QUOTE_LIMIT characters, the reason to REASON_LIMIT).
``real_time_factor`` and ``publish_clock`` act on the next step; the
others rebuild the simulation, carrying its state, time and command over
(``carry_over``; the PIDs restart); ``initial_positions`` are the state
of the next ``~/reset``.

The PIDs' dampers too stiff for the step, like the URDF damping of light
joints, are integrated implicitly by the simulator
(``Simulator.hand_over``; dynamics_ros.sim.simulator); what stays explicit
and is still too stiff for the step is warned about when a simulation is
built (``Simulator.check_step``).  After a divergence (a non-finite state)
the node resets once, logs one error and takes no step until an input
arrives (a command, a trajectory, a model, a parameter set or
``~/reset``): no reset loop; a repeat on the same model is a throttled
warning.

``flexible_config`` (read-only, '' = rigid links): a flexible-link YAML file
(dynamics_ros.flexible, Mackay 1988) applied to every model; the arm is then
simulated over joints and modal amplitudes, the modes starting at rest
under gravity, and ``joint_states`` still carries the joints.  A file that
cannot be read, or that does not fit the model, stops the node at start-up
with the reason.  The integration step should stay below 1/20 of the
shortest natural period (a warning gives the rate needed).

``actuator_config`` (read-only, '' = none): a YAML file of geared DC
motors per joint (dynamics_ros.model.actuators, Freeman 1985), applied to
every model (a RobotModel without mimic joints; not with
``flexible_config``).  The simulated arm then carries the rotors
(n^2 J_m, n^2 b_m at the joints) and the winding currents as states, and
the joint torque is n k_t i (dynamics_ros.sim.actuated).  Effort,
position, velocity and trajectory commands keep working: the torque they
ask for reaches the motors through an ideal voltage drive,
V = R tau / (n k_t) + k_e n qd, clipped to the YAML's ``voltage_limit``
(the torque then follows with the windings' lag L/R).  Two more topics:

- ``voltage_controller/commands`` (std_msgs/Float64MultiArray, ``joints``
  order, V): the motors' voltages directly, held until another command
  of any kind (clipped to ``voltage_limit``; checked like the other
  commands);
- ``motor_currents`` (sensor_msgs/JointState, ``joints`` order, with
  ``joint_states``): the winding currents in A in ``effort`` (position
  and velocity empty), as drivers that report current on the effort
  interface do; ``joint_states`` effort is the joint torque n k_t i.

A file that cannot be read, or whose motors do not fit the model, stops
the node at start-up with the reason (a later model that does not fit is
refused with the reason, the running one kept).

Mimic joints (URDF ``<mimic>``, e.g. a parallel gripper's second finger)
are simulated coupled to their masters (a MimicModel in independent
coordinates, see dynamics_ros.sim.simulator).  Commands, ``joints``,
``initial_positions`` and the gains address the independent joints only
(ros2_control exports no command interface for a mimic joint): a command
of the wrong size names the mimic joints in its warning, and a trajectory
naming a mimic joint is dropped with a warning.  ``joint_states`` carries
every movable joint as Gazebo publishes it: the ``joints`` in their order,
then the mimic joints in model order, their position multiplier * master
+ offset, their velocity multiplier * master's and their effort 0 (the
effort applied to the coupled coordinate is reported on the master).

The integration runs in its own thread; message callbacks only queue what
they received, and the thread applies it between two steps.  Each step
is the ROS-free ``Simulator.step`` (compiled for a rigid model, see
dynamics_ros.sim.simulator); ``joint_states`` and ``/clock`` are published
as serialized messages whose stamp and numbers are rewritten in place
(``SerializedMessage``), which costs a few microseconds instead of the
conversion and serialization of a Python message.
"""

from array import array
from collections import deque
import math
import threading
import time
import traceback
import warnings

from geometry_msgs.msg import WrenchStamped
import numpy as np
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.exceptions import ParameterUninitializedException
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.serialization import deserialize_message
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory

from .conversions import (BadInput, joint_state_message, message_trajectory,
                          message_vector, name_index, names_text,
                          point_field, refuse_mimic_joints, shorten,
                          ThrottledWarnings, time_message, trajectory_arrays)
from .entry_point import entry_point
from .model_source import ModelSource, NO_MODEL
from .qos import COMMAND_QOS, PUBLISH_QOS
from .serialized_message import (doubles, serialized_clock,
                                 serialized_joint_state)
from .simulation import (Command, ExternalWrench, FollowTrajectory,
                         NewSimulation, published_joints, Rebuilt, Reset,
                         Simulation, VoltageCommand)
from .trajectory_cdr import read_trajectory
from ..flexible.config import load_flexible, read_config
from ..model.actuators import motors_from_mapping, read_actuator_config
from ..model.payload import payload_body
from ..sim.controllers import default_gains, JointCommands, PidGains
from ..sim.integrators import INTEGRATORS
from ..sim.simulator import checked_initial_positions, Simulator

COMMAND_TOPICS = {
    'effort': 'effort_controller/commands',
    'position': 'position_controller/commands',
    'velocity': 'velocity_controller/commands',
}
TRAJECTORY_TOPIC = 'joint_trajectory_controller/joint_trajectory'
VOLTAGE_TOPIC = 'voltage_controller/commands'
WRENCH_TOPIC = '~/external_wrench'
PID_TERMS = ('kp', 'ki', 'kd', 'max_integral_error')
GAIN_PARAMETERS = tuple('%s_%s' % (prefix, term) for prefix in ('pos', 'vel')
                        for term in PID_TERMS)

# The simulator's own scalar parameters: (default, description, lowest,
# highest, lowest allowed itself).  A value outside the range is refused
# at start-up (the node stops) and at run time (the set fails).
SCALARS = {
    'rate': (1000.0, 'integration rate, Hz (1 to 1e6)', 1.0, 1e6, True),
    'real_time_factor': (1.0, 'simulated / wall time; 0 = as fast as '
                         'possible (0 to 1e6)', 0.0, 1e6, True),
    'publish_rate': (100.0, 'joint_states rate, Hz of simulated time; 0 = '
                     'every step (0 to 1e6)', 0.0, 1e6, True),
    'pid_bandwidth': (10.0, 'bandwidth of the automatic PID gains, Hz '
                      '(above 0, up to 1e4)', 0.0, 1e4, False),
}
# What a parameter set changes: the loop's pacing and /clock take the new
# value on the next step; the others rebuild the simulation (state, time and
# command kept, the PIDs restarted).
LOOP_PARAMETERS = ('real_time_factor', 'publish_clock')
REBUILD_PARAMETERS = ('rate', 'integrator', 'publish_rate', 'pid_bandwidth',
                      'initial_positions') + GAIN_PARAMETERS

# Longest quotation of a user's value in a reason or a log line.
QUOTE_LIMIT = 80
REASON_LIMIT = 400

# Pacing: sleep only when ahead of the wall clock by more than this, and
# stop trying to catch up when behind by more than LAG_LIMIT.
SLEEP_THRESHOLD = 0.002
LAG_LIMIT = 0.25
CONTEXT_CHECK_EVERY = 64


def quote(value, limit=QUOTE_LIMIT):
    """Return ``value`` as the user gave it, cut to ``limit`` characters."""
    if isinstance(value, (list, tuple, array, np.ndarray)):
        value = list(value)
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + '...'


def bounded(text, limit=REASON_LIMIT):
    """Return ``text`` cut to ``limit`` characters (a reason, a log line)."""
    return shorten(text, limit - 3)   # at most limit - 3, then '...'


def gain_problem(name, values):
    """Return why PID gain parameter ``name`` cannot be ``values``, or None."""
    values = np.asarray(values, dtype=float).reshape(-1)
    # An integral clamp may be infinite (no clamp); a gain may not.
    infinite = name.endswith('max_integral_error')
    if np.any(np.isnan(values)) or np.any(values < 0.0) or not (
            infinite or np.all(np.isfinite(values))):
        return '%s must be %s, got %s' % (
            name, '>= 0' if infinite else 'finite and >= 0', quote(values))
    return None


def parameter_problem(name, value):
    """
    Return why simulator parameter ``name`` cannot be ``value``, or None.

    The checks that need no model: ranges of the scalars, the integrator's
    name, finite initial positions, non-negative finite gains.
    """
    if name in SCALARS:
        _, _, low, high, low_allowed = SCALARS[name]
        if not (isinstance(value, (int, float)) and math.isfinite(value)
                and (value >= low if low_allowed else value > low)
                and value <= high):
            return '%s must be %s %g and <= %g, got %s' % (
                name, '>=' if low_allowed else '>', low, high, quote(value))
    elif name == 'integrator':
        if value not in INTEGRATORS:
            return 'integrator %s is not one of %s' % (
                quote(value), ', '.join(INTEGRATORS))
    elif name == 'initial_positions':
        if value is not None and not np.all(np.isfinite(
                np.asarray(value, dtype=float))):
            return 'initial_positions must be finite, got %s' % quote(value)
    elif name in GAIN_PARAMETERS and value is not None and len(value):
        return gain_problem(name, value)
    return None


def per_joint(name, values, n):
    """Return ``values`` (1 or n numbers) as an (n,) array (ValueError)."""
    values = np.asarray(values, dtype=float).reshape(-1)
    if values.size not in (1, n):
        raise ValueError('%s has %d values: give 1, or one per joint (%d)'
                         % (name, values.size, n))
    problem = gain_problem(name, values)
    if problem is not None:
        raise ValueError(problem)
    return np.broadcast_to(values, n).copy()


def trajectory_efforts(arrays, joint_names):
    """
    Return the (k, n) feed-forward efforts of a trajectory, or None.

    ``arrays``: its conversions.TrajectoryArrays.  Efforts are read by
    joint name into ``joint_names`` order; either every point has them or
    none does (else BadInput).
    """
    if arrays.fields['effort'] is None:
        return None
    if not np.all(arrays.fields['effort'][1]):
        raise BadInput('JointTrajectory has efforts on some points only')
    names = list(arrays.joint_names)
    index = name_index(names, joint_names, 'JointTrajectory')
    return point_field(arrays, 'effort', index, names, False)[0]


def read_actuators(settings):
    """
    Return the ``actuators`` mapping of ``actuator_config`` (ValueError).

    Read at start-up, so that a missing or broken file stops the node
    even before a model arrives; checked against each model later.  The
    reason quotes the parameter, never the file's text.
    """
    path = settings['actuator_config']
    if '\n' in path:
        raise ValueError('actuator_config %s: must be a file path'
                         % quote(path))
    if settings['flexible_config']:
        raise ValueError('actuator_config %s: motors need rigid links, and '
                         'flexible_config %s is set' % (
                             quote(path), quote(settings['flexible_config'])))
    try:
        return read_actuator_config(path)
    except ValueError as error:   # ModelError
        raise ValueError('actuator_config %s: %s' % (quote(path), error))


def refused(reason):
    """Return a failed SetParametersResult with a bounded ``reason``."""
    return SetParametersResult(successful=False, reason=bounded(reason))


class SimulatorNode(Node):
    """Simulate the model and speak ros2_control's joint topics."""

    def __init__(self, **kwargs):
        """Declare parameters, topics, the reset service and the model."""
        super().__init__('simulator_node', **kwargs)
        self.settings = self.read_parameters()
        self.warnings = ThrottledWarnings(self.get_logger())
        self.divergence_warnings = ThrottledWarnings(self.get_logger(), 10.0)
        self.pending = deque()
        self.simulation = None
        self.joint_names = None
        self.mimic = {}
        self.model_error = None
        # After a divergence: reset, and no step until an input arrives.
        self.halted = False
        self.starting = True
        self.state_publisher = self.create_publisher(
            JointState, 'joint_states', PUBLISH_QOS)
        self.clock_publisher = self.create_publisher(
            Clock, '/clock', PUBLISH_QOS)
        self.clock_message = Clock()
        self.serialized_clock = serialized_clock()
        self.flexible_publisher = None
        if self.settings['flexible_config']:
            self.flexible_publisher = self.create_publisher(
                JointState, 'flexible_state', PUBLISH_QOS)
        self.motor_publisher = None
        if self.settings['actuator_config']:
            self.motor_publisher = self.create_publisher(
                JointState, 'motor_currents', PUBLISH_QOS)
            self.create_subscription(
                Float64MultiArray, VOLTAGE_TOPIC, self.warnings.dropping(
                    VOLTAGE_TOPIC, self.on_voltage), COMMAND_QOS)
        for mode, topic in COMMAND_TOPICS.items():
            self.create_subscription(
                Float64MultiArray, topic, self.warnings.dropping(
                    topic, lambda msg, mode=mode: self.on_command(mode, msg)),
                COMMAND_QOS)
        # Trajectories arrive serialized and are read on their own thread.
        self.stopping = threading.Event()
        self.trajectory_ready = threading.Condition()
        self.trajectory_data = None
        self.create_subscription(JointTrajectory, TRAJECTORY_TOPIC,
                                 self.on_trajectory, COMMAND_QOS, raw=True)
        self.create_subscription(
            WrenchStamped, WRENCH_TOPIC, self.warnings.dropping(
                WRENCH_TOPIC, self.on_external_wrench), COMMAND_QOS)
        self.create_service(Trigger, '~/reset', self.on_reset)
        self.source = ModelSource(self, self.on_model)
        if self.model_error is not None and self.simulation is None:
            raise ValueError(self.model_error)
        self.starting = False
        self.accepted = None   # the set validate_parameters accepted last
        self.add_on_set_parameters_callback(self.validate_parameters)
        self.add_post_set_parameters_callback(self.apply_parameters)
        self.started = None   # (wall, simulated) time after the first step
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()
        self.reader = threading.Thread(target=self.read_trajectories,
                                       daemon=True)
        self.reader.start()

    # -- parameters -------------------------------------------------------

    def declare(self, name, default, description):
        """Declare a parameter (unset when ``default`` is a type)."""
        self.declare_parameter(name, default, ParameterDescriptor(
            description=description))

    def optional(self, name):
        """Return the value of a parameter that may be unset, else None."""
        try:
            return self.get_parameter(name).value
        except ParameterUninitializedException:
            return None

    def read_parameters(self):
        """Declare and check the simulator's own parameters."""
        for name, (default, description, *_) in SCALARS.items():
            self.declare(name, default, description)
        self.declare('integrator', 'rk4', ' | '.join(INTEGRATORS))
        self.declare('publish_clock', True, 'publish /clock every step')
        self.declare('initial_positions', Parameter.Type.DOUBLE_ARRAY,
                     'initial joint positions in joints order')
        for prefix in ('pos', 'vel'):
            for term in PID_TERMS:
                self.declare('%s_%s' % (prefix, term),
                             Parameter.Type.DOUBLE_ARRAY,
                             '%s PID %s, one value or one per joint' % (
                                 'position' if prefix == 'pos'
                                 else 'velocity', term))
        self.declare_parameter('flexible_config', '', ParameterDescriptor(
            description='flexible-link YAML file (dynamics_ros.flexible); '
            "'' = rigid links", read_only=True))
        self.declare_parameter('actuator_config', '', ParameterDescriptor(
            description='geared DC motors per joint, YAML file '
            "(dynamics_ros.model.actuators); '' = none", read_only=True))
        settings = {name: self.get_parameter(name).value for name in (
            'rate', 'integrator', 'real_time_factor', 'publish_rate',
            'publish_clock', 'pid_bandwidth', 'flexible_config',
            'actuator_config')}
        for name in tuple(SCALARS) + ('integrator', 'initial_positions') \
                + GAIN_PARAMETERS:
            problem = parameter_problem(name, self.optional(name))
            if problem is not None:
                raise ValueError(problem)
        self.flexible_declaration = None
        if settings['flexible_config']:
            # Read now, once, so that a missing or broken file stops the
            # start even before a model arrives; checked against each model
            # later (the file is not read again).
            try:
                self.flexible_declaration = read_config(
                    settings['flexible_config'])[0]
            except ValueError as error:
                raise ValueError('flexible_config %r: %s' % (
                    settings['flexible_config'], error))
        self.actuators = None
        if settings['actuator_config']:
            self.actuators = read_actuators(settings)
        return settings

    def validate_parameters(self, parameters):
        """
        Accept a set of the simulator's parameters only if it can apply.

        Every value is checked (``parameter_problem``), and with a model the
        simulation it would give is built; a refusal quotes the value and
        says why.  Model parameters are ModelSource's to check.
        """
        own = {p.name: p.value for p in parameters
               if p.name in SCALARS or p.name in LOOP_PARAMETERS
               or p.name in REBUILD_PARAMETERS}
        if not own:
            return SetParametersResult(successful=True)
        for name, value in own.items():
            problem = parameter_problem(name, value)
            if problem is not None:
                return refused(problem)
        settings = dict(self.settings)
        settings.update({name: value for name, value in own.items()
                         if name in settings})
        model, joint_names = self.source.model, self.source.joint_names
        rebuild = model is not None and any(
            name in REBUILD_PARAMETERS for name in own)
        if rebuild:
            try:
                self.build_simulation(model, joint_names, settings, own)
            except ValueError as error:
                return refused(str(error))
        # With model parameters in the same set, ModelSource queues the new
        # model too, before or after this rebuild of the model it has then:
        # the loop applies a rebuild only to the model it was built for, so
        # the new model ends up running with the new settings either way.
        self.accepted = (settings, rebuild)
        return SetParametersResult(successful=True)

    def apply_parameters(self, parameters):
        """Make the set ``validate_parameters`` accepted take effect."""
        if self.accepted is None:
            return
        (settings, rebuild), self.accepted = self.accepted, None
        self.settings = settings
        if rebuild and self.source.model is not None:
            try:
                simulation = self.build_simulation(
                    self.source.model, self.source.joint_names)
            except ValueError as error:   # checked just before: a bug
                self.get_logger().error(bounded(
                    'parameters set, but the simulation could not be '
                    'rebuilt: %s' % error))
                return
            self.pending.append(Rebuilt(simulation))

    def parameter(self, name, overrides=None):
        """Return parameter ``name`` (from ``overrides`` if there), or None."""
        if overrides and name in overrides:
            return overrides[name]
        return self.optional(name)

    def model_order(self, name, index, overrides=None):
        """
        Return parameter ``name`` in model order, or None if unset.

        ``index[k]`` is the model coordinate of the k-th joint of ``joints``;
        a value that does not fit them is a ValueError.
        """
        values = self.parameter(name, overrides)
        if values is None or len(values) == 0:
            return None
        n = index.size
        if name == 'initial_positions':
            values = np.asarray(values, dtype=float)
            if values.size != n:
                raise ValueError('%s has %d values for %d joints' % (
                    name, values.size, n))
        else:
            values = per_joint(name, values, n)
        ordered = np.empty(n)
        ordered[index] = values
        return ordered

    def gains(self, prefix, automatic, index, overrides=None):
        """Return the PidGains of ``prefix`` ('pos'/'vel') (ValueError)."""
        terms = {}
        for term, default in zip(PID_TERMS, (
                automatic.p, automatic.i, automatic.d, np.inf)):
            value = self.model_order('%s_%s' % (prefix, term), index,
                                     overrides)
            terms[term] = default if value is None else value
        return PidGains(p=terms['kp'], i=terms['ki'], d=terms['kd'],
                        max_integral_error=terms['max_integral_error'])

    # -- model --------------------------------------------------------------

    def on_model(self, model, joint_names):
        """Build a simulation of a new model (from the executor thread)."""
        try:
            simulation = self.build_simulation(model, joint_names)
        except ValueError as error:
            self.model_error = bounded('cannot simulate model %r: %s' % (
                model.name, error))
            self.get_logger().error(self.model_error)
            return
        self.model_error = None
        self.joint_names = list(joint_names)
        self.mimic = dict(model.mimic)
        if self.simulation is None:
            self.simulation = simulation
        else:
            self.pending.append(NewSimulation(simulation))

    def initial_positions(self, model, index, overrides):
        """
        Return the initial positions parameter for ``model``, or None.

        Values that do not fit a model that came after the start (another
        robot on the robot_description topic) are not a reason to refuse
        it: the default start is used, with a warning.  At start-up and in
        a parameter set they are an error (ValueError).
        """
        try:
            q0 = self.model_order('initial_positions', index, overrides)
            return None if q0 is None else \
                checked_initial_positions(model, q0)
        except ValueError as error:
            if self.starting or 'initial_positions' in (overrides or ()):
                raise
            reason = error
        self.warnings.warn('initial_positions', bounded(
            'initial_positions do not fit model %r (%s): starting from the '
            'default positions' % (model.name, reason)))
        return None

    def build_simulation(self, model, joint_names, settings=None,
                         overrides=None):
        """
        Return the simulator, its commands and the joint order.

        ``settings`` (default: the node's) and ``overrides`` {parameter:
        value} give values of a set being validated.
        """
        settings = self.settings if settings is None else settings
        index = np.array([model.joint_index(name) for name in joint_names],
                         dtype=int)
        q0 = self.initial_positions(model, index, overrides)
        start = 0.0 if self.simulation is None else \
            self.simulation.simulator.t
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            plant = self.flexible_model(model) \
                if settings['flexible_config'] else model
            simulator = Simulator(plant, dt=1.0 / settings['rate'],
                                  integrator_name=settings['integrator'],
                                  q0=q0, start_time=start,
                                  actuators=self.motors(model))
            # The gains see the inertia the joints have: with motors, the
            # rotors' too (simulator.model; else the model itself).
            rigid = simulator.model if simulator.flexible is None else \
                simulator.flexible.rigid_model()
            automatic = default_gains(rigid, simulator.initial_q,
                                      settings['pid_bandwidth'])
            gains = [self.gains(prefix, default, index, overrides)
                     for prefix, default in zip(('pos', 'vel'), automatic)]
            commands = JointCommands(model, *gains)
            # The PIDs' dampers too stiff for the step go implicit; what
            # stays explicit and is still too stiff is warned about.
            simulator.hand_over(commands)
        if overrides is None:   # only for the simulation that will run
            for warning in caught:
                self.get_logger().warning(bounded(str(warning.message)))
        publish_rate = settings['publish_rate']
        every = 1 if publish_rate <= 0.0 else max(
            1, int(round(settings['rate'] / publish_rate)))
        flexible = simulator.flexible_state()
        published, full_index = published_joints(model, joint_names)
        return Simulation(
            simulator=simulator, commands=commands, model=model,
            index=index, joint_names=list(joint_names),
            full_index=full_index,
            model_order=bool(np.array_equal(full_index,
                                            np.arange(full_index.size))),
            publish_every=every,
            state_message=joint_state_message(published),
            serialized_state=serialized_joint_state(published),
            flexible_message=None if flexible is None else
            joint_state_message(flexible[0]),
            motor_message=None if simulator.motors is None else
            joint_state_message(joint_names))

    def motors(self, model):
        """Return the DCMotors of ``actuator_config`` for ``model``, or None."""
        if self.actuators is None:
            return None
        try:
            return motors_from_mapping(self.actuators,
                                       list(model.joint_names))
        except ValueError as error:   # ModelError
            raise ValueError('actuator_config %s: %s' % (
                quote(self.settings['actuator_config']), error))

    def flexible_model(self, model):
        """Return the FlexibleModel of ``flexible_config`` on ``model``."""
        path = self.settings['flexible_config']
        try:
            flexible = load_flexible(self.flexible_declaration, model=model)
        except (TypeError, ValueError, KeyError, AttributeError) as error:
            # ModelError is a ValueError; the others come from values of
            # the wrong type in the YAML.
            raise ValueError('flexible_config %r: %s' % (path, error))
        # A flexible link's declaration replaces its URDF inertial, and
        # with it a payload merged there: refuse rather than drop it.
        mass = self.optional('payload.mass')
        if mass:
            body = payload_body(model, self.optional('tip_link') or None)[0]
            if body >= 0 and flexible.flexible[body] is not None:
                raise ValueError(
                    'payload.mass %g kg is on flexible link %r, whose '
                    'declaration in flexible_config %r replaces its URDF '
                    'inertial: declare the payload there as tip_mass' % (
                        mass, model.body_names[body], path))
        return flexible

    # -- inputs (executor thread: queue only) -------------------------------

    def on_command(self, mode, msg):
        """Queue a forward command in ``joints`` order (else BadInput)."""
        if self.joint_names is None:
            raise BadInput(NO_MODEL)
        values = message_vector(msg, len(self.joint_names),
                                '%s command' % mode, self.mimic)
        self.pending.append(Command(mode, values))

    def on_voltage(self, msg):
        """Queue motor voltages in ``joints`` order (else BadInput)."""
        if self.joint_names is None:
            raise BadInput(NO_MODEL)
        self.pending.append(VoltageCommand(message_vector(
            msg, len(self.joint_names), 'voltage command', self.mimic)))

    def on_external_wrench(self, msg):
        """Queue a push on the link of ``header.frame_id`` (else BadInput)."""
        simulation = self.simulation
        if simulation is None:
            raise BadInput(NO_MODEL)
        model = simulation.simulator.model
        link = msg.header.frame_id
        if link not in model.frames:
            raise BadInput('WrenchStamped frame_id %s is not a link of model '
                           '%s (links: %s)' % (quote(link), quote(model.name),
                                               names_text(sorted(
                                                   model.frames))))
        torque, force = msg.wrench.torque, msg.wrench.force
        wrench = np.array([torque.x, torque.y, torque.z, force.x, force.y,
                           force.z])
        if not np.all(np.isfinite(wrench)):
            raise BadInput('WrenchStamped has non-finite values (%s)' %
                           quote(wrench))
        self.pending.append(ExternalWrench(link, wrench, simulation.model))

    def on_trajectory(self, data):
        """
        Hand a serialized trajectory to the reader thread.

        Deserializing a 10,000-point JointTrajectory takes about 130 ms
        with the GIL held: done here, on the executor thread, it would hold
        up parameter and ~/reset services.  The reader reads the bytes
        straight into arrays where it can (``trajectory_cdr``, a few ms),
        and takes the newest only: one superseded before it was read is
        skipped, as the newer trajectory would replace it anyway.
        """
        with self.trajectory_ready:
            self.trajectory_data = data
            self.trajectory_ready.notify()

    def read_trajectories(self):
        """Read the trajectories on_trajectory hands over (reader thread)."""
        while True:
            with self.trajectory_ready:
                while self.trajectory_data is None:
                    if self.stopping.is_set():
                        return
                    self.trajectory_ready.wait(0.1)
                data, self.trajectory_data = self.trajectory_data, None
            try:
                self.queue_trajectory(read_trajectory(data) or
                                      message_trajectory(deserialize_message(
                                          data, JointTrajectory)))
            except BadInput as error:
                self.warnings.ignored(TRAJECTORY_TOPIC, str(error))
            except Exception as error:  # noqa: B902 (undecodable bytes)
                self.warnings.ignored(TRAJECTORY_TOPIC, bounded(
                    'cannot read it: %s' % error))

    def queue_trajectory(self, arrays):
        """Queue a trajectory (TrajectoryArrays) to follow (else BadInput)."""
        simulation = self.simulation
        if simulation is None:
            raise BadInput(NO_MODEL)
        model = simulation.simulator.model
        refuse_mimic_joints(arrays.joint_names, model.mimic,
                            'JointTrajectory')
        trajectory = trajectory_arrays(arrays, model.joint_names,
                                       simulation.simulator.t)
        efforts = trajectory_efforts(arrays, model.joint_names)
        self.pending.append(FollowTrajectory(trajectory, efforts,
                                             simulation.model))

    def on_reset(self, request, response):
        """Reset to the initial state once the loop has applied it."""
        if self.simulation is None:
            response.success = False
            response.message = NO_MODEL
            return response
        done = threading.Event()
        self.pending.append(Reset(done))
        response.success = done.wait(10.0)
        response.message = 'reset to the initial state' if response.success \
            else 'the simulation loop did not answer'
        return response

    # -- simulation thread --------------------------------------------------

    def advance(self):
        """Apply queued inputs, take one step, publish what is due."""
        pending = self.pending
        while pending:
            # Any input ends the wait after a divergence.
            self.halted = False
            pending.popleft().apply(self)
        simulation = self.simulation
        simulator, commands = simulation.simulator, simulation.commands
        hold = commands.hold()
        if hold is not None:   # the hold's effort computed in the step
            simulator.hold_step(*hold, commands.damping)
        else:
            effort = commands(simulator.t, simulator.q, simulator.qd,
                              simulator.dt)
            simulator.step(effort, commands.damping)
        self.publish(simulation)

    def publish(self, simulation, every_step=False):
        """Publish /clock, and joint_states when due (or ``every_step``)."""
        simulator = simulation.simulator
        # Serialized messages where their layout is known, else messages.
        nanoseconds = int(round(simulator.t * 1e9))   # as time_message
        if self.settings['publish_clock']:
            if self.serialized_clock is not None:
                self.clock_publisher.publish(
                    self.serialized_clock.serialized(nanoseconds))
            else:
                self.clock_message.clock = time_message(simulator.t)
                self.clock_publisher.publish(self.clock_message)
        if not every_step and simulator.steps % simulation.publish_every:
            return
        values = simulation.published_values()
        serialized = simulation.serialized_state
        if serialized is not None:
            self.state_publisher.publish(serialized.serialized(nanoseconds,
                                                               values))
        else:
            # One message per model, refilled each time (publish copies it
            # out); arrays of doubles skip the per-element checks.
            msg = simulation.state_message
            msg.header.stamp = time_message(simulator.t)
            msg.position, msg.velocity, msg.effort = (
                doubles(value) for value in values)
            self.state_publisher.publish(msg)
        flexible = simulation.flexible_message
        if flexible is not None:
            _, position, velocity = simulator.flexible_state()
            flexible.header.stamp = time_message(simulator.t)
            flexible.position = doubles(position)
            flexible.velocity = doubles(velocity)
            self.flexible_publisher.publish(flexible)
        motors = simulation.motor_message
        if motors is not None:
            motors.header.stamp = time_message(simulator.t)
            motors.effort = doubles(simulator.current[simulation.index])
            self.motor_publisher.publish(motors)

    def diverged(self, error):
        """
        Reset after a divergence, say so once, and wait for an input.

        Stepping on would diverge again at once (a NaN damping, a gravity
        of 1e308): the loop takes no step until a command, a trajectory, a
        new model, a parameter set or ~/reset arrives.  The first
        divergence of a simulation is an error; repeats (each new command
        into the same broken model) are throttled warnings.
        """
        simulation = self.simulation
        text = bounded('%s; reset to the initial state, waiting for a new '
                       'command, model or ~/reset before stepping again'
                       % error)
        if simulation.diverged:
            self.divergence_warnings.warn('diverged', 'again: ' + text)
        else:
            simulation.diverged = True
            self.get_logger().error(text)
        simulation.simulator.reset(keep_time=True)
        simulation.commands.reset()
        self.halted = True
        try:
            self.publish(simulation, every_step=True)   # the reset state
        except Exception:  # noqa: B902 (shutting down: publishers gone)
            pass

    def loop(self):
        """Step until the node stops, paced by ``real_time_factor``."""
        reference = None
        paced = None
        count = 0
        while not self.stopping.is_set():
            # context.ok() costs about 1 us, a few % of a step: ask it every
            # CONTEXT_CHECK_EVERY steps (a shut-down context also makes the
            # next publish fail, which ends the loop below).
            count += 1
            if count % CONTEXT_CHECK_EVERY == 0 and not self.context.ok():
                return
            if self.simulation is None or self.halted and not self.pending:
                self.stopping.wait(0.05)
                reference = None
                continue
            try:
                self.advance()
            except (ArithmeticError, np.linalg.LinAlgError) as error:
                # FloatingPointError (non-finite state) and its kin from
                # inside the dynamics of a broken model.
                self.diverged(error)
                continue
            except Exception:
                if self.stopping.is_set() or not self.context.ok():
                    return  # shutting down: the publishers went away
                self.warnings.warn('loop', 'simulation step failed: %s'
                                   % traceback.format_exc())
                self.stopping.wait(0.01)
                continue
            if self.started is None:   # after the first step: compiled
                self.started = (time.perf_counter(),
                                self.simulation.simulator.t)
            factor = self.settings['real_time_factor']
            if factor != paced:   # a new factor: pace from here
                paced, reference = factor, None
            if factor > 0.0:
                reference = self.pace(factor, reference)

    def pace(self, factor, reference):
        """Sleep to keep simulated time at ``factor`` x wall time."""
        now = time.perf_counter()
        simulated = self.simulation.simulator.t
        if reference is None or simulated < reference[1]:
            return now, simulated
        ahead = reference[0] + (simulated - reference[1]) / factor - now
        if ahead > SLEEP_THRESHOLD:
            self.stopping.wait(ahead)
        elif ahead < -LAG_LIMIT:
            self.warnings.warn(
                'lag', 'simulation cannot keep up with real_time_factor %g '
                '(integration rate %g Hz)' % (factor, self.settings['rate']))
            return now, simulated
        return reference

    def destroy_node(self):
        """Stop the simulation thread, then the node."""
        stopping = getattr(self, 'stopping', None)
        if stopping is not None:
            stopping.set()
            for thread in ('thread', 'reader'):
                if hasattr(self, thread):
                    getattr(self, thread).join(5.0)
            self.log_real_time_factor()
        return super().destroy_node()

    def log_real_time_factor(self):
        """Log how fast the simulation ran, from its first step to now."""
        # getattr: a node whose start failed has no run to speak of.
        if getattr(self, 'started', None) is None or self.simulation is None:
            return
        wall = time.perf_counter() - self.started[0]
        simulated = self.simulation.simulator.t - self.started[1]
        self.get_logger().info(
            'simulated %.3f s in %.3f s of wall time: real-time factor %.3f'
            % (simulated, wall, simulated / max(wall, 1e-9)))


main = entry_point(SimulatorNode)

if __name__ == '__main__':
    raise SystemExit(main())
