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
Simulator: a RobotModel stepped in time by forward dynamics (ABA).

Each step of ``dt``:

1. the commanded effort is clipped to the URDF effort limits;
2. the smooth dynamics ``M qdd + h = tau - damping qd`` are integrated by the
   chosen integrator (``rk4``, ``semi_implicit_euler`` or ``adaptive``),
   with an effort that may be a constant over the step or a control law
   evaluated at every stage; viscous damping too stiff for the step is left
   out of this explicit part (below);
3. the stiff damping (implicitly), Coulomb friction and the position limits
   (as bounded joint impulses) act at the end of the step, in one
   velocity-level solve (joint_effects.py); joints at a limit are put back
   on it;
4. continuous joints wrap to [-pi, pi).

Stiff viscous damping (doc/theory/simulator.md: "Stiff damping is
integrated implicitly", with the rates that need it).  A joint whose
``dt * damping * (M^-1)_ii`` exceeds ``STIFF_DAMPING`` at the initial
positions or at any of ``INERTIA_SAMPLES`` configurations within the
limits (step_checks.py) has its damping left out of the explicit step and
integrated backward after it, as MuJoCo's implicit damping (MuJoCo
documentation, Computation > Numerical integration): the velocities solve
``(M + dt D) qd+ = M qd_explicit + dt G qd_ref`` (D: the stiff joints'
damping plus the controller's dampers G toward the reference velocities
qd_ref: controllers.JointCommands.hand_over_damping, the ``damping``
argument of ``step``), and the positions take the integrator's share of
that velocity change (integrators.POSITION_SHARE).  The other joints keep
their damping in the explicit integrator (a model without stiff damping
steps exactly as rk4 always did).  ``implicit_damping`` True or False
forces every damped joint one way; the adaptive integrator always keeps
the damping inside its ODE (its method 'Radau' for stiff models).
``check_step`` warns when the step is still too long for the stiffest
term left explicit.

Velocity limits (URDF ``<limit velocity>``) are not enforced, as in Gazebo's
effort interface.  An external wrench on a link, identified joint
friction and a controller's dampers act besides the effort
(applied_loads.py).

The plant says what moves - coordinates, state layout, accelerations,
mass matrix, state of its own - and which compiled step it has; the
integrator, the clock and the joint effects are this module's.  Plants
(``plant_for`` picks one): a RobotModel's; a MimicModel's, in its
independent coordinates, mimic joints following their masters by
construction; a FlexibleModel's (dynamics_ros.flexible, Mackay 1988),
over z = (joints, modal amplitudes) - those in plants.py; and with
``actuators``, geared DC motors' (Freeman 1985), the winding currents
and voltages a state of their own (motor_plant.py).

