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
- the state layout: ``start_positions``, ``start_velocities`` (a z, zd
  from joint values or whole ones), ``full_state`` (every movable joint,
  for joint_states), ``flexible_state``;
- state of its own beside (z, zd), which ``reset`` clears: the motors'
  currents and voltages (``voltage`` is None but for those);
- ``compiled_stepper``: the compiled step the simulator tries first
  (compiled_step.py), or None where every step is Python.

Plants: ``RigidPlant`` (a RobotModel), ``MimicPlant`` (a MimicModel, in its
independent coordinates), ``FlexiblePlant`` (a FlexibleModel: joints, then
modal amplitudes) and, in motor_plant.py, ``MotorDrivenPlant`` (a
RobotModel driven by geared DC motors: its rotors reflected, the winding
currents a state of their own, its own step in ``drive_step``).
``simulator.plant_for`` picks one.
"""

import numpy as np

from .compiled_step import (compiled_step, CoupledForwardDynamics,
                            mimic_compiled_step)
from .joint_effects import wrap_continuous
from .. import fast
from ..dynamics.aba import forward_dynamics
from ..dynamics.crba import mass_matrix
from ..model.massless import refuse_massless

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
    voltage = None    # the motors' voltages set (motor_plant.py)

    def __init__(self, model):
        """Simulate ``model`` as it is."""
        self.model = model
        self.names = model.joint_names   # of z
        self.nz = model.nq

    @property
    def coordinate_names(self):
        """Return the names of z: the joints (of a flexible plant, modes)."""
        return list(self.names)

    def refuse_massless(self):
        """Raise ModelError if a joint moves no mass (M singular)."""
        refuse_massless(self.model)

    def acceleration(self, z, zd, effort):
        """Return zdd under the joint ``effort`` (damping included)."""
        return forward_dynamics(self.model, z, zd, effort)

    def mass_matrix(self, z):
        """Return the inertia matrix over z."""
        return mass_matrix(self.model, z)

    def start_positions(self, q, what):
        """Return z from joint positions (None: the default)."""
        return checked_initial_positions(self.model, q)

    def start_velocities(self, qd, what):
        """Return zd from joint velocities or a whole zd (None: zero)."""
        zd = np.zeros(self.nz)
        if qd is not None:
            given = checked_vector(qd, what, (self.model.nq, self.nz))
            zd[:given.size] = given
        return zd

    def reset(self):
        """Clear the plant's own state: a voltage someone set."""
        self.voltage = None

    def actuated_state(self, q, qd):
        """Return x = [q; qd; i] of a motor-driven plant: None here."""
        return None

    def voltages(self, voltage):
        """Refuse a voltage input (ValueError): no motors to take it."""
        raise ValueError('model %r has no actuators: a voltage input needs '
                         'Simulator(..., actuators=motors)' % self.model.name)

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
    movable joint, mimic ones included, for publishing.  Its compiled step
    runs the tree through the coupling (fast/sim_step.py); while the
    compiled path is on, the Python step's forward dynamics are the same
    coupled ones (``CoupledForwardDynamics``), so that both give the same
    numbers.
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

    dynamics_ros.flexible's model in place of the RobotModel: the
    simulator's steps over z with its forward dynamics (modal stiffness
    and damping inside them), the joint effects acting on the joints
    z[:nq] only.  Initial values give the joints only (the modes then
    start at rest) or every coordinate z.  Every step is Python.
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

    def refuse_massless(self):
        """Raise ModelError if a joint moves no mass (M singular)."""
        # The flexible model as it is: its declarations carry mass of
        # their own.
        refuse_massless(self.flexible)

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
