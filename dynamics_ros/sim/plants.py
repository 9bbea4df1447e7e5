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
What the simulator integrates: one plant per kind of model.

``Simulator`` (simulator.py) owns the integrator, the clock and the joint
effects (saturation, damping, friction, limits); a plant says what moves:

- ``coordinates``: the names of z (``coordinate_names``), their number
  ``nz``, the joint model whose limits, damping and efforts act on z[:nq]
  (``model``);
- ``acceleration(z, zd, effort)``: the smooth dynamics zdd under a joint
  effort (damping already in it), and ``mass_matrix(z)`` over all of z;
- the state layout: ``start_positions`` (a z from joint positions or a
  whole z), ``full_state`` (every movable joint, for joint_states),
  ``flexible_state``;
- ``compiled_stepper``: the compiled step the simulator tries first
  (compiled_step.py), or None where every step is Python.

Plants: ``RigidPlant`` (a RobotModel), ``MimicPlant`` (a MimicModel, in its
independent coordinates), ``FlexiblePlant`` (a FlexibleModel: joints, then
modal amplitudes) and ``MotorDrivenPlant`` (a RobotModel driven by geared
DC motors: its rotors reflected, the winding currents a state of their
own, its own step in ``drive_step``).  ``plant_for`` picks one.
"""

import numpy as np

from .actuated import (clip_voltage, CurrentOverStep, drive_voltage,
                       motor_rates, resolve_integration)
from .compiled_step import (compiled_step, CoupledForwardDynamics,
                            mimic_compiled_step, motor_compiled_step)
from .joint_effects import saturate_effort, wrap_continuous
from .. import fast
from ..dynamics.aba import forward_dynamics
from ..dynamics.actuated import reflected_model, winding_rate
from ..dynamics.crba import mass_matrix
from ..errors import ModelError
from ..flexible.model import FlexibleModel
from ..model.mimic_model import MimicModel

# A fixed step above this share of the shortest natural period of a flexible
# model damps its flexure away numerically (Mackay 1988, Fig. 3.14: RK4 at
# 1/5 of it); he recommends about 1/50 for accuracy.
FLEXIBLE_STEP_SHARE = 1.0 / 20.0


def checked_vector(value, what, sizes):
    """Return ``value`` as a float vector of one of ``sizes`` (ValueError)."""
    value = np.array(value, dtype=float).reshape(-1)
    # One sum is finite exactly when every term is (inf - inf is nan).
    if value.size not in sizes or not np.isfinite(value.sum()):
        raise ValueError('%s must be %s finite values, got %s' % (
            what, ' or '.join(str(n) for n in sizes), value))
    return value


def default_initial_positions(model):
    """
    Return zero, or the middle of the limits where zero is outside them.

    The rule of joint_state_publisher for joints it has no value for.
    """
    q = np.zeros(model.nq)
    outside = (q < model.lower_limit) | (q > model.upper_limit)
    q[outside] = 0.5 * (model.lower_limit[outside]
                        + model.upper_limit[outside])
    return q


def checked_initial_positions(model, q0):
    """Return ``q0`` as an array after checking its size and the limits."""
    if q0 is None:
        return default_initial_positions(model)
    q0 = np.array(q0, dtype=float).reshape(-1)
    if q0.size != model.nq or not np.all(np.isfinite(q0)):
        raise ValueError('initial positions must be %d finite values (one per '
                         'joint, in the order %s), got %s'
                         % (model.nq, ', '.join(model.joint_names), q0))
    for i, name in enumerate(model.joint_names):
        if not model.lower_limit[i] <= q0[i] <= model.upper_limit[i]:
            raise ValueError(
                'initial position %g of joint %r is outside its limits '
                '[%g, %g]' % (q0[i], name, model.lower_limit[i],
                              model.upper_limit[i]))
    return wrap_continuous(model, q0)


def full_joint_state(model, q, qd, effort):
    """
    Return (positions, velocities, efforts) of every movable joint.

    In ``model.full_joint_names`` order.  A RobotModel's are ``q``, ``qd``
    and ``effort`` themselves.  A MimicModel's mimic joints follow their
    masters (G q + offset, wrapped where the joint is continuous; G qd);
    their effort is 0: the effort applied to an independent coordinate is
    the one commanded for its master, and a mimic joint has no actuator of
    its own (the coupling's internal force is not part of the model).
    """
    if not model.mimic:
        return q, qd, effort
    tree = model.tree
    efforts = np.zeros(tree.nq)
    efforts[model.independent] = effort
    return (wrap_continuous(tree, model.full_positions(q)),
            model.full_velocities(qd), efforts)


class RigidPlant:
    """A RobotModel: z = q, its forward dynamics by ABA."""

    flexible = None   # the FlexibleModel of a flexible plant
    motors = None     # the DCMotors of a motor-driven plant

    def __init__(self, model):
        """Simulate ``model`` as it is."""
        self.model = model
        self.names = model.joint_names   # of z
        self.nz = model.nq

    @property
    def coordinate_names(self):
        """Return the names of z: the joints (of a flexible plant, modes)."""
        return list(self.names)

    def acceleration(self, z, zd, effort):
        """Return zdd under the joint ``effort`` (damping included)."""
        return forward_dynamics(self.model, z, zd, effort)

    def mass_matrix(self, z):
        """Return the inertia matrix over z."""
        return mass_matrix(self.model, z)

    def start_positions(self, q, what):
        """Return z from joint positions (None: the default)."""
        return checked_initial_positions(self.model, q)

    def full_state(self, q, qd, effort):
        """Return (positions, velocities, efforts) of every movable joint."""
        return full_joint_state(self.model, q, qd, effort)

    def flexible_state(self, z, zd):
        """Return the flexible coordinates' state: none."""
        return None

    def step_warnings(self, dt, initial_z):
        """Return warnings on dt beyond the joint terms': none."""
        return []

    def compiled_stepper(self, simulator):
        """Return the compiled step the simulator tries first, or None."""
        return compiled_step(simulator)


class MimicPlant(RigidPlant):
    """
    A MimicModel, simulated in its independent coordinates.

    Its forward dynamics and M are the reduced ones (G^T M_tree G), the
    damping, friction and limits per coordinate those the MimicModel
    derives from its tree, so a mimic joint moves with its master by
    construction and cannot drift from it; ``full_state`` gives every
    movable joint, mimic ones included.  While the compiled path is on, the
    forward dynamics are the compiled step's (``CoupledForwardDynamics``),
    so that the Python step and the compiled one give the same numbers.
    """

    def __init__(self, model):
        """Simulate ``model`` in its independent coordinates."""
        super().__init__(model)
        self.coupled_forward_dynamics = CoupledForwardDynamics(model)

    def acceleration(self, z, zd, effort):
        """Return qdd under the ``effort`` (damping included)."""
        if fast.ENABLED:
            qdd = self.coupled_forward_dynamics(z, zd, effort)
            if qdd is not None:
                return qdd
        return forward_dynamics(self.model, z, zd, effort)

    def compiled_stepper(self, simulator):
        """Return the compiled step of the coupled tree, or None."""
        return mimic_compiled_step(simulator)


class FlexiblePlant(RigidPlant):
    """
    A FlexibleModel (Mackay 1988): z = (joints, modal amplitudes).

    Its forward dynamics carry the modal stiffness and damping; the joint
    effects act on the joints z[:nq] only.
    """

    def __init__(self, flexible):
        """Simulate ``flexible``; ``model`` is its rigid joint model."""
        super().__init__(flexible.model)
        self.flexible = flexible
        self.names = flexible.coordinate_names   # joints, then modes
        self.nz = flexible.nz

    def acceleration(self, z, zd, effort):
        """Return zdd of joints and modes under the joint ``effort``."""
        return self.flexible.forward_dynamics(z, zd, effort)

    def mass_matrix(self, z):
        """Return the inertia matrix over joints and modes."""
        return self.flexible.mass_matrix(z)

    def start_positions(self, q, what):
        """
        Return z from joint positions (None: the default) or a whole z.

        Modes not given start at rest: at the static deflection under
        gravity with the joints held at q.
        """
        n, flexible = self.model.nq, self.flexible
        if q is None or np.size(q) == n:
            z = checked_initial_positions(self.model, q)
            return flexible.join(z, flexible.static_deflection(z))
        z = checked_vector(q, '%s (the joints, or every coordinate)' % what,
                           (n, self.nz))
        z[:n] = checked_initial_positions(self.model, z[:n])
        return z

    def flexible_state(self, z, zd):
        """Return (names, positions, velocities) of the flexible state."""
        return self.flexible.flexible_state(z, zd)

    def step_warnings(self, dt, initial_z):
        """Return the warning if dt is too long for the flexure (Mackay)."""
        periods = self.flexible.natural_periods(initial_z)
        shortest = periods.min() if periods.size else np.inf
        if dt > FLEXIBLE_STEP_SHARE * shortest:
            return [
                'time step %.4g ms is more than 1/%d of the shortest natural '
                'period of flexible model %r (%.4g ms at the initial state): '
                'the integrator will damp the flexure away; use a rate of at '
                'least %.0f Hz (Mackay: about 1/50 of the period)' % (
                    1e3 * dt, round(1.0 / FLEXIBLE_STEP_SHARE),
                    self.model.name, 1e3 * shortest,
                    np.ceil(1.0 / (FLEXIBLE_STEP_SHARE * shortest)))]
        return []

    def compiled_stepper(self, simulator):
        """Return None: every step of a flexible model is Python."""
        return None


class MotorDrivenPlant(RigidPlant):
    """
    A RobotModel driven by geared DC motors (sim/actuated.py).

    ``model`` is the arm with its rotors reflected, ``arm_model`` the one
    given; the winding currents are a state of the simulator beside
    (q, qd), stepped here (``motor_step``).  With a fixed-step integrator
    and the compiled path on, the smooth part of the step runs compiled
    (compiled_step.CompiledMotorStep, fast/motor_step.py: the same
    numbers), except on the steps with joint friction set on the
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
        voltage = simulator.voltage
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
        result = s.compiled(s.z, s.zd, s.current, effort_or_voltage, drive,
                            t, s.dt)
        if result is None:   # the kernel failed to load: Python from now
            s.compiled = None
            return False
        status, voltage, z, zd, end_current, applied = result
        kernel = s.compiled.kernel
        if status == kernel.DONE and not s.implicit:
            s.finish(t, z, zd, finite=True)
            s.current = end_current
            s.applied_voltage = voltage
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
            held = CurrentOverStep(motors, s.current, voltage, qd, 0.0, dt)
            slope = s.acceleration(s.z, s.zd, torque(gain * held.mean,
                                                     qd))[:n]
            current = CurrentOverStep(motors, s.current, voltage, qd, slope,
                                      dt)

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
                np.concatenate((s.zd, s.current)), dt)
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
            realized = CurrentOverStep(self.motors, s.current, voltage, s.qd,
                                       -s.qd / s.dt, s.dt)
            end_current = np.where(stopped, realized(s.dt), end_current)
        s.finish(s.t, z, zd)
        s.current = end_current
        s.applied_voltage = voltage
        s.applied_effort = self.gain * end_current

    def rates(self, inverse_inertia, dt, stability_limit):
        """Return {term: (dt * rate, joint index)} of the motors' terms."""
        return motor_rates(self.motors, inverse_inertia, dt,
                           self.integration, stability_limit)


def plant_for(model, actuators=None, motor_integration='auto', dt=1e-3,
              stability_limit=np.inf):
    """Return the plant of ``model`` (with ``actuators``: motor-driven)."""
    if actuators is not None:
        return MotorDrivenPlant(model, actuators, motor_integration, dt,
                                stability_limit)
    if isinstance(model, FlexibleModel):
        return FlexiblePlant(model)
    if isinstance(model, MimicModel):
        return MimicPlant(model)
    return RigidPlant(model)
