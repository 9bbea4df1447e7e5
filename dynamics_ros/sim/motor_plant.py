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
The plant of a RobotModel driven by geared DC motors (Freeman 1985).

``Simulator(model, actuators=motors)`` (model.actuators.DCMotors) steps
this plant: the arm with its rotors reflected to the joints
(``dynamics.actuated.reflected_model``: the simulator's ``model`` is that
arm, ``arm_model`` the one given), and the winding currents a state
beside (q, qd), kept here with the voltages.  The joint torque is
n k_t i; efforts reach the motors through an ideal voltage drive, or
voltages are given directly (sim/actuated.py: the drive law, the
integration of the currents).  With ``rk4`` or ``semi_implicit_euler``
the smooth part of a step runs compiled (compiled_step.CompiledMotorStep,
kernel dynamics_ros.fast.motor_step: the same numbers), but for the steps
with joint friction set or an external wrench.
"""

import numpy as np

from .actuated import (clip_voltage, CurrentOverStep, drive_voltage,
                       motor_rates, resolve_integration)
from .compiled_step import motor_compiled_step
from .joint_effects import saturate_effort
from .plants import RigidPlant
from .. import fast
from ..dynamics.actuated import reflected_model, winding_rate
from ..errors import ModelError
from ..flexible.model import FlexibleModel


class MotorDrivenPlant(RigidPlant):
    """
    A RobotModel driven by geared DC motors (sim/actuated.py).

    ``model`` is the arm with its rotors reflected, ``arm_model`` the one
    given.  The motors' state is kept here and read on the simulator
    under the same names: ``current`` (the winding currents, A, zero at
    the start), ``voltage`` (set by ``Simulator.set_voltage``; None: the
    drive law turns each step's effort into voltages) and
    ``applied_voltage`` (those of the last step).  With a fixed-step
    integrator and the compiled path on, the smooth part of the step runs
    compiled (compiled_step.CompiledMotorStep, fast/motor_step.py: the
    same numbers), except on the steps with joint friction set on the
    simulator or an external wrench.  The drive law runs in the kernel for
    a held effort; for a control law (sampled at the step's start) or with
    a controller damper it runs here, and the kernel takes the voltages.
    """

    def __init__(self, model, motors, integration, dt, limit):
        """Take the motors; ``integration``: sim/actuated.py's choice."""
        if isinstance(model, FlexibleModel):
            raise ModelError('actuators take a RobotModel; %r is a flexible '
                             'model' % model.model.name)
        super().__init__(reflected_model(model, motors))  # checks the joints
        self.arm_model = model
        self.motors = motors
        self.integration = resolve_integration(integration, motors, dt,
                                               limit)
        self.gain = motors.gear_ratio * motors.torque_constant
        self.reset()

    def reset(self):
        """Start again: no voltage set, the currents at zero."""
        self.voltage = None
        self.current = np.zeros(self.model.nq)
        self.applied_voltage = np.zeros(self.model.nq)

    def actuated_state(self, q, qd):
        """Return x = [q; qd; i] at the joint state (q, qd)."""
        return np.concatenate((q, qd, self.current))

    def compiled_stepper(self, simulator):
        """Return the compiled motor step, or None."""
        return motor_compiled_step(simulator)

    def voltages(self, voltage):
        """Return checked voltages, clipped to the limits (ValueError)."""
        values = np.array(voltage, dtype=float).reshape(-1)
        # Each value checked (not their sum: 1e308 V is finite, if absurd,
        # and is clipped or diverges like any other input).
        if values.size != self.model.nq or not np.all(np.isfinite(values)):
            raise ValueError('voltage must be %d finite values, got %s'
                             % (self.model.nq, values))
        return clip_voltage(self.motors, values)

    def drive_step(self, simulator, effort, damping):
        """
        Take a step of the motors, at the voltages set or by the drive law.

        The drive (sim/actuated.py) turns the saturated effort at the
        step's start, plus a controller damper ``damping`` held over the
        step (the motors' torque lags: nothing is integrated implicitly),
        into the voltages that give it in the steady state.  A held effort
        without a damper goes to the compiled step as it is (the drive law
        is in the kernel).
        """
        voltage = self.voltage
        compiled = True
        if voltage is None:
            if damping is None and not callable(effort):
                effort = simulator.held_effort(effort)
                if self.compiled_step(simulator, effort, True):
                    return
                # Refused or not taken: the voltage step would be too.
                compiled = False
            tau = simulator.effort_source(effort)(simulator.t, simulator.q,
                                                  simulator.qd)
            if damping is not None:
                gains, reference = simulator.controller_damping(damping)
                tau = saturate_effort(self.model, tau + gains * (
                    reference - simulator.qd))
            voltage = drive_voltage(self.motors, tau, simulator.qd)
        self.motor_step(simulator, voltage, compiled)

    def compiled_step(self, simulator, effort_or_voltage, drive):
        """
        Take the step with the compiled kernel; False: take it in Python.

        ``drive``: ``effort_or_voltage`` is the held effort (a float
        vector), else the voltages.  The steps where impulses act or the
        damping is stiff are finished by the Python step's code
        (``finish_step``); those the kernel refuses (a bad effort, a state
        that diverged) are taken again in Python, which says what is
        wrong.
        """
        s = simulator
        if s.compiled is None or not fast.ENABLED or \
                s.external_wrench is not None or \
                s.joint_friction is not None:
            return False
        t = s.t
        result = s.compiled(s.z, s.zd, self.current, effort_or_voltage,
                            drive, t, s.dt)
        if result is None:   # the kernel failed to load: Python from now
            s.compiled = None
            return False
        status, voltage, z, zd, end_current, applied = result
        kernel = s.compiled.kernel
        if status == kernel.DONE and not s.implicit:
            s.finish(t, z, zd, finite=True)
            self.current = end_current
            self.applied_voltage = voltage
            s.applied_effort = applied
            return True
        if status in (kernel.DONE, kernel.CONSTRAIN):
            self.finish_step(s, voltage, z, zd, end_current)
            return True
        return False

    def motor_step(self, simulator, voltage, compiled=True):
        """
        Advance (q, qd, current) by one step at ``voltage`` (held over it).

        The mechanical integrator sees the joint torque n k_t i at each
        stage, with the current exact over the step ('exponential') or
        integrated with it ('coupled'): sim/actuated.py.  ``compiled``:
        False when the compiled step was already tried for this step.
        """
        if compiled and self.compiled_step(simulator, voltage, False):
            return
        s = simulator
        motors, gain = self.motors, self.gain
        push = None if s.external_wrench is None else s.external_torques()
        friction = s.joint_friction
        t, n, dt = s.t, s.nq, s.dt

        def torque(effort, zd):
            if push is not None:
                effort = effort + push
            if friction is not None:
                effort = effort - friction.torque(zd, offset=False)
            return effort

        if self.integration == 'exponential':
            qd = s.qd
            held = CurrentOverStep(motors, self.current, voltage, qd, 0.0, dt)
            slope = s.acceleration(s.z, s.zd, torque(gain * held.mean,
                                                     qd))[:n]
            current = CurrentOverStep(motors, self.current, voltage, qd,
                                      slope, dt)

            def acceleration(time, z, zd):
                return s.acceleration(
                    z, zd, torque(gain * current.smooth(time - t), zd[:n]))

            z, zd = s.integrate(acceleration, t, s.z, s.zd, dt)
            end_current = current(dt)
        else:
            # The current is the rate of the charge through the winding:
            # a coordinate like the others for every integrator.
            def acceleration(time, z, zd):
                rates = zd[:n]
                return np.concatenate((
                    s.acceleration(z[:n], rates,
                                   torque(gain * zd[n:], rates)),
                    winding_rate(motors, zd[n:], voltage, rates)))

            z, zd = s.integrate(
                acceleration, t, np.concatenate((s.z, np.zeros(n))),
                np.concatenate((s.zd, self.current)), dt)
            z, zd, end_current = z[:n], zd[:n], zd[n:]
        self.finish_step(s, voltage, z, zd, end_current)

    def finish_step(self, simulator, voltage, z, zd, end_current):
        """
        End a step integrated to (z, zd, end_current) at ``voltage``.

        The joint effects (implicit damping, friction and limit impulses)
        and the currents of the joints they stopped; then the new state.
        """
        s = simulator
        n = s.nq
        if not np.isfinite(end_current.sum()):
            raise FloatingPointError(
                'simulation of %r diverged at t = %g s (currents %s)'
                % (self.model.name, s.t, end_current))
        moving = zd[:n] != 0.0
        z, zd = s.constrain(s.z, s.zd, z, zd)
        # A joint the impulses stopped (a limit, static friction) did not
        # turn as the integrator had it: its winding saw the speed go from
        # the step's start to zero, not the back EMF of the free motion
        # (else a motor stalled on a stop would not reach V / R).
        stopped = moving & (zd[:n] == 0.0)
        if stopped.any():
            realized = CurrentOverStep(self.motors, self.current, voltage,
                                       s.qd, -s.qd / s.dt, s.dt)
            end_current = np.where(stopped, realized(s.dt), end_current)
        s.finish(s.t, z, zd)
        self.current = end_current
        self.applied_voltage = voltage
        s.applied_effort = self.gain * end_current

    def rates(self, inverse_inertia, dt, stability_limit):
        """Return {term: (dt * rate, joint index)} of the motors' terms."""
        return motor_rates(self.motors, inverse_inertia, dt,
                           self.integration, stability_limit)
