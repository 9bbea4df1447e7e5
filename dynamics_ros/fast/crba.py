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
Compiled joint-space mass matrix (CRBA), one state or a batch.

Featherstone (2008) Table 6.2, as ``dynamics/crba.py``, but with every
quantity in the root frame (as Pinocchio does): the composite inertia of a
subtree is then a plain sum, and M[i, j] = S_j . (Ic_i S_i) a 6-term dot
product for each ancestor j, with no transform along the chain.  A
composite of rigid bodies is a rigid body, so inertias stay in ten-parameter
form (mass, first moment, rotational inertia) instead of 6x6 matrices.
"""

import numpy as np

from .compiler import compiled, INPUT_MATRIX, INPUT_VECTOR, kernel, MATRIX, \
    STACK
from .lanes import angle_buffers, lane_rows, LANES, lanes_work, \
    start_block, store_joint_angles, stored_joint_frame
from .packing import ARMATURE, IS_CHAIN, IS_PRISMATIC, JOINT_SCALE, MASS, \
    PARENT, SUBTREE_END, SUBTREES_CONTIGUOUS, work_columns
from .spatial import column_dot, column_products, dot, inertia_times, \
    load12, load6, load_column, store, store_column, \
    store_rigid_inertia_to_parent
from .wrapper import BAD_SHAPES, DONE, Entry

# Columns of a work row, all in the root frame: body pose, joint motion S,
# composite inertia Ic (ten parameters: m, h, Ibar), F = Ic S (the force
# that moves the composite at unit joint acceleration); then the sine and
# cosine of the joint angle.
POSE, JOINT, COMPOSITE, COMPOSITE_FORCE, ANGLE = work_columns(
    'crba', POSE=12, JOINT=6, COMPOSITE=13, COMPOSITE_FORCE=6, ANGLE=2)
# From this many joints on, a chain's M is filled a row at a time
# (``chain_mass_matrix``); below, the loop setup costs more than it saves.
CHAIN_ROWS_FROM = 12


@compiled(inline=True)
def compose(parent, X):
    """Return the root-frame pose of a body: its parent's pose times X."""
    rotation = (
        parent[0] * X[0] + parent[1] * X[3] + parent[2] * X[6],
        parent[0] * X[1] + parent[1] * X[4] + parent[2] * X[7],
        parent[0] * X[2] + parent[1] * X[5] + parent[2] * X[8],
        parent[3] * X[0] + parent[4] * X[3] + parent[5] * X[6],
        parent[3] * X[1] + parent[4] * X[4] + parent[5] * X[7],
        parent[3] * X[2] + parent[4] * X[5] + parent[5] * X[8],
        parent[6] * X[0] + parent[7] * X[3] + parent[8] * X[6],
        parent[6] * X[1] + parent[7] * X[4] + parent[8] * X[7],
        parent[6] * X[2] + parent[7] * X[5] + parent[8] * X[8])
    return rotation + (
        parent[0] * X[9] + parent[1] * X[10] + parent[2] * X[11] + parent[9],
        parent[3] * X[9] + parent[4] * X[10] + parent[5] * X[11]
        + parent[10],
        parent[6] * X[9] + parent[7] * X[10] + parent[8] * X[11]
        + parent[11])


@compiled(inline=True)
def root_joint_motion(table, i, pose):
    """
    Return S in root coordinates, about the root origin.

    Revolute: [w; o x w] with w = R e_z (the body's z axis), o the body
    origin (the velocity of the point at the root origin); prismatic:
    [0; R e_z scale].
    """
    w0, w1, w2 = pose[2], pose[5], pose[8]
    if table[i, IS_PRISMATIC] != 0.0:
        scale = table[i, JOINT_SCALE]
        return (0.0, 0.0, 0.0, w0 * scale, w1 * scale, w2 * scale)
    o0, o1, o2 = pose[9], pose[10], pose[11]
    return (w0, w1, w2, o1 * w2 - o2 * w1, o2 * w0 - o0 * w2,
            o0 * w1 - o1 * w0)


@compiled(reassociate=True)
def chain_mass_matrix(table, columns, M):
    """
    Write a chain's M from S (rows 0..5 of ``columns``) and s = IC S (6..11).

    M[k, j] = S_k . s_j for k <= j: each row is first computed in full and
    its left part then overwritten with M[j, k] = S_k . s_j (k < j), both
    loops along contiguous numbers from column 0, which LLVM vectorizes
    (a loop from column k + 1 runs
    several times slower); then the armature on the diagonal.
    """
    n = M.shape[0]
    column_products(columns, 0, 6, M)
    for j in range(n):
        s = load_column(columns, 6, j)
        for k in range(j):
            M[j, k] = column_dot(s, columns, 0, k)
    for j in range(n):
        M[j, j] += table[j, ARMATURE]


@compiled(inline=True)
def crba_outward(table, work, first, i, qi):
    """Write body i's root-frame pose, S and own inertia (as a composite)."""
    row = first + i
    p = int(table[i, PARENT])
    X = stored_joint_frame(table, work, row, i, qi, ANGLE)
    pose = X if p < 0 else compose(load12(work, first + p, POSE), X)
    store(work, row, POSE, pose)
    store(work, row, JOINT, root_joint_motion(table, i, pose))
    store_rigid_inertia_to_parent(pose, table, i, MASS, work, row, COMPOSITE)


