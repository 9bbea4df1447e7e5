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
   evaluated at every stage;
3. Coulomb friction and the position limits act as bounded joint impulses
   at the end of the step (joint_effects.py), joints at a limit are put back
   on it;
4. continuous joints wrap to [-pi, pi).

Velocity limits (URDF ``<limit velocity>``) are not enforced, as in Gazebo's
effort interface.

With an effort held over the step (an array, or None) on a RobotModel with
``rk4`` or ``semi_implicit_euler``, steps 1 and 2 run compiled in one call
while the compiled path is on (compiled_step.py, dynamics_ros.fast.sim_step:
the same operations in the same order, so the same numbers, about 5x
faster); the kernel says whether step 3 has anything to do, and steps 3 and
4 stay the Python code below.

A MimicModel (mimic joints as dependent coordinates) is simulated in its
independent coordinates: its forward dynamics and M are the reduced ones
(G^T M_tree G), the damping, friction and limits per coordinate those the
MimicModel derives from its tree, so a mimic joint moves with its master by
construction and cannot drift from it.  Its steps are all Python (the
compiled kernel is for one RobotModel); ``full_state`` gives every movable
joint, mimic ones included, for publishing.

A FlexibleModel (dynamics_ros.flexible, Mackay 1988) in place of the
RobotModel is simulated over z = (joints, modal amplitudes): the same steps
with its forward dynamics (modal stiffness and damping inside it), the
joint effects acting on the joints z[:nq] only.
"""

from dataclasses import dataclass
import warnings

import numpy as np

from .compiled_step import compiled_step
from .integrators import integrator, POSITION_SHARE
from .joint_effects import (damping_torque, impulse_bounds, saturate_effort,
                            solve_impulses, wrap_continuous)
from .. import fast
from ..dynamics.aba import forward_dynamics
from ..dynamics.crba import mass_matrix
from ..errors import ModelWarning
from ..flexible.model import FlexibleModel

# A fixed step above this share of the shortest natural period of a flexible
# model damps its flexure away numerically (Mackay 1988, Fig. 3.14: RK4 at
# 1/5 of it); he recommends about 1/50 for accuracy.
FLEXIBLE_STEP_SHARE = 1.0 / 20.0


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


@dataclass
class SimulationLog:
    """
    States recorded by ``Simulator.run``: one row per recorded step.

    ``q``, ``qd`` are the joints; ``z``, ``zd`` all generalized coordinates
    (joints then modal amplitudes of a flexible model; else the joints).
    """

    time: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    effort: np.ndarray
    z: np.ndarray = None
    zd: np.ndarray = None


class Simulator:
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
    ``applied_effort`` is the saturated effort at the start of the last step.
    The clock starts at ``start_time``.  ``adaptive_options`` (method, rtol,
    atol) go to the adaptive integrator.
    """

    def __init__(self, model, dt=1e-3, integrator_name='rk4', q0=None,
                 qd0=None, start_time=0.0, **adaptive_options):
        if not (np.isfinite(dt) and dt > 0.0):
            raise ValueError('time step must be positive and finite, got %r'
                             % (dt,))
        self.flexible = model if isinstance(model, FlexibleModel) else None
        model = model if self.flexible is None else self.flexible.model
        self.model = model
        self.nz = model.nq if self.flexible is None else self.flexible.nz
        self.dt = float(dt)
        self.integrator_name = integrator_name
        self.integrate = integrator(integrator_name, **adaptive_options)
        self.position_share = POSITION_SHARE[integrator_name]
        self.initial_z = self._start_positions(q0, 'initial positions')
        self.initial_zd = self._start_velocities(qd0, 'initial velocities')
        # What the joints of this model can do, looked up once per run
        # rather than once per step.
        self.damped = bool(np.any(model.damping != 0.0))
        self.rubbing = bool(np.any(model.friction > 0.0))
        self.limited = bool(np.any(np.isfinite(model.lower_limit))
                            or np.any(np.isfinite(model.upper_limit)))
        self.wrapping = bool(np.any(model.continuous))
        # The smooth part of a step with a held effort, compiled (rigid
        # models, fixed-step integrators); None: every step in Python.
        self.compiled = compiled_step(self)
        self.no_effort = np.zeros(model.nq)
        self.start_time = float(start_time)
        self.steps = 0
        self.reset(keep_time=True)
        if self.flexible is not None and integrator_name != 'adaptive':
            self._check_step()

    def _vector(self, value, what, sizes=None):
        sizes = sizes or (self.model.nq,)
        value = np.array(value, dtype=float).reshape(-1)
        # One sum is finite exactly when every term is (inf - inf is nan).
        if value.size not in sizes or not np.isfinite(value.sum()):
            raise ValueError('%s must be %s finite values, got %s' % (
                what, ' or '.join(str(n) for n in sizes), value))
        return value

    @property
    def coordinate_names(self):
        """Return the names of z: joints, then modes of a flexible model."""
        if self.flexible is None:
            return list(self.model.joint_names)
        return list(self.flexible.coordinate_names)

    def _start_positions(self, q, what):
        """
        Return z from joint positions (or None: the default) or a whole z.

        Modes not given start at rest: at the static deflection under
        gravity with the joints held at q.
        """
        n, flexible = self.model.nq, self.flexible
        if flexible is None or q is None or np.size(q) == n:
            z = checked_initial_positions(self.model, q)
            if flexible is not None:
                z = flexible.join(z, flexible.static_deflection(z))
            return z
        z = self._vector(q, '%s (the joints, or every coordinate)' % what,
                         (n, self.nz))
        z[:n] = checked_initial_positions(self.model, z[:n])
        return z

    def _start_velocities(self, qd, what):
        """Return zd from joint velocities or a whole zd (None: zero)."""
        zd = np.zeros(self.nz)
        if qd is not None:
            given = self._vector(qd, what, (self.model.nq, self.nz))
            zd[:given.size] = given
        return zd

    def _check_step(self):
        """Warn when dt is too long for the flexible model's vibrations."""
        periods = self.flexible.natural_periods(self.initial_z)
        shortest = periods.min() if periods.size else np.inf
        if self.dt > FLEXIBLE_STEP_SHARE * shortest:
            warnings.warn(
                'time step %.4g ms is more than 1/%d of the shortest natural '
                'period of flexible model %r (%.4g ms at the initial state): '
                'the integrator will damp the flexure away; use a rate of at '
                'least %.0f Hz (Mackay: about 1/50 of the period)' % (
                    1e3 * self.dt, round(1.0 / FLEXIBLE_STEP_SHARE),
                    self.model.name, 1e3 * shortest,
                    np.ceil(1.0 / (FLEXIBLE_STEP_SHARE * shortest))),
                ModelWarning, stacklevel=3)

    def reset(self, q=None, qd=None, keep_time=False):
        """
        Return to the initial state (or the one given) and to time 0.

        With ``keep_time`` the clock runs on from where it is (a simulator
        that publishes /clock must not jump back in time).
        """
        self.start_time = self.t if keep_time else 0.0
        self.steps = 0
        self.z = self.initial_z.copy() if q is None else \
            self._start_positions(q, 'positions')
        self.zd = self.initial_zd.copy() if qd is None else \
            self._start_velocities(qd, 'velocities')
        self.applied_effort = np.zeros(self.model.nq)

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
        """Return the joint positions (model order), z[:nq]."""
        return self.z[:self.model.nq]

    @property
    def qd(self):
        """Return the joint velocities (model order), zd[:nq]."""
        return self.zd[:self.model.nq]

    def flexible_state(self):
        """
        Return (names, positions, velocities) of the flexible coordinates.

        Modal amplitudes and rates, then each flexible link's tip
        deflection (FlexibleModel.flexible_state); None for a rigid model.
        """
        if self.flexible is None:
            return None
        return self.flexible.flexible_state(self.z, self.zd)

    def full_state(self):
        """
        Return (positions, velocities, efforts) of every movable joint.

        In ``model.full_joint_names`` order: the joints of a RobotModel, and
        the mimic joints of a MimicModel too (``full_joint_state``); the
        efforts are ``applied_effort``.
        """
        return full_joint_state(self.model, self.q, self.qd,
                                self.applied_effort)

    @property
    def t(self):
        """Return the simulated time in seconds (counted in steps)."""
        return self.start_time + self.steps * self.dt

    def acceleration(self, z, zd, effort):
        """Return zdd of the smooth dynamics for a saturated ``effort``."""
        if self.damped:
            effort = effort + damping_torque(self.model, zd[:self.model.nq])
        if self.flexible is None:
            return forward_dynamics(self.model, z, zd, effort)
        return self.flexible.forward_dynamics(z, zd, effort)

    def mass_matrix(self, z):
        """Return the inertia matrix over all coordinates z."""
        if self.flexible is None:
            return mass_matrix(self.model, z)
        return self.flexible.mass_matrix(z)

    def _effort_source(self, effort):
        if effort is None:
            zero = np.zeros(self.model.nq)
            return lambda t, q, qd: zero
        if callable(effort):
            return lambda t, q, qd: saturate_effort(self.model,
                                                    effort(t, q, qd))
        held = saturate_effort(self.model, self._vector(effort, 'effort'))
        return lambda t, q, qd: held

    def step(self, effort=None):
        """Advance the state by one step of ``dt``."""
        if self.compiled is not None and not callable(effort) and \
                fast.ENABLED and self._compiled_step(effort):
            return
        source = self._effort_source(effort)
        t = self.t
        n = self.model.nq
        self.applied_effort = np.array(source(t, self.q, self.qd))

        # Controllers see the joints only.
        def acceleration(time, z, zd):
            return self.acceleration(z, zd, source(time, z[:n], zd[:n]))

        z, zd = self.integrate(acceleration, t, self.z, self.zd, self.dt)
        z, zd = self._constrain(self.z, self.zd, z, zd)
        self._finish(t, z, zd)

    def _compiled_step(self, effort):
        """
        Take the step with the compiled kernel; False: take it in Python.

        The same numbers as the Python step: the kernel integrates, and
        the impulses of the steps where friction or a limit acts, the
        wrap of continuous joints and the errors are the Python step's.
        """
        held = self.no_effort if effort is None else effort
        if not (held.__class__ is np.ndarray and held.dtype == float
                and held.ndim == 1):
            held = self._vector(effort, 'effort')
        result = self.compiled(self.z, self.zd, held, self.dt)
        if result is None:   # the kernel failed to load: Python from now
            self.compiled = None
            return False
        status, applied, z, zd = result
        kernel = self.compiled.kernel
        if status == kernel.BAD_EFFORT:
            self._vector(effort, 'effort')   # raises the Python step's error
        if status > kernel.DIVERGED:
            return False
        t = self.t
        self.applied_effort = applied
        if status == kernel.CONSTRAIN:
            z, zd = self._constrain(self.z, self.zd, z, zd)
        self._finish(t, z, zd, finite=status == kernel.DONE)
        return True

    def _finish(self, t, z, zd, finite=False):
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

    def _constrain(self, z_start, zd_start, z, zd):
        """
        Apply friction and limit impulses at the end of a step.

        Velocities change by the impulses; positions by the share of that
        change the integrator moved them with (integrators.POSITION_SHARE),
        except that a joint static friction held at rest stays where it
        was and a joint at a limit is put on it.

        The impulses act on the joints only.  On a flexible model a joint
        impulse p is the generalized impulse (p, 0): the joint velocities see
        the joint block of I(z)^-1 (the inertia of the joints with the modes
        free to respond), and the modal rates change by its modal rows.
        """
        model = self.model
        n = model.nq
        q = z[:n]
        if not (self.rubbing or self.limited and (
                (q >= model.upper_limit) | (q <= model.lower_limit)).any()):
            return z, zd
        inverse_inertia = np.linalg.inv(self.mass_matrix(z))[:, :n]
        lower, upper = impulse_bounds(model, q, self.dt)
        impulse = solve_impulses(inverse_inertia[:n], zd[:n], lower, upper)
        change = inverse_inertia @ impulse
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
        return z_next, zd_next

    def run(self, duration, effort=None, record_every=1):
        """
        Step for ``duration`` seconds; return the recorded SimulationLog.

        The initial state is the first row, then every ``record_every``-th
        step.  ``effort`` is as for ``step`` (a callable sees absolute time).
        """
        count = int(round(duration / self.dt))
        rows = [(self.t, self.z.copy(), self.zd.copy(),
                 self.applied_effort.copy())]
        for k in range(1, count + 1):
            self.step(effort)
            if k % record_every == 0 or k == count:
                rows.append((self.t, self.z.copy(), self.zd.copy(),
                             self.applied_effort.copy()))
        time, z, zd, applied = (np.array(column) for column in zip(*rows))
        n = self.model.nq
        return SimulationLog(time, z[:, :n], zd[:, :n], applied, z, zd)
