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
Analytic partial derivatives of inverse dynamics: dtau/dq, dtau/dqd, M.

Forward-mode differentiation of the recursive Newton-Euler algorithm
(Featherstone 2008, Table 5.1), carried for all joints at once: every body
quantity of the RNEA (velocity v, acceleration a, force f) travels with its
tangent, a 6 x 3n matrix whose columns are its partial derivatives with
respect to q, qd and qdd.  The same recursion as the RNEA therefore yields the
three Jacobians in one outward and one inward pass, O(n^2) operations in all
(each body touches at most n columns), as in Carpentier and Mansard (2018),
"Analytical derivatives of rigid body dynamics algorithms".

The three rules that differentiate the recursion (body coordinates):

- Xup_i = XJ(q_i) Xtree_i depends on q_i only, with
  dXup_i/dq_i = -(S_i x) Xup_i (the body turns at S_i relative to its
  parent, so parent-fixed vectors turn at -S_i in body coordinates) and
  d(Xup_i^T)/dq_i = Xup_i^T (S_i x*);
- d(v x m) = dv x m + v x dm  (motion cross product, bilinear);
- d(v x* h) = dv x* h + v x* dh  (force cross product, bilinear).

The derivative with respect to qdd is the joint-space inertia M (Turney et
al.'s "strobing" with unit accelerations, done for all columns at once).

This tangent recursion is the numpy reference path
(``reference_inverse_dynamics_derivatives``); the compiled path
(``dynamics_ros.fast.rnea_derivatives``) computes the same Jacobians from
root-frame composites, entry by entry, as Pinocchio does.
"""

import numpy as np

from .dispatch import dispatch, MATRIX, Operation
from .rnea import base_acceleration, force_cross, one_state
from ..model.joints import parent_transforms
from ..spatial import cross_motion, skew


def force_bar(h):
    """
    Matrix of ``w -> w x* h`` for a fixed force vector ``h``.

    It differentiates the gyroscopic force ``v x* (I v)`` with respect to its
    left factor.
    """
    bar = np.zeros((6, 6))
    bar[:3, :3] = -skew(h[:3])
    bar[:3, 3:] = -skew(h[3:])
    bar[3:, :3] = -skew(h[3:])
    return bar


def reference_inverse_dynamics_derivatives(model, q, qd, qdd, f_ext=None):
    """Inverse-dynamics Jacobians of one state in numpy: the reference."""
    q, qd, qdd, f_ext = one_state(model, q, qd, qdd, 'qdd', f_ext)
    Xup = parent_transforms(model, q)
    n = model.nq
    S, inertia, parent = model.motion_subspace, model.spatial_inertia, \
        model.parent
    v = np.zeros((n, 6))
    a = np.zeros((n, 6))
    f = np.zeros((n, 6))
    # Tangents of v and a side by side, (6, 6n): columns
    # [dv/dq | dv/dqd | dv/dqdd | da/dq | da/dqd | da/dqdd].
    dva = np.zeros((n, 6, 6 * n))
    df = np.zeros((n, 6, 3 * n))
    a_base = base_acceleration(model)
    for i in range(n):
        p = parent[i]
        S_cross = cross_motion(S[i])
        if p < 0:
            Xa = Xup[i] @ a_base
            Xv = np.zeros(6)
        else:
            Xv = Xup[i] @ v[p]
            Xa = Xup[i] @ a[p]
            dva[i] = Xup[i] @ dva[p]
        dv, da = dva[i][:, :3 * n], dva[i][:, 3 * n:]
        v[i] = Xv + S[i] * qd[i]
        v_cross = cross_motion(v[i])
        # v_i = Xup_i v_p + S_i qd_i; dXup_i/dq_i = -(S_i x) Xup_i.
        dv[:, i] -= S_cross @ Xv
        dv[:, n + i] += S[i]
        # a_i = Xup_i a_p + S_i qdd_i + v_i x S_i qd_i (Featherstone 5.7).
        a[i] = Xa + S[i] * qdd[i] + qd[i] * (v_cross @ S[i])
        da[:, i] -= S_cross @ Xa
        da[:, 2 * n + i] += S[i]
        da -= qd[i] * (S_cross @ dv)
        da[:, n + i] += v_cross @ S[i]
        # f_i = I_i a_i + v_i x* I_i v_i.
        h = inertia[i] @ v[i]
        f[i] = inertia[i] @ a[i] - v_cross.T @ h
        df[i] = inertia[i] @ da + (force_bar(h) - v_cross.T @ inertia[i]) @ dv
        if f_ext is not None:
            f[i] -= f_ext[i]
    dtau = np.zeros((n, 3 * n))
    for i in range(n - 1, -1, -1):
        dtau[i] = S[i] @ df[i]
        p = parent[i]
        if p >= 0:
            f[p] += Xup[i].T @ f[i]
            df[p] += Xup[i].T @ df[i]
            df[p][:, i] += Xup[i].T @ force_cross(S[i], f[i])
    M = dtau[:, 2 * n:] + np.diag(model.armature)
    return dtau[:, :n], dtau[:, n:2 * n], M


INVERSE_DYNAMICS_DERIVATIVES = Operation(
    reference=reference_inverse_dynamics_derivatives,
    kernel='rnea_derivatives.inverse_dynamics_derivatives',
    arguments=('q', 'qd', 'qdd'), results=(MATRIX, MATRIX, MATRIX),
    forces=True)


@INVERSE_DYNAMICS_DERIVATIVES.public
def inverse_dynamics_derivatives(model, q, qd, qdd, f_ext=None, *,
                                 out=None):
    """
    Partial derivatives of ``inverse_dynamics`` at (q, qd, qdd).

    Returns ``(dtau_dq, dtau_dqd, M)``, each (nq, nq), with
    ``dtau_dq[i, j] = d tau_i / d q_j`` and ``M = d tau / d qdd`` the
    joint-space inertia (armature included).  ``f_ext`` are the same
    body-frame wrenches ``inverse_dynamics`` takes; fixed in their bodies,
    they enter the derivatives through the transforms only.  Three
    (N, nq, nq) arrays for a batch; ``out`` is then a tuple of three.
    """
    return dispatch(INVERSE_DYNAMICS_DERIVATIVES, model, (q, qd, qdd), f_ext,
                    out)
