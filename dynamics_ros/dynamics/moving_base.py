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
Inverse dynamics of an arm on a base with prescribed motion, and its reaction loads.

Nasser (1990, sec. 2.1.2; docs/papers/nasser_1990.md) takes the base's
motion as given: "v_dot_1, omega_dot_1 and (v_1, omega_1) are given", and
the joint reactions come out of the recursion (eq. 2.1.20: gamma G_i F_i).
This is the same problem in the RNEA (Featherstone 2008, Table 5.1) with
the fixed base's fictitious acceleration -g replaced by the base's own
spatial velocity and acceleration: an arm on a vehicle, a torso or a
shaking table.

Conventions (the core API's): spatial vectors [angular; linear]; the base's
velocity ``base_velocity = (omega, v)`` and acceleration
``base_acceleration = (omega_dot, v_dot)`` are those of the root frame's
origin, in the root frame's axes, v_dot its classical (not spatial)
acceleration; gravity is ``model.gravity`` in the root frame's axes (pass
``gravity=`` when the base has turned).  Wrenches are [moment; force].
"""

from collections import namedtuple

import numpy as np

from .rnea import external_forces, force_cross, motion_cross
from ..errors import ModelError
from ..model.joints import as_vector, parent_transforms
from ..model.mimic_model import MimicModel

MovingBaseDynamics = namedtuple('MovingBaseDynamics',
                                'tau joint_wrenches base_wrench')
MovingBaseDynamics.__doc__ = """\
Loads of an arm on a moving base (``moving_base_inverse_dynamics``).

tau (nq,) joint torques; joint_wrenches (nq, 6): the wrench [moment; force]
that body i's parent (or the base) exerts on body i through joint i, in
body i's frame about its origin (Pinocchio's ``data.f`` after rnea);
base_wrench (6,): the wrench the base exerts on the arm, root axes, about
the root origin.
"""


def base_vector(value, name):
    """Return a base motion 6-vector [angular; linear] (zero for None)."""
    if value is None:
        return np.zeros(6)
    value = np.asarray(value, dtype=float)
    if value.shape != (6,) or not np.all(np.isfinite(value)):
        raise ValueError('%s must be 6 finite numbers [angular; linear], got '
                         '%s' % (name, str(value)[:80]))
    return value


def spatial_base_acceleration(base_velocity, base_acceleration, gravity):
    """
    Return the base's spatial acceleration with gravity folded in.

    The spatial linear part of a frame's acceleration is v_dot - omega x v
    (Featherstone 2008, sec. 2.11); gravity enters as an upward
    acceleration -g of the base, as in the fixed-base RNEA.
    """
    omega, v = base_velocity[:3], base_velocity[3:]
    return np.concatenate((base_acceleration[:3],
                           base_acceleration[3:] - np.cross(omega, v)
                           - gravity))


def moving_base_inverse_dynamics(model, q, qd, qdd, base_velocity=None,
                                 base_acceleration=None, gravity=None,
                                 f_ext=None):
    """
    Joint torques and reaction loads of an arm on a moving base.

    ``base_velocity`` and ``base_acceleration`` (6,) [angular; linear] of
    the root frame in its own axes (module notes; default at rest);
    ``gravity`` (3,) in the root axes (default ``model.gravity``);
    ``f_ext`` as in ``inverse_dynamics``.  Returns a MovingBaseDynamics.
    With the base at rest this is ``inverse_dynamics``.
    """
    if isinstance(model, MimicModel):
        raise ModelError('moving_base_inverse_dynamics takes a RobotModel; '
                         'use model.tree for a mimic model %r' % model.name)
    q = as_vector(model, q, 'q')
    qd = as_vector(model, qd, 'qd')
    qdd = as_vector(model, qdd, 'qdd')
    f_ext = external_forces(model, f_ext)
    v0 = base_vector(base_velocity, 'base_velocity')
    if gravity is None:
        gravity = model.gravity
    gravity = np.asarray(gravity, dtype=float)
    if gravity.shape != (3,) or not np.all(np.isfinite(gravity)):
        raise ValueError('gravity must be 3 finite numbers (root axes), got '
                         '%s' % str(gravity)[:80])
    a0 = spatial_base_acceleration(
        v0, base_vector(base_acceleration, 'base_acceleration'), gravity)
    n = model.nq
    S, inertia, parent = model.motion_subspace, model.spatial_inertia, \
        model.parent
    Xup = parent_transforms(model, q)
    v, a, f = np.zeros((n, 6)), np.zeros((n, 6)), np.zeros((n, 6))
    for i in range(n):
        vJ = S[i] * qd[i]
        v_parent = v0 if parent[i] < 0 else v[parent[i]]
        a_parent = a0 if parent[i] < 0 else a[parent[i]]
        v[i] = Xup[i] @ v_parent + vJ
        a[i] = Xup[i] @ a_parent + S[i] * qdd[i] + motion_cross(v[i], vJ)
        f[i] = inertia[i] @ a[i] + force_cross(v[i], inertia[i] @ v[i])
        if f_ext is not None:
            f[i] -= f_ext[i]
    tau = np.zeros(n)
    base_wrench = np.zeros(6)
    for i in range(n - 1, -1, -1):
        tau[i] = S[i] @ f[i]
        if parent[i] >= 0:
            f[parent[i]] += Xup[i].T @ f[i]
        else:
            base_wrench += Xup[i].T @ f[i]
    return MovingBaseDynamics(tau + model.armature * qdd, f, base_wrench)
