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
Compiled dense linear algebra on the joint-space inertia M: M = L L^T.

The derivatives of forward dynamics need qdd = M^-1 (tau - h), M^-1
itself and M^-1 times the two (nq, nq) inverse-dynamics Jacobians
(Carpentier and Mansard 2018, sec. IV: dqdd/dx = -M^-1 dtau/dx).  M is
symmetric positive definite for any model whose subtrees all carry mass or
armature, so its Cholesky factor gives all three; the loops reassociate
(``compiled(reassociate=True)``) so that dot products run several lanes
at a time, and the O(nq^3) products go to BLAS (numba's ``np.dot``).
"""

import numpy as np

from .compiler import compiled


@compiled(reassociate=True)
def cholesky(M):
    """
    Overwrite the lower triangle of M with L, M = L L^T; False if M is not SPD.

    Only the lower triangle of M is read, the upper one is left as it was;
    the diagonal of L is stored inverted, 1 / L[i, i], for the solves.
    Column j of L takes the dot products of rows i > j with row j, four
    rows at a time, so that each number of row j is loaded once for four
    products (a fifth faster at 32 joints).  (Two-index subscripts
    throughout: a row view costs reference counting in the inner loops.)
    """
    n = M.shape[0]
    for j in range(n):
        pivot = M[j, j]
        for k in range(j):
            pivot -= M[j, k] * M[j, k]
        if not pivot > 0.0:  # also NaN
            return False
        inverse = 1.0 / np.sqrt(pivot)
        M[j, j] = inverse
        i = j + 1
        while i + 3 < n:
            first, second, third, fourth = (M[i, j], M[i + 1, j],
                                            M[i + 2, j], M[i + 3, j])
            for k in range(j):
                pivot_row = M[j, k]
                first -= M[i, k] * pivot_row
                second -= M[i + 1, k] * pivot_row
                third -= M[i + 2, k] * pivot_row
                fourth -= M[i + 3, k] * pivot_row
            M[i, j] = first * inverse
            M[i + 1, j] = second * inverse
            M[i + 2, j] = third * inverse
            M[i + 3, j] = fourth * inverse
            i += 4
        for i in range(i, n):
            value = M[i, j]
            for k in range(j):
                value -= M[i, k] * M[j, k]
            M[i, j] = value * inverse
    return True


@compiled(reassociate=True)
def cholesky_solve_vector(L, x):
    """
    Overwrite x with M^-1 x, M = L L^T from ``cholesky``.

    L y = x by dot products along the rows of L, then L^T z = y backward:
    once z[i] is final, z[i] L[i, :i] is taken off the earlier entries,
    again along a row of L (reading L^T by columns ran half as fast).
    """
    n = x.shape[0]
    for i in range(n):
        value = x[i]
        for k in range(i):
            value -= L[i, k] * x[k]
        x[i] = value * L[i, i]
    for i in range(n - 1, -1, -1):
        value = x[i] * L[i, i]
        x[i] = value
        for k in range(i):
            x[k] -= value * L[i, k]


@compiled(reassociate=True)
def inverse_factor(L, V):
    """
    Write V = L^-1 (lower triangular, zeros above) from ``cholesky``'s factor.

    Row i of V is (e_i - sum over k < i of L[i, k] V[k, :]) / L[i, i]:
    the earlier rows are added four at a time, so that row i is loaded and
    stored once for four of them (nq^3 / 6 products, each update along a
    row; a third faster than one at a time at 32 joints).
    """
    n = L.shape[0]
    for i in range(n):
        for c in range(n):
            V[i, c] = 0.0
        V[i, i] = 1.0
        k = 0
        while k + 3 < i:
            first, second, third, fourth = (-L[i, k], -L[i, k + 1],
                                            -L[i, k + 2], -L[i, k + 3])
            for c in range(k + 4):  # row k + j of V ends at column k + j
                V[i, c] += (first * V[k, c] + second * V[k + 1, c]
                            + third * V[k + 2, c] + fourth * V[k + 3, c])
            k += 4
        for k in range(k, i):
            factor = -L[i, k]
            for c in range(k + 1):
                V[i, c] += factor * V[k, c]
        for c in range(i + 1):
            V[i, c] *= L[i, i]  # the inverted diagonal


@compiled(reassociate=True)
def cholesky_solve(L, X, sign):
    """
    Overwrite X (n x m) with sign M^-1 X, M = L L^T from ``cholesky``.

    Row by row (contiguous rows of m numbers): L Y = sign X forward, then
    L^T Z = Y backward.
    """
    n, m = X.shape
    for i in range(n):
        for c in range(m):
            X[i, c] *= sign
        for k in range(i):
            factor = L[i, k]
            for c in range(m):
                X[i, c] -= factor * X[k, c]
        for c in range(m):
            X[i, c] *= L[i, i]
    for i in range(n - 1, -1, -1):
        for k in range(i + 1, n):
            factor = L[k, i]
            for c in range(m):
                X[i, c] -= factor * X[k, c]
        for c in range(m):
            X[i, c] *= L[i, i]


@compiled
def inverse_and_solutions(L, X, Y, joined):
    """
    Write [-M^-1 X | -M^-1 Y | M^-1] into ``joined`` (nq, 3 nq), M = L L^T.

    For fewer than BLAS_FROM joints.  One ``cholesky_solve`` of the
    (nq, 3 nq) block [-X | -Y | I] instead of M^-1 first and then the
    solves: every row update runs along 3 nq numbers at once (0.30 against
    0.50 us for a Panda, 7 joints).
    """
    n = X.shape[0]
    store_negated(X, Y, joined)
    for i in range(n):
        for c in range(n):
            joined[i, 2 * n + c] = 0.0
        joined[i, 2 * n + i] = 1.0
    cholesky_solve(L, joined, 1.0)


# From this many joints on, M^-1 comes from ``inverse_factor`` and
# ``inverse_from_factor`` and the products with it go to BLAS (numba's
# ``np.dot``); below, ``inverse_and_solutions`` is faster than those calls.
BLAS_FROM = 12


@compiled(reassociate=True)
def inverse_from_factor(V, Minv):
    """
    Write M^-1 = V^T V (V = L^-1 from ``inverse_factor``), both triangles.

    Row k of V adds V[k, r] V[k, :k + 1] to each row r <= k of M^-1: the
    zeros of V above its diagonal are skipped (nq^3 / 3 products, a third
    of what BLAS's general product spends on the same result).  Rows of V
    are taken four at a time, so that each row of M^-1 is loaded and
    stored once for four of them.
    """
    n = V.shape[0]
    for r in range(n):
        for c in range(n):
            Minv[r, c] = 0.0
    k = 0
    while k + 3 < n:
        for r in range(k + 4):
            first, second, third, fourth = (V[k, r], V[k + 1, r],
                                            V[k + 2, r], V[k + 3, r])
            for c in range(k + 4):
                Minv[r, c] += (first * V[k, c] + second * V[k + 1, c]
                               + third * V[k + 2, c] + fourth * V[k + 3, c])
        k += 4
    for k in range(k, n):
        for r in range(k + 1):
            factor = V[k, r]
            for c in range(k + 1):
                Minv[r, c] += factor * V[k, c]


@compiled
def minus_inverse_times(Minv, X, Y, joined, out):
    """
    Write -M^-1 [X | Y] into ``out`` (nq, 2 nq) by one BLAS call.

    X and Y (nq, nq) are copied, negated, side by side into ``joined``
    ((nq, 2 nq) scratch, not ``out``).  One product for both halves runs
    faster than two: about 4.2 against 2 x 2.6 us at 32 joints.
    """
    store_negated(X, Y, joined)
    np.dot(Minv, joined, out)


@compiled(inline=True)
def store_negated(X, Y, joined):
    """Write -X and -Y (nq, nq) side by side into ``joined``'s first 2 nq."""
    n = X.shape[0]
    for i in range(n):
        for c in range(n):
            joined[i, c] = -X[i, c]
        for c in range(n):
            joined[i, n + c] = -Y[i, c]
