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
Compiled forward dynamics by the articulated-body algorithm, O(n).

Featherstone (2008) Table 7.1, as ``dynamics/aba.py`` (Nasser's inbound /
outbound recursion).  Articulated inertias are general symmetric 6x6
matrices; moving one to the parent, X^T Ia X, is done by 3x3 blocks: rotate
each block (R B R^T), then shift the origin by p.  The work array has a row
per body, a per-call row, and last a row for the fixed base (acceleration
-g), indexed by ``parent = -1``.
"""

from .compiler import compiled
from .lanes import angle_buffers, lane_rows, lane_state, LANES, \
    lanes_work, parent_row, start_block, store_lane_bases, \
    stored_joint_frame
from .packing import ARMATURE, IS_PRISMATIC, JOINT_SCALE, MASS, \
    PARENT, work_columns
from .spatial import add, body_inertia_times, dot, force_cross, \
    force_to_parent, joint_component, joint_frame, joint_motion, load12, \
    load6, motion_cross, motion_to_child, scale, store, store_base_motion, \
    subtract_wrench
from .wrapper import sample_entry, state_wrench

# Columns of a work row: joint frame, v, c = v x S qd, pA, a, U = IA S,
# d, u, the articulated inertia IA (6x6 row-major) and the sine and cosine
# of the joint angle.
FRAME, VELOCITY, BIAS_ACCELERATION, BIAS_FORCE, ACCELERATION, U_COLUMN, D, \
    U_SCALAR, INERTIA, ANGLE = work_columns(
        'aba', FRAME=12, VELOCITY=6, BIAS_ACCELERATION=6, BIAS_FORCE=6,
        ACCELERATION=6, U_COLUMN=6, D=1, U_SCALAR=1, INERTIA=36, ANGLE=2)
# Columns of the per-call row (index nq): Ia, Ia rotated, and the
# off-diagonal block C of Ia moved to the parent (3x3).  Entry (r, c) of a
# 6x6 block is at block + 6 r + c (row-major), written out: a helper
# function for it, inlined by numba, made forward dynamics 6 % slower.
PROJECTED, ROTATED, OFF_DIAGONAL = work_columns(
    'aba per-call row', PROJECTED=36, ROTATED=36, OFF_DIAGONAL=9)


@compiled(inline=True)
def expand_rigid_inertia(table, i, work, row, column):
    """
    Write body i's rigid inertia as 6x6 row-major (eq. 2.63).

    [[Ibar, h x], [-h x, m 1]] with h x = [[0, -h2, h1], [h2, 0, -h0],
    [-h1, h0, 0]].
    """
    m = table[i, MASS]
    h0, h1, h2 = table[i, MASS + 1], table[i, MASS + 2], table[i, MASS + 3]
    for r in range(3):
        for c in range(3):
            work[row, column + 6 * r + c] = table[i, MASS + 4 + 3 * r + c]
            work[row, column + 6 * (3 + r) + 3 + c] = m if r == c else 0.0
    store(work, row, column + 6 * 0 + 3, (0.0, -h2, h1))
    store(work, row, column + 6 * 1 + 3, (h2, 0.0, -h0))
    store(work, row, column + 6 * 2 + 3, (-h1, h0, 0.0))
    store(work, row, column + 6 * 3 + 0, (0.0, h2, -h1))
    store(work, row, column + 6 * 4 + 0, (-h2, 0.0, h0))
    store(work, row, column + 6 * 5 + 0, (h1, -h0, 0.0))


@compiled(inline=True)
def rotate_block(X, work, scratch, r0, c0, symmetric):
    """
    Write R B R^T, B the 3x3 block of Ia at (r0, c0), to ROTATED.

    Only the upper triangle of a ``symmetric`` block is computed (and
    mirrored).  Called with constant (r0, c0), so that the compiler unrolls
    the loops: a loop over the three blocks stayed a loop, and an inlined
    step with a loop left in it costs reference counts of its arrays
    around every call (``lanes``; ABA's batch took 0.62 us a Panda state
    with it, 0.53 without).
    """
    Ia = PROJECTED
    rotated = ROTATED
    for r in range(3):
        # Row r of R times the block, then times R^T.
        t0 = (X[3 * r] * work[scratch, Ia + 6 * r0 + c0]
              + X[3 * r + 1] * work[scratch, Ia + 6 * (r0 + 1) + c0]
              + X[3 * r + 2] * work[scratch, Ia + 6 * (r0 + 2) + c0])
        t1 = (X[3 * r] * work[scratch, Ia + 6 * r0 + c0 + 1]
              + X[3 * r + 1] * work[scratch, Ia + 6 * (r0 + 1) + c0 + 1]
              + X[3 * r + 2] * work[scratch, Ia + 6 * (r0 + 2) + c0 + 1])
        t2 = (X[3 * r] * work[scratch, Ia + 6 * r0 + c0 + 2]
              + X[3 * r + 1] * work[scratch, Ia + 6 * (r0 + 1) + c0 + 2]
              + X[3 * r + 2] * work[scratch, Ia + 6 * (r0 + 2) + c0 + 2])
        for c in range(r if symmetric else 0, 3):
            value = t0 * X[3 * c] + t1 * X[3 * c + 1] + t2 * X[3 * c + 2]
            work[scratch, rotated + 6 * (r0 + r) + c0 + c] = value
            if symmetric:
                work[scratch, rotated + 6 * (r0 + c) + c0 + r] = value


@compiled(inline=True)
def add_articulated_inertia_to_parent(X, work, scratch, parent):
    """
    Add X^T Ia X, the articulated inertia Ia seen from the parent.

    Ia is at ``work[scratch, PROJECTED:]``, 6x6 row-major; the sum goes to
    the parent's IA.  With Ia = [[A, B], [B^T, D]] rotated into the
    parent's axes (A' = R A R^T, ...) and moved to its origin (X = rotation
    then a shift [[1, 0], [-P, 1]], P = p x):
    [[A' + P B'^T - C P, C], [C^T, D']] with C = B' + P D'.  A and D are
    symmetric: only their upper triangles are computed.
    """
    rotated = ROTATED
    rotate_block(X, work, scratch, 0, 0, True)
    rotate_block(X, work, scratch, 0, 3, False)
    rotate_block(X, work, scratch, 3, 3, True)
    p0, p1, p2 = X[9], X[10], X[11]
    C = OFF_DIAGONAL
    for c in range(3):
        # Column c of C: B'[:, c] + p x D'[:, c].
        d0 = work[scratch, rotated + 6 * 3 + 3 + c]
        d1 = work[scratch, rotated + 6 * 4 + 3 + c]
        d2 = work[scratch, rotated + 6 * 5 + 3 + c]
        work[scratch, C + c] = (work[scratch, rotated + 6 * 0 + 3 + c]
                                + p1 * d2 - p2 * d1)
        work[scratch, C + 3 + c] = (work[scratch, rotated + 6 * 1 + 3 + c]
                                    + p2 * d0 - p0 * d2)
        work[scratch, C + 6 + c] = (work[scratch, rotated + 6 * 2 + 3 + c]
                                    + p0 * d1 - p1 * d0)
    IA = INERTIA
    for r in range(3):
        for c in range(3):
            coupling = work[scratch, C + 3 * r + c]
            work[parent, IA + 6 * r + 3 + c] += coupling
            work[parent, IA + 6 * (3 + c) + r] += coupling
            work[parent, IA + 6 * (3 + r) + 3 + c] += work[
                scratch, rotated + 6 * (3 + r) + 3 + c]
    for r in range(3):
        # Row r of C P is C[r, :] x p; entry (r, c) of P B'^T is
        # (p x B'[c, :])[r].
        c0 = work[scratch, C + 3 * r]
        c1 = work[scratch, C + 3 * r + 1]
        c2 = work[scratch, C + 3 * r + 2]
        cp = (c1 * p2 - c2 * p1, c2 * p0 - c0 * p2, c0 * p1 - c1 * p0)
        for c in range(r, 3):
            b0 = work[scratch, rotated + 6 * c + 3]
            b1 = work[scratch, rotated + 6 * c + 4]
            b2 = work[scratch, rotated + 6 * c + 5]
            if r == 0:
                pb = p1 * b2 - p2 * b1
            elif r == 1:
                pb = p2 * b0 - p0 * b2
            else:
                pb = p0 * b1 - p1 * b0
            value = work[scratch, rotated + 6 * r + c] + pb - cp[c]
            work[parent, IA + 6 * r + c] += value
            if c != r:
                work[parent, IA + 6 * c + r] += value


@compiled(inline=True)
def projected_times(work, scratch, c):
    """Return Ia c for the articulated inertia in the scratch row."""
    return (dot(load6(work, scratch, PROJECTED + 6 * 0 + 0), c),
            dot(load6(work, scratch, PROJECTED + 6 * 1 + 0), c),
            dot(load6(work, scratch, PROJECTED + 6 * 2 + 0), c),
            dot(load6(work, scratch, PROJECTED + 6 * 3 + 0), c),
            dot(load6(work, scratch, PROJECTED + 6 * 4 + 0), c),
            dot(load6(work, scratch, PROJECTED + 6 * 5 + 0), c))


@compiled(inline=True)
def aba_outward(table, work, first, i, X, qdi):
    """
    Write body i's X, v, c = v x vJ, pA = v x* I v and IA = I.

    X comes from the caller: one state computes it as it goes (a pass of
    the angles first, as the other kernels do, measured no faster here); a
    batch from the block's angles.
    """
    row = first + i
    vJ = joint_motion(table, i, qdi)
    v = add(motion_to_child(X, load6(work, parent_row(table, first, i),
                                     VELOCITY)), vJ)
    store(work, row, FRAME, X)
    store(work, row, VELOCITY, v)
    store(work, row, BIAS_ACCELERATION, motion_cross(v, vJ))
    store(work, row, BIAS_FORCE,
          force_cross(v, body_inertia_times(table, i, v)))
    expand_rigid_inertia(table, i, work, row, INERTIA)


@compiled(inline=True)
def aba_inward(table, work, first, i, taui):
    """Write body i's U, d and u (all that a root body needs)."""
    row = first + i
    # U = IA S: column 2 of IA (rotation about z) or 5 (sliding).
    if table[i, IS_PRISMATIC] != 0.0:
        column = 5
        joint_scale = table[i, JOINT_SCALE]
    else:
        column = 2
        joint_scale = 1.0
    U = scale((work[row, INERTIA + 6 * 0 + column],
               work[row, INERTIA + 6 * 1 + column],
               work[row, INERTIA + 6 * 2 + column],
               work[row, INERTIA + 6 * 3 + column],
               work[row, INERTIA + 6 * 4 + column],
               work[row, INERTIA + 6 * 5 + column]), joint_scale)
    store(work, row, U_COLUMN, U)
    work[row, D] = joint_component(table, i, U) + table[i, ARMATURE]
    work[row, U_SCALAR] = taui - joint_component(
        table, i, load6(work, row, BIAS_FORCE))


@compiled(inline=True)
def aba_to_parent(table, work, first, i, p):
    """
    Add body i's Ia and pa to those of its parent p, a body (not the base).

    The callers test for a root body, not this step (``lanes``).
    """
    row = first + i
    scratch = first + table.shape[0] - 1  # the state's per-call row
    U = load6(work, row, U_COLUMN)
    inverse_d = 1.0 / work[row, D]
    for r in range(6):
        scaled = U[r] * inverse_d
        for k in range(r, 6):
            value = work[row, INERTIA + 6 * r + k] - scaled * U[k]
            work[scratch, PROJECTED + 6 * r + k] = value
            work[scratch, PROJECTED + 6 * k + r] = value
    # pa = pA + Ia c + U u / d.
    pa = add(add(load6(work, row, BIAS_FORCE),
                 scale(U, work[row, U_SCALAR] * inverse_d)),
             projected_times(work, scratch,
                             load6(work, row, BIAS_ACCELERATION)))
    X = load12(work, row, FRAME)
    add_articulated_inertia_to_parent(X, work, scratch, first + p)
    store(work, first + p, BIAS_FORCE,
          add(load6(work, first + p, BIAS_FORCE), force_to_parent(X, pa)))


@compiled(inline=True)
def aba_acceleration(table, work, first, i):
    """Return qdd_i = (u - U . a') / d; write a = a' + S qdd_i."""
    row = first + i
    a = add(motion_to_child(load12(work, row, FRAME),
                            load6(work, parent_row(table, first, i),
                                  ACCELERATION)),
            load6(work, row, BIAS_ACCELERATION))
    qddi = (work[row, U_SCALAR] - dot(load6(work, row, U_COLUMN), a)) / \
        work[row, D]
    store(work, row, ACCELERATION, add(a, joint_motion(table, i, qddi)))
    return qddi


@compiled
def aba_sample(table, q, qd, tau, f_ext, qdd, work):
    """
    Write qdd = M^-1 (tau + J^T f_ext - h) for one state into ``qdd``.

    ``f_ext`` is (nq, 6) or of size 0 for none; ``work`` is the model's
    (nq + 2, .) scratch.
    """
    n = q.shape[0]
    store_base_motion(table, work, VELOCITY, ACCELERATION)
    for i in range(n):
        aba_outward(table, work, 0, i, joint_frame(table, i, q[i]), qd[i])
        if f_ext.shape[0] > 0:
            subtract_wrench(table, i, f_ext, work, i, BIAS_FORCE)
    for i in range(n - 1, -1, -1):
        aba_inward(table, work, 0, i, tau[i])
        p = int(table[i, PARENT])
        if p >= 0:
            aba_to_parent(table, work, 0, i, p)
    for i in range(n):
        qdd[i] = aba_acceleration(table, work, 0, i)


@compiled(contract=True)
def aba_lanes(table, q, qd, tau, f_ext, qdd):
    """
    Write qdd of N states (rows), ``LANES`` interleaved (``lanes``).

    With fused multiply-adds, as the other batches: they move iCub's qdd
    by 7.7e-12 relative from the one-state result, its finger links making
    ABA's pivots d tiny; the single call is 3.7e-11 from Pinocchio's there
    (``test_every_robot`` allows a batch that much).
    """
    n = q.shape[1]
    work = lanes_work(n, ANGLE + 2)
    angles = angle_buffers(n)
    store_lane_bases(table, work, VELOCITY, ACCELERATION)
    for start in range(0, q.shape[0], LANES):
        count = start_block(table, work, q, start, ANGLE, angles)
        for i in range(n):
            for lane in range(count):
                k, first = lane_state(n, start, lane)
                aba_outward(table, work, first, i, stored_joint_frame(
                    table, work, first + i, i, q[k, i], ANGLE), qd[k, i])
                if f_ext.shape[1] > 0:
                    subtract_wrench(table, i, state_wrench(f_ext, k), work,
                                    first + i, BIAS_FORCE)
        for i in range(n - 1, -1, -1):
            p = int(table[i, PARENT])
            for lane in range(count):
                first = lane_rows(n, lane)
                aba_inward(table, work, first, i, tau[start + lane, i])
                if p >= 0:
                    aba_to_parent(table, work, first, i, p)
        for i in range(n):
            for lane in range(count):
                qdd[start + lane, i] = aba_acceleration(
                    table, work, lane_rows(n, lane), i)


# Compiled ``forward_dynamics``: (nq,) -> (nq,), (N, nq) -> (N, nq).
forward_dynamics = sample_entry('forward_dynamics', aba_sample,
                                ('q', 'qd', 'tau'), ((1,),), lanes=aba_lanes)
