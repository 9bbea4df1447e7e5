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
    (Two-index subscripts throughout: a row view costs reference counting
    in the inner loops.)
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
        for i in range(j + 1, n):
            value = M[i, j]
            for k in range(j):
                value -= M[i, k] * M[j, k]
            M[i, j] = value * inverse
    return True


@compiled(reassociate=True)
def cholesky_solve_vector(L, x):
    """Overwrite x with M^-1 x, M = L L^T from ``cholesky``."""
    n = x.shape[0]
    for i in range(n):
        value = x[i]
        for k in range(i):
            value -= L[i, k] * x[k]
        x[i] = value * L[i, i]
    for i in range(n - 1, -1, -1):
        value = x[i]
        for k in range(i + 1, n):
            value -= L[k, i] * x[k]
        x[i] = value * L[i, i]


@compiled(reassociate=True)
def inverse_factor(L, V):
    """
    Write V = L^-1 (lower triangular, zeros above) from ``cholesky``'s factor.

    Right-looking forward substitution: once row k of V is final, its
    multiple -L[i, k] / L[i, i] is added to each later row i (nq^3 / 6
    products, each update along a row); V[i, i] = 1 / L[i, i].
    """
    n = L.shape[0]
    for i in range(n):
        for c in range(n):
            V[i, c] = 0.0
        V[i, i] = L[i, i]  # the inverted diagonal
    for k in range(n):
        for i in range(k + 1, n):
            factor = -L[i, k] * L[i, i]
            for c in range(k + 1):
                V[i, c] += factor * V[k, c]


@compiled(reassociate=True)
def inverse_from_cholesky(L, Minv, row):
    """
    Write M^-1 = V^T V, V = L^-1, into ``Minv`` from ``cholesky``'s factor.

    For fewer than BLAS_FROM joints (then faster than ``inverse_factor``
    and ``inverse_from_factor``).

    V (lower triangular) is built row by row in ``Minv``: row i of V is
    (e_i - sum over k < i of L[i, k] V[k, :]) / L[i, i].  Then row r of
    M^-1 is the sum over k >= r of V[k, r] V[k, :], gathered in ``row``
    (n numbers of scratch) and written over row r of V, which later rows
    no longer read.  Every update runs along a row (n^3 / 2 products).
    """
    n = L.shape[0]
    for i in range(n):
        for c in range(i + 1):
            Minv[i, c] = 0.0
        for k in range(i):
            factor = -L[i, k]
            for c in range(k + 1):
                Minv[i, c] += factor * Minv[k, c]
        Minv[i, i] = 1.0
        for c in range(i + 1):
            Minv[i, c] *= L[i, i]  # the inverted diagonal
    for r in range(n):
        for c in range(n):
            row[c] = 0.0
        for k in range(r, n):
            factor = Minv[k, r]
            for c in range(k + 1):
                row[c] += factor * Minv[k, c]
        for c in range(n):
            Minv[r, c] = row[c]


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


# From this many joints on, M^-1 and the products with it go to BLAS
# (``inverse_factor``, ``inverse_from_factor``, ``minus_inverse_times``);
# below, ``inverse_from_cholesky`` and ``cholesky_solve`` are faster than
# the calls.
BLAS_FROM = 12


@compiled
def inverse_from_factor(V, Minv):
    """Write M^-1 = V^T V (V = L^-1 from ``inverse_factor``) by BLAS."""
    np.dot(V.T, V, Minv)


@compiled
def minus_inverse_times(Minv, X, product, out, column):
    """
    Write -M^-1 X into the columns ``column``... of ``out``.

    X is (nq, m); the product M^-1 X goes to BLAS (``product``, (nq, m)
    scratch), an O(nq^2 m) step that BLAS runs several times faster than
    two triangular solves written as loops; ``out`` may be X itself.
    """
    np.dot(Minv, X, product)
    n, m = product.shape
    for i in range(n):
        for c in range(m):
            out[i, column + c] = -product[i, c]
