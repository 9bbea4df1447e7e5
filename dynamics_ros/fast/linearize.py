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
Compiled continuous-time linearization (A, B), one state or a batch.

As ``dynamics/linearize.py`` (Freeman 1985, eqs. 2-241...2-252): with
x = [q; qd], u = tau and the joint damping torque -damping * qd,

    A = [[0, I], [-M^-1 dtau/dq, -M^-1 (dtau/dqd + diag(damping))]],
    B = [[0], [M^-1]],

the inverse-dynamics Jacobians taken at qdd = FD(q, qd, tau - damping * qd)
(``aba_derivatives``), M^-1 and the products with it from the Cholesky
factor of M, by BLAS from BLAS_FROM joints on (``cholesky``).  The
zero-order-hold discretization (a matrix exponential) stays in scipy.
"""

import numpy as np
from numpy import ndarray

from .aba_derivatives import derivative_scratch, forward_derivatives_sample
from .cholesky import BLAS_FROM, cholesky, cholesky_solve_vector, \
    inverse_and_solutions, inverse_factor, inverse_from_factor, \
    minus_inverse_times
from .compiler import compiled, INPUT_MATRIX, INPUT_VECTOR, kernel, MATRIX, \
    STACK
from .lanes import angle_buffers, lane_rows, lane_state, LANES, \
    lanes_work, start_block, store_lane_bases, stored_joint_frame
from .packing import IS_CHAIN
from .rnea import inverse_dynamics
from .rnea_derivatives import ACCELERATION, acceleration_step, \
    add_to_parent, ANGLE, inertia_step, jacobian_step, joint_torque, \
    motion_step, SUBTREE_FORCE, SUBTREE_SUMS_END, VELOCITY
from .wrapper import BAD_SHAPES, DONE, Entry, NO_FORCES, \
    NOT_POSITIVE_DEFINITE, shapes_fit


@compiled(inline=True)
def store_linearization(L, dtau_dq, dtau_dqd, damping, A, B, spare):
    """
    Write A and B from M's Cholesky factor L and dtau/dq, dtau/dqd.

    ``spare`` (3, nq, nq) is scratch: the joined solutions of
    ``inverse_and_solutions``, or from BLAS_FROM joints on V = L^-1 and
    the joined Jacobians.  A and B are written in the order of their
    memory, a row after the other.
    """
    n = L.shape[0]
    for i in range(n):
        dtau_dqd[i, i] += damping[i]
    for i in range(n):
        for c in range(2 * n):
            A[i, c] = 0.0
        A[i, n + i] = 1.0
    for i in range(n):
        for c in range(n):
            B[i, c] = 0.0
    Minv = B[n:]
    lower = A[n:]
    if n < BLAS_FROM:
        joined = spare.reshape((n, 3 * n))
        inverse_and_solutions(L, dtau_dq, dtau_dqd, joined)
        for i in range(n):
            for c in range(2 * n):
                lower[i, c] = joined[i, c]
        for i in range(n):
            for c in range(n):
                Minv[i, c] = joined[i, 2 * n + c]
        return
    V = spare[0]
    inverse_factor(L, V)
    inverse_from_factor(V, Minv)
    minus_inverse_times(Minv, dtau_dq, dtau_dqd,
                        spare[1:].reshape((n, 2 * n)), lower)


@compiled
def linearize_sample(table, q, qd, tau, no_forces, damping, A, B, scratch,
                     jacobians, work, columns):
    """
    Write (A, B) about the operating point (q, qd, tau); False if not SPD.

    ``no_forces`` is an empty (0, 6) wrench array (an argument, so that the
    helpers see the type ``aba_derivatives`` gives them and compile once
    for both); ``scratch`` (2 nq) and ``jacobians`` (6, nq, nq) are
    scratch: dtau/dq, dtau/dqd, the Cholesky factor L of M, then the
    joined solutions of ``inverse_and_solutions`` or V = L^-1 and the
    products; ``columns`` (COLUMN_ROWS, nq) too.
    """
    n = q.shape[0]
    damped = scratch[:n]
    for i in range(n):
        damped[i] = tau[i] - damping[i] * qd[i]
    dtau_dq = jacobians[0]
    dtau_dqd = jacobians[1]
    L = jacobians[2]
    if not forward_derivatives_sample(table, q, qd, damped, no_forces,
                                      dtau_dq, dtau_dqd, L, scratch[n:],
                                      work, columns):
        return False
    store_linearization(L, dtau_dq, dtau_dqd, damping, A, B, jacobians[3:])
    return True


@kernel('int64', MATRIX, MATRIX, INPUT_VECTOR, INPUT_VECTOR, INPUT_VECTOR,
        MATRIX, INPUT_VECTOR, MATRIX, MATRIX)
def linearize_kernel(table, work, q, qd, tau, no_forces, damping, A, B):
    """Write (A, B) of one operating point; return DONE or what failed."""
    n = table.shape[0] - 1
    if not (shapes_fit(table, work, q, qd, tau, no_forces)
            and no_forces.shape[0] == 0 and damping.size == n
            and A.shape == (2 * n, 2 * n) and B.shape == (2 * n, n)):
        return BAD_SHAPES
    scratch, jacobians, columns = derivative_scratch(n)
    if linearize_sample(table, q, qd, tau, no_forces, damping, A, B, scratch,
                        jacobians, work, columns):
        return DONE
    return NOT_POSITIVE_DEFINITE


@compiled(contract=True)
def linearize_lanes(table, q, qd, tau, damping, A, B):
    """
    Write (A, B) of N operating points, ``LANES`` interleaved (``lanes``).

    The passes of ``aba_derivatives.forward_derivatives_sample`` step by
    step over the block's states; the Cholesky factor, qdd and the dense
    products of ``store_linearization`` a state at a time.  For fewer
    than BLAS_FROM joints (the chain rows and BLAS products start there).
    Returns -1, or the first state whose M is not positive definite.
    """
    n = q.shape[1]
    work = lanes_work(n, ANGLE + 2)
    angles = angle_buffers(n)
    # Each lane's M (then L), dtau/dq and dtau/dqd as n stacked rows, its
    # bias torques (then qdd), and a row of scratch.
    L = np.empty((LANES * n, n))
    dtau_dq = np.empty((LANES * n, n))
    dtau_dqd = np.empty((LANES * n, n))
    qdd = np.empty(LANES * n)
    spare = np.empty((3, n, n))
    tree = table[n, IS_CHAIN] == 0.0
    store_lane_bases(table, work, VELOCITY, ACCELERATION)
    for start in range(0, q.shape[0], LANES):
        count = start_block(table, work, q, start, ANGLE, angles)
        for i in range(n):
            for lane in range(count):
                k, first = lane_state(n, start, lane)
                motion_step(table, work, first, i, stored_joint_frame(
                    table, work, first + i, i, q[k, i], ANGLE), qd[k, i])
        for i in range(n):
            for lane in range(count):
                acceleration_step(table, work, lane_rows(n, lane), i,
                                  qd[start + lane, i], 0.0, False, False)
        if tree:  # zero across branches
            L[:] = 0.0
            dtau_dq[:] = 0.0
            dtau_dqd[:] = 0.0
        for j in range(n - 1, -1, -1):
            for lane in range(count):
                first = lane_rows(n, lane)
                qdd[lane * n + j] = joint_torque(work, first + j)
                inertia_step(table, work, first, j, L, lane * n)
                add_to_parent(table, work, first, j, SUBTREE_FORCE,
                              SUBTREE_SUMS_END)
        for lane in range(count):
            k = start + lane
            top = lane * n
            for i in range(n):
                qdd[top + i] = tau[k, i] - damping[i] * qd[k, i] - \
                    qdd[top + i]
            if not cholesky(L[top:top + n]):
                return k
            cholesky_solve_vector(L[top:top + n], qdd[top:top + n])
        for i in range(n):
            for lane in range(count):
                acceleration_step(table, work, lane_rows(n, lane), i,
                                  qd[start + lane, i], qdd[lane * n + i],
                                  True, False)
        for j in range(n - 1, -1, -1):
            for lane in range(count):
                add_to_parent(table, work, lane_rows(n, lane), j,
                              SUBTREE_FORCE, SUBTREE_FORCE + 6)
        for j in range(n):
            for lane in range(count):
                jacobian_step(table, work, lane_rows(n, lane), j, dtau_dq,
                              dtau_dqd, lane * n)
        for lane in range(count):
            top = lane * n
            store_linearization(L[top:top + n], dtau_dq[top:top + n],
                                dtau_dqd[top:top + n], damping,
                                A[start + lane], B[start + lane], spare)
    return -1


@kernel('int64', MATRIX, MATRIX, INPUT_MATRIX, INPUT_MATRIX, INPUT_MATRIX,
        MATRIX, INPUT_VECTOR, STACK, STACK)
def linearize_batch(table, work, q, qd, tau, no_forces, damping, A, B):
    """
    Write (A, B) of N operating points (rows of q, qd, tau).

    Returns -1, or the first state whose M is not positive definite.
    """
    if q.shape[1] < BLAS_FROM:
        return linearize_lanes(table, q, qd, tau, damping, A, B)
    scratch, jacobians, columns = derivative_scratch(q.shape[1])
    for k in range(q.shape[0]):
        if not linearize_sample(table, q[k], qd[k], tau[k], no_forces,
                                damping, A[k], B[k], scratch, jacobians,
                                work, columns):
            return k
    return -1


def damping(model):
    """Return the joint damping as the kernels take it, after no wrenches."""
    value = model.damping
    if value.__class__ is not ndarray or value.dtype != np.float64 or \
            value.ndim != 1:   # as RobotModel shapes it: (nq,)
        value = np.asarray(value, dtype=float).reshape(model.nq)
    return NO_FORCES, value


# Compiled continuous ``linearize``: (A, B) about (q, qd, tau), (2 nq, 2 nq)
# and (2 nq, nq) for one state, stacked (N, ...) for (N, nq) arguments.
linearize = Entry(linearize_kernel, linearize_batch, ('q', 'qd', 'tau'),
                  ((2, 2), (2, 1)), inputs=damping)


def linearize_trajectory(model, q, qd, qdd):
    """
    Compiled (A, B, tau) at N samples (q, qd, qdd (N, nq), checked).

    A (N, 2 nq, 2 nq), B (N, 2 nq, nq), tau (N, nq): the continuous model at
    each sample and the torques (inverse dynamics + damping * qd).  (A, B)
    are those of ``linearize`` at (q, qd, tau), whose forward dynamics give
    back qdd up to round-off: two batch kernels compiled anyway, instead of
    a third that would take about as long to compile as both.
    """
    tau = inverse_dynamics.function(model, q, qd, qdd, None) + \
        model.damping * qd
    A, B = linearize.function(model, q, qd, tau)
    return A, B, tau
