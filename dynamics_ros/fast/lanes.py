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
Batches run as interleaved states ("lanes"), the recursions written once.

One state's recursion is a chain of dependent steps: body i needs its
parent's velocity, the parent its own, and so on, so the processor mostly
waits for the result of the step before.  A batch kernel therefore runs
each step for ``LANES`` states before it goes on to the next body: the
states' steps do not depend on each other, and the processor overlaps
them.  Inverse dynamics, bias, gravity, mass matrix and forward dynamics
batches run so, and linearizations of fewer than 12 joints
(``benchmarks/results.md`` has the figures).

So that the one-state kernel and the batch kernel share every line of the
algorithm, a kernel module writes its recursion as steps over one body of
one state, ``step(table, work, first, i, ...)``: the state's work rows
begin at row ``first`` of ``work``.  One state runs them with ``first =
0`` on the model's work array; a batch on ``lanes_work``, where the rows
of lane k begin at k (nq + 2).  Each lane has the layout of the one-state
work array: a row per body, a per-call row, then the fixed base.

The lane loops around the steps are written out in each batch kernel:
blocks of ``LANES`` states (``start_block``), bodies outward or inward,
lanes innermost (``lane_state``); a duplicates check lists
``aba.aba_lanes`` and ``linearize.linearize_lanes`` as alike.  They stay
written out, not one loop taking the step as an argument: numba's
``inline='always'`` inlines a step called by its global name, and each
kernel's loop body differs around the step (external wrenches, chains or
trees, scratch rows).

A step is inlined into its caller (``compiled(inline=True)``), and numba
then counts references to the arrays it is passed, a call to the runtime
at its start and at its end, unless it can pair them up within the step:
it cannot when the step's last use of an array is inside a branch (an
``if`` on external wrenches, on a chain, on a root body), nor across a
loop that the compiler does not unroll.  Such calls cost more than the
step itself (the derivatives' outward pass of one Panda state: 0.49
against 0.35 us), so steps leave those branches to their callers and
keep their loops short and of constant length (``aba.rotate_block``).
Counting ``NRT_incref`` in a kernel's ``inspect_llvm()`` (compiled
without the disk cache) shows whether any are left inside its loops.

The joints' sines and cosines are computed in a pass of their own before
the recursion (``store_joint_angles``): a call to ``sin`` in the middle
of a step makes the compiler save and reload every number it holds in a
register around the call.  A batch computes those of a whole block in one
vector loop (``store_block_angles``, ``sincos``); they then differ from
the C library's in the last bits, so a batch's row differs from the one
state's result by round-off.
"""

import numpy as np

from .compiler import compiled
from .packing import IS_PRISMATIC, PARENT
from .sincos import sines_and_cosines
from .spatial import sliding_frame, store_base_motion, turning_frame

# States interleaved by a batch kernel: more hide the steps' latencies
# better until their work rows no longer fit the first-level cache.
LANES = 16


@compiled(inline=True)
def lanes_work(n, columns):
    """
    Return the work rows of ``LANES`` states of an nq = n model.

    Only as many ``columns`` as the kernel's layout has (not
    WORK_COLUMNS): the rows of all the lanes then stay in the first-level
    cache for longer chains too.
    """
    return np.empty((LANES * (n + 2), columns))


@compiled(inline=True)
def store_lane_bases(table, work, velocity, acceleration):
    """Write every lane's base row: v = 0, a = -g (``store_base_motion``)."""
    n = table.shape[0] - 1
    for lane in range(LANES):
        store_base_motion(table, work, velocity, acceleration,
                          lane_rows(n, lane) + n + 1)


@compiled(inline=True)
def start_block(table, work, q, start, column, buffers):
    """Store the angles of the block of states from ``start``; its size."""
    count = min(LANES, q.shape[0] - start)
    store_block_angles(table, work, q, start, count, column, buffers)
    return count


@compiled(inline=True)
def lane_state(n, start, lane):
    """Return the state of ``lane`` in the block from ``start``, its row."""
    return start + lane, lane_rows(n, lane)


@compiled(inline=True)
def lane_rows(n, lane):
    """Return the first work row of ``lane``."""
    return lane * (n + 2)


@compiled(inline=True)
def parent_row(table, first, i):
    """
    Return the work row of body i's parent, the base's for a root body.

    ``table`` has nq + 1 rows, so its row count is the base's row in a
    state's work rows (nq + 1: after the bodies and the per-call row).
    """
    p = int(table[i, PARENT])
    return first + (p if p >= 0 else table.shape[0])


@compiled(inline=True)
def store_joint_angles(table, work, row, i, qi, column):
    """Write sin qi and cos qi of a revolute joint at ``work[row, column]``."""
    if table[i, IS_PRISMATIC] == 0.0:
        work[row, column] = np.sin(qi)
        work[row, column + 1] = np.cos(qi)


@compiled(inline=True)
def angle_buffers(n):
    """Return scratch for ``store_block_angles``: angles, sines, cosines."""
    return (np.empty(LANES * n), np.empty(LANES * n), np.empty(LANES * n))


@compiled(inline=True)
def store_block_angles(table, work, q, start, count, column, buffers):
    """
    Store the joint angles' sines and cosines of states start.. + count.

    All at once (``sincos``): the block's angles are gathered into one
    vector, the compiler's vector loop takes them four at a time.
    """
    angles, sines, cosines = buffers
    n = q.shape[1]
    size = count * n
    for lane in range(count):
        for i in range(n):
            angles[lane * n + i] = q[start + lane, i]
    sines_and_cosines(angles[:size], sines[:size], cosines[:size])
    for i in range(n):
        if table[i, IS_PRISMATIC] == 0.0:
            for lane in range(count):
                row = lane_rows(n, lane) + i
                work[row, column] = sines[lane * n + i]
                work[row, column + 1] = cosines[lane * n + i]


@compiled(inline=True)
def stored_joint_frame(table, work, row, i, qi, column):
    """Return body i's joint frame X, its angle's sine and cosine stored."""
    if table[i, IS_PRISMATIC] != 0.0:
        return sliding_frame(table, i, qi)
    return turning_frame(table, i, work[row, column], work[row, column + 1])
