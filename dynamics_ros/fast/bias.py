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
Compiled gravity and bias torques: RNEA with parts of the motion off.

Turney et al.'s (1980) "strobing" of Newton-Euler, as in
``dynamics/bias.py``: h = C qd + g is RNEA at qdd = 0, g at qd = qdd = 0.
For g the recursion shrinks to 3-D vectors (``gravity_sample``).
"""

import numpy as np

from .compiler import compiled, INPUT_MATRIX, INPUT_VECTOR, kernel, MATRIX, \
    VECTOR
from .lanes import angle_buffers, lane_rows, lane_state, LANES, \
    lanes_work, parent_row, start_block, store_joint_angles, \
    stored_joint_frame
from .packing import GRAVITY, IS_PRISMATIC, JOINT_SCALE, MASS, PARENT, \
    work_columns
from .rnea import rnea_lanes, rnea_sample
from .spatial import store
from .wrapper import BAD_SHAPES, DONE, Entry

# Columns of a work row: joint frame, gravity in the body frame, mass and
# first moment of the subtree, and the sine and cosine of the joint angle.
FRAME, GAMMA, SUBTREE_MASS, SUBTREE_MOMENT, ANGLE = work_columns(
    'bias', FRAME=12, GAMMA=3, SUBTREE_MASS=1, SUBTREE_MOMENT=3, ANGLE=2)


@compiled(inline=True)
def store_base_gravity(table, work, base):
    """Write the gravity vector into the base's row ``base``."""
    n = table.shape[0] - 1
    for k in range(3):
        work[base, GAMMA + k] = table[n, GRAVITY + k]


@compiled(inline=True)
def gravity_outward(table, work, first, i, qi):
    """Write body i's X, gamma_i = R^T gamma_parent, and its own m, h."""
    row = first + i
    p = parent_row(table, first, i)
    X = stored_joint_frame(table, work, row, i, qi, ANGLE)
    store(work, row, FRAME, X)
    y0, y1, y2 = work[p, GAMMA], work[p, GAMMA + 1], work[p, GAMMA + 2]
    for c in range(3):
        work[row, GAMMA + c] = X[c] * y0 + X[3 + c] * y1 + X[6 + c] * y2
    for k in range(4):
        work[row, SUBTREE_MASS + k] = table[i, MASS + k]


@compiled(inline=True)
def gravity_inward(table, work, first, i):
    """Return g_i = S_i . F_i; add the subtree's m and h to the parent's."""
    row = first + i
    y0, y1, y2 = work[row, GAMMA], work[row, GAMMA + 1], work[row, GAMMA + 2]
    m = work[row, SUBTREE_MASS]
    h0 = work[row, SUBTREE_MOMENT]
    h1 = work[row, SUBTREE_MOMENT + 1]
    h2 = work[row, SUBTREE_MOMENT + 2]
    p = int(table[i, PARENT])
    if p >= 0:  # the base gathers nothing
        work[first + p, SUBTREE_MASS] += m
        for r in range(3):
            work[first + p, SUBTREE_MOMENT + r] += (
                work[row, FRAME + 3 * r] * h0
                + work[row, FRAME + 3 * r + 1] * h1
                + work[row, FRAME + 3 * r + 2] * h2
                + m * work[row, FRAME + 9 + r])
    # S = e_z (axis frames): the z components.
    if table[i, IS_PRISMATIC] != 0.0:
        return -m * y2 * table[i, JOINT_SCALE]
    return y0 * h1 - y1 * h0


@compiled
def gravity_sample(table, q, g, work):
    """
    Write g(q) for one state from the subtrees' masses and first moments.

    RNEA at qd = qdd = 0 (the base accelerating at -gravity) leaves in each
    body only a = [0; -gamma], gamma the gravity vector in its frame, and
    the forces it gathers from its subtree sum to
    F = I_subtree a = [gamma x h; -m gamma], with m and h = m c the
    subtree's mass and first moment (Featherstone eq. 2.63).  Hence
    g_i = S_i . F_i without 6-D forces: gamma goes outward (gamma_i =
    R^T gamma_parent), m and h inward (h_parent += R h + m p).
    """
    n = q.shape[0]
    store_base_gravity(table, work, work.shape[0] - 1)
    for i in range(n):
        store_joint_angles(table, work, i, i, q[i], ANGLE)
    for i in range(n):
        gravity_outward(table, work, 0, i, q[i])
    for i in range(n - 1, -1, -1):
        g[i] = gravity_inward(table, work, 0, i)


@kernel('int64', MATRIX, MATRIX, INPUT_VECTOR, VECTOR)
def gravity_kernel(table, work, q, g):
    """Write g(q) of one state into ``g`` (``wrapper``)."""
    n = table.shape[0] - 1
    if not (q.size == g.size == n and work.shape[0] == n + 2):
        return BAD_SHAPES
    gravity_sample(table, q, g, work)
    return DONE


@kernel('int64', MATRIX, MATRIX, INPUT_MATRIX, MATRIX, contract=True)
def gravity_batch(table, work, q, g):
    """Write g(q) of N states (rows of q), interleaved (``lanes``)."""
    n = q.shape[1]
    work = lanes_work(n, ANGLE + 2)
    angles = angle_buffers(n)
    for lane in range(LANES):
        store_base_gravity(table, work, lane_rows(n, lane) + n + 1)
    for start in range(0, q.shape[0], LANES):
        count = start_block(table, work, q, start, ANGLE, angles)
        for i in range(n):
            for lane in range(count):
                k, first = lane_state(n, start, lane)
                gravity_outward(table, work, first, i, q[k, i])
        for i in range(n - 1, -1, -1):
            for lane in range(count):
                k, first = lane_state(n, start, lane)
                g[k, i] = gravity_inward(table, work, first, i)
    return -1


@kernel('int64', MATRIX, MATRIX, INPUT_VECTOR, INPUT_VECTOR, VECTOR)
def bias_kernel(table, work, q, qd, h):
    """Write h(q, qd) of one state into ``h`` (``wrapper``)."""
    n = table.shape[0] - 1
    if not (q.size == qd.size == h.size == n and work.shape[0] == n + 2):
        return BAD_SHAPES
    # qdd and f_ext of size 0: zero acceleration, no external wrenches.
    rnea_sample(table, q, qd, q[:0], table[:0], h, work)
    return DONE


@kernel('int64', MATRIX, MATRIX, INPUT_MATRIX, INPUT_MATRIX, MATRIX)
def bias_batch(table, work, q, qd, h):
    """Write h(q, qd) of N states into ``h``."""
    rnea_lanes(table, q, qd, q[:, :0], np.zeros((1, 0, 6)), h)
    return -1


# Compiled ``gravity_torques`` and ``bias_forces``: (nq,) -> (nq,),
# (N, nq) -> (N, nq).
gravity_torques = Entry(gravity_kernel, gravity_batch, ('q',),
                        ((1,),))
bias_forces = Entry(bias_kernel, bias_batch, ('q', 'qd'), ((1,),))
