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
Freeman's third-order influence coefficients: jerk, and resolved jerk.

Freeman (1985; docs/papers/freeman_1985.md), Table 2-5 and eqs. 2-44,
3-46.  With G and H of ``influence_coefficients`` (H[p, m, n] = dG[p, n] /
dq_m) the third order is D[p, l, m, n] = dH[p, m, n] / dq_l, and

    u_dddot = G q_dddot + q_ddot^T (H + 2 H^T) q_dot + (q_dot^T D q_dot) q_dot
                                                                   (2-44)

(the last term sum_lmn D[p, l, m, n] qd_l qd_m qd_n).  For a coordinate
change q = q(phi) with J = G^q_phi, the joint jerk of a task jerk is

    phi_dddot = J^-1 (q_dddot - phi_ddot^T (H + 2 H^T) phi_dot
                      - (phi_dot^T D phi_dot) phi_dot)              (3-46)

which gives the nominal jerk (and so the motor voltages) of a hand
trajectory.  D is built from the joint screws xi_k = (w_k, v_k) at the
root origin: d xi_k / dq_l = xi_l x xi_k for l a strict ancestor of k, and
the point moves by dP/dq_l = v_l + w_l x P.  On a serial revolute chain it
reduces to Table 2-5 (rotational: w_l x (w_m x w_n) for l < m < n, w_m x
(w_l x w_n) for m <= l < n; translational: fully symmetric).
"""

import numpy as np

from .influence import influence_from_screws, strict_ancestors
from .jacobians import ancestors, joint_screws, point_in_root
from .kinematics import as_vector


def third_order_coefficients(model, q, link, point=None):
    """
    Return (G, H, D) of a link and a point fixed in it (root axes).

    ``G`` (6, nq) and ``H`` (6, nq, nq) as ``influence_coefficients``;
    ``D`` (6, nq, nq, nq) with D[p, l, m, n] = dH[p, m, n] / dq_l, rows
    [angular; linear of the point].
    """
    q = as_vector(model, q, 'q')
    body, _, P, rotations, translations = point_in_root(model, q, link,
                                                        point)
    n = model.nq
    if body < 0:
        return (np.zeros((6, n)), np.zeros((6, n, n)),
                np.zeros((6, n, n, n)))
    screws = joint_screws(model, rotations, translations)
    mask = ancestors(model, body)
    G, H = influence_from_screws(screws, model.parent, mask, P)
    before = strict_ancestors(model.parent, mask)
    w, v = screws[:, :3], screws[:, 3:]
    u = G[3:].T                      # u_k = v_k + w_k x P = dP/dq_k
    D = np.zeros((6, n, n, n))
    joints = np.flatnonzero(mask)
    for m in joints:
        for k in joints:
            if not before[m, k]:
                continue
            for j in joints:
                # d(w_m x w_k)/dq_j and d(v-part of xi_m x xi_k)/dq_l.
                dww, dwv = np.zeros(3), np.zeros(3)
                if before[j, m]:
                    lw = np.cross(w[j], w[m])
                    lv = np.cross(w[j], v[m]) + np.cross(v[j], w[m])
                    dww += np.cross(lw, w[k])
                    dwv += np.cross(lw, v[k]) + np.cross(lv, w[k])
                if before[j, k]:
                    lw = np.cross(w[j], w[k])
                    lv = np.cross(w[j], v[k]) + np.cross(v[j], w[k])
                    dww += np.cross(w[m], lw)
                    dwv += np.cross(w[m], lv) + np.cross(v[m], lw)
                D[:3, j, m, k] = dww
                # H_lin[m, k] strict part: v-part + (w_m x w_k) x P.
                D[3:, j, m, k] = (dwv + np.cross(dww, P)
                                  + np.cross(np.cross(w[m], w[k]), u[j]))
    # H_lin[m, k] += w_k x u_m for every pair: its derivative is
    # d(w_k)/dq_j x u_m + w_k x H_lin[j, m] (du_m/dq_j = H_lin[j, m]).
    for m in joints:
        for k in joints:
            for j in joints:
                term = np.cross(w[k], H[3:, j, m])
                if before[j, k]:
                    term = term + np.cross(np.cross(w[j], w[k]), u[m])
                D[3:, j, m, k] += term
    return G, H, D


def cubic(D, v):
    """Return (v^T D v) v: entry p is sum_lmn D[p, l, m, n] v_l v_m v_n."""
    return np.einsum('plmn,l,m,n->p', D, v, v, v)


def point_jerk(model, q, qd, qdd, qddd, link, point=None):
    """
    Return the jerk (6,) of a link and a point: [angular; linear] (2-44).

    The angular rows are the third derivative of the link's orientation
    (the derivative of its angular acceleration), the linear ones that of
    the point's position, root axes.
    """
    qd = as_vector(model, qd, 'qd')
    qdd = as_vector(model, qdd, 'qdd')
    qddd = as_vector(model, qddd, 'qddd')
    G, H, D = third_order_coefficients(model, q, link, point)
    return (G @ qddd + np.einsum('m,pmn,n->p', qdd, H, qd)
            + 2.0 * np.einsum('m,pmn,n->p', qd, H, qdd) + cubic(D, qd))


def resolved_jerk(J, H, D, phi_dot, phi_ddot, q_dddot):
    """
    Return phi_dddot for a task jerk q_dddot (Freeman eq. 3-46).

    ``J = G^q_phi`` (square), ``H = H^q_phiphi``, ``D = D^q_phiphiphi``.
    """
    J = np.asarray(J, dtype=float)
    if J.ndim != 2 or J.shape[0] != J.shape[1]:
        raise ValueError('J must be square (G^q_phi), got shape %s'
                         % (J.shape,))
    second = (np.einsum('m,pmn,n->p', phi_ddot, H, phi_dot)
              + 2.0 * np.einsum('m,pmn,n->p', phi_dot, H, phi_ddot))
    return np.linalg.solve(J, np.asarray(q_dddot, dtype=float) - second
                           - cubic(D, np.asarray(phi_dot, dtype=float)))
