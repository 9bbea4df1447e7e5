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

A controller written for Gazebo + ros2_control drives it unchanged: it
takes effort, position, velocity and trajectory commands
(``inputs``), steps the ROS-free ``dynamics_ros.sim.Simulator``
in a thread of its own and publishes ``joint_states`` and ``/clock``
(``loop``); what runs is a ``state.Simulation``.
Setting ``payload.*`` picks a payload up (or puts it down) at run time
without restarting the run (``payload``); flexible links and
motors come from their files (``plants``).
Topics, parameters (``simulator/parameters.py``) and behaviour:
doc/nodes/simulator_node.md and doc/theory/simulator.md.
"""

from collections import deque
import threading
import warnings

from geometry_msgs.msg import WrenchStamped
import numpy as np
from rclpy.exceptions import ParameterUninitializedException
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory

from .inputs import COMMAND_TOPICS, SimulatorInputs, TRAJECTORY_TOPIC, VOLTAGE_TOPIC, WRENCH_TOPIC
from .lockstep import SimulatorLockstep
from .loop import SimulatorLoop
from .parameters import PARAMETERS, PID_TERMS, SIMULATION
from .payload import SimulatorPayload
from .plants import read_actuators, SimulatorPlants
from .state import NewSimulation, published_joints, Rebuilt, Simulation
from ..shared.conversions import joint_state_message
from ..shared.entry_point import entry_point
from ..shared.friction_input import load_friction
from ..shared.model_source import ModelSource
from ..shared.parameters import AcceptedSet, per_joint_values, set_result
from ..shared.qos import COMMAND_QOS, PUBLISH_QOS
from ..shared.serialized_message import serialized_clock, serialized_joint_state
from ..shared.throttled_warnings import node_warnings, ThrottledWarnings
from ...flexible.config import read_config
from ...reasons import cut, quote
from ...sim.controllers import default_gains, hold_still, JointCommands, PidGains
from ...sim.simulator import checked_initial_positions, Simulator
from ...streams.command_timeout import CommandTimeout

# The parameters kept in ``settings`` (the others are read when used).
SETTINGS = ('rate', 'integrator', 'real_time_factor', 'publish_rate',
            'publish_clock', 'clock_rate', 'pid_bandwidth', 'flexible_config',
            'actuator_config', 'command_timeout', 'friction_file',
            'hold_mode', 'lockstep_timeout', 'lockstep_on_timeout')


def steps_apart(rate, step_rate):
    """Return the steps between two messages at ``rate`` Hz (0: every)."""
    return 1 if rate <= 0.0 else max(1, int(round(step_rate / rate)))


class SimulatorNode(SimulatorInputs, SimulatorLoop, SimulatorLockstep,
                    SimulatorPayload, SimulatorPlants, Node):
    """Simulate the model and speak ros2_control's joint topics."""

    def __init__(self, **kwargs):
        """Declare parameters, topics, the reset service and the model."""
        super().__init__('simulator_node', **kwargs)
        self.settings = self.read_parameters()
        # When the effort, velocity or voltage command in force goes stale.
        self.command_timeout = CommandTimeout(
            self.settings['command_timeout'])
        self.timed_command = None
        self.warnings = node_warnings(self)
        self.divergence_warnings = ThrottledWarnings(self.get_logger(), 10.0)
        self.pending = deque()
        self.simulation = None
        self.joint_names = None
        self.mimic = {}
        self.model_error = None
        # After a divergence: reset, and no step until an input arrives.
        self.halted = False
        self.reset_time = None   # simulated time of the last ~/reset
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
        self.accepted = AcceptedSet()   # what validate_parameters accepted
        self.add_on_set_parameters_callback(self.validate_parameters)
        self.add_post_set_parameters_callback(self.apply_parameters)
        self.started = None   # (wall, simulated) time after the first step
        self.start_lockstep()
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()
        self.reader = threading.Thread(target=self.read_trajectories,
                                       daemon=True)
        self.reader.start()

    # -- parameters -------------------------------------------------------

    def optional(self, name):
        """Return the value of a parameter that may be unset, else None."""
        try:
            return self.get_parameter(name).value
        except ParameterUninitializedException:
            return None

    def read_parameters(self):
        """Declare and check the simulator's own parameters."""
        PARAMETERS.declare(self)
        PARAMETERS.refuse_at_start(self)
        settings = {name: self.get_parameter(name).value
                    for name in SETTINGS}
        self.flexible_declaration = None
        if settings['flexible_config']:
            # Read now, once, so that a missing or broken file stops the
            # start even before a model arrives; checked against each model
            # later (the file is not read again).
            try:
                self.flexible_declaration = read_config(
                    settings['flexible_config'])[0]
            except ValueError as error:
                raise ValueError('flexible_config %s: %s' % (
                    quote(settings['flexible_config']), error))
        self.actuators = None
        if settings['actuator_config']:
            self.actuators = read_actuators(settings)
        return settings

    def validate_parameters(self, parameters):
        """
        Accept a set of the simulator's parameters only if it can apply.

        Every value is checked against the table, and with a model the
        simulation it would give is built; a refusal quotes the value and
        says why.  Model parameters are ModelSource's to check.
        """
        reason = self.payload_reason(parameters)
        if reason is not None:
            return set_result(reason)
        own = PARAMETERS.own(parameters)
        if not own:
            return set_result(None)
        model, joint_names = self.source.model, self.source.joint_names
        reason = PARAMETERS.reason(own, model)
        if reason is not None:
            return set_result(reason)
        settings = dict(self.settings)
        settings.update({name: value for name, value in own.items()
                         if name in settings})
        rebuild = model is not None and \
            SIMULATION in PARAMETERS.rebuilds(own)
        if rebuild:
            try:
                self.build_simulation(model, joint_names, settings, own)
            except ValueError as error:
                return set_result(str(error))
        # With model parameters in the same set, ModelSource queues the new
        # model too, before or after this rebuild of the model it has then:
        # the loop applies a rebuild only to the model it was built for, so
        # the new model ends up running with the new settings either way.
        return self.accepted.accept((settings, rebuild))

    def apply_parameters(self, parameters):
        """Make the set ``validate_parameters`` accepted take effect."""
        accepted = self.accepted.take()
        if accepted is None:
            return
        settings, rebuild = accepted
        self.settings = settings
        # From the next command on.
        self.command_timeout.timeout = float(settings['command_timeout'])
        if self.lockstep is not None:   # from the next wait on
            self.lockstep.timeout = float(settings['lockstep_timeout'])
            self.lockstep.on_timeout = settings['lockstep_on_timeout']
        if rebuild and self.source.model is not None:
            try:
                simulation = self.build_simulation(
                    self.source.model, self.source.joint_names)
            except ValueError as error:   # checked just before: a bug
                self.get_logger().error(cut(
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
        if values is None or np.size(values) == 0:
            return None
        n = index.size
        if name == 'initial_positions':
            values = np.asarray(values, dtype=float)
            if values.size != n:
                raise ValueError('%s has %d values for %d joints' % (
                    name, values.size, n))
            ordered = np.empty(n)
            ordered[index] = values
            return ordered
        try:
            return per_joint_values(values, n, index)
        except ValueError as error:
            raise ValueError('%s has %s' % (name, error))

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
        # A payload picked up or put down: the run goes on (same gains).
        gains = self.carried_gains(model, joint_names)
        try:
            simulation = self.build_simulation(model, joint_names,
                                               gains=gains)
        except ValueError as error:
            self.model_error = cut('cannot simulate model %r: %s' % (
                model.name, error))
            self.get_logger().error(self.model_error)
            return
        self.model_error = None
        self.joint_names = list(joint_names)
        self.mimic = dict(model.mimic)
        # Not running yet: set up here, before the loop can step it.
        self.hold_initial_pose(simulation)
        if self.simulation is None:
            self.simulation = simulation
        elif gains is not None:
            self.go_on_with(simulation)
        else:
            self.pending.append(NewSimulation(simulation))

    def hold_initial_pose(self, simulation):
        """
        Hold the simulation's pose (``hold_mode``) until a command comes.

        At start, for a new model and after ~/reset: so that no launch
        starts with the arm falling while the controllers come up.
        """
        mode = self.settings['hold_mode']
        simulator = simulation.simulator
        try:
            hold_still(simulation.commands, simulation.model,
                       simulator.q.copy(), mode)
        except (ArithmeticError, ValueError,
                np.linalg.LinAlgError) as error:
            self.warnings.warn('hold', cut('cannot hold the pose (hold_mode '
                                           '%s): %s' % (mode, error)))
            return
        self.get_logger().info(
            'holding the pose at t = %.6f s until the first command '
            '(hold_mode %s)' % (simulator.t, mode))

    def loaded_details(self):
        """Return this node's items of the model line (ModelSource)."""
        settings = self.settings
        details = [('integrator', '%s at %g Hz, real_time_factor %g' % (
            settings['integrator'], settings['rate'],
            settings['real_time_factor'])),
            ('hold_mode', settings['hold_mode'])]
        for name in ('flexible_config', 'actuator_config'):
            if settings[name]:
                details.append((name, quote(settings[name])))
        return details

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
        self.warnings.warn('initial_positions', cut(
            'initial_positions do not fit model %r (%s): starting from the '
            'default positions' % (model.name, reason)))
        return None

    def build_simulation(self, model, joint_names, settings=None,
                         overrides=None, gains=None):
        """
        Return the simulator, its commands and the joint order.

        ``settings`` (default: the node's) and ``overrides`` {parameter:
        value} give values of a set being validated; ``gains`` (position,
        velocity PidGains, model order) replace the parameters' and the
        automatic ones.
        """
        settings = self.settings if settings is None else settings
        index = np.array([model.joint_index(name) for name in joint_names],
                         dtype=int)
        q0 = self.initial_positions(model, index, overrides)
        start = 0.0 if self.simulation is None else \
            self.simulation.simulator.t
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            plant = self.flexible_model(model, overrides) \
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
            if gains is None:
                gains = [self.gains(prefix, default, index, overrides)
                         for prefix, default in zip(('pos', 'vel'),
                                                    automatic)]
            commands = JointCommands(model, *gains)
            # The PIDs' dampers too stiff for the step go implicit; what
            # stays explicit and is still too stiff is warned about.
            simulator.hand_over(commands)
        if overrides is None:   # only for the simulation that will run
            simulator.set_joint_friction(load_friction(
                self.get_logger(), settings['friction_file'], model))
            for warning in caught:
                self.get_logger().warning(cut(str(warning.message)))
        flexible = simulator.flexible_state()
        published, full_index = published_joints(model, joint_names)
        return Simulation(
            simulator=simulator, commands=commands, model=model,
            index=index, joint_names=list(joint_names),
            full_index=full_index,
            model_order=bool(np.array_equal(full_index,
                                            np.arange(full_index.size))),
            publish_every=steps_apart(settings['publish_rate'],
                                      settings['rate']),
            clock_every=steps_apart(settings['clock_rate'], settings['rate']),
            state_message=joint_state_message(published),
            serialized_state=serialized_joint_state(published),
            flexible_message=None if flexible is None else
            joint_state_message(flexible[0]),
            motor_message=None if simulator.motors is None else
            joint_state_message(joint_names))

    # -- inputs (executor thread: queue only) -------------------------------

    def destroy_node(self):
        """Stop the simulation thread, then the node."""
        stopping = getattr(self, 'stopping', None)
        if stopping is not None:
            stopping.set()
            if getattr(self, 'lockstep', None) is not None:
                self.lockstep.destroy()   # wakes a wait for answers
            for thread in ('thread', 'reader'):
                if hasattr(self, thread):
                    getattr(self, thread).join(5.0)
            self.log_real_time_factor()
        return super().destroy_node()


main = entry_point(SimulatorNode)

if __name__ == '__main__':
    raise SystemExit(main())
