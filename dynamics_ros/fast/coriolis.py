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
Compiled Coriolis matrix C(q, qd), O(n d), one state or a batch.

The Christoffel-symbol C of ``dynamics/coriolis.py`` (Echeandia and Wensing
2021, "A numerical method for computing the Coriolis matrix and
Christoffel symbols"; Pinocchio's computeCoriolisMatrix): C_ij =
sum_k Gamma_ijk qd_k with Gamma_ijk = Gamma_ikj.  Then the velocity terms
C(q, qd) qd of inverse dynamics, sum_jk Gamma_ijk qd_j qd_k, have the
derivative

    d(C qd)_i / dqd_m = sum_k Gamma_imk qd_k + sum_j Gamma_ijm qd_j
                      = 2 C_im,

so C = 1/2 dtau/dqd, and dtau/dqd is what ``rnea_derivatives`` computes
from root-frame subtree sums (Carpentier and Mansard 2018; the module
notes there): with r_j = BC_j^T S_j, s_j = IC_j S_j,

- k ancestor of j, or k = j:  C[j, k] = 1/2 r_j . S_k + s_j . Psid_k;
- k a strict ancestor of j:   C[k, j] = 1/2 S_k . (BC_j S_j + 2 IC_j Psid_j);
- zero for two joints on different branches.

Only the velocity half of those passes runs: the outward motion pass, the
subtree sums of IC, HC and T, then the entries (a chain from
CHAIN_ROWS_FROM joints on a row at a time, as the derivatives do); no
accelerations, forces or dq entries.  Gravity and qdd do not enter C.
"""

import numpy as np

from .compiler import compiled, INPUT_MATRIX, INPUT_VECTOR, kernel, MATRIX, \
    STACK
from .crba import CHAIN_ROWS_FROM
from .packing import IS_CHAIN, PARENT
from .rnea_derivatives import clear, COMPOSITE, JOINT, motion_pass, \
    PSI_DOT, subtree_sums, SUBTREE_SUMS_END, velocity_terms
from .spatial import column_dot, column_products, dot, load6, load_column, \
    scale, store_column
from .wrapper import BAD_SHAPES, DONE, Entry, NO_FORCES


# Rows of the per-call scratch ``columns`` of a chain: S, Psid, G_qd / 2,
# r / 2 and s of every joint, one component a row (``chain_coriolis``).
COLUMN_ROWS = 30


@compiled(reassociate=True)
def chain_coriolis(work, C, columns):
    """
    Write C of a serial chain a row of entries at a time.

    Every joint k < j is an ancestor of j: row k right of the diagonal is
    S_k against G_qd / 2 of the joints after it, row j up to the diagonal
    r_j / 2 and s_j against S and Psid of the joints up to it.  As
    ``rnea_derivatives.chain_jacobian_entries``: the 6-vectors are first
    copied down the columns of ``columns``, so that each row is a loop
    along contiguous numbers (SIMD lanes); the upper rows are computed in
    full from column 0 and their left part overwritten.
    """
    n = C.shape[0]
    for j in range(n):
        r, s, G_qd = velocity_terms(work, j)
        store_column(columns, 0, j, load6(work, j, JOINT))
        store_column(columns, 6, j, load6(work, j, PSI_DOT))
        store_column(columns, 12, j, scale(G_qd, 0.5))
        store_column(columns, 18, j, scale(r, 0.5))
        store_column(columns, 24, j, s)
    column_products(columns, 0, 12, C)
    for j in range(n):
        half_r = load_column(columns, 18, j)
        s = load_column(columns, 24, j)
        for k in range(j + 1):
            C[j, k] = (column_dot(half_r, columns, 0, k)
                       + column_dot(s, columns, 6, k))


@compiled
def coriolis_sample(table, q, qd, C, work, columns):
    """
    Write C(q, qd) of one state into ``C`` (module notes).

    ``columns`` (COLUMN_ROWS, nq) is scratch for a chain's rows.
    """
    n = q.shape[0]
    motion_pass(table, q, qd, NO_FORCES, work)
    subtree_sums(table, work, COMPOSITE, SUBTREE_SUMS_END)
    if table[n, IS_CHAIN] != 0.0 and n >= CHAIN_ROWS_FROM:
        chain_coriolis(work, C, columns)
        return
    clear(table, C)
    for j in range(n):
        r, s, G_qd = velocity_terms(work, j)
        k = j
        while k >= 0:
            S_k = load6(work, k, JOINT)
            C[j, k] = 0.5 * dot(r, S_k) + dot(s, load6(work, k, PSI_DOT))
            if k != j:
                C[k, j] = 0.5 * dot(S_k, G_qd)
            k = int(table[k, PARENT])


@kernel('int64', MATRIX, MATRIX, INPUT_VECTOR, INPUT_VECTOR, MATRIX)
def coriolis_kernel(table, work, q, qd, C):
    """Write C(q, qd) of one state into ``C`` (``wrapper``)."""
    n = table.shape[0] - 1
    if not (q.size == qd.size == n and C.shape[0] == n and C.shape[1] == n
            and work.shape[0] == n + 2):
        return BAD_SHAPES
    coriolis_sample(table, q, qd, C, work, np.empty((COLUMN_ROWS, n)))
    return DONE


@kernel('int64', MATRIX, MATRIX, INPUT_MATRIX, INPUT_MATRIX, STACK)
def coriolis_batch(table, work, q, qd, C):
    """Write C(q, qd) of N states (rows of q, qd) into ``C`` (N, nq, nq)."""
    columns = np.empty((COLUMN_ROWS, q.shape[1]))
    for k in range(q.shape[0]):
        coriolis_sample(table, q[k], qd[k], C[k], work, columns)
    return -1


# Compiled ``coriolis_matrix``: (nq,) -> (nq, nq), (N, nq) -> (N, nq, nq).
coriolis_matrix = Entry(coriolis_kernel, coriolis_batch, ('q', 'qd'),
                        ((1, 1),))
