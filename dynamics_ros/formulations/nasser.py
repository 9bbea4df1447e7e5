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
Nasser's 6x6 recursive Newton-Euler forward dynamics (hinge accelerations).

M. G. Nasser, "Recursive Newton-Euler Formulation of Manipulator Dynamics"
(NASA N90-29862), sections 2.1-2.3: every link i is written in the frame of
its proximal joint (Nasser's frame i-1, here the joint frame fixed in the
parent, turned so that the joint axis is z), about that joint's origin, with
6-vectors ordered [linear; angular].  Unknowns U_i hold the joint reaction
with the drive-axis slot replaced by the hinge acceleration (slot 6 for a
revolute joint, slot 3 for a prismatic one, Z_i = e6 or e3).

- inbound (i = N..2): A*_i = A_i + sum_c A*_{c->i}, B*_i = B_i + sum_c
  B*_{c->i}, L_i = S_i - (sum_c A*_{c->i}) Z Z^T, G_i = L_i^-1 (2.1.19.1,
  2.1.11), and for the parent A*_{i->p} = P R* gamma G A* R*^T P^T
  (2.1.19.4), B_{i->p} = R* gamma G B*, B*_{i->p} = P B_{i->p} + A*_{i->p}
  sigma* (2.1.19.6-7); branches are summed at a branch link (2.3.3-2.3.4);
- outbound (i = 2..N): F_i = A*_i q_p + B*_i, theta_dd_i = Z^T G_i F_i
  (2.1.20), q_i = R*^T P^T (q_p + sigma + sigma*) (2.1.13).

Misprints corrected (docs/papers/nasser_1990.md): gamma = I - Z Z^T (undefined
in the text); sigma*'s angular block is +omega_{i-1} x z theta_d; the
prismatic beta' uses r* (not v*); the F^E and f^c signs follow 2.1.7.6; the
last term of F*_{N-1} is A* sigma.  A velocity pass runs first (sigma* and
beta need every omega).  L_i = I - u Z^T is inverted in closed form,
G = I - u Z^T / D with D = J^a + Z^T A* Z (Sherman-Morrison).

