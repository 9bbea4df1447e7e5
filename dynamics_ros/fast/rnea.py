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
from .packing import ARMATURE, PARENT, work_columns
from .spatial import add, body_inertia_times, body_wrench, force_cross, \
    force_to_parent, joint_component, joint_frame, joint_motion, load12, \
    load6, motion_cross, motion_to_child, store, store_base_motion, subtract, \
    ZERO
from .wrapper import sample_entry

# Columns of a work row: joint frame, then v, a, f of the body.
FRAME, VELOCITY, ACCELERATION, FORCE = work_columns(
    'rnea', FRAME=12, VELOCITY=6, ACCELERATION=6, FORCE=6)


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
        p = int(table[i, PARENT])
        X = joint_frame(table, i, q[i])
        vJ = joint_motion(table, i, qd[i])
        v = add(motion_to_child(X, load6(work, p, VELOCITY)), vJ)
        a = add(motion_to_child(X, load6(work, p, ACCELERATION)),
                motion_cross(v, vJ))
        if accelerating:
            a = add(a, joint_motion(table, i, qdd[i]))
        f = add(body_inertia_times(table, i, a),
                force_cross(v, body_inertia_times(table, i, v)))
        if f_ext.shape[0] > 0:
            f = subtract(f, body_wrench(f_ext, table, i))
        store(work, i, FRAME, X)
        store(work, i, VELOCITY, v)
        store(work, i, ACCELERATION, a)
        store(work, i, FORCE, f)
    for i in range(n - 1, -1, -1):
        p = int(table[i, PARENT])
        f = load6(work, i, FORCE)
        tau[i] = joint_component(table, i, f)
        if accelerating:
            tau[i] += table[i, ARMATURE] * qdd[i]
        store(work, p, FORCE, add(load6(work, p, FORCE),
                                  force_to_parent(load12(work, i, FRAME), f)))


# Compiled ``inverse_dynamics``: (nq,) -> (nq,), (N, nq) -> (N, nq).
inverse_dynamics = sample_entry('inverse_dynamics', rnea_sample,
                                ('q', 'qd', 'qdd'), ((1,),))
