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
Joint friction of a simulated plant as real gearboxes have it.

The identification fits Coulomb friction as ``tanh(qd / smoothing)``
(dynamics/friction.py); a plant that used the same formula would hide what
that smoothing costs on a real arm.  These plants differ from it:

- **sign-sharp Coulomb with stiction** (``SharpFriction`` without a static
  level): the simulator's own URDF ``<dynamics friction>`` path, bounded
  joint impulses after each step (sim/joint_effects.py): a sliding joint
  feels ``coulomb sign(qd)`` exactly, a joint whose other torques stay
  below the level sticks (exactly zero velocity: the stiction band is the
  velocity one step of the level can stop), viscous friction is the URDF
  ``damping`` (implicit where stiff);
- **Stribeck** (``static`` and ``stribeck_velocity`` given): break-away at
  the static level F_s, sliding friction falling to the Coulomb level F_c,

      tau_f = sign(qd) (F_c + (F_s - F_c) exp(-(qd / v_s)^2)) + viscous qd

  (Armstrong-Helouvry, Dupont and Canudas de Wit 1994, "A survey of models,
  analysis tools and compensation methods for the control of machines with
  friction", Automatica 30(7), eq. 7 with delta = 2): the impulses hold
  and slide at F_s, and a continuous explicit term takes off
  ``(F_s - F_c)(1 - exp(-(qd / v_s)^2)) sign(qd)``, zero at rest, so
  the explicit integrator sees no jump.

``plant(model)`` returns the model to simulate and the explicit term to
hand to ``Simulator.set_joint_friction`` (None for plain Coulomb): no
change to the simulator is needed.
"""

import numpy as np


class StribeckRelief:
    """
    The explicit part of Stribeck friction (the drop below F_s).

    Duck-types ``JointFriction`` for ``Simulator.set_joint_friction``:
    ``torque(qd, offset=False)`` and ``select(joint_names)``.
    """

    def __init__(self, joint_names, drop, velocity):
        """Hold F_s - F_c and v_s per joint."""
        self.joint_names = list(joint_names)
        self.drop = np.asarray(drop, dtype=float)
        self.velocity = np.asarray(velocity, dtype=float)

    def torque(self, qd, offset=False):
        """Return -(F_s - F_c)(1 - exp(-(qd/v_s)^2)) sign(qd)."""
        qd = np.asarray(qd, dtype=float)
        return -self.drop * (1.0 - np.exp(-(qd / self.velocity) ** 2)) \
            * np.sign(qd)

    def select(self, joint_names):
        """Return the term of ``joint_names`` (others: none)."""
        index = {name: k for k, name in enumerate(self.joint_names)}
        pick = [index.get(name) for name in joint_names]
        drop = np.array([0.0 if k is None else self.drop[k] for k in pick])
        velocity = np.array([1.0 if k is None else self.velocity[k]
                             for k in pick])
        return StribeckRelief(joint_names, drop, velocity)


class SharpFriction:
    """
    Plant friction per joint: viscous, sign-sharp Coulomb, optional Stribeck.

    ``viscous`` (N m s/rad), ``coulomb`` (N m, the sliding level),
    ``static`` (N m, break-away level, >= coulomb; None: = coulomb) and
    ``stribeck_velocity`` (rad/s) per joint in the model's joint order.
    """

    def __init__(self, viscous, coulomb, static=None, stribeck_velocity=None):
        """Hold the levels; refuse a static level below the sliding one."""
        self.viscous = np.asarray(viscous, dtype=float)
        self.coulomb = np.asarray(coulomb, dtype=float)
        self.static = self.coulomb.copy() if static is None else \
            np.asarray(static, dtype=float)
        if np.any(self.static < self.coulomb) or np.any(self.coulomb < 0.0) \
                or np.any(self.viscous < 0.0):
            raise ValueError('plant friction: viscous and Coulomb levels '
                             'must be >= 0 and the static level >= Coulomb')
        if static is not None and stribeck_velocity is None:
            raise ValueError('plant friction: a static level needs the '
                             'Stribeck velocity')
        self.stribeck_velocity = None if stribeck_velocity is None else \
            np.broadcast_to(np.asarray(stribeck_velocity, dtype=float),
                            self.coulomb.shape).copy()

    def torque(self, qd):
        """Return the sliding friction torque at ``qd`` (0 at rest)."""
        qd = np.asarray(qd, dtype=float)
        level = self.coulomb
        if self.stribeck_velocity is not None:
            level = level + (self.static - self.coulomb) * np.exp(
                -(qd / self.stribeck_velocity) ** 2)
        return self.viscous * qd + level * np.sign(qd)

    def plant(self, model):
        """
        Return (model to simulate, explicit term or None).

        The model's URDF damping and friction are replaced by the viscous
        and static levels (the simulator's implicit damping and impulses).
        """
        plant = model.copy(damping=self.viscous.copy(),
                           friction=self.static.copy())
        if self.stribeck_velocity is None or not np.any(
                self.static > self.coulomb):
            return plant, None
        return plant, StribeckRelief(model.joint_names,
                                     self.static - self.coulomb,
                                     self.stribeck_velocity)