@compiled(inline=True)
def crba_inward(table, work, first, i):
    """Add body i's composite inertia to its parent's; write Ic_i S_i."""
    row = first + i
    p = int(table[i, PARENT])
    if p >= 0:
        for k in range(13):
            work[first + p, COMPOSITE + k] += work[row, COMPOSITE + k]
    store(work, row, COMPOSITE_FORCE,
          inertia_times(work, row, COMPOSITE, load6(work, row, JOINT)))


@compiled(inline=True)
def mass_matrix_row(table, work, first, i, M, top):
    """
    Write row and column i of M: S_i . Ic_j S_j for j in i's subtree.

    M's rows begin at row ``top`` of ``M`` (a batch's matrices stacked
    as rows); for subtrees that are runs of bodies (SUBTREES_CONTIGUOUS),
    the entries across branches written before.
    """
    S = load6(work, first + i, JOINT)
    M[top + i, i] = (dot(S, load6(work, first + i, COMPOSITE_FORCE))
                     + table[i, ARMATURE])
    for j in range(i + 1, int(table[i, SUBTREE_END])):
        M[top + i, j] = dot(S, load6(work, first + j, COMPOSITE_FORCE))
        M[top + j, i] = M[top + i, j]


@compiled(inline=True)
def fill_mass_matrix(table, work, first, M, columns):
    """
    Write M from the state's S and Ic S (work rows from ``first``).

    ``columns`` (12, nq) is scratch for a chain (``chain_mass_matrix``).
    """
    n = M.shape[0]
    if table[n, IS_CHAIN] != 0.0 and n >= CHAIN_ROWS_FROM:
        for i in range(n):
            store_column(columns, 0, i, load6(work, first + i, JOINT))
            store_column(columns, 6, i,
                         load6(work, first + i, COMPOSITE_FORCE))
        chain_mass_matrix(table, columns, M)
        return
    if table[n, IS_CHAIN] == 0.0:  # else every entry is written below
        for r in range(n):
            for c in range(n):
                M[r, c] = 0.0
    if table[n, SUBTREES_CONTIGUOUS] != 0.0:
        for i in range(n):
            mass_matrix_row(table, work, first, i, M, 0)
        return
    for j in range(n):  # the same, walking up from each body instead
        force = load6(work, first + j, COMPOSITE_FORCE)
        M[j, j] = (dot(load6(work, first + j, JOINT), force)
                   + table[j, ARMATURE])
        i = int(table[j, PARENT])
        while i >= 0:
            M[i, j] = dot(load6(work, first + i, JOINT), force)
            M[j, i] = M[i, j]
            i = int(table[i, PARENT])


@compiled
def crba_sample(table, q, M, work, columns):
    """
    Write M(q) (armature on the diagonal) for one state into ``M``.

    ``columns`` (12, nq) is scratch for a chain (``chain_mass_matrix``).
    """
    n = q.shape[0]
    for i in range(n):
        store_joint_angles(table, work, i, i, q[i], ANGLE)
    for i in range(n):
        crba_outward(table, work, 0, i, q[i])
    for i in range(n - 1, -1, -1):
        crba_inward(table, work, 0, i)
    fill_mass_matrix(table, work, 0, M, columns)


@kernel('int64', MATRIX, MATRIX, INPUT_VECTOR, MATRIX)
def mass_matrix_kernel(table, work, q, M):
    """Write M(q) of one state into ``M`` (``wrapper``)."""
    n = table.shape[0] - 1
    if not (q.size == n and M.shape[0] == n and M.shape[1] == n
            and work.shape[0] == n + 2):
        return BAD_SHAPES
    # The chain's scratch columns only where they are used: an allocation
    # is 3 % of a 7-joint call (``work`` stands in, unread, below that).
    crba_sample(table, q, M, work, np.empty((12, n)) if n >= CHAIN_ROWS_FROM
                and table[n, IS_CHAIN] != 0.0 else work)
    return DONE


@kernel('int64', MATRIX, MATRIX, INPUT_MATRIX, STACK, contract=True)
def mass_matrix_batch(table, work, q, M):
    """Write M(q) of N states into ``M`` (N, nq, nq), interleaved."""
    n = q.shape[1]
    columns = np.empty((12, n))
    work = lanes_work(n, ANGLE + 2)
    angles = angle_buffers(n)
    # M a row at a time, unless a long chain's rows come from BLAS-like
    # loops (``chain_mass_matrix``) or subtrees are not runs of bodies.
    by_rows = table[n, SUBTREES_CONTIGUOUS] != 0.0 and not (
        table[n, IS_CHAIN] != 0.0 and n >= CHAIN_ROWS_FROM)
    if by_rows and table[n, IS_CHAIN] == 0.0:
        M[:] = 0.0  # the entries across branches
    rows = M.reshape((M.shape[0] * n, n))
    for start in range(0, q.shape[0], LANES):
        count = start_block(table, work, q, start, ANGLE, angles)
        for i in range(n):
            for lane in range(count):
                crba_outward(table, work, lane_rows(n, lane), i,
                             q[start + lane, i])
        for i in range(n - 1, -1, -1):
            for lane in range(count):
                crba_inward(table, work, lane_rows(n, lane), i)
        if by_rows:  # interleaved too
            for i in range(n):
                for lane in range(count):
                    mass_matrix_row(table, work, lane_rows(n, lane), i, rows,
                                    (start + lane) * n)
            continue
        for lane in range(count):
            fill_mass_matrix(table, work, lane_rows(n, lane),
                             M[start + lane], columns)
    return -1


# Compiled ``mass_matrix``: (nq,) -> (nq, nq), (N, nq) -> (N, nq, nq).
mass_matrix = Entry(mass_matrix_kernel, mass_matrix_batch, ('q',),
                    ((1, 1),))
