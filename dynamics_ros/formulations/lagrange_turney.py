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
Lagrange's torques (eq. 2.11) organised as Turney et al. (1980) count them.

Their Appendix evaluates eq. 2.11 in O(n^3) operations in phases, one per
row of their Table 2; ``lagrange_inverse_dynamics`` computes the same
torques, but caches products and skips structural zeros, so its count is
not theirs.  Here each phase is done as the Appendix describes:

1. T_j^i: every product T_r^s (s - r >= 2) of the link transforms, built
   up by length (pairs, then triples, ...): sum_{m=1}^{n-1} (n - m) 4x4
   products.
2. dT_0^i/dq_j = T_0^{j-1} Q T_{j-1}^i: Q inserted by a row swap and a
   negation (free), then one product for j >= 2 (for j = 1, Q T_0^i).
3. d2T_0^i/dq_j dq_k = T_0^{j-1} Q T_{j-1}^{k-1} Q T_{k-1}^i (j <= k <= i):
   for j = 1, Q times dT_0^i/dq_k; for j >= 2 one product of a fragment
   made before (T_0^{j-1} Q Q, or dT_0^{k-1}/dq_j Q) by T_{k-1}^i:
   i(i - 1)/2 products for link i.
4. delta_q = [sum_j dT_0^q/dq_j qdd_j + sum_j sum_k d2T_0^q/dq_j dq_k qd_j
   qd_k] J_q^a, link by link: the products qd_j qd_k (j <= k) for this q,
   each derivative scaled once, the double sum over all q^2 ordered pairs
   (a term with j > k is the scaled d2T of k, j: d2T is symmetric), the two
   sums added, times the pseudo-inertia J_q^a (eq. 1.28).
5. Tr: kinetic_i = sum_{q >= i} Tr{delta_q (dT_0^q/dq_i)^t}, each trace the
   16 products of the diagonal entries.
6. Gravity: G_i = -sum_{q >= i} m_q g^t dT_0^q/dq_i r-bar_q^a, only the rows
   of dT that g has components along (one for g along an axis of frame 0).
7. tau_i = kinetic_i + G_i (+ armature qdd_i, as the core API).

