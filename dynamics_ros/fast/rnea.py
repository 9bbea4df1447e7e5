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
Compiled recursive Newton-Euler inverse dynamics, one state or a batch.

The recursion of ``dynamics/rnea.py`` (Featherstone 2008 Table 5.1; Turney,
Mudge and Lee 1980 eqs. 3.15-3.21) over a packed model.  The work array has
a row per body, a row of per-call vectors, and last a row for the fixed
base, so ``parent = -1`` indexes the base (velocity 0, acceleration -g:
Turney's "elevator" gravity) and the inward pass needs no special case for
root bodies.
"""

from .compiler import compiled
from .lanes import angle_buffers, lane_state, LANES, lanes_work, \
    parent_row, start_block, store_joint_angles, store_lane_bases, \
    stored_joint_frame
from .packing import ARMATURE, work_columns
from .spatial import add, body_inertia_times, force_cross, \
    force_to_parent, joint_component, joint_motion, load12, load6, \
    motion_cross, motion_to_child, store, store_base_motion, \
    subtract_wrench, ZERO
from .wrapper import sample_entry, state_wrench

# Columns of a work row: joint frame, then v, a, f of the body, and the
# sine and cosine of its joint angle.
FRAME, VELOCITY, ACCELERATION, FORCE, ANGLE = work_columns(
    'rnea', FRAME=12, VELOCITY=6, ACCELERATION=6, FORCE=6, ANGLE=2)


@compiled(inline=True)
def rnea_outward(table, work, first, i, qi, qdi, qddi, accelerating):
    """
    Write body i's X, v, a and f = I a + v x* I v (Table 5.1, outward).

    The state's work rows begin at ``first`` (``lanes``); ``qddi`` is
    added only if ``accelerating``.
    """
    row = first + i
    p = parent_row(table, first, i)
    X = stored_joint_frame(table, work, row, i, qi, ANGLE)
    vJ = joint_motion(table, i, qdi)
    v = add(motion_to_child(X, load6(work, p, VELOCITY)), vJ)
    a = add(motion_to_child(X, load6(work, p, ACCELERATION)),
            motion_cross(v, vJ))
    if accelerating:
        a = add(a, joint_motion(table, i, qddi))
    store(work, row, FRAME, X)
    store(work, row, VELOCITY, v)
    store(work, row, ACCELERATION, a)
    store(work, row, FORCE, add(body_inertia_times(table, i, a), force_cross(
        v, body_inertia_times(table, i, v))))


@compiled(inline=True)
def rnea_inward(table, work, first, i, qddi, accelerating):
    """Return tau_i = S . f_i (+ armature qdd_i); add X^T f_i to the parent."""
    row = first + i
    f = load6(work, row, FORCE)
    p = parent_row(table, first, i)
    store(work, p, FORCE, add(load6(work, p, FORCE),
                              force_to_parent(load12(work, row, FRAME), f)))
    if accelerating:
        return joint_component(table, i, f) + table[i, ARMATURE] * qddi
    return joint_component(table, i, f)


@compiled
def rnea_sample(table, q, qd, qdd, f_ext, tau, work):
    """
    Write tau = M qdd + C qd + g - J^T f_ext (+ armature qdd) for one state.

    ``qdd`` of size 0 means zero acceleration, ``f_ext`` (nq, 6) of size 0
    no external wrenches; ``work`` is the model's (nq + 2, .) scratch.
    """
    n = q.shape[0]
    store_base_motion(table, work, VELOCITY, ACCELERATION)
    store(work, work.shape[0] - 1, FORCE, ZERO)  # the base
    accelerating = qdd.size > 0
    for i in range(n):
        store_joint_angles(table, work, i, i, q[i], ANGLE)
    for i in range(n):
        rnea_outward(table, work, 0, i, q[i], qd[i],
                     qdd[i] if accelerating else 0.0, accelerating)
        if f_ext.shape[0] > 0:
            subtract_wrench(table, i, f_ext, work, i, FORCE)
    for i in range(n - 1, -1, -1):
        tau[i] = rnea_inward(table, work, 0, i,
                             qdd[i] if accelerating else 0.0, accelerating)


@compiled(contract=True)
def rnea_lanes(table, q, qd, qdd, f_ext, tau):
    """
    Write tau of N states (rows), ``LANES`` states interleaved (``lanes``).

    ``qdd`` (N, 0) means zero acceleration; ``f_ext`` is (N, nq, 6),
    (1, nq, 6) shared or (1, 0, 6) for none.  The bases' force rows
    gather the root bodies' forces and are never read.
    """
    n = q.shape[1]
    work = lanes_work(n, ANGLE + 2)
    angles = angle_buffers(n)
    store_lane_bases(table, work, VELOCITY, ACCELERATION)
    accelerating = qdd.shape[1] > 0
    for start in range(0, q.shape[0], LANES):
        count = start_block(table, work, q, start, ANGLE, angles)
        for i in range(n):
            for lane in range(count):
                k, first = lane_state(n, start, lane)
                rnea_outward(table, work, first, i, q[k, i], qd[k, i],
                             qdd[k, i] if accelerating else 0.0, accelerating)
                if f_ext.shape[1] > 0:
                    subtract_wrench(table, i, state_wrench(f_ext, k), work,
                                    first + i, FORCE)
        for i in range(n - 1, -1, -1):
            for lane in range(count):
                k, first = lane_state(n, start, lane)
                tau[k, i] = rnea_inward(
                    table, work, first, i,
                    qdd[k, i] if accelerating else 0.0, accelerating)


# Compiled ``inverse_dynamics``: (nq,) -> (nq,), (N, nq) -> (N, nq).
inverse_dynamics = sample_entry('inverse_dynamics', rnea_sample,
                                ('q', 'qd', 'qdd'), ((1,),), lanes=rnea_lanes)
