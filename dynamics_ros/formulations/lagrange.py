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
Lagrangian dynamics with 4x4 homogeneous matrices (Uicker/Kahn, Lewis form).

Turney, Mudge and Lee (1980) section 2: with T_0^q the pose of link q and
J_q^a its 4x4 pseudo-inertia about origin q (eq. 1.28),

    M_ij   = sum_{q >= max(i,j)} Tr{dT_0^q/dq_j J_q^a (dT_0^q/dq_i)^t}
    C^i_jk = sum_{q >= max(i,j,k)} Tr{d2T_0^q/dq_j dq_k J_q^a (dT_0^q/dq_i)^t}
    G_i    = -sum_{q >= i} m_q g^t (dT_0^q/dq_i r-bar_q^a)

(eq. 2.11; gravity g in frame 0, i.e. a_0 = -g: the two sign slips of
sec. 2 cancel, docs/papers/turney_1980.md), tau = M qdd + C + G with
C_i = qd^t C^i qd.  The derivatives are
dT_0^q/dq_j = T_0^{j-1} Q_j T_{j-1}^q and d2T_0^q/dq_j dq_k = T_0^{j-1} Q_j
T_{j-1}^{k-1} Q_k T_{k-1}^q (j <= k <= q), Q the 4x4 derivative operator of
a rotation about z (or, for a prismatic joint, a slide along z).  Slow:
O(n^3) for tau and O(n^4) for the C tensor, as Table 1 says; it is here as
an independent reference, not for speed.
"""

import numpy as np

from .chain import as_joint_vector, dh_chain

Q_REVOLUTE = np.array([[0.0, -1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0],
                       [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
Q_PRISMATIC = np.array([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0],
                        [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]])


def pseudo_inertia(mass, com, inertia):
    """Return J^a = [[K + m r r^t, m r], [m r^t, m]], K = Tr(I)/2 E - I."""
    K = 0.5 * np.trace(inertia) * np.eye(3) - inertia
    J = np.zeros((4, 4))
    J[:3, :3] = K + mass * np.outer(com, com)
    J[:3, 3] = J[3, :3] = mass * com
    J[3, 3] = mass
    return J


class LinkTransforms:
    """
    Products T_j^k of the link transforms at one configuration.

    Indices are DH frame numbers 0..n; ``between(j, k)`` is T_j^k (j <= k),
    ``Q[j]`` the derivative operator of joint j+1 (frame j's z axis).
    """

    def __init__(self, chain, q):
        """Compute the link transforms T_{i-1}^i and the poses T_0^i."""
        self.n = chain.n
        self.links = [chain.transform(i, *chain.joint_values(i, q[i]))
                      for i in range(chain.n)]
        self.Q = [Q_REVOLUTE if chain.revolute(i) else Q_PRISMATIC
                  for i in range(chain.n)]
        self._cache = {}

    def between(self, j, k):
        """Return T_j^k (identity when j == k), products cached."""
        if j == k:
            return np.eye(4)
        if (j, k) not in self._cache:
            previous = self.between(j, k - 1)
            self._cache[(j, k)] = self.links[k - 1] if j == k - 1 else \
                previous @ self.links[k - 1]
        return self._cache[(j, k)]

    def first_derivative(self, q_link, j):
        """Return dT_0^q/dq_j (joint j, 0-based; link q_link, 1-based)."""
        return self.between(0, j) @ self.Q[j] @ self.between(j, q_link)

    def second_derivative(self, q_link, j, k):
        """Return d2T_0^q/dq_j dq_k for joints j <= k (0-based)."""
        return (self.between(0, j) @ self.Q[j] @ self.between(j, k)
                @ self.Q[k] @ self.between(k, q_link))


def _pseudo_inertias(chain):
    return [pseudo_inertia(chain.mass[i], chain.com[i], chain.inertia[i])
            for i in range(chain.n)]


def _trace_of_product(A, J, B):
    """Return Tr{A J B^t} = sum of (A J) * B (elementwise)."""
    return np.sum((A @ J) * B)


def _com_homogeneous(chain, i):
    return np.array([chain.com[i][0], chain.com[i][1], chain.com[i][2], 1.0])


def lagrange_mass_matrix(model, q):
    """Return M(q) of eq. 2.11 (plus the chain's armature on the diagonal)."""
    chain = dh_chain(model)
    T = LinkTransforms(chain, as_joint_vector(chain, q, 'q'))
    J = _pseudo_inertias(chain)
    n = chain.n
    M = np.diag(np.asarray(chain.armature, dtype=float))
    for link in range(1, n + 1):
        U = [T.first_derivative(link, j) for j in range(link)]
        for i in range(link):
            for j in range(i + 1):
                value = _trace_of_product(U[j], J[link - 1], U[i])
                M[i, j] += value
                if i != j:
                    M[j, i] += value
    return M


def lagrange_coriolis_tensor(model, q):
    """Return C[i, j, k] = C^i_jk of eq. 2.11 (symmetric in j, k)."""
    chain = dh_chain(model)
    T = LinkTransforms(chain, as_joint_vector(chain, q, 'q'))
    J = _pseudo_inertias(chain)
    n = chain.n
    C = np.zeros((n, n, n))
    for link in range(1, n + 1):
        U = [T.first_derivative(link, j) for j in range(link)]
        for j in range(link):
            for k in range(j, link):
                UJ = T.second_derivative(link, j, k) @ J[link - 1]
                for i in range(link):
                    value = np.sum(UJ * U[i])
                    C[i, j, k] += value
                    if j != k:
                        C[i, k, j] += value
    return C


def lagrange_gravity(model, q):
    """Return G(q) of eq. 2.11."""
    chain = dh_chain(model)
    T = LinkTransforms(chain, as_joint_vector(chain, q, 'q'))
    n = chain.n
    G = np.zeros(n)
    for link in range(1, n + 1):
        rbar = _com_homogeneous(chain, link - 1)
        for i in range(link):
            point = T.first_derivative(link, i) @ rbar
            G[i] -= chain.mass[link - 1] * (chain.gravity @ point[:3])
    return G


def lagrange_inverse_dynamics(model, q, qd, qdd, gravity=True):
    """
    Return tau = M qdd + C + G, grouped as Turney's Table 2.

    Per link q the bracket delta_q = [sum_j dT/dq_j qdd_j + sum_jk d2T/dq_j
    dq_k qd_j qd_k] J_q^a is formed once, then tau_i gathers Tr{delta_q
    (dT_0^q/dq_i)^t} over q >= i: O(n^3), the count of Table 1.  Runs on
    floats or counted numbers.
    """
    chain = dh_chain(model)
    q = as_joint_vector(chain, q, 'q')
    qd = as_joint_vector(chain, qd, 'qd')
    qdd = as_joint_vector(chain, qdd, 'qdd')
    T = LinkTransforms(chain, q)
    n = chain.n
    tau = [0.0] * n
    for link in range(1, n + 1):
        U = [T.first_derivative(link, j) for j in range(link)]
        bracket = 0.0
        for j in range(link):
            bracket = bracket + U[j] * qdd[j]
            for k in range(j, link):
                weight = qd[j] * qd[k] if j == k else 2.0 * (qd[j] * qd[k])
                bracket = bracket + T.second_derivative(link, j, k) * weight
        delta = bracket @ pseudo_inertia(chain.mass[link - 1],
                                         chain.com[link - 1],
                                         chain.inertia[link - 1])
        rbar = _com_homogeneous(chain, link - 1)
        for i in range(link):
            tau[i] = tau[i] + np.sum(delta * U[i])
            if gravity:
                point = U[i] @ rbar
                tau[i] = tau[i] - chain.mass[link - 1] * (
                    chain.gravity @ point[:3])
    return np.array([t + chain.armature[i] * qdd[i]
                     for i, t in enumerate(tau)])