Every product is a full 4x4 product (64 multiplications, 48 additions) and
every scaling 16 multiplications, as Turney counts, whatever zeros the
matrices hold: ``entry`` makes a matrix entry of a constant (``float`` by
default; op_counts passes counted numbers, so that structural zeros and
ones are operations like any entry).  ``on_phase(name)`` is called as each
phase ends, for op_counts to book the operations to Table 2's rows.  Runs
on floats or counted numbers; slow (lists of scalars), for counting only.
"""

import numpy as np

from .chain import as_joint_vector, dh_chain
from .lagrange import pseudo_inertia, Q_PRISMATIC, Q_REVOLUTE

# Phase names, in the order they run (op_counts books Table 2's rows).
PHASES = ('link transforms', 'T_j^i', 'dT', 'd2T', 'delta', 'trace',
          'gravity', 'tau')


def _product(A, B):
    """Return the full 4x4 product A B (64 multiplications, 48 additions)."""
    return [[A[r][0] * B[0][c] + A[r][1] * B[1][c] + A[r][2] * B[2][c]
             + A[r][3] * B[3][c] for c in range(4)] for r in range(4)]


def _scaled(A, s):
    """Return s A (16 multiplications)."""
    return [[a * s for a in row] for row in A]


def _plus(A, B):
    """Return A + B (16 additions)."""
    return [[a + b for a, b in zip(ra, rb)] for ra, rb in zip(A, B)]


def _total(matrices):
    """Return the sum of a list of 4x4 matrices, left to right."""
    out = matrices[0]
    for matrix in matrices[1:]:
        out = _plus(out, matrix)
    return out


def _q_left(Q, A, zero):
    """
    Return Q A for a Q with at most one +-1 a row: rows moved and negated.

    Turney's Table 2 does not count these: a row interchange and a
    negation (the rows Q clears are ``zero``).
    """
    out = []
    for r in range(4):
        k = np.flatnonzero(Q[r])
        if len(k) == 0:
            out.append([zero] * 4)
        else:
            out.append([a if Q[r][k[0]] > 0 else -a for a in A[k[0]]])
    return out


def _q_right(A, Q, zero):
    """Return A Q (columns moved and negated; free as in ``_q_left``)."""
    return [list(row) for row in zip(*_q_left(Q.T, [list(c) for c in zip(
        *A)], zero))]


def _trace(A, B):
    """Return Tr{A B^t}: the 16 products of the diagonal entries, summed."""
    terms = [A[r][c] * B[r][c] for r in range(4) for c in range(4)]
    return _sum(terms)


def _sum(terms):
    """Return the sum of scalars, left to right (len - 1 additions)."""
    out = terms[0]
    for term in terms[1:]:
        out = out + term
    return out


def _as_entries(matrix, entry):
    """Return a 4x4 list of entries, constants made by ``entry``."""
    return [[value if not isinstance(value, (int, float, np.number))
             else entry(float(value)) for value in row] for row in matrix]


def turney_lagrange_inverse_dynamics(model, q, qd, qdd, entry=float,
                                     on_phase=None):
    """
    Return tau of eq. 2.11 computed in Turney's Appendix organisation.

    ``entry`` and ``on_phase`` as in the module notes.  Joints and frames
    are numbered from 1 and 0 as in the paper: T[r][s] is T_r^s, D[i][j]
    is dT_0^i/dq_j, E[i][(j, k)] is d2T_0^i/dq_j dq_k.
    """
    chain = dh_chain(model)
    n = chain.n
    q = as_joint_vector(chain, q, 'q')
    qd = as_joint_vector(chain, qd, 'qd')
    qdd = as_joint_vector(chain, qdd, 'qdd')

    def phase_done(name):
        if on_phase is not None:
            on_phase(name)

    zero = entry(0.0)
    Q = [None] + [Q_REVOLUTE if chain.revolute(i) else Q_PRISMATIC
                  for i in range(n)]
    T = [[None] * (n + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        T[i - 1][i] = _as_entries(chain.transform(
            i - 1, *chain.joint_values(i - 1, q[i - 1])), entry)
    phase_done('link transforms')

    # 1. T_r^s = T_r^{s-1} T_{s-1}^s, shortest first (Appendix: pairs,
    # triples, ...).
    for length in range(2, n + 1):
        for r in range(0, n + 1 - length):
            s = r + length
            T[r][s] = _product(T[r][s - 1], T[s - 1][s])
    phase_done('T_j^i')

    # 2. dT_0^i/dq_j = (T_0^{j-1} Q) T_{j-1}^i.
    D = [None] + [[None] * (i + 1) for i in range(1, n + 1)]
    for i in range(1, n + 1):
        D[i][1] = _q_left(Q[1], T[0][i], zero)
        for j in range(2, i + 1):
            D[i][j] = _product(_q_right(T[0][j - 1], Q[j], zero), T[j - 1][i])
    phase_done('dT')

    # 3. d2T_0^i/dq_j dq_k, j <= k <= i (eq. 2.11's second derivative).
    E = [None] + [{} for _ in range(n)]
    for i in range(1, n + 1):
        for k in range(1, i + 1):
            E[i][(1, k)] = _q_left(Q[1], D[i][k], zero)
        for j in range(2, i + 1):
            for k in range(j, i + 1):
                if j == k:
                    fragment = _q_right(_q_right(T[0][j - 1], Q[j], zero),
                                        Q[j], zero)
                else:
                    fragment = _q_right(D[k - 1][j], Q[k], zero)
                E[i][(j, k)] = _product(fragment, T[k - 1][i])
    phase_done('d2T')

    # 4. delta_q, link by link.
    delta = [None] * (n + 1)
    for link in range(1, n + 1):
        mass, com, inertia = (chain.mass[link - 1], chain.com[link - 1],
                              chain.inertia[link - 1])
        pairs = {(j, k): qd[j - 1] * qd[k - 1] for j in range(1, link + 1)
                 for k in range(j, link + 1)}
        first = _total([_scaled(D[link][j], qdd[j - 1])
                        for j in range(1, link + 1)])
        scaled = {jk: _scaled(E[link][jk], pairs[jk]) for jk in pairs}
        second = _total([scaled[(min(j, k), max(j, k))]
                         for j in range(1, link + 1)
                         for k in range(1, link + 1)])
        J = _as_entries(pseudo_inertia(mass, com, inertia), entry)
        delta[link] = _product(_plus(first, second), J)
    phase_done('delta')

    # 5. Tr{delta_q (dT_0^q/dq_i)^t} summed over q >= i.
    kinetic = [None] + [_sum([_trace(delta[link], D[link][i])
                              for link in range(i, n + 1)])
                        for i in range(1, n + 1)]
    phase_done('trace')

    # 6. Gravity: g^t (dT r-bar^a) m needs only the rows along which g has
    # a component; -m_q g_a r-bar_q^a is a constant (folded).
    axes = [a for a in range(3) if chain.gravity[a] != 0.0]
    weights = [None] + [
        [[entry(-chain.mass[link - 1] * chain.gravity[a] * c)
          for c in (*chain.com[link - 1], 1.0)] for a in axes]
        for link in range(1, n + 1)]
    gravity = [None] * (n + 1)
    for i in range(1, n + 1):
        if axes:
            gravity[i] = _sum([
                _sum([D[link][i][a][c] * weights[link][row][c]
                      for row, a in enumerate(axes) for c in range(4)])
                for link in range(i, n + 1)])
    phase_done('gravity')

    tau = []
    for i in range(1, n + 1):
        value = kinetic[i] if gravity[i] is None else kinetic[i] + gravity[i]
        tau.append(value + chain.armature[i - 1] * qdd[i - 1])
    phase_done('tau')
    return np.array(tau)
