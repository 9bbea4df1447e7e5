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
Freeman's kinematic influence coefficients and generalized dynamics.

Freeman (1985), "Kinematic and dynamic modeling, analysis and control of
robotic systems via generalized coordinate transformation" (notes:
docs/papers/freeman_1985.md).  A dependent quantity u (a link's angular
velocity, a point's position) has first- and second-order influence
coefficients G = du/dphi and H, with Freeman's index convention

    H[p, m, n] = d G[p, n] / d phi_m      (row index = derivative index),

so u_dot = G phi_dot and u_ddot = G phi_ddot + phi_dot^T H phi_dot (eqs.
2-7, 2-27).  The rotational H is not symmetric; the translational H is.

The dynamics (eqs. 2-139, 2-141, 2-196, 2-197) are

    T = I* phi_ddot + phi_dot^T P* phi_dot - T^L,

with I* (nq, nq) the effective inertia (= the mass matrix) and P*
(nq, nq, nq) the "inertia power" array: plane P*[i] gives the velocity
torques of joint i as a quadratic form.  Everything moves to another set of
coordinates q = q(phi) through J = G^q_phi and H^q_phiphi alone (ch. III,
eqs. 3-15 to 3-36), which is how Freeman models closed loops and parallel
mechanisms from open chains.

Array operators (App. A): ``generalized_dot(A, C)[p] = sum_n A[p, n] C[n]``,
``congruence(X, C)[p] = X^T C[p] X``, ``quadratic(C, v)[p] = v^T C[p] v``.
"""

import numpy as np

from .jacobians import ancestors, joint_screws, point_in_root, \
    screw_jacobian
from .kinematics import as_vector, body_poses


def generalized_dot(A, C):
    """Freeman's generalized dot product: plane p is sum_n A[p, n] C[n]."""
    return np.einsum('pn,nij->pij', A, C)


def congruence(X, C):
    """Plane-wise congruence: plane p is X^T C[p] X."""
    return np.einsum('ip,nij,jq->npq', X, C, X)


def quadratic(C, v):
    """Plane-wise quadratic form: entry p is v^T C[p] v."""
    return np.einsum('i,pij,j->p', v, C, v)


def strict_ancestors(parent, mask):
    """
    Boolean (nq, nq): ``[m, n]`` when m is a strict ancestor of n.

    Only n with ``mask[n]`` are filled (the joints that move the link).
    """
    n = len(parent)
    strict = np.zeros((n, n), dtype=bool)
    for j in np.flatnonzero(mask):
        k = parent[j]
        while k >= 0:
            strict[k, j] = True
            k = parent[k]
    return strict


def influence_from_screws(screws, parent, mask, position):
    """G (6, nq) and H (6, nq, nq) of a link and a point from root screws."""
    n = screws.shape[0]
    G = screw_jacobian(screws, mask, position)
    w, v = screws[:, :3], screws[:, 3:]
    strict = strict_ancestors(parent, mask)
    # d S_n / d q_m = S_m x S_n (spatial cross product) when m is a strict
    # ancestor of n: the derivative of the rotational coefficients.
    cross_w = np.cross(w[:, None, :], w[None, :, :])
    cross_v = (np.cross(w[:, None, :], v[None, :, :])
               + np.cross(v[:, None, :], w[None, :, :]))
    H = np.zeros((6, n, n))
    H[:3] = (cross_w * strict[:, :, None]).transpose(2, 0, 1)
    # g^P_n = v_n + w_n x P: its derivative adds w_n x dP/dq_m = w_n x g^P_m
    # for every pair of joints moving the link (Table 2-3, translational).
    linear = (cross_v + np.cross(cross_w, position)) * strict[:, :, None]
    linear += np.cross(w[None, :, :], G[3:].T[:, None, :])
    pair = np.outer(mask, mask)
    H[3:] = (linear * pair[:, :, None]).transpose(2, 0, 1)
    return G, H


def influence_coefficients(model, q, link, point=None):
    """
    Freeman's first- and second-order influence coefficients of a link.

    ``link`` is a URDF link name of the model or a body index; ``point`` is
    in the link frame (default its origin).  Returns ``(G, H)``, root-frame
    coordinates, rows [angular; linear of the point]:

    - ``G`` (6, nq): the geometric Jacobian (``link_jacobian``);
    - ``H`` (6, nq, nq): ``H[p, m, n] = d G[p, n] / d q_m``, so the link's
      angular and the point's linear acceleration are
      ``G @ qdd + quadratic(H, qd)``.
    """
    body, _, position, rotations, translations = point_in_root(
        model, q, link, point)
    if body < 0:
        return np.zeros((6, model.nq)), np.zeros((6, model.nq, model.nq))
    screws = joint_screws(model, rotations, translations)
    return influence_from_screws(screws, model.parent,
                                 ancestors(model, body), position)


def dynamics_coefficients(model, q):
    """
    Freeman's I*, P* and gravity loads T^L of the model at q.

    Returns ``(I_star, P_star, T_load)`` with, summed over the bodies
    (eqs. 2-196, 2-197, 2-147; G^c, H^c of the centroid, G^w, H^w rotational,
    II the root-frame centroidal inertia):

    - ``I_star = sum m G^cT G^c + G^wT II G^w`` (+ armature on the diagonal),
      equal to ``mass_matrix``;
    - ``P_star = sum (m G^cT).H^c + (G^wT II).H^w + gyroscopic`` where the
      gyroscopic plane i is [k, m] -> (II g^w_k).(g^w_i x g^w_m), so that
      ``quadratic(P_star, qd)`` are the Coriolis and centripetal torques;
    - ``T_load = sum G^cT m g``, the gravity torques the joints feel.

    Then ``inverse_dynamics(q, qd, qdd) = I_star @ qdd
    + quadratic(P_star, qd) - T_load``.
    """
    q = as_vector(model, q, 'q')
    n = model.nq
    rotations, translations = body_poses(model, q)
    screws = joint_screws(model, rotations, translations)
    I_star = np.diag(model.armature.astype(float))
    P_star = np.zeros((n, n, n))
    T_load = np.zeros(n)
    for body in range(n):
        mass, rotation = model.mass[body], rotations[body]
        centroid = translations[body] + rotation @ model.com[body]
        G, H = influence_from_screws(screws, model.parent,
                                     ancestors(model, body), centroid)
        G_w, G_c, H_w, H_c = G[:3], G[3:], H[:3], H[3:]
        inertia = rotation @ model.inertia_com[body] @ rotation.T
        I_star += mass * G_c.T @ G_c + G_w.T @ inertia @ G_w
        P_star += generalized_dot(mass * G_c.T, H_c)
        P_star += generalized_dot(G_w.T @ inertia, H_w)
        spin = np.cross(G_w.T[:, None, :], G_w.T[None, :, :])  # g_i x g_m
        P_star += np.einsum('ak,ima->ikm', inertia @ G_w, spin)
        T_load += G_c.T @ (mass * model.gravity)
    return I_star, P_star, T_load


def invert_influence(J, H):
    """
    Inverse coefficients of a coordinate change q = q(phi).

    ``J = G^q_phi`` (square, nonsingular) and ``H = H^q_phiphi``.  Returns
    ``(G^phi_q, H^phi_qq)`` = (J^-1, -J^-T (J^-1 . H) J^-1), eqs. 3-15, 3-19.
    """
    J_inv = inverse_jacobian(J)
    return J_inv, -congruence(J_inv, generalized_dot(J_inv, H))


def transfer_influence(G, H, J, H_q):
    """
    Influence coefficients of u with respect to new coordinates q.

    ``G = G^u_phi``, ``H = H^u_phiphi``; ``J = G^q_phi``,
    ``H_q = H^q_phiphi``.  Returns ``(G^u_q, H^u_qq)``:
    G J^-1 and J^-T {H - (G^u_q . H_q)} J^-1 (eqs. 3-22, 3-26).
    """
    J_inv = inverse_jacobian(J)
    G_q = G @ J_inv
    return G_q, congruence(J_inv, H - generalized_dot(G_q, H_q))


def transfer_dynamics(I_star, P_star, J, H_q, T_load=None):
    """
    Freeman's I*, P* (and T^L) in new coordinates q = q(phi).

    ``J = G^q_phi``, ``H_q = H^q_phiphi``.  Returns ``(I*_qq, P*_qqq)``, or
    with ``T_load`` also ``T^L_q``:

    - I*_qq = J^-T I* J^-1 (eq. 3-34);
    - P*_qqq = J^-T {(J^-T . P*) - (I*_qq . H_q)} J^-1 (eq. 3-35);
    - T^L_q = J^-T T^L (eq. 3-36).

    The generalized forces along q then obey T_q = I*_qq q_ddot +
    quadratic(P*_qqq, q_dot) - T^L_q.
    """
    J_inv = inverse_jacobian(J)
    I_q = J_inv.T @ I_star @ J_inv
    P_q = congruence(J_inv, generalized_dot(J_inv.T, P_star)
                     - generalized_dot(I_q, H_q))
    if T_load is None:
        return I_q, P_q
    return I_q, P_q, J_inv.T @ T_load


def inverse_jacobian(J):
    """Return J^-1, or say why the coordinate change cannot be inverted."""
    J = np.asarray(J, dtype=float)
    if J.ndim != 2 or J.shape[0] != J.shape[1]:
        raise ValueError('the coordinate change needs a square G^q_phi, got '
                         'shape %s' % (J.shape,))
    if np.linalg.cond(J) > 1e12:
        raise ValueError('G^q_phi is singular (condition number %.3g): the '
                         'new coordinates do not determine the old ones '
                         'here' % np.linalg.cond(J))
    return np.linalg.inv(J)