With an effort held over the step (an array, or None) on a RobotModel or
a MimicModel with ``rk4`` or ``semi_implicit_euler``, steps 1 and 2 run
compiled in one call while the compiled path is on (compiled_step.py,
dynamics_ros.fast.sim_step: the same operations in the same order, so the
same numbers, about 5x faster); so does step 3, the implicit damping and
the impulses of friction and the limits (dynamics_ros.fast.joint_impulses:
the operations of ``constrain`` below, M^-1 by CRBA and Cholesky there,
numpy's inverse here: equal to rounding).  Step 4 stays the Python code
below, and so does step 3 where the kernel cannot take it (a state that
is not finite, a matrix that is not positive definite: the errors are
this module's).  A motor-driven plant has a compiled step of its own
(motor_plant.py); a FlexibleModel's steps are all Python (``compiled``
stays None).
"""

from dataclasses import dataclass

import numpy as np

from .applied_loads import AppliedLoads
from .compiled_step import floats
from .integrators import integrator, POSITION_SHARE
from .joint_effects import (damping_torque, impulse_bounds, saturate_effort,
                            solve_impulses, wrap_continuous)
from .motor_plant import MotorDrivenPlant
# Re-exported: the names simulator.py always had.
from .plants import (checked_initial_positions,  # noqa: F401
                     checked_vector, default_initial_positions,
                     FLEXIBLE_STEP_SHARE, FlexiblePlant, full_joint_state,
                     MimicPlant, RigidPlant)
from .step_checks import (INERTIA_SAMPLES,  # noqa: F401
                          STABILITY_LIMIT, STEP_WARNING_SHARE, StepChecks,
                          STIFF_DAMPING)
from .. import fast
from ..flexible.model import FlexibleModel
from ..model.mimic_model import MimicModel


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


def plant_attribute(name, doc):
    """Return a property of the simulator that is its plant's ``name``."""
    return property(lambda simulator: getattr(simulator.plant, name),
                    lambda simulator, value: setattr(simulator.plant, name,
                                                     value), doc=doc)


@dataclass
class SimulationLog:
    """
    States recorded by ``Simulator.run``: one row per recorded step.

    ``q``, ``qd`` are the joints; ``z``, ``zd`` all generalized coordinates
    (joints then modal amplitudes of a flexible model; else the joints);
    ``current`` the motors' winding currents (with actuators; else None).
    """

    time: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    effort: np.ndarray
    z: np.ndarray = None
    zd: np.ndarray = None
    current: np.ndarray = None


class Simulator(StepChecks, AppliedLoads):
    """
    State (t, q, qd) of a model and the step that advances it.

    ``model`` is a RobotModel, a MimicModel (q: its independent
    coordinates) or a FlexibleModel; the state of the latter is then
    (t, z, zd), ``q`` and ``qd`` its joint part.  Initial positions and
    velocities (``q0``, ``qd0``, ``reset``) give either the joints only, the
    modes then starting at rest (at the static deflection under gravity,
    zero rates), or every coordinate z in ``coordinate_names`` order.

    ``effort`` arguments are either an array (held over the step, model
    joint order), a callable ``effort(t, q, qd)`` evaluated at every
    integrator stage (a continuous-time control law), or None (zero).
    ``applied_effort`` is the saturated effort at the start of the last step,
    plus the torque of the controller dampers ``step`` integrated
    implicitly (``damping``), at the step's end velocity.
    The clock starts at ``start_time``.  ``adaptive_options`` (method, rtol,
    atol) go to the adaptive integrator.  ``implicit_damping``: None
    (stiff joints only, see the module), True (every damped joint) or False
    (none: the explicit step of old, unstable for stiff damping).

    ``actuators`` (keyword only): DCMotors for the joints of a RobotModel,
    or None (no motors: the simulator as it always was).  With motors,
    ``model`` is the arm with the rotors reflected, ``arm_model`` the one
    given, ``applied_effort`` the motor torque n k_t i at the end of the
    last step, and ``current``, ``voltage``, ``applied_voltage`` the
    motor-driven plant's state (motor_plant.MotorDrivenPlant).
    ``motor_integration``: 'auto', 'exponential' or 'coupled'
    (sim/actuated.py; ``motor_integration`` then holds the one taken).
    """

    # The motors' state is the motor-driven plant's (motor_plant.py).
    current = plant_attribute('current', 'The winding currents (A).')
    voltage = plant_attribute('voltage', 'The voltages set, or None.')
    applied_voltage = plant_attribute('applied_voltage',
                                      'The voltages of the last step.')

    def __init__(self, model, dt=1e-3, integrator_name='rk4', q0=None,
                 qd0=None, start_time=0.0, implicit_damping=None, *,
                 actuators=None, motor_integration='auto',
                 **adaptive_options):
        if not (np.isfinite(dt) and dt > 0.0):
            raise ValueError('time step must be positive and finite, got %r'
                             % (dt,))
        self.arm_model = model
        # What moves (plants.py, motor_plant.py): the joint model, the
        # coordinates z, the dynamics; the joint effects, integrator and
        # clock are here.
        self.plant = plant_for(model, actuators, motor_integration, dt,
                               STABILITY_LIMIT.get(integrator_name, np.inf))
        self.plant.refuse_massless()   # else NaN at the first step
        self.flexible = self.plant.flexible   # a FlexibleModel, or None
        self.motors = self.plant.motors       # DCMotors, or None
        if self.motors is not None:
            self.motor_integration = self.plant.integration
            self.motor_gain = self.plant.gain   # n k_t: torque / current
        model = self.model = self.plant.model
        # The joint count, read a few times a step (model.nq is a property).
        self.nq = model.nq
        self.nz = self.plant.nz
        self.dt = float(dt)
        self.integrator_name = integrator_name
        self.integrate = integrator(integrator_name, **adaptive_options)
        self.position_share = POSITION_SHARE[integrator_name]
        # A z, zd from joint values (the modes at rest) or whole ones.
        self.initial_z = self.plant.start_positions(q0, 'initial positions')
        self.initial_zd = self.plant.start_velocities(qd0,
                                                      'initial velocities')
        if implicit_damping not in (None, True, False):
            raise ValueError('implicit_damping must be None, True or False, '
                             'got %r' % (implicit_damping,))
        self.implicit_option = implicit_damping
        # What the joints of this model can do, looked up once per run
        # rather than once per step.
        self.rubbing = bool(np.any(model.friction > 0.0))
        self.limited = bool(np.any(np.isfinite(model.lower_limit))
                            or np.any(np.isfinite(model.upper_limit)))
        self.wrapping = bool(np.any(model.continuous))
        self.inverse_inertias = self._sample_inverse_inertias()
        self.inverse_inertia = np.max(
            [np.diag(block) for block in self.inverse_inertias], axis=0) \
            if self.inverse_inertias else np.zeros(model.nq)
        # The smooth part of a step with a held effort, compiled (rigid
        # models, fixed-step integrators); None: every step in Python.
        self.compiled = None
        self._split_damping()
        self.compiled = self.plant.compiled_stepper(self)
        self.no_effort = np.zeros(model.nq)
        self.external_wrench = None   # (link, [moment; force]) or None
        self.joint_friction = None    # set_joint_friction
        self.start_time = float(start_time)
        self.steps = 0
        self.reset(keep_time=True)
        if integrator_name != 'adaptive':
            self.check_step(stacklevel=3)

    def _vector(self, value, what, sizes=None):
        return checked_vector(value, what, sizes or (self.model.nq,))

    @property
    def coordinate_names(self):
        """Return the names of z (joints, then modes of a flexible model)."""
        return self.plant.coordinate_names

    def reset(self, q=None, qd=None, keep_time=False):
        """
        Return to the initial state (or the one given) and to time 0.

        With ``keep_time`` the clock runs on from where it is (a simulator
        that publishes /clock must not jump back in time).
        """
        self.start_time = self.t if keep_time else 0.0
        self.steps = 0
        self.z = self.initial_z.copy() if q is None else \
            self.plant.start_positions(q, 'positions')
        self.zd = self.initial_zd.copy() if qd is None else \
            self.plant.start_velocities(qd, 'velocities')
        self.applied_effort = np.zeros(self.model.nq)
        self.plant.reset()

    def actuated_state(self):
        """Return x = [q; qd; i] of a simulator with actuators (else None)."""
        return self.plant.actuated_state(self.q, self.qd)

    @property
    def initial_q(self):
        """Return the initial joint positions (model order)."""
        return self.initial_z[:self.model.nq]

    @property
    def initial_qd(self):
        """Return the initial joint velocities (model order)."""
        return self.initial_zd[:self.model.nq]

    @property
    def q(self):
        """Return the joint positions (model order), ``z[:nq]``."""
        return self.z[:self.nq]

    @property
    def qd(self):
        """Return the joint velocities (model order), ``zd[:nq]``."""
        return self.zd[:self.nq]

    def flexible_state(self):
        """
        Return (names, positions, velocities) of the flexible coordinates.

        Modal amplitudes and rates, then each flexible link's tip
        deflection (FlexibleModel.flexible_state); None for a rigid model.
        """
        return self.plant.flexible_state(self.z, self.zd)

    def full_state(self):
        """
        Return (positions, velocities, efforts) of every movable joint.

        In ``model.full_joint_names`` order: the joints of a RobotModel, and
        the mimic joints of a MimicModel too (``full_joint_state``); the
        efforts are ``applied_effort``.
        """
        return self.plant.full_state(self.q, self.qd, self.applied_effort)

    @property
    def t(self):
        """Return the simulated time in seconds (counted in steps)."""
        return self.start_time + self.steps * self.dt

    def acceleration(self, z, zd, effort):
        """Return zdd of the smooth dynamics for a saturated ``effort``."""
        if self.damped:
            effort = effort + damping_torque(self.explicit_damping,
                                             zd[:self.nq])
        return self.plant.acceleration(z, zd, effort)

    def mass_matrix(self, z):
        """Return the inertia matrix over all coordinates z."""
        return self.plant.mass_matrix(z)

    def effort_source(self, effort):
        """Return effort(t, q, qd), saturated, of a step's ``effort``."""
        if effort is None:
            zero = np.zeros(self.model.nq)
            return lambda t, q, qd: zero
        if callable(effort):
            return lambda t, q, qd: saturate_effort(self.model,
                                                    effort(t, q, qd))
        held = saturate_effort(self.model, self._vector(effort, 'effort'))
        return lambda t, q, qd: held

    def step(self, effort=None, damping=None):
        """
        Advance the state by one step of ``dt``.

        ``damping``: None, or (gains, reference velocities) of a controller
        damper ``gains * (reference - qd)`` held over the step and integrated
        implicitly with the stiff joint damping (JointCommands.damping).
        """
        if self.model.damping is not self.damping_source:
            self._split_damping()   # the model's damping was assigned
        if self.motors is not None:   # compiled or not: the plant's step
            self.plant.drive_step(self, effort, damping)
            return
        push = None if self.external_wrench is None else \
            self.external_torques()
        friction = self.joint_friction
        if push is None and friction is None and \
                self.compiled is not None and \
                not callable(effort) and fast.ENABLED and \
                self._compiled_step(effort, damping):
            return
        if damping is not None:
            damping = self.controller_damping(damping)
        source = self.effort_source(effort)
        t = self.t
        n = self.model.nq
        self.applied_effort = np.array(source(t, self.q, self.qd))

        # Controllers see the joints only.
        def acceleration(time, z, zd):
            effort = source(time, z[:n], zd[:n])
            if push is not None:
                effort = effort + push
            if friction is not None:
                effort = effort - friction.torque(zd[:n], offset=False)
            return self.acceleration(z, zd, effort)

        z, zd = self.integrate(acceleration, t, self.z, self.zd, self.dt)
        damping = self._bounded_damping(damping, zd)
        z, zd = self.constrain(self.z, self.zd, z, zd, damping)
        self._add_damper_effort(damping, zd)
        self.finish(t, z, zd)

    def step_voltage(self, voltage):
        """
        Advance one step with the motors at ``voltage`` (nq, held over it).

        Clipped to the drives' voltage_limit; a simulator with actuators
        only.  ``set_voltage`` holds voltages over every step instead.
        """
        voltage = self.plant.voltages(voltage)   # ValueError: no motors
        self.plant.motor_step(self, voltage)

    def set_voltage(self, voltage=None):
        """
        Drive the motors at ``voltage`` from the next step on (None: off).

        Held until changed, in place of the drive law's voltages (the
        efforts handed to ``step`` are then ignored); clipped to the
        drives' voltage_limit.  ``reset`` clears it.
        """
        self.voltage = None if voltage is None else \
            self.plant.voltages(voltage)

    def hold_step(self, p, target, d, damping=None):
        """
        Advance one step under the position hold p (target - q) - d qd.

        The effort of a position PID without integral (JointCommands'
        hold: ``p``, ``d`` the gains, ``target`` the positions) at the
        step's start, held over it: ``step(p * (target - q) - d * qd,
        damping)``, the same numbers, the effort computed inside the
        compiled step where that runs (one call a step fewer).
        """
        if self.model.damping is self.damping_source and \
                self.motors is None and self.external_wrench is None and \
                self.joint_friction is None and self.compiled is not None \
                and fast.ENABLED:
            gains, reference = (self.no_effort, self.no_effort) \
                if damping is None else damping
            try:
                result = self.compiled.hold(
                    self.z, self.zd, p, target, d, self.dt,
                    self.implicit_damping, gains, reference)
            except TypeError:   # not float vectors: the kernel refused them
                pass
            else:
                if self._take_compiled(result, None, damping):
                    return
        self.step(p * (target - self.q) - d * self.qd, damping)

    def held_effort(self, effort):
        """
        Return a held ``effort`` (None: zero) as a kernel takes it.

        A 1-D float array as it is (a kernel refuses it if not finite, and
        the Python step then says why); anything else checked and converted
        (``_vector``: its error at once).
        """
        if effort is None:
            return self.no_effort
        return effort if floats(effort) else self._vector(effort, 'effort')

    def _compiled_step(self, effort, damping=None):
        """
        Take the step with the compiled kernel; False: take it in Python.

        The same numbers as the Python step: the kernel integrates the
        explicit part, and the implicit damping, the impulses of the steps
        where friction or a limit acts, the wrap of continuous joints and
        the errors are the Python step's.
        """
        held = self.held_effort(effort)
        if damping is not None:
            gains, reference = damping
            if not floats(gains, reference):
                gains, reference = self.controller_damping(damping)
            result = self.compiled(self.z, self.zd, held, self.dt,
                                   self.implicit_damping, gains, reference)
        elif self.implicit:
            result = self.compiled(self.z, self.zd, held, self.dt,
                                   self.implicit_damping, self.no_effort,
                                   self.no_effort)
        else:
            result = self.compiled(self.z, self.zd, held, self.dt)
        return self._take_compiled(result, effort, damping)

    def _take_compiled(self, result, effort, damping):
        """
        Finish a compiled step from its ``result``; False: take it in Python.

        ``effort``: the effort handed to the step (None: the kernel computed
        it), for the Python step's error when it is not finite.
        """
        if result is None:   # the kernel failed to load: Python from now
            self.compiled = None
            return False
        status, applied, z, zd = result
        kernel = self.compiled.kernel
        if status == kernel.BAD_EFFORT and effort is not None:
            self._vector(effort, 'effort')   # raises the Python step's error
        if status > kernel.DIVERGED:
            return False
        t = self.t
        self.applied_effort = applied   # with the dampers' torque if DONE
        if status == kernel.CONSTRAIN:
            damping = self._bounded_damping(damping, zd)
            z, zd = self.constrain(self.z, self.zd, z, zd, damping)
            self._add_damper_effort(damping, zd)
        self.finish(t, z, zd, finite=status == kernel.DONE)
        return True

    def finish(self, t, z, zd, finite=False):
        """Check, wrap and store the state at the end of the step at t."""
        if not (finite or np.isfinite(z.sum() + zd.sum())):
            raise FloatingPointError(
                'simulation of %r diverged at t = %g s (z = %s, zd = %s)'
                % (self.model.name, t, z, zd))
        if self.wrapping:
            n = self.model.nq
            z = np.concatenate((wrap_continuous(self.model, z[:n]), z[n:]))
        self.z = z
        self.zd = zd
        self.steps += 1

    def constrain(self, z_start, zd_start, z, zd, damping=None):
        """
        Apply the implicit damping, friction and limit impulses.

        Velocities change by the impulses; positions by the share of that
        change the integrator moved them with (integrators.POSITION_SHARE),
        except that a joint static friction held at rest stays where it
        was and a joint at a limit is put on it.

        With stiff damping D (joints and controller, ``damping``: gains,
        reference velocities) the end velocity solves
        (M + dt D) zd+ = M zd + dt (gains * reference - D zd) + impulse
        (backward Euler in the damping, the module's docstring): the
        impulses then see (M + dt D)^-1 in place of M^-1, so a stop or
        friction and the damping act together.

        The impulses act on the joints only.  On a flexible model a joint
        impulse p is the generalized impulse (p, 0): the joint velocities see
        the joint block of I(z)^-1 (the inertia of the joints with the modes
        free to respond), and the modal rates change by its modal rows.
        """
        model = self.model
        n = model.nq
        q = z[:n]
        implicit = self.implicit or damping is not None
        if not (self.rubbing or implicit or self.limited and (
                (q >= model.upper_limit) | (q <= model.lower_limit)).any()):
            return z, zd
        inertia = self.mass_matrix(z)
        if implicit:
            stiff = self.implicit_damping
            force = -stiff * zd[:n]
            if damping is not None:
                gains, reference = damping
                stiff = stiff + gains
                force = gains * reference - stiff * zd[:n]
            inertia = np.array(inertia, dtype=float)
            inertia[np.arange(n), np.arange(n)] += self.dt * stiff
        try:
            inverse_inertia = np.linalg.inv(inertia)[:, :n]
        except np.linalg.LinAlgError as error:
            raise FloatingPointError(
                'simulation of %r diverged at t = %g s: %s (z = %s)'
                % (model.name, self.t, error, z))
        velocity = zd
        if implicit:
            velocity = zd + inverse_inertia @ (self.dt * force)
        lower, upper = impulse_bounds(model, q, self.dt)
        impulse = solve_impulses(inverse_inertia[:n], velocity[:n], lower,
                                 upper)
        change = inverse_inertia @ impulse
        if implicit:
            change = change + (velocity - zd)
        z_next = z + self.position_share * self.dt * change
        zd_next = zd + change
        q_next, qd_next = z_next[:n], zd_next[:n]   # views: set in place
        stopped = (lower < impulse) & (impulse < upper)
        qd_next[stopped] = 0.0
        held = stopped & (zd_start[:n] == 0.0)
        q_next[held] = z_start[:n][held]
        at_upper, at_lower = q >= model.upper_limit, q <= model.lower_limit
        q_next[at_upper] = model.upper_limit[at_upper]
        q_next[at_lower] = model.lower_limit[at_lower]
        if self.limited:
            # A joint the others' impulses (or the damping, through the
            # coupling of M) carried past a limit: put on it and stopped
            # there, as the joints found past it above.
            past_upper = q_next > model.upper_limit
            past_lower = q_next < model.lower_limit
            if past_upper.any() or past_lower.any():
                q_next[past_upper] = model.upper_limit[past_upper]
                q_next[past_lower] = model.lower_limit[past_lower]
                qd_next[past_upper] = np.minimum(qd_next[past_upper], 0.0)
                qd_next[past_lower] = np.maximum(qd_next[past_lower], 0.0)
        return z_next, zd_next

    def run(self, duration, effort=None, record_every=1):
        """
        Step for ``duration`` seconds; return the recorded SimulationLog.

        The initial state is the first row, then every ``record_every``-th
        step.  ``effort`` is as for ``step`` (a callable sees absolute time).
        """
        count = int(round(duration / self.dt))
        motors = self.motors is not None

        def row():
            return (self.t, self.z.copy(), self.zd.copy(),
                    self.applied_effort.copy()) + (
                        (self.current.copy(),) if motors else ())

        rows = [row()]
        for k in range(1, count + 1):
            self.step(effort)
            if k % record_every == 0 or k == count:
                rows.append(row())
        time, z, zd, applied, *current = (np.array(column)
                                          for column in zip(*rows))
        n = self.model.nq
        return SimulationLog(time, z[:, :n], zd[:, :n], applied, z, zd,
                             current[0] if current else None)
