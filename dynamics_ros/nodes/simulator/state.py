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
What simulator_node runs, and the inputs its loop applies between steps.

``Simulation`` is one simulated model with its commands and how its
``joint_states`` are laid out; a new model or a parameter set builds a new
one.  Message callbacks never touch it: they queue an input item
(``Command``, ``VoltageCommand``, ``FollowTrajectory``, ``ExternalWrench``,
``NewSimulation``, ``NewInertias``, ``Rebuilt``, ``Reset``) and the
simulation thread
applies each between two steps (``item.apply(node)``), so a step never
sees half an update.
"""

from dataclasses import dataclass
import threading

import numpy as np

from ...model.payload import only_inertias_differ
from ...sim.controllers import JointCommands
from ...sim.simulator import Simulator


@dataclass(eq=False, slots=True)
class Simulation:
    """
    A simulator, its commands and the layout of what it publishes.

    ``index[k]``: the model coordinate of the k-th joint of ``joint_names``
    (``joints`` order of the commands); ``full_index[k]``: the position of
    the k-th published name in ``model.full_joint_names``;
    ``model_order``: the published names are that order itself (no
    reordering per message).  ``serialized_state`` is None when the
    JointState layout was not recognised (``state_message`` is then filled
    and published instead).
    """

    simulator: Simulator
    commands: JointCommands
    model: object
    index: np.ndarray
    joint_names: list
    full_index: np.ndarray
    model_order: bool
    publish_every: int
    state_message: object
    serialized_state: object
    flexible_message: object = None
    motor_message: object = None   # motor_currents, with actuators
    clock_every: int = 1   # steps between two /clock messages
    diverged: bool = False
    # The published values are the simulator's state arrays themselves: a
    # RobotModel (no mimic joints, no modes) published in model order.
    direct: bool = False

    def __post_init__(self):
        """Note whether the state arrays can be published as they are."""
        simulator = self.simulator
        self.direct = bool(self.model_order and not getattr(
            simulator.model, 'mimic', None)
            and simulator.z.size == simulator.zd.size == simulator.nq)

    def carry_over(self, old):
        """
        Continue ``old``'s run here (this simulation rebuilt from it).

        The state, the time and the command go on; the PIDs restart (their
        gains may have changed).  The initial state for ~/reset is the new
        one.
        """
        before, after = old.simulator, self.simulator
        after.z, after.zd = before.z.copy(), before.zd.copy()
        after.start_time, after.steps = before.t, 0
        after.applied_effort = before.applied_effort.copy()
        after.external_wrench = before.external_wrench
        if after.motors is not None and before.motors is not None:
            after.current = before.current.copy()
            after.voltage = before.voltage
        self.commands.mode = old.commands.mode
        self.commands.target = old.commands.target
        self.commands.followed = old.commands.followed
        self.commands.hold_effort = old.commands.hold_effort

    def take_over(self, old):
        """
        Continue ``old``'s run with its controllers' history too.

        For a rebuild with the same gains (new inertias only): as
        ``carry_over``, and the PIDs go on where they were (integral,
        last error), so picking up a payload gives the controllers no jump.
        """
        self.carry_over(old)
        for loop in ('position_pid', 'velocity_pid'):
            before = getattr(old.commands, loop)
            after = getattr(self.commands, loop)
            after.integral = before.integral.copy()
            after.last_error = before.last_error

    def published_values(self):
        """Return (positions, velocities, efforts) in published order."""
        simulator = self.simulator
        if self.direct:   # every step at 1 kHz: no slicing, no mapping
            return simulator.z, simulator.zd, simulator.applied_effort
        values = simulator.full_state()
        if self.model_order:
            return values
        index = self.full_index
        return tuple(value[index] for value in values)


def published_joints(model, joint_names):
    """
    Return the names ``joint_states`` carries and their full-vector index.

    The names are ``joint_names`` (the independent joints, ``joints``
    order), then the model's mimic joints in model order; ``index[k]`` is
    the position of the k-th name in ``model.full_joint_names``, the order
    of ``Simulator.full_state``.
    """
    full = list(model.full_joint_names)
    names = list(joint_names) + [name for name in full
                                 if name in model.mimic]
    return names, np.array([full.index(name) for name in names], dtype=int)


# -- inputs: each applied by the simulation thread between two steps -------

@dataclass(frozen=True, slots=True)
class Command:
    """A forward command (effort, position or velocity), ``joints`` order."""

    mode: str
    values: np.ndarray

    def apply(self, node):
        """Make it the command of the running simulation."""
        simulation = node.simulation
        n = simulation.simulator.model.nq
        if self.values.size != n:
            return   # a command for a model that was replaced meanwhile
        ordered = np.empty(n)
        ordered[simulation.index] = self.values
        commands = simulation.commands
        simulation.simulator.voltage = None   # the drive law again
        {'effort': commands.command_effort,
         'position': commands.command_position,
         'velocity': commands.command_velocity}[self.mode](ordered)
        if self.mode == 'position':   # a hold already: no timeout
            node.command_timeout.cancel()
        else:
            node.command_timeout.received(simulation.simulator.t)
            node.timed_command = self.mode


@dataclass(frozen=True, slots=True)
class FollowTrajectory:
    """A trajectory (control.trajectory) with optional efforts to follow."""

    trajectory: object
    efforts: object
    model: object    # the model it was read for

    def apply(self, node):
        """Follow it from the current state, if its model still runs."""
        simulation = node.simulation
        if simulation.model is not self.model:
            return   # read for a model that was replaced meanwhile
        simulator = simulation.simulator
        self.trajectory.initial = (simulator.q.copy(), simulator.qd.copy())
        self.trajectory.received_time = simulator.t
        simulator.voltage = None   # the drive law again
        simulation.commands.follow(self.trajectory, self.efforts)
        node.command_timeout.cancel()   # it ends in a hold of its own


@dataclass(frozen=True, slots=True)
class VoltageCommand:
    """Motor voltages (``voltage_controller/commands``), ``joints`` order."""

    values: np.ndarray

    def apply(self, node):
        """Drive the motors at them until another command of any kind."""
        simulation = node.simulation
        simulator = simulation.simulator
        n = simulator.model.nq
        if simulator.motors is None or self.values.size != n:
            return   # a command for a model that was replaced meanwhile
        ordered = np.empty(n)
        ordered[simulation.index] = self.values
        simulator.set_voltage(ordered)
        # No controller runs meanwhile (no integral winding up); the next
        # command of another kind starts its own afresh.
        simulation.commands.command_effort(np.zeros(n))
        node.command_timeout.received(simulator.t)
        node.timed_command = 'voltage'


@dataclass(frozen=True, slots=True)
class ExternalWrench:
    """A push on a link (``~/external_wrench``): [moment; force] there."""

    link: str
    wrench: np.ndarray
    model: object    # the model it was read for

    def apply(self, node):
        """Push from the next step on (zero: no push), if its model runs."""
        simulation = node.simulation
        if simulation.model is self.model:
            simulation.simulator.set_external_wrench(self.link, self.wrench)


@dataclass(frozen=True, slots=True)
class NewSimulation:
    """The simulation of a new model: it replaces the running one."""

    simulation: Simulation

    def apply(self, node):
        """Run it from now on."""
        node.simulation = self.simulation
        node.command_timeout.cancel()   # no command yet: zero effort


@dataclass(frozen=True, slots=True)
class NewInertias:
    """
    The running model with other body inertias: a payload picked up or put down.

    ``simulation`` was built for the new model with the gains of the one
    running then: the state, time, command and PID history go on in it.
    """

    simulation: Simulation

    def apply(self, node):
        """Go on in it; start it afresh if another robot came meanwhile."""
        if only_inertias_differ(node.simulation.model,
                                self.simulation.model):
            self.simulation.take_over(node.simulation)
        else:
            node.command_timeout.cancel()   # as NewSimulation
        node.simulation = self.simulation


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """The running model's simulation rebuilt with new parameters."""

    simulation: Simulation

    def apply(self, node):
        """Carry the run over into it, unless its model was replaced."""
        if self.simulation.model is node.simulation.model:
            self.simulation.carry_over(node.simulation)
            node.simulation = self.simulation


@dataclass(frozen=True, slots=True)
class Reset:
    """~/reset: initial state held, no push; ``done`` set when applied."""

    done: threading.Event

    def apply(self, node):
        """Reset the simulator and the commands; simulated time runs on."""
        node.simulation.simulator.reset(keep_time=True)
        node.simulation.simulator.set_external_wrench(None)
        # Held there (hold_mode) until the next command, not let fall.
        node.hold_initial_pose(node.simulation)
        node.command_timeout.cancel()
        node.reset_time = node.simulation.simulator.t
        self.done.set()
