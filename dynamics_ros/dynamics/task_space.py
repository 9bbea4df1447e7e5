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
Task-space dynamics of redundant arms; Freeman's redundant and overconstrained systems.

Operational space (what Panda, iiwa and xArm7 users call it): for a task
x with Jacobian J (rows of ``link_jacobian``) and joint-space inertia M,

    Lambda = (J M^-1 J^T)^-1                 task-space inertia
    J_bar  = M^-1 J^T Lambda                 inertia-weighted inverse of J
    N      = I - J_bar J                     null-space projector
    Lambda x_ddot + mu + p = F,   tau = J^T F + N^T tau_0,

with mu = J_bar^T C qd - Lambda J_dot qd and p = J_bar^T g (the joint
torques tau = J^T F + N^T tau_0 give the task acceleration x_ddot whatever
tau_0 is: J M^-1 N^T = 0).

Freeman (1985, ch. IV; docs/papers/freeman_1985.md) reaches the same
objects from his coordinate transfer:

- redundant systems (M joints > N task coordinates u, eqs. 4-65 to 4-75):
  the pseudo (right) inverse that minimizes the kinetic energy (Whitney,
  eq. 4-70) G^-R = I*^-1 G^T (G I*^-1 G^T)^-1 is J_bar (I* = M, G = J);
  H^q_uu = -G^-RT (G^-R . H^u_qq) G^-R (4-72); the "partial transfer"
  T_q = I*_qu u_ddot + u_dot^T P*_quu u_dot - T^L_q (4-73) with I*_qu =
  I* G^-R = G^T (G I*^-1 G^T)^-1 = J^T Lambda (4-74) and P*_quu =
  G^-RT {P*_qqq - (I*_qu . H^u_qq)} G^-R (4-75).  ``weighted_pseudo_inverse``
  takes any weight (identity: the least-norm joint rates);
- overconstrained systems (more actuators q than freedoms u, e.g. two
  fingers holding one object, eqs. 4-76 to 4-90): the load T_u that the
  motion of u needs is shared with least sum of squares T_q^T T_q under
  G^q_u^T T_q = T_u (4-80): T_q = G^-LT T_u with G^-LT = G (G^T G)^-1, G =
  G^q_u (4-85, 4-86), and I*_qu = G^-LT I*_uu, P*_quu = G^-LT . P*_uuu,
  T^L_q = G^-LT T^L_u (4-88 to 4-90).  The split has no squeeze force.
"""

from collections import namedtuple

import numpy as np

from .bias import bias_forces, gravity_torques
from .crba import mass_matrix
from .influence import congruence, generalized_dot, influence_coefficients
from .jacobians import link_jacobian, point_in_root
from .kinematics import as_vector
from ..model.mimic_model import MimicModel

TaskSpace = namedtuple('TaskSpace', 'J Lambda J_bar N mu p')
TaskSpace.__doc__ = """\
Task-space model at one state (``task_space``).

