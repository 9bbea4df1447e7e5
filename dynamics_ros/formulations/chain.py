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
A serial chain in standard DH form, as the Turney et al. formulations use it.

Turney, Mudge and Lee (1980) write every formulation over the link frames of
standard (distal) Denavit-Hartenberg: joint i turns about (or slides along)
z_{i-1}, R_{i-1}^i is their eq. 1.10, r_i = R_i^{i-1} p_{i-1}^i (eq. 1.14)
is the displacement of origin i from origin i-1 in frame i, r-bar_i the
centre of mass of link i from origin i, I_i its central inertia in frame i.

The functions here only use + - * / @, ``cross`` and np.cos/np.sin, so they
run on floats and, for operation counting, on op_counts.Counted numbers.
"""

from dataclasses import dataclass

import numpy as np

from ..errors import ModelError
from ..model.dh import dh_table, DHTable, from_dh
from ..model.robot_model import PRISMATIC, REVOLUTE, RobotModel

Z_AXIS = np.array([0.0, 0.0, 1.0])


def cross(a, b):
    """
    Return the cross product of two 3-vectors, written out.

    The same six products and three differences as np.cross, which fails
    on object arrays (op_counts.Counted numbers) under numpy 1.26.
    """
    return np.array([a[1] * b[2] - a[2] * b[1],
                     a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


@dataclass
class DHChain:
    """
    Constant data of a standard-DH serial chain (per link i = 0..n-1).

    ``gravity`` is the gravity vector in DH frame 0 (Turney's a_0 = g z_0 is
    ``-gravity``).  ``armature`` adds ``armature * qdd`` to the torques, as
    the core API does.
    """

    joint_type: np.ndarray
    a: np.ndarray
    d: np.ndarray
    theta: np.ndarray
    cos_alpha: np.ndarray
    sin_alpha: np.ndarray
    mass: np.ndarray
    com: np.ndarray
    inertia: np.ndarray
    gravity: np.ndarray
    armature: np.ndarray
    joint_names: list

    @property
    def n(self):
        """Return the number of links (joints)."""
        return len(self.a)

    def revolute(self, i):
        """Return True when joint i is revolute."""
        return self.joint_type[i] == REVOLUTE

    def joint_values(self, i, q_i):
        """Return cos(theta_i), sin(theta_i) and d_i at joint value q_i."""
        theta, d = self.theta[i], self.d[i]
        if self.revolute(i):
            theta = theta + q_i
        else:
            d = d + q_i
        return np.cos(theta), np.sin(theta), d

    def rotation(self, i, c, s):
        """Return R_{i-1}^i, Turney eq. 1.10 (frame i -> frame i-1)."""
        ca, sa = self.cos_alpha[i], self.sin_alpha[i]
        return np.array([[c, -ca * s, sa * s],
                         [s, ca * c, -sa * c],
                         [0.0, sa, ca]])

    def displacement(self, i, d):
        """Return r_i = [a, d sin(alpha), d cos(alpha)] (eq. 1.14, frame i)."""
        return np.array([self.a[i], d * self.sin_alpha[i],
                         d * self.cos_alpha[i]])

    def transform(self, i, c, s, d):
        """Return the 4x4 T_{i-1}^i (eq. 1.13): [[R, p], [0, 1]]."""
        R = self.rotation(i, c, s)
        p = np.array([self.a[i] * c, self.a[i] * s, d])
        return np.block([[R, p.reshape(3, 1)],
                         [np.array([[0.0, 0.0, 0.0, 1.0]])]])


def dh_chain(source):
    """
    Return the DHChain of a serial RobotModel or a DHTable.

    A model is read through ``dh_table(model, 'standard')``; a modified-DH
    table is first turned into a model.  Tool transforms do not matter to
    joint torques; the base rotation only turns gravity into frame 0.
    """
    if isinstance(source, DHChain):
        return source
    if isinstance(source, RobotModel):
        table = dh_table(source, 'standard')
    elif isinstance(source, DHTable):
        table = source if source.convention == 'standard' else dh_table(
            from_dh(source), 'standard')
    else:
        raise ModelError('expected a RobotModel, DHTable or DHChain, got %s'
                         % type(source).__name__)
    if not np.all(np.isin(table.joint_type, (REVOLUTE, PRISMATIC))):
        raise ModelError('DH chain: unknown joint types %s' % (
            table.joint_type,))
    return DHChain(
        joint_type=table.joint_type.copy(), a=table.a.copy(),
        d=table.d.copy(), theta=table.theta.copy(),
        cos_alpha=_exact(np.cos(table.alpha)),
        sin_alpha=_exact(np.sin(table.alpha)), mass=table.mass.copy(),
        com=table.com.copy(), inertia=table.inertia_com.copy(),
        gravity=table.base[:3, :3].T @ table.gravity,
        armature=table.armature.copy(), joint_names=list(table.joint_names))


def _exact(values):
    """Snap cos/sin of right angles to exact 0 and +-1 (as DH tables mean)."""
    values = np.array(values, dtype=float)
    for exact in (-1.0, 0.0, 1.0):
        values[np.abs(values - exact) < 1e-15] = exact
    return values


def as_joint_vector(chain, value, name):
    """Check a per-joint vector's length; keep its element type."""
    if len(value) != chain.n:
        raise ValueError('%s must have %d values (one per joint), got %d'
                         % (name, chain.n, len(value)))
    return value
