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
simulator_node's simulation thread: step, publish, pace, recover.

``loop`` steps until the node stops, applying the queued inputs between
two steps (``advance``), publishing ``/clock`` (every step, or at
``clock_rate`` and with each state) and ``joint_states`` (and
``flexible_state``, ``motor_currents``) when due as
serialized messages whose stamp and numbers are rewritten in place, and
pacing simulated time to ``real_time_factor`` x the wall clock.  After a
divergence it resets once and waits for an input (``diverged``).
"""

import time
import traceback

import numpy as np

from ..shared.conversions import time_message
from ..shared.serialized_message import doubles
from ...dynamics.bias import gravity_torques
from ...reasons import cut

# Pacing: sleep only when ahead of the wall clock by more than this, and
# stop trying to catch up when behind by more than LAG_LIMIT.
SLEEP_THRESHOLD = 0.002
LAG_LIMIT = 0.25
CONTEXT_CHECK_EVERY = 64


class SimulatorLoop:
    """The simulation thread of SimulatorNode (a mixin)."""

    def advance(self):
        """
        Apply queued inputs, take one step, publish what is due.

        In lockstep the answers to the state last published come first
        (``SimulatorLockstep.lockstep_answers``), then the inputs that
        arrived meanwhile, in their order, and those scheduled for now.
        """
        if self.lockstep is not None:
            self.lockstep_answers()
        pending = self.pending
        while pending:
            # Any input ends the wait after a divergence.
            self.halted = False
            pending.popleft().apply(self)
        if self.scheduled:
            self.apply_scheduled()
        simulation = self.simulation
        simulator, commands = simulation.simulator, simulation.commands
        deadline = self.command_timeout.deadline
        if deadline is not None and simulator.t >= deadline:
            self.time_out(simulation)
        hold = commands.hold()
        if hold is not None:   # the hold's effort computed in the step
            simulator.hold_step(*hold, commands.damping)
        else:
            effort = commands(simulator.t, simulator.q, simulator.qd,
                              simulator.dt)
            simulator.step(effort, commands.damping)
        self.publish(simulation)

    def time_out(self, simulation):
        """
        Fall back from a stale command to holding the current pose.

        The position PID holds the pose where the timeout struck, with the
        gravity torques of the simulator's own model there as feed-forward
        (JointCommands.hold_pose): what stops the arm swinging on a dead
        controller's last torque, without the sag of a PID alone.
        """
        self.command_timeout.cancel()
        simulator = simulation.simulator
        pose = simulator.q.copy()
        simulator.voltage = None   # motors: the drive law again
        simulation.commands.hold_pose(pose, gravity_torques(
            simulation.model, pose))
        self.warnings.warn('command timeout', (
            '%s command timed out (none for command_timeout %g s of '
            'simulated time): holding the pose at t = %.6f s with the '
            'position PID and gravity compensation until the next command'
            % (self.timed_command, self.command_timeout.timeout,
               simulator.t)))

    def publish(self, simulation, every_step=False):
        """Publish /clock and joint_states when due (or ``every_step``)."""
        simulator = simulation.simulator
        # Serialized messages where their layout is known, else messages.
        nanoseconds = int(round(simulator.t * 1e9))   # as time_message
        steps = simulator.steps
        state_due = every_step or not steps % simulation.publish_every
        # A state's /clock goes first: a node on use_sim_time reads its
        # stamp as now, not ahead of its clock.
        if self.settings['publish_clock'] and (
                state_due or not steps % simulation.clock_every):
            if self.serialized_clock is not None:
                self.clock_publisher.publish(
                    self.serialized_clock.serialized(nanoseconds))
            else:
                self.clock_message.clock = time_message(simulator.t)
                self.clock_publisher.publish(self.clock_message)
        if not state_due:
            return
        if self.lockstep is not None:   # the peers answer this state
            self.awaited = nanoseconds
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
        text = cut('%s; reset to the initial state, waiting for a new '
                   'command, model or ~/reset before stepping again' % error)
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
            factor = self.lockstep_factor(self.settings['real_time_factor'])
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
