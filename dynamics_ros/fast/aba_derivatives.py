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
Compiled analytic derivatives of forward dynamics: dqdd/dq, dqdd/dqd, M^-1.

As ``dynamics/aba_derivatives.py`` (Carpentier and Mansard 2018, sec. IV):
the inverse-dynamics Jacobians (``rnea_derivatives``) at qdd = FD(q, qd,
tau), and by the implicit function theorem dqdd/dx = -M^-1 dtau/dx,
dqdd/dtau = M^-1.  The passes of ``rnea_derivatives`` give M (CRBA) and
the bias forces h as well, so qdd = M^-1 (tau - h) comes from the same
passes and the Cholesky factor M = L L^T that M^-1 needs anyway, instead
of a separate articulated-body pass.  A factor that fails (M not positive
definite: a subtree without mass or inertia and no armature) is reported,
not used.
"""

import numpy as np

from .cholesky import BLAS_FROM, cholesky, cholesky_solve_vector, \
    inverse_and_solutions, inverse_factor, inverse_from_factor, \
    minus_inverse_times
from .compiler import compiled
from .rnea_derivatives import acceleration_pass, COLUMN_ROWS, inertia_pass, \
    jacobian_entries, motion_pass, SUBTREE_FORCE, subtree_sums
from .wrapper import sample_entry


@compiled
def derivative_scratch(n):
    """
    Return the scratch of one state of the FD derivatives and linearize.

    (2 nq) numbers, six (nq, nq) matrices (the inverse-dynamics
    Jacobians, the Cholesky factor, its inverse, products) and the
    (COLUMN_ROWS, nq) columns of a chain.
    """
    return np.empty(2 * n), np.empty((6, n, n)), np.empty((COLUMN_ROWS, n))


@compiled
def forward_derivatives_sample(table, q, qd, tau, f_ext, dtau_dq, dtau_dqd,
                               L, qdd, work, columns):
    """
    Write qdd = FD(q, qd, tau) and the inverse-dynamics Jacobians there.

    False, and the Jacobians not written, if M is not positive definite.
    The accelerations come from the same passes instead of a separate ABA:
    outward with qdd = 0, inward for M (the CRBA) and the bias torques
    h = S . F, then qdd = M^-1 (tau - h) by the Cholesky factor of M, left
    in the lower triangle of ``L`` for the caller; then the accelerations
    and forces again, and the Jacobians.
    """
    n = q.shape[0]
    motion_pass(table, q, qd, f_ext, work)
    acceleration_pass(table, qd, qdd[:0], f_ext, work)
    inertia_pass(table, work, L, qdd, columns)
    for i in range(n):
        qdd[i] = tau[i] - qdd[i]
    if not cholesky(L):
        return False
    cholesky_solve_vector(L, qdd)
    acceleration_pass(table, qd, qdd, f_ext, work)
    # Only the forces changed since inertia_pass summed the subtrees.
    subtree_sums(table, work, SUBTREE_FORCE, SUBTREE_FORCE + 6)
    jacobian_entries(table, work, dtau_dq, dtau_dqd, columns)
    return True


@compiled
def aba_derivatives_sample(table, q, qd, tau, f_ext, dqdd_dq, dqdd_dqd, Minv,
                           work, scratches):
    """
    Write dqdd/dq, dqdd/dqd, M^-1 of one state; False if M is not SPD.

    ``scratches`` from ``derivative_scratch``: ``scratch`` (2 nq),
    ``factors`` (6, nq, nq: L, then V = L^-1, the joined Jacobians and
    their product with M^-1, or the joined solutions of
    ``inverse_and_solutions``) and ``columns`` (COLUMN_ROWS, nq).  The
    torque is copied to ``scratch`` so that ``forward_derivatives_sample``
    has the argument types ``linearize`` gives it, and compiles once for
    both.
    """
    scratch, factors, columns = scratches
    n = q.shape[0]
    torque = scratch[:n]
    for i in range(n):
        torque[i] = tau[i]
    L = factors[0]
    V = factors[1]
    if not forward_derivatives_sample(table, q, qd, torque, f_ext, dqdd_dq,
                                      dqdd_dqd, L, scratch[n:], work,
                                      columns):
        return False
    if n < BLAS_FROM:
        joined = factors[1:4].reshape((n, 3 * n))
        inverse_and_solutions(L, dqdd_dq, dqdd_dqd, joined)
        for i in range(n):
            for c in range(n):
                dqdd_dq[i, c] = joined[i, c]
                dqdd_dqd[i, c] = joined[i, n + c]
                Minv[i, c] = joined[i, 2 * n + c]
        return True
    inverse_factor(L, V)
    inverse_from_factor(V, Minv)
    # L and V are spent: their 2 n^2 numbers hold the joined Jacobians,
    # and the product goes to the other half of ``factors``.
    product = factors[2:4].reshape((n, 2 * n))
    minus_inverse_times(Minv, dqdd_dq, dqdd_dqd,
                        factors[:2].reshape((n, 2 * n)), product)
    for i in range(n):
        for c in range(n):
            dqdd_dq[i, c] = product[i, c]
        for c in range(n):
            dqdd_dqd[i, c] = product[i, n + c]
    return True


# Compiled ``forward_dynamics_derivatives``: (dqdd_dq, dqdd_dqd, Minv),
# each (nq, nq) for one state, (N, nq, nq) for (N, nq) arguments.
forward_dynamics_derivatives = sample_entry(
    'forward_dynamics_derivatives', aba_derivatives_sample,
    ('q', 'qd', 'tau'), ((1, 1),) * 3, derivative_scratch)
