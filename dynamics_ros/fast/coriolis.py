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
subtree sums of IC, HC and T, then the entries; no accelerations, forces
or dq entries.  Gravity and qdd do not enter C.
"""

from .compiler import compiled, INPUT_MATRIX, INPUT_VECTOR, kernel, MATRIX, \
    STACK
from .packing import PARENT
from .rnea_derivatives import clear, COMPOSITE, JOINT, motion_pass, \
    PSI_DOT, subtree_sums, SUBTREE_SUMS_END, velocity_terms
from .spatial import dot, load6
from .wrapper import BAD_SHAPES, DONE, Entry, NO_FORCES


@compiled
def coriolis_sample(table, q, qd, C, work):
    """Write C(q, qd) of one state into ``C`` (module notes)."""
    motion_pass(table, q, qd, NO_FORCES, work)
    subtree_sums(table, work, COMPOSITE, SUBTREE_SUMS_END)
    clear(table, C)
    for j in range(q.shape[0]):
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
    coriolis_sample(table, q, qd, C, work)
    return DONE


@kernel('int64', MATRIX, MATRIX, INPUT_MATRIX, INPUT_MATRIX, STACK)
def coriolis_batch(table, work, q, qd, C):
    """Write C(q, qd) of N states (rows of q, qd) into ``C`` (N, nq, nq)."""
    for k in range(q.shape[0]):
        coriolis_sample(table, q[k], qd[k], C[k], work)
    return -1


# Compiled ``coriolis_matrix``: (nq,) -> (nq, nq), (N, nq) -> (N, nq, nq).
coriolis_matrix = Entry(coriolis_kernel, coriolis_batch, ('q', 'qd'),
                        ((1, 1),)).function