J (m, nq) task Jacobian; Lambda (m, m) task inertia; J_bar (nq, m) its
inertia-weighted inverse; N (nq, nq) null-space projector; mu (m,) Coriolis
and centripetal and p (m,) gravity forces in the task space.
"""

ROWS = {'all': slice(0, 6), 'angular': slice(0, 3), 'linear': slice(3, 6)}


def task_rows(rows):
    """Return an index of the Jacobian rows [angular; linear] of a task."""
    if rows is None:
        return ROWS['all']
    if isinstance(rows, str):
        if rows not in ROWS:
            raise ValueError("rows must be 'all', 'angular', 'linear' or row "
                             'indices, got %r' % rows[:40])
        return ROWS[rows]
    index = np.asarray(rows)
    if (index.ndim != 1 or index.size == 0 or index.dtype.kind not in 'iu'
            or index.min() < 0 or index.max() > 5
            or np.unique(index).size != index.size):
        raise ValueError('rows must be distinct indices 0..5 of [angular; '
                         'linear], got %r' % (str(rows)[:40],))
    return index


def weighted_pseudo_inverse(G, W=None):
    """
    Right inverse of a wide G that minimizes q_dot^T W q_dot (eq. 4-70).

    G^-R = W^-1 G^T (G W^-1 G^T)^-1: Freeman's (Whitney's) choice W = I*
    (the mass matrix) minimizes the kinetic energy and is J_bar; W = None
    (identity) gives the least-norm joint rates (Moore-Penrose).
    """
    G = np.asarray(G, dtype=float)
    if G.ndim != 2 or G.shape[0] > G.shape[1]:
        raise ValueError('G must be (N, M) with N <= M (no more task '
                         'coordinates than joints), got shape %s'
                         % (G.shape,))
    W_inv_GT = G.T if W is None else np.linalg.solve(W, G.T)
    return W_inv_GT @ _inverse(G @ W_inv_GT, 'G W^-1 G^T', 'the task rows '
                               'are dependent here (a singularity)')


def _inverse(A, name, reason):
    if np.linalg.cond(A) > 1e12:
        raise ValueError('%s is singular (condition number %.3g): %s'
                         % (name, np.linalg.cond(A), reason))
    return np.linalg.inv(A)


def task_space(model, q, link, point=None, qd=None, rows=None,
               frame='world', damping=0.0):
    """
    Operational-space model of a link frame or point: a ``TaskSpace``.

    ``link``, ``point`` and ``frame`` as in ``link_jacobian`` (rows
    [angular; linear], root-frame axes or the link's own with
    ``frame='local'``); ``rows`` picks the task's rows: 'all' (default),
    'angular', 'linear' or indices (a position-only task of a 6-joint arm
    is redundant).  ``qd`` (default zero) enters mu only.  ``damping``
    (>= 0) regularizes Lambda = (J M^-1 J^T + damping^2 I)^-1 near
    singularities; with 0 a singular task raises ValueError.
    """
    q = as_vector(model, q, 'q')
    qd = np.zeros_like(q) if qd is None else as_vector(model, qd, 'qd')
    if not damping >= 0.0:
        raise ValueError('damping must be >= 0, got %r' % (damping,))
    index = task_rows(rows)
    J = link_jacobian(model, q, link, point, frame)[index]
    M = mass_matrix(model, q)
    M_inv_JT = np.linalg.solve(M, J.T)
    Lambda_inv = J @ M_inv_JT + damping ** 2 * np.eye(J.shape[0])
    Lambda = _inverse(Lambda_inv, 'J M^-1 J^T', 'the task is singular here '
                      '(give damping > 0, or fewer rows)')
    Lambda = 0.5 * (Lambda + Lambda.T)
    J_bar = M_inv_JT @ Lambda
    N = np.eye(model.nq) - J_bar @ J
    g = gravity_torques(model, q)
    h = bias_forces(model, q, qd)
    J_dot_qd = task_bias_acceleration(model, q, qd, link, point, frame)
    mu = J_bar.T @ (h - g) - Lambda @ J_dot_qd[index]
    return TaskSpace(J, Lambda, J_bar, N, mu, J_bar.T @ g)


def task_bias_acceleration(model, q, qd, link, point=None, frame='world'):
    """
    Return J_dot qd (6,): the task acceleration at qdd = 0, no gravity.

    Rows [angular; linear of the point] (Freeman eq. 2-27 with
    qdd = 0: qd^T H qd).  With ``frame='local'`` it is the derivative of
    the local-axes Jacobian: R^T (a - omega x v) for the linear rows.
    """
    if isinstance(model, MimicModel):
        # q_tree = G q + offset with G constant: J_dot qd is the tree's.
        q, qd = model.full_positions(q), model.G @ as_vector(model, qd, 'qd')
        model = model.tree
    G, H = influence_coefficients(model, q, link, point)
    bias = np.einsum('pmn,m,n->p', H, qd, qd)
    if frame == 'world':
        return bias
    if frame != 'local':
        raise ValueError("frame must be 'world' or 'local', got %r"
                         % (str(frame)[:20],))
    rotation = point_in_root(model, q, link, point)[1]
    velocity = G @ qd
    linear = bias[3:] - np.cross(velocity[:3], velocity[3:])
    return np.concatenate((rotation.T @ bias[:3], rotation.T @ linear))


def redundant_transfer(I_star, P_star, G, H):
    """
    Freeman's partial transfer of a redundant system to task coordinates.

    ``I_star``, ``P_star`` in the joints q (M); ``G = G^u_qq`` (N, M) and
    ``H = H^u_qq`` (N, M, M) of the task u.  Returns ``(G_R, H_q, I_qu,
    P_quu)``: the kinetic-energy weighted pseudo-inverse G^-R (eq. 4-70),
    H^q_uu (4-72), I*_qu (4-74) and P*_quu (4-75), so that the joint loads
    for a task motion are T_q = I_qu u_ddot + quadratic(P_quu, u_dot) -
    T^L_q (4-73) along q_dot = G_R u_dot, q_ddot = G_R u_ddot +
    quadratic(H_q, u_dot).  That q_ddot is instantaneous: it omits the rate
    of change of G^-R itself (Freeman's, not the null-space motion).
    """
    G_R = weighted_pseudo_inverse(G, I_star)
    H_q = -congruence(G_R, generalized_dot(G_R, H))
    I_qu = I_star @ G_R
    P_quu = congruence(G_R, P_star - generalized_dot(I_qu, H))
    return G_R, H_q, I_qu, P_quu


def platform_coefficients(mass, inertia):
    """
    Return Freeman's platform terms (I_plat, P_plat) of eqs. 4-50 to 4-54.

    For a rigid platform in w = (x, y, z of its centroid, angular-velocity
    parameters), root axes, ``inertia`` the 3x3 central inertia II in root
    axes: I_plat = diag(m, m, m, II), and P_plat's planes 4 to 6 hold in
    their lower-right blocks [0 | I_z | -I_y], [-I_z | 0 | I_x], [I_y |
    -I_x | 0] (I_x, I_y, I_z the columns of II; planes 1 to 3 are zero), so
    that w_dot^T P_plat w_dot = (0, omega x II omega).  They are added to
    the legs' transferred I*_ww, P*_www (eq. 4-48).
    """
    II = np.asarray(inertia, dtype=float)
    if II.shape != (3, 3) or not np.all(np.isfinite(II)) or not (
            np.isfinite(mass) and mass >= 0.0):
        raise ValueError('platform needs a mass >= 0 and a finite 3x3 '
                         'inertia, got %r and shape %s' % (mass, II.shape))
    I_plat = np.zeros((6, 6))
    I_plat[:3, :3] = mass * np.eye(3)
    I_plat[3:, 3:] = II
    P_plat = np.zeros((6, 6, 6))
    I_x, I_y, I_z = II[:, 0], II[:, 1], II[:, 2]
    zero = np.zeros(3)
    for plane, columns in ((3, (zero, I_z, -I_y)), (4, (-I_z, zero, I_x)),
                           (5, (I_y, -I_x, zero))):
        P_plat[plane, 3:, 3:] = np.column_stack(columns)
    return I_plat, P_plat


def overconstrained_transfer(G, I_uu, P_uuu, T_load=None):
    """
    Share an overconstrained system's loads among its actuators.

    ``G = G^q_u`` (M, N), M actuators > N freedoms u; ``I_uu``, ``P_uuu``
    (and ``T_load`` = T^L_u) the model in u.  Returns ``(G_LT, I_qu,
    P_quu)`` (and ``T^L_q``): G^-LT = G (G^T G)^-1 (eq. 4-86), I*_qu =
    G^-LT I*_uu (4-88), P*_quu = G^-LT . P*_uuu (4-89), T^L_q = G^-LT T^L_u
    (4-90); T_q = G^-LT T_u is the least-squares split of T_u (4-85).
    """
    G = np.asarray(G, dtype=float)
    if G.ndim != 2 or G.shape[0] < G.shape[1]:
        raise ValueError('G^q_u must be (M, N) with M >= N actuators, got '
                         'shape %s' % (G.shape,))
    G_LT = G @ _inverse(G.T @ G, 'G^T G', 'the actuators do not determine '
                        'the motion here')
    I_qu = G_LT @ np.asarray(I_uu, dtype=float)
    P_quu = generalized_dot(G_LT, np.asarray(P_uuu, dtype=float))
    if T_load is None:
        return G_LT, I_qu, P_quu
    return G_LT, I_qu, P_quu, G_LT @ np.asarray(T_load, dtype=float)
