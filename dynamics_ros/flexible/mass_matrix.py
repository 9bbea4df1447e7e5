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
Inertia matrix I(z) of a flexible tree by composite pseudo-inertias.

Mackay (1988) eqs. 2.64-2.81: I_ab = int (dp/dz_a)^T (dp/dz_b) dm, built
from the backward recursion of composite (half) pseudo-inertias

    F_i = G_i + sum_c X_c F_c X_c^T        (Mackay's F~, body-i coordinates)

For a coordinate b of body j let Y_b = int h (dp/dz_b)^T dm over the points
it moves (body-j coordinates x world):

    joint j:  Y = 2 F_j Omega_j^T W_j^T
    mode jk:  Y = 2 [D_jk + sum_c X_c F_c T_c^T N_jkc^T] W_j^T

Walking towards the root, Y <- X_c Y, each ancestor coordinate a meets b in

    joint i:  I_ab = Tr[W_i Omega_i Y]
    mode ik:  I_ab = Tr[W_i N_ikc T_c Y]   (c: child of i on the path)

and two modes of the same body add their own-point term 2 Tr[W C_kj W^T]
(eq. 2.78).  This is the composite-rigid-body algorithm in Book's 4x4 form;
tests hold it equal to unit-acceleration columns of the inverse dynamics.
"""

import numpy as np

from .inverse_dynamics import body_inertias
from .kinematics import forward_pass


def composite_inertias(fm, fwd, z):
    """Per body: G_i, D_ik and the composite F_i of its subtree."""
    G, D = body_inertias(fm, fwd, z)
    # Float for a float pass; object for op_counts' counted numbers.
    dtype = np.result_type(*fwd.W)
    F = [g.astype(dtype) for g in G]
    for i in range(fm.model.nq - 1, -1, -1):
        p = fm.model.parent[i]
        if p >= 0:
            F[p] += fwd.X[i].dot(F[i]).dot(fwd.X[i].T)
    return G, D, F


def body_columns(fm, fwd, j, D, F):
    """Y matrices (1 + m, 4, 4) of the joint and modes of body j."""
    W = fwd.W[j]
    Y = np.empty((1 + len(D[j]), 4, 4), dtype=np.result_type(F[j], W))
    Y[0] = 2.0 * F[j].dot(fm.generator[j].T).dot(W.T)
    if len(D[j]):
        own = D[j].copy()
        for c in fm.model.children[j]:
            N = fm.attachment[c]
            own += fwd.X[c].dot(F[c]).dot(fwd.T[c].T) @ np.swapaxes(N, 1, 2)
        Y[1:] = 2.0 * own.dot(W.T)
    return Y


def same_body_modes(fm, fwd, j, F):
    """Mode-mode block of body j: own points plus its children's subtrees."""
    W = fwd.W[j]
    m = len(fm.Ck[j])
    own = fm.Ckj[j].reshape(m * m, 16).dot(W.T.dot(W).ravel())
    block = 2.0 * own.reshape(m, m)
    for c in fm.model.children[j]:
        A = W @ fm.attachment[c]                       # (m, 4, 4)
        AP = A.dot(fwd.T[c].dot(F[c]).dot(fwd.T[c].T))
        block += 2.0 * AP.reshape(m, 16).dot(A.reshape(m, 16).T)
    return block


def _put(inertia, row, j, modes, values):
    """
    Write the entries of row(s) ``row`` against body j's coordinates.

    ``values[..., 0]`` is joint j's column, the rest its modes' columns;
    the mirror entries are written too (I is symmetric).
    """
    inertia[row, j] = values[..., 0]
    inertia[j, row] = values[..., 0]
    inertia[row, modes] = values[..., 1:]
    inertia[modes, row] = np.swapaxes(values[..., 1:], 0, -1) if np.ndim(
        values) > 1 else values[1:]


def mass_matrix(fm, z):
    """Symmetric positive-definite I(z), (nz, nz), armature included."""
    z = fm.check(z, 'z')
    zero = np.zeros_like(z)
    return mass_matrix_of_pass(fm, forward_pass(fm, z, zero, zero), z)


def mass_matrix_of_pass(fm, fwd, z):
    """I(z) from the transforms W, X, T of a forward pass made at z."""
    model = fm.model
    G, D, F = composite_inertias(fm, fwd, z)
    inertia = np.zeros((fm.nz, fm.nz), dtype=np.result_type(*fwd.W))
    for j in range(model.nq):
        Y = body_columns(fm, fwd, j, D, F)
        k = len(Y)
        modes = fm.mode_slices[j]
        # Tr[A Y_n] = sum(A^T * Y_n): flat products against A^T.
        WOmega = fwd.W[j].dot(fm.generator[j])
        _put(inertia, j, j, modes, Y.reshape(k, 16).dot(WOmega.T.ravel()))
        if k > 1:
            inertia[modes, modes] = same_body_modes(fm, fwd, j, F)
        c = j
        while model.parent[c] >= 0:
            i = model.parent[c]
            N = fm.attachment[c]
            if N is not None:
                TYW = fwd.T[c] @ Y.dot(fwd.W[i])
                _put(inertia, fm.mode_slices[i], j, modes, N.reshape(-1, 16).dot(
                     np.swapaxes(TYW, 1, 2).reshape(k, 16).T))
            Y = fwd.X[c] @ Y
            A = fwd.W[i].dot(fm.generator[i])
            _put(inertia, i, j, modes, Y.reshape(k, 16).dot(A.T.ravel()))
            c = i
    inertia[np.diag_indices(fm.nq)] += model.armature
    return inertia
