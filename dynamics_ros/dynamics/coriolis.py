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
Coriolis matrix C(q, qd) from the Christoffel symbols, in spatial form.

With body Jacobians J_k and inertias I_k in the root frame,
M = sum_k J_k^T I_k J_k.  The factorisation

    C = sum_k J_k^T (I_k dJ_k/dt + 1/2 (dI_k/dt + (I_k v_k) xbar) J_k),

where dI/dt = v x* I - I v x and (h xbar) w = w x* h, gives C qd equal to the
velocity terms of RNEA and makes dM/dt - 2C skew-symmetric (both terms are
pairs of a matrix and minus its transpose).  It is the Christoffel-symbol C of
Echeandia and Wensing (2021), the one Pinocchio's computeCoriolisMatrix
returns.
"""

import numpy as np

from .dispatch import dispatch, MATRIX, Operation
from .rnea import motion_cross
from ..model.joints import as_vector, parent_transforms
from ..spatial import cross_force, cross_motion, skew


def _force_bar(h):
    """Matrix of w -> w x* h for a fixed force vector h."""
    bar = np.zeros((6, 6))
    bar[:3, :3] = -skew(h[:3])
    bar[:3, 3:] = -skew(h[3:])
    bar[3:, :3] = -skew(h[3:])
    return bar


def ancestor_mask(model):
    """Boolean (nq, nq): ``mask[k, j]`` when joint j moves body k."""
    n = model.nq
    mask = np.zeros((n, n), dtype=bool)
    for k in range(n):
        j = k
        while j >= 0:
            mask[k, j] = True
            j = model.parent[j]
    return mask


def reference_coriolis_matrix(model, q, qd):
    """Coriolis matrix of one state in numpy: the reference path."""
    q = as_vector(model, q, 'q')
    qd = as_vector(model, qd, 'qd')
    n = model.nq
    Xup = parent_transforms(model, q)
    # Root-frame quantities: X0[i] maps root motion coordinates to body i.
    S_root = np.zeros((n, 6))
    S_dot = np.zeros((n, 6))
    v_root = np.zeros((n, 6))
    inertia_root = np.zeros((n, 6, 6))
    X0 = [None] * n
    for i in range(n):
        p = model.parent[i]
        X0[i] = Xup[i] if p < 0 else Xup[i] @ X0[p]
        to_root = np.linalg.inv(X0[i])
        S_root[i] = to_root @ model.motion_subspace[i]
        v_root[i] = S_root[i] * qd[i] + (v_root[p] if p >= 0 else 0.0)
        S_dot[i] = motion_cross(v_root[i], S_root[i])
        inertia_root[i] = X0[i].T @ model.spatial_inertia[i] @ X0[i]
    mask = ancestor_mask(model)
    C = np.diag(np.zeros(n))
    for k in range(n):
        J = S_root.T * mask[k]
        J_dot = S_dot.T * mask[k]
        inertia, v = inertia_root[k], v_root[k]
        inertia_dot = cross_force(v) @ inertia - inertia @ cross_motion(v)
        B = 0.5 * (inertia_dot + _force_bar(inertia @ v))
        C += J.T @ (inertia @ J_dot + B @ J)
    return C


CORIOLIS_MATRIX = Operation(
    reference=reference_coriolis_matrix, kernel='coriolis.coriolis_matrix',
    arguments=('q', 'qd'), results=(MATRIX,))


@CORIOLIS_MATRIX.public
def coriolis_matrix(model, q, qd, *, out=None):
    """
    Coriolis/centrifugal matrix C with C qd = h - g, dM/dt - 2C skew.

    (N, nq, nq) for a batch.  Compiled: ``dynamics_ros.fast.coriolis``
    (C = 1/2 dtau/dqd from root-frame subtree sums).
    """
    return dispatch(CORIOLIS_MATRIX, model, (q, qd), out=out)