Gravity is the base acceleration v_dot_1 = -g.  The base (Nasser's link 1)
may move as prescribed (sec. 2.1.2: "v_dot_1, omega_dot_1 and (v_1,
omega_1) are given"): ``base_velocity`` and ``base_acceleration`` enter the
velocity pass and the outbound pass's q_{1,1}; ``reactions=True`` also
returns each joint's load on its link, gamma G_i F_i of eq. 2.1.20 with the
drive load put back in the slot that held theta_dd.  ``actuator_inertia`` is
Nasser's J^a (eq. 2.1.7.2): the rotor's J^a theta_dd enters the drive-axis
row of link i while the parent takes the full reaction; this is not the
symmetric armature of the core API, so a model with armature is refused.
"""

import numpy as np

from .chain import cross
from ..dynamics.rnea import external_forces
from ..errors import ModelError
from ..model.robot_model import REVOLUTE

E3 = np.eye(3)
Z_AXIS = np.array([0.0, 0.0, 1.0])


def skew(v):
    """Return r~ with r~ b = r x b (works on counted numbers too)."""
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]],
                     [-v[1], v[0], 0.0]])


def block(top_left, top_right, bottom_left, bottom_right):
    """Return the 6x6 matrix of four 3x3 blocks."""
    return np.vstack((np.hstack((top_left, top_right)),
                      np.hstack((bottom_left, bottom_right))))


def link_inertia(mass, r, J, c=None):
    """
    Return A_{i,i-1} (2.1.7.4): spatial inertia about the joint, [lin; ang].

    In 3x3 blocks with c = m r: m r~ = c~, and J - m r~ r~ = J + m (r^t r
    E - r r^t) is symmetric, its diagonal J_aa + c_b r_b + c_c r_c and its
    off-diagonal J_ab - c_a r_b (9 multiplications, not the 27 of m r~ r~;
    6 when the caller has c already).
    """
    if c is None:
        c = [mass * r[0], mass * r[1], mass * r[2]]
    square = [c[0] * r[0], c[1] * r[1], c[2] * r[2]]
    K = [[None] * 3 for _ in range(3)]
    for a in range(3):
        K[a][a] = J[a][a] + (square[(a + 1) % 3] + square[(a + 2) % 3])
        for b in range(a + 1, 3):
            K[a][b] = K[b][a] = J[a][b] - c[a] * r[b]
    cx = skew(c)
    return block(mass * E3, -cx, cx, np.array(K))


def shift(P):
    """Return P_i = [[I, 0], [P~, I]] (moment n <- n + P x f)."""
    return block(E3, 0.0 * E3, skew(P), E3)


def rotation6(R):
    """Return R* = blockdiag(R, R) (2.1.18)."""
    return block(R, 0.0 * E3, 0.0 * E3, R)


def align_z(axis):
    """Return a rotation whose third column is the unit ``axis``."""
    axis = np.asarray(axis, dtype=float)
    helper = np.eye(3)[np.argmin(np.abs(axis))]
    x = cross(helper, axis)
    x /= np.linalg.norm(x)
    return np.column_stack((x, cross(axis, x), axis))


def carry_articulated(A, k, inverse_D, R, P):
    """
    Return P R* gamma G A* R*^T P^T (eq. 2.1.19.4) in 3x3 blocks.

    Without rotor inertia (J^a = 0), gamma G A* = A* - a a^T / D with
    a = A* Z (column k of A*, D = a_k given as ``inverse_D`` = 1 / D),
    and its row and column k are zero: it is
    symmetric, like A*.  Its blocks X11, X12, X22 are turned, Y = R X R^T
    (of the symmetric X11 and X22 only the upper triangles are formed), and
    shifted by P6 = [[I, 0], [P~, I]]: [[Y11, Z12], [Z12^T, Z22]] with
    Z12 = Y11 P~^T + Y12 and Z22 = Z12^T P~^T + P~ Y12 + Y22 (symmetric).
    The same matrix as the 6x6 products, with Nasser's 3x3 blocks.
    """
    a = [A[r][k] for r in range(6)]
    b = [a[r] * inverse_D for r in range(6)]      # 1 / D = 1 / a_k
    X = [[0.0] * 6 for _ in range(6)]
    for r in range(6):
        for c in range(r, 6):
            if r != k and c != k:
                X[r][c] = X[c][r] = A[r][c] - b[r] * a[c]
    X = np.array(X)
    Y11 = _turn_symmetric(R, X[:3, :3])
    Y12 = R @ X[:3, 3:] @ R.T
    Y22 = _turn_symmetric(R, X[3:, 3:])
    Px = skew(P)
    Z12 = Y11 @ Px.T + Y12
    Z22 = [[None] * 3 for _ in range(3)]
    for r in range(3):
        for c in range(r, 3):
            Z22[r][c] = Z22[c][r] = (
                Z12[0][r] * Px[c][0] + Z12[1][r] * Px[c][1]
                + Z12[2][r] * Px[c][2] + Px[r][0] * Y12[0][c]
                + Px[r][1] * Y12[1][c] + Px[r][2] * Y12[2][c] + Y22[r][c])
    return block(Y11, Z12, Z12.T, np.array(Z22))


def _turn_symmetric(R, S):
    """Return R S R^T of a symmetric S, forming its upper triangle only."""
    T = R @ S
    out = [[None] * 3 for _ in range(3)]
    for r in range(3):
        for c in range(r, 3):
            out[r][c] = out[c][r] = (T[r][0] * R[c][0] + T[r][1] * R[c][1]
                                     + T[r][2] * R[c][2])
    return np.array(out)


class NasserLinks:
    """
    Constant data of a RobotModel in Nasser's proximal-joint frames.

    ``align[i]`` turns body i's joint frame so that its axis is z; the
    proximal frame of body i (fixed in its parent) has rotation
    ``origin_rotation[i] @ align[i]`` in the parent body's frame.
    """

    def __init__(self, model):
        """Precompute the aligned frames and the body data."""
        if np.any(np.asarray(model.armature) != 0.0):
            raise ModelError(
                'model %r has joint armature: the actuator inertia of Nasser '
                '(actuator_inertia=...) is a different model; set armature to '
                '0 to use this formulation' % model.name)
        self.model = model
        self.n = model.nq
        self.parent = model.parent
        self.children = model.children
        self.revolute = [t == REVOLUTE for t in model.joint_type]
        self.align = [align_z(a) if not np.allclose(a, Z_AXIS) else E3
                      for a in model.axis]
        # Proximal frame of child c in its parent body's frame.
        self.child_rotation = [model.origin_rotation[c] @ self.align[c]
                               for c in range(self.n)]
        self.child_position = [model.origin_translation[c]
                               for c in range(self.n)]


def _joint_motion(links, i, q_i):
    """Rotation and position of body i's frame in its proximal frame."""
    align_t = links.align[i].T
    if links.revolute[i]:
        c, s = np.cos(q_i), np.sin(q_i)
        Rz = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        return Rz @ align_t, 0.0 * Z_AXIS
    return align_t, Z_AXIS * q_i


def _wrench_in_proximal(model, E, i, f_ext):
    """Nasser's F^E (at the centre of mass) and N^E of a core f_ext."""
    moment, force = f_ext[i][:3], f_ext[i][3:]
    central_moment = moment - cross(model.com[i], force)
    return E @ force, E @ central_moment


def nasser_forward_dynamics(model, q, qd, tau, f_ext=None,
                            actuator_inertia=None, links=None,
                            base_velocity=None, base_acceleration=None,
                            gravity=None, reactions=False):
    """
    Return joint accelerations by Nasser's inbound/outbound recursion.

    ``model`` is a RobotModel (serial chain or tree, revolute and prismatic
    joints); ``f_ext`` as in the core API (wrench on each body about its
    origin, body frame); ``links`` a precomputed NasserLinks.
    ``base_velocity`` and ``base_acceleration``: the root frame's (omega, v)
    and (omega_dot, classical v_dot), root axes, default at rest;
    ``gravity`` in the root axes (default ``model.gravity``).  With
    ``reactions`` returns ``(qdd, wrenches)``: wrenches[i] (6,) [moment;
    force] that body i's parent exerts on it, body i's frame about its
    origin (as ``moving_base_inverse_dynamics``'s joint_wrenches).
    """
    if reactions and actuator_inertia is not None:
        raise ValueError('reactions with actuator_inertia are not defined: '
                         'the rotor splits the drive load')
    links = links or NasserLinks(model)
    model = links.model
    n = links.n
    if len(q) != n or len(qd) != n or len(tau) != n:
        raise ValueError('q, qd and tau must have %d values each' % n)
    f_ext = external_forces(model, f_ext) if f_ext is not None else None
    Ja = [0.0] * n if actuator_inertia is None else list(actuator_inertia)
    Z6 = np.eye(6)
    zero3 = 0.0 * Z_AXIS
    base_w, base_wd, base_vd = zero3, zero3, zero3
    if base_velocity is not None:
        # Only omega_1 enters (beta, sigma* need omegas); v_1 does not.
        base_w = base_velocity[:3]
    if base_acceleration is not None:
        base_wd, base_vd = base_acceleration[:3], base_acceleration[3:]

    # Body data in proximal frames, and the velocity pass.
    E, t, r_star, J = [None] * n, [None] * n, [None] * n, [None] * n
    R_child, P_child = [None] * n, [None] * n
    omega_in, omega = [None] * n, [None] * n
    for i in range(n):
        E[i], t[i] = _joint_motion(links, i, q[i])
        r_star[i] = E[i] @ model.com[i] + t[i]
        J[i] = _turn_symmetric(E[i], model.inertia_com[i])
        # Proximal frame of body i in its parent's proximal frame.
        p = links.parent[i]
        if p >= 0:
            R_child[i] = E[p] @ links.child_rotation[i]
            P_child[i] = E[p] @ links.child_position[i] + t[p]
            omega_in[i] = R_child[i].T @ omega[p]
        else:
            omega_in[i] = links.child_rotation[i].T @ base_w
        omega[i] = omega_in[i] + Z_AXIS * qd[i] if links.revolute[i] \
            else omega_in[i]

    # Per-link A, B (2.1.3, 2.1.6, 2.1.7; prismatic 2.2.1-2.2.4).
    A, B, Z, sigma_star = [None] * n, [None] * n, [None] * n, [None] * n
    for i in range(n):
        m, r, w_in, w = model.mass[i], r_star[i], omega_in[i], omega[i]
        moment = m * r                             # first moment m r*
        drive = cross(w_in, Z_AXIS * qd[i])
        if links.revolute[i]:
            Z[i] = Z6[5]
            beta = cross(w, cross(w, moment)) + cross(drive, moment)
            beta_star = J[i] @ drive + cross(w, J[i] @ w)
            f_c, n_c = zero3, Z_AXIS * tau[i]
        else:
            Z[i] = Z6[2]
            beta = cross(w_in, cross(w_in, moment)) + (2.0 * m) * drive
            beta_star = cross(w_in, J[i] @ w_in)
            f_c, n_c = Z_AXIS * tau[i], zero3
        F_E, N_E = zero3, zero3
        if f_ext is not None:
            F_E, N_E = _wrench_in_proximal(model, E[i], i, f_ext)
        # Reactions of the distal actuators (children), in this frame.
        f_out, n_out = zero3, zero3
        for c in links.children[i]:
            load = R_child[c] @ (Z_AXIS * tau[c])
            if links.revolute[c]:
                n_out = n_out + load
            else:
                f_out = f_out + load
                n_out = n_out + cross(P_child[c], load)
        N_t = N_E + cross(r, F_E) - n_out + n_c              # 2.1.5.3
        A[i] = link_inertia(m, r, J[i], moment)
        B[i] = np.concatenate((beta - f_c + f_out - F_E,
                               beta_star + cross(r, beta) - N_t))
        sigma_star[i] = {}
        for c in links.children[i]:
            P = P_child[c]
            if links.revolute[i]:
                sigma_star[i][c] = np.concatenate(
                    (cross(w, cross(w, P)), drive))          # 2.1.13
            else:
                sigma_star[i][c] = np.concatenate(
                    (cross(w_in, cross(w_in, P)) + 2.0 * drive,
                     zero3))                                         # 2.2.6

    # Inbound pass.
    A_star, B_star = list(A), list(B)
    G = [None] * n
    for i in range(n - 1, -1, -1):
        Zi = Z[i]
        u = (1.0 + Ja[i]) * Zi + A_star[i] @ Zi
        D = Ja[i] + Zi @ (A_star[i] @ Zi)
        inverse_D = 1.0 / D
        G[i] = Z6 - np.outer(u, Zi) * inverse_D         # L_i^-1, closed form
        p = links.parent[i]
        if p < 0:
            continue
        gamma = Z6 - np.outer(Zi, Zi)
        P6, R6 = shift(P_child[i]), rotation6(R_child[i])
        if Ja[i] == 0:
            A_to_parent = carry_articulated(
                A_star[i], 5 if links.revolute[i] else 2, inverse_D,
                R_child[i], P_child[i])                            # 2.1.19.4
        else:
            carried = R6 @ (gamma @ (G[i] @ A_star[i])) @ R6.T
            A_to_parent = P6 @ carried @ P6.T                      # 2.1.19.4
        B_to_parent = R6 @ (gamma @ (G[i] @ B_star[i]))           # 2.1.19.7
        B_star_to_parent = (P6 @ B_to_parent
                            + A_to_parent @ sigma_star[p][i])     # 2.1.19.6
        A_star[p] = A_star[p] + A_to_parent                        # 2.3.3
        B_star[p] = B_star[p] + B_star_to_parent                   # 2.3.4

    # Outbound pass.
    gravity = np.asarray(model.gravity if gravity is None else gravity,
                         dtype=float)
    accel_in = [None] * n
    qdd = [None] * n
    wrenches = [None] * n
    for i in range(n):
        p = links.parent[i]
        if p < 0:
            # q_{1,1} of the joint's origin P0 on the base: classical
            # v_dot + omega_dot x P0 + omega x (omega x P0), with -g.
            R0, P0 = links.child_rotation[i], links.child_position[i]
            origin = (base_vd + cross(base_wd, P0)
                      + cross(base_w, cross(base_w, P0)) - gravity)
            accel_in[i] = np.concatenate((R0.T @ origin, R0.T @ base_wd))
        if not reactions:
            # Row k of G = E - u Z^T / D is G_kk Z^T: theta_dd = Z^T G F
            # needs only F's drive row (2.1.20).
            k = 5 if links.revolute[i] else 2
            qdd[i] = G[i][k][k] * (A_star[i][k] @ accel_in[i]
                                   + B_star[i][k])
        else:
            F = A_star[i] @ accel_in[i] + B_star[i]
            U = G[i] @ F
            qdd[i] = Z[i] @ U                                      # 2.1.20
            # gamma G F, and the drive load in the theta_dd slot; then
            # from the proximal frame to body i's (E maps body axes to
            # proximal ones, t is the body origin there).
            load = U - Z[i] * qdd[i] + Z[i] * tau[i]
            force, moment = load[:3], load[3:] - cross(t[i], load[:3])
            wrenches[i] = np.concatenate((E[i].T @ moment, E[i].T @ force))
        for c in links.children[i]:
            P6, R6 = shift(P_child[c]), rotation6(R_child[c])
            moved = accel_in[i] + Z[i] * qdd[i] + sigma_star[i][c]
            accel_in[c] = R6.T @ (P6.T @ moved)                   # 2.1.13
    if reactions:
        return np.array(qdd), np.array(wrenches)
    return np.array(qdd)
