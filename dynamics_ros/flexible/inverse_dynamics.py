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
Inverse dynamics of a flexible tree: Book's recursive 4x4 Lagrangian.

Mackay (1988) eqs. 2.32-2.35 and 2.82-2.85, after Book (1984) and
Hollerbach (1980).  Lagrange's equation for a coordinate z_c is

    d/dt dT/dzd_c - dT/dz_c + dV/dz_c = sum_i int (dp/dz_c)^T (pdd - g) dm

and with p = W_i h, h = h0 + sum_k delta_ik psi_ik, the body's share is a
4x4 matrix (body coordinates x world):

    E_i = int h (pdd - g)^T dm
        = 2 [G_i Wdd_i^T + 2 sum_k deltad_k D_ik Wd_i^T
             + sum_k deltadd_k D_ik W_i^T]

    G_i  = C + sum_k delta_k (C_k + C_k^T) + sum_kj delta_k delta_j C_kj
    D_ik = C_k + sum_j delta_j C_jk             (eqs. 2.24-2.31, factor 1/2)

A backward pass sums them over subtrees, Lambda_i = E_i + sum_c X_c
Lambda_c (Mackay's Q_j recursion), and then

- joint i:   tau_i = Tr[W_i Omega_i Lambda_i]          (eq. 2.82)
- mode ik:   Tr[W_i int psi_k (pdd - g)^T dm]          (own points)
             + sum_c Tr[W_i N_ikc T_c Lambda_c]        (children, eq. 2.84)
             + K_ik delta_ik + c_ik deltad_ik          (eq. 2.52)

with int psi_k pdd^T dm = 2 [D_k^T Wdd^T + 2 sum_j deltad_j C_kj Wd^T +
sum_j deltadd_j C_kj W^T].  Gravity is the base acceleration of the
forward pass, so it needs no separate P recursion (Mackay eq. 2.83).
"""

import numpy as np

from .kinematics import forward_pass


def trace_products(M, A, B):
    """Return Tr[A M_k B^T] for a stack M (m, 4, 4) as sum(M_k * A^T B)."""
    return M.reshape(-1, 16) @ (A.T @ B).ravel()


def body_inertia(fm, i, z):
    """
    G_i and D_ik of body i at amplitudes z (eqs. 2.24-2.31).

    D_k = C_k + sum_j delta_j C_jk and G = C + sum_k delta_k (C_k + C_k^T
    + sum_j delta_j C_jk), with the sums as flat dot products.
    """
    C, Ck = fm.C[i], fm.Ck[i]
    m = len(Ck)
    if not m:
        return C, Ck
    delta = z[fm.mode_slices[i]]
    coupled = (delta @ fm.Ckj[i].reshape(m, 16 * m)).reshape(m, 16)
    D = Ck + coupled.reshape(m, 4, 4)
    G = C + (delta @ (fm.Ck_symmetric[i] + coupled)).reshape(4, 4)
    return G, D


def body_inertias(fm, fwd, z):
    """G_i and D_ik of every body, computed once per forward pass."""
    if fwd.G is None:
        fwd.G, fwd.D = zip(*[body_inertia(fm, i, z)
                             for i in range(fm.model.nq)])
    return fwd.G, fwd.D


def generalized_forces(fm, z, zd, zdd, gravity=True, elastic=True,
                       fwd=None):
    """
    Return I(z) zdd + c(z, zd) + g(z) + K delta + c deltad (elastic=True).

    Joint rows are the joint forces and torques; modal rows the modal
    residual, zero on a motion the model can make with joint forces only.
    Joint armature adds ``armature * qdd`` as in dr.inverse_dynamics.
    ``fwd`` is a forward pass already made with the same arguments.
    """
    model = fm.model
    n = model.nq
    if fwd is None:
        fwd = forward_pass(fm, z, zd, zdd, gravity)
    G, D = body_inertias(fm, fwd, z)
    # Float for float input; object arrays (op_counts' counted numbers)
    # keep their element type.
    force = np.zeros(fm.nz, dtype=np.result_type(z, zd, zdd))
    Lam = [None] * n
    for i in range(n):
        W, Wd, Wdd = fwd.W[i], fwd.Wd[i], fwd.Wdd[i]
        E = G[i].dot(Wdd.T)
        s = fm.mode_slices[i]
        m = len(D[i])
        if m:
            flat = D[i].reshape(m, 16)
            E = E + ((2.0 * zd[s]).dot(flat)).reshape(4, 4).dot(Wd.T) + \
                (zdd[s].dot(flat)).reshape(4, 4).dot(W.T)
            # Own points of the modes (eq. 2.84, second bracket).
            Ckj = fm.Ckj[i].reshape(m * m, 16)
            force[s] = 2.0 * (
                flat.dot(Wdd.T.dot(W).ravel()) +
                2.0 * Ckj.dot(W.T.dot(Wd).ravel()).reshape(m, m).dot(zd[s])
                + Ckj.dot(W.T.dot(W).ravel()).reshape(m, m).dot(zdd[s]))
        Lam[i] = 2.0 * E
    for i in range(n - 1, -1, -1):
        # tau_i = Tr[W_i Omega_i Lambda_i] (eq. 2.82).
        force[i] = fwd.W[i].dot(fm.generator[i]).ravel().dot(
            Lam[i].T.ravel())
        p = model.parent[i]
        if p < 0:
            continue
        N = fm.attachment[i]
        if N is not None:
            # Children's share of the parent's modes: Tr[W_p N_k T_i Lam_i].
            force[fm.mode_slices[p]] += N.reshape(-1, 16).dot(
                fwd.T[i].dot(Lam[i]).dot(fwd.W[p]).T.ravel())
        Lam[p] = Lam[p] + fwd.X[i].dot(Lam[i])
    force[:fm.nq] += model.armature * zdd[:fm.nq]
    if elastic:
        force += fm.stiffness * z + fm.modal_damping * zd
    return force


def inverse_dynamics(fm, z, zd, zdd):
    """
    Generalized forces that produce zdd at (z, zd) (Mackay sec. 2.5).

    The joint rows are the torques FLX's inverse dynamics returns
    (F = I zdd - R with F = 0 in R); the modal rows are the residual of the
    modal equations, about zero on a simulated trajectory.
    """
    return generalized_forces(fm, fm.check(z, 'z'), fm.check(zd, 'zd'),
                              fm.check(zdd, 'zdd'))


def bias_forces(fm, z, zd):
    """Velocity products, gravity, elastic and damping forces (zdd = 0)."""
    zd = fm.check(zd, 'zd')
    return generalized_forces(fm, fm.check(z, 'z'), zd, np.zeros_like(zd))


def gravity_forces(fm, z):
    """Generalized gravity forces g(z) (joint and modal rows)."""
    z = fm.check(z, 'z')
    zero = np.zeros_like(z)
    return generalized_forces(fm, z, zero, zero, gravity=True,
                              elastic=False)


def elastic_forces(fm, z, zd):
    """Modal stiffness and damping forces K delta + c deltad."""
    return fm.stiffness * fm.check(z, 'z') + fm.modal_damping * fm.check(
        zd, 'zd')
