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
Compiled joint torque regressor Y(q, qd, qdd), one state or a batch.

The recursion of ``dynamics/regressor.py`` (Atkeson, An and Hollerbach
1986; Khalil and Dombre 2002 eq. 12.17) over the packed model: RNEA's
outward pass, then each body's 6 x 10 block A_j carried inward column by
column, Y[i, 10 j + c] = S_i . X_(i<-j)^T A_j[:, c].  The packed bodies sit
in their axis frames (``packing``), the parameters in the URDF body frames
(Pinocchio's), so each body's velocity and acceleration are turned by Q
into its URDF frame, the block is formed there and its columns turned back
by Q^T before they travel inward.  Self-contained: it reads the table and
the spatial helpers only.
"""

from .compiler import compiled, INPUT_MATRIX, INPUT_VECTOR, kernel, MATRIX, \
    STACK
from .packing import AXIS_FRAME, GRAVITY, PARENT, work_columns
from .spatial import add, force_cross, force_to_parent, joint_component, \
    joint_frame, joint_motion, load12, load6, motion_cross, motion_to_child, \
    store, ZERO
from .wrapper import BAD_SHAPES, DONE, Entry

# Columns of a work row: joint frame, then v and a of the body.
FRAME, VELOCITY, ACCELERATION = work_columns(
    'regressor', FRAME=12, VELOCITY=6, ACCELERATION=6)
PARAMETERS = 10


@compiled(inline=True)
def axis_rotation(table, i):
    """Return Q of body ``i`` (row-major): axis-frame axes in URDF frame."""
    k = AXIS_FRAME
    return (table[i, k], table[i, k + 1], table[i, k + 2], table[i, k + 3],
            table[i, k + 4], table[i, k + 5], table[i, k + 6],
            table[i, k + 7], table[i, k + 8])


@compiled(inline=True)
def to_urdf_frame(Q, m):
    """Return blockdiag(Q, Q) m: an axis-frame 6-vector in the URDF frame."""
    return (Q[0] * m[0] + Q[1] * m[1] + Q[2] * m[2],
            Q[3] * m[0] + Q[4] * m[1] + Q[5] * m[2],
            Q[6] * m[0] + Q[7] * m[1] + Q[8] * m[2],
            Q[0] * m[3] + Q[1] * m[4] + Q[2] * m[5],
            Q[3] * m[3] + Q[4] * m[4] + Q[5] * m[5],
            Q[6] * m[3] + Q[7] * m[4] + Q[8] * m[5])


@compiled(inline=True)
def to_axis_frame(Q, f):
    """Return blockdiag(Q^T, Q^T) f: a URDF-frame 6-vector in the axis frame."""
    return to_urdf_frame((Q[0], Q[3], Q[6], Q[1], Q[4], Q[7], Q[2], Q[5],
                          Q[8]), f)


@compiled(inline=True)
def unit_inertia_times(c, v):
    """
    Return I(e_c) v: the spatial inertia of parameter ``c`` alone, times v.

    Featherstone eq. 2.63, I v = [Ibar w + h x u; m u - h x w], with one of
    [m, h_x, h_y, h_z, Ixx, Ixy, Iyy, Ixz, Iyz, Izz] equal to 1.
    """
    w0, w1, w2, u0, u1, u2 = v
    if c == 0:
        return (0.0, 0.0, 0.0, u0, u1, u2)
    if c == 1:  # h = e_x
        return (0.0, -u2, u1, 0.0, w2, -w1)
    if c == 2:  # h = e_y
        return (u2, 0.0, -u0, -w2, 0.0, w0)
    if c == 3:  # h = e_z
        return (-u1, u0, 0.0, w1, -w0, 0.0)
    if c == 4:  # Ixx
        return (w0, 0.0, 0.0, 0.0, 0.0, 0.0)
    if c == 5:  # Ixy
        return (w1, w0, 0.0, 0.0, 0.0, 0.0)
    if c == 6:  # Iyy
        return (0.0, w1, 0.0, 0.0, 0.0, 0.0)
    if c == 7:  # Ixz
        return (w2, 0.0, w0, 0.0, 0.0, 0.0)
    if c == 8:  # Iyz
        return (0.0, w2, w1, 0.0, 0.0, 0.0)
    return (0.0, 0.0, w2, 0.0, 0.0, 0.0)  # Izz


@compiled
def regressor_sample(table, q, qd, qdd, Y, work):
    """Write Y (nq, 10 nq) of one state; ``work`` is the (nq + 2, .) scratch."""
    n = q.shape[0]
    base = n + 1  # = -1: the parent index of root bodies
    store(work, base, VELOCITY, ZERO)
    store(work, base, ACCELERATION, (0.0, 0.0, 0.0, -table[n, GRAVITY],
                                     -table[n, GRAVITY + 1],
                                     -table[n, GRAVITY + 2]))
    for i in range(n):
        p = int(table[i, PARENT])
        X = joint_frame(table, i, q[i])
        vJ = joint_motion(table, i, qd[i])
        v = add(motion_to_child(X, load6(work, p, VELOCITY)), vJ)
        a = add(add(motion_to_child(X, load6(work, p, ACCELERATION)),
                    motion_cross(v, vJ)), joint_motion(table, i, qdd[i]))
        store(work, i, FRAME, X)
        store(work, i, VELOCITY, v)
        store(work, i, ACCELERATION, a)
    for r in range(n):
        for c in range(PARAMETERS * n):
            Y[r, c] = 0.0
    for j in range(n):
        Q = axis_rotation(table, j)
        v = to_urdf_frame(Q, load6(work, j, VELOCITY))
        a = to_urdf_frame(Q, load6(work, j, ACCELERATION))
        for c in range(PARAMETERS):
            # Column c of A_j: f = I(e_c) a + v x* I(e_c) v, URDF frame.
            f = to_axis_frame(Q, add(unit_inertia_times(c, a), force_cross(
                v, unit_inertia_times(c, v))))
            i = j
            while i >= 0:
                Y[i, PARAMETERS * j + c] = joint_component(table, i, f)
                f = force_to_parent(load12(work, i, FRAME), f)
                i = int(table[i, PARENT])


@kernel('int64', MATRIX, MATRIX, INPUT_VECTOR, INPUT_VECTOR, INPUT_VECTOR,
        MATRIX)
def regressor_kernel(table, work, q, qd, qdd, Y):
    """Write the regressor of one state into ``Y`` (``wrapper``)."""
    n = table.shape[0] - 1
    if not (q.size == qd.size == qdd.size == Y.shape[0] == n
            and Y.shape[1] == PARAMETERS * n and work.shape[0] == n + 2):
        return BAD_SHAPES
    regressor_sample(table, q, qd, qdd, Y, work)
    return DONE


@kernel('int64', MATRIX, MATRIX, INPUT_MATRIX, INPUT_MATRIX, INPUT_MATRIX,
        STACK)
def regressor_batch(table, work, q, qd, qdd, Y):
    """Write the regressors of N states (rows of q, qd, qdd) into ``Y``."""
    for k in range(q.shape[0]):
        regressor_sample(table, q[k], qd[k], qdd[k], Y[k], work)
    return -1


# Compiled ``joint_torque_regressor``: (nq, 10 nq), or (N, nq, 10 nq).
joint_torque_regressor = Entry(regressor_kernel, regressor_batch,
                               ('q', 'qd', 'qdd'),
                               ((1, PARAMETERS),))
