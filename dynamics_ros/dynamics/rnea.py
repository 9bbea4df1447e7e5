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
Inverse dynamics by the recursive Newton-Euler algorithm (RNEA).

Featherstone (2008) Table 5.1; the link-frame recursion of Luh, Walker and
Paul as restated by Turney, Mudge and Lee (1980) eqs. 3.15-3.21, written with
spatial vectors.  Gravity enters as a fictitious base acceleration -g
(Turney's "upward acceleration of g, as in an elevator").
"""

import numpy as np

from .dispatch import dispatch, Operation, TORQUE
from ..model.joints import as_vector, parent_transforms


def motion_cross(v, m):
    """Return the spatial cross product ``v x m`` of two motion vectors."""
    # Written out: np.cross costs ~10 us per 3-vector call, this ~2 us.
    w0, w1, w2, u0, u1, u2 = v
    a0, a1, a2, b0, b1, b2 = m
    return np.array([
        w1 * a2 - w2 * a1, w2 * a0 - w0 * a2, w0 * a1 - w1 * a0,
        w1 * b2 - w2 * b1 + u1 * a2 - u2 * a1,
        w2 * b0 - w0 * b2 + u2 * a0 - u0 * a2,
        w0 * b1 - w1 * b0 + u0 * a1 - u1 * a0])


def force_cross(v, f):
    """Return the spatial cross product ``v x* f`` (motion v, force f)."""
    w0, w1, w2, u0, u1, u2 = v
    n0, n1, n2, f0, f1, f2 = f
    return np.array([
        w1 * n2 - w2 * n1 + u1 * f2 - u2 * f1,
        w2 * n0 - w0 * n2 + u2 * f0 - u0 * f2,
        w0 * n1 - w1 * n0 + u0 * f1 - u1 * f0,
        w1 * f2 - w2 * f1, w2 * f0 - w0 * f2, w0 * f1 - w1 * f0])


def external_forces(model, f_ext):
    """Check per-body external wrenches: (nq, 6) [moment; force] or None."""
    if f_ext is None:
        return None
    f_ext = np.asarray(f_ext, dtype=float)
    if f_ext.shape != (model.nq, 6):
        raise ValueError('f_ext must have shape (%d, 6): one wrench '
                         '[moment; force] per body, in the body frame, got %s'
                         % (model.nq, f_ext.shape))
    return f_ext


def one_state(model, q, qd, third, name, f_ext):
    """
    Check the arguments of one state: (q, qd, third, f_ext) as arrays.

    ``third`` (qdd or tau) is named ``name`` in errors; ``f_ext`` stays
    None for no wrenches.
    """
    return (as_vector(model, q, 'q'), as_vector(model, qd, 'qd'),
            as_vector(model, third, name), external_forces(model, f_ext))


def base_acceleration(model):
    """Spatial acceleration of the fixed base that stands in for gravity."""
    return np.concatenate((np.zeros(3), -model.gravity))


def body_motion(model, Xup, qd, qdd):
    """
    Return v and a, (nq, 6): every body's velocity and acceleration.

    The outward pass of the RNEA (Featherstone 2008 Table 5.1):
    v_i = Xup_i v_p + S_i qd_i, a_i = Xup_i a_p + S_i qdd_i + v_i x S_i qd_i,
    the base at rest but accelerating at -g.  ``Xup`` from
    ``parent_transforms``.
    """
    n = model.nq
    S, parent = model.motion_subspace, model.parent
    v = np.zeros((n, 6))
    a = np.zeros((n, 6))
    a_base = base_acceleration(model)
    for i in range(n):
        vJ = S[i] * qd[i]
        p = parent[i]
        if p < 0:
            v[i] = vJ
            a[i] = Xup[i] @ a_base + S[i] * qdd[i]
        else:
            v[i] = Xup[i] @ v[p] + vJ
            a[i] = Xup[i] @ a[p] + S[i] * qdd[i] + motion_cross(v[i], vJ)
    return v, a


def reference_inverse_dynamics(model, q, qd, qdd, f_ext=None):
    """Inverse dynamics of one state in numpy: the reference path."""
    q, qd, qdd, f_ext = one_state(model, q, qd, qdd, 'qdd', f_ext)
    n = model.nq
    S, inertia, parent = model.motion_subspace, model.spatial_inertia, \
        model.parent
    Xup = parent_transforms(model, q)
    v, a = body_motion(model, Xup, qd, qdd)
    f = np.zeros((n, 6))
    for i in range(n):
        f[i] = inertia[i] @ a[i] + force_cross(v[i], inertia[i] @ v[i])
        if f_ext is not None:
            f[i] -= f_ext[i]
    tau = np.zeros(n)
    for i in range(n - 1, -1, -1):
        tau[i] = S[i] @ f[i]
        if parent[i] >= 0:
            f[parent[i]] += Xup[i].T @ f[i]
    return tau + model.armature * qdd


INVERSE_DYNAMICS = Operation(
    reference=reference_inverse_dynamics, kernel='rnea.inverse_dynamics',
    arguments=('q', 'qd', 'qdd'), results=(TORQUE,), forces=True)


@INVERSE_DYNAMICS.public
def inverse_dynamics(model, q, qd, qdd, f_ext=None, *, out=None):
    """
    Joint torques tau = M(q) qdd + C(q, qd) qd + g(q) - J^T f_ext.

    ``f_ext[i]`` is the wrench [moment; force] applied *to* body i, in body
    i's frame about its origin.  Joint armature adds ``armature * qdd``.
    tau is (N, nq) for a batch (``dynamics_ros.dynamics``: batches, out=).
    """
    return dispatch(INVERSE_DYNAMICS, model, (q, qd, qdd), f_ext, out)
