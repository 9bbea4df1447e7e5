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
Spatial algebra for the compiled kernels, on tuples of floats.

The same Featherstone (2008) conventions as ``dynamics_ros/spatial.py``: motion
[angular; linear], force [moment; force].  Vectors are tuples (values the
compiler keeps in registers; array views would cost a reference count each
time they are passed), read from and written to the model's table and work
arrays by (row, column).  A joint frame X is 12 numbers: the rotation R of
the body in its parent (row-major, columns are the body's axes) and the
position p of its origin.  The motion transform parent -> body is
X = [[E, 0], [-E p x, E]] with E = R^T (eq. 2.24); forces go back with X^T.
Body frames are the packed axis frames (``packing``): every joint turns or
slides along its z axis, so S = e_z (times the joint scale).
"""

import numpy as np

from .compiler import compiled
from .packing import AXIS_FRAME, GRAVITY, IS_PRISMATIC, JOINT_SCALE, MASS, \
    ORIGIN_ROTATION, ORIGIN_TRANSLATION

ZERO = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@compiled(inline=True)
def load6(array, row, column):
    """Return the 6-vector at ``array[row, column:column + 6]``."""
    return (array[row, column], array[row, column + 1],
            array[row, column + 2], array[row, column + 3],
            array[row, column + 4], array[row, column + 5])


@compiled(inline=True)
def load12(array, row, column):
    """Return the 12 numbers (a joint frame) at ``array[row, column:]``."""
    return (array[row, column], array[row, column + 1],
            array[row, column + 2], array[row, column + 3],
            array[row, column + 4], array[row, column + 5],
            array[row, column + 6], array[row, column + 7],
            array[row, column + 8], array[row, column + 9],
            array[row, column + 10], array[row, column + 11])


@compiled(inline=True)
def store(array, row, column, values):
    """Write a tuple to ``array[row, column:column + len(values)]``."""
    for k in range(len(values)):
        array[row, column + k] = values[k]


@compiled(inline=True)
def store_column(columns, first_row, j, v):
    """Write a 6-vector down column j of ``columns``, from ``first_row``."""
    for c in range(6):
        columns[first_row + c, j] = v[c]


@compiled(inline=True)
def load_column(columns, first_row, j):
    """Return the 6-vector down column j of ``columns``, from ``first_row``."""
    return (columns[first_row, j], columns[first_row + 1, j],
            columns[first_row + 2, j], columns[first_row + 3, j],
            columns[first_row + 4, j], columns[first_row + 5, j])


@compiled(inline=True)
def column_dot(v, columns, first_row, j):
    """Return v . ``columns``[first_row:first_row + 6, j]."""
    return (v[0] * columns[first_row, j] + v[1] * columns[first_row + 1, j]
            + v[2] * columns[first_row + 2, j]
            + v[3] * columns[first_row + 3, j]
            + v[4] * columns[first_row + 4, j]
            + v[5] * columns[first_row + 5, j])


@compiled(reassociate=True)
def column_products(columns, left, right, out):
    """
    Write out[k, j] = a_k . b_j for every k and j (a row at a time).

    a_k and b_j are the 6-vectors down column k from row ``left`` and
    column j from row ``right`` of ``columns``: each row of ``out`` is a
    loop along contiguous numbers, which LLVM runs four lanes at a time.
    """
    n = out.shape[0]
    for k in range(n):
        a = load_column(columns, left, k)
        for j in range(n):
            out[k, j] = column_dot(a, columns, right, j)


@compiled(inline=True)
def add(a, b):
    """Return a + b for two 6-vectors."""
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4],
            a[5] + b[5])


@compiled(inline=True)
def subtract(a, b):
    """Return a - b for two 6-vectors."""
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3], a[4] - b[4],
            a[5] - b[5])


@compiled(inline=True)
def scale(a, s):
    """Return a s for a 6-vector a and a number s."""
    return (a[0] * s, a[1] * s, a[2] * s, a[3] * s, a[4] * s, a[5] * s)


@compiled(inline=True)
def dot(a, b):
    """Return a . b for two 6-vectors."""
    return (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
            + a[4] * b[4] + a[5] * b[5])


@compiled(inline=True)
def store_base_motion(table, work, velocity, acceleration, base=-1):
    """
    Write the fixed base's v = 0 and a = -g in its work row (the last).

    Gravity enters as an upward acceleration of the base (Turney et al.'s
    "elevator"), so no body needs a gravity term; the root bodies' parent
    index -1 finds this row.  ``base`` is another state's base row in a
    batch's work (``lanes``).
    """
    n = table.shape[0] - 1
    store(work, base, velocity, ZERO)
    store(work, base, acceleration, (0.0, 0.0, 0.0, -table[n, GRAVITY],
                                     -table[n, GRAVITY + 1],
                                     -table[n, GRAVITY + 2]))


@compiled(inline=True)
def sliding_frame(table, i, qi):
    """Return X of prismatic body i: R = R0, p = p0 + R0 e_z scale qi."""
    r = ORIGIN_ROTATION
    t = ORIGIN_TRANSLATION
    slide = table[i, JOINT_SCALE] * qi
    return (table[i, r], table[i, r + 1], table[i, r + 2],
            table[i, r + 3], table[i, r + 4], table[i, r + 5],
            table[i, r + 6], table[i, r + 7], table[i, r + 8],
            table[i, t] + table[i, r + 2] * slide,
            table[i, t + 1] + table[i, r + 5] * slide,
            table[i, t + 2] + table[i, r + 8] * slide)


@compiled(inline=True)
def turning_frame(table, i, s, c):
    """Return X of revolute body i turned by an angle of sine s, cosine c."""
    r = ORIGIN_ROTATION
    t = ORIGIN_TRANSLATION
    a0, b0 = table[i, r], table[i, r + 1]
    a1, b1 = table[i, r + 3], table[i, r + 4]
    a2, b2 = table[i, r + 6], table[i, r + 7]
    return (a0 * c + b0 * s, b0 * c - a0 * s, table[i, r + 2],
            a1 * c + b1 * s, b1 * c - a1 * s, table[i, r + 5],
            a2 * c + b2 * s, b2 * c - a2 * s, table[i, r + 8],
            table[i, t], table[i, t + 1], table[i, t + 2])


@compiled(inline=True)
def joint_frame(table, i, qi):
    """
    Return the pose X of body ``i`` in its parent at joint position ``qi``.

    Revolute: R = R0 Rot_z(qi), p = p0.  Prismatic: R = R0,
    p = p0 + R0 e_z scale qi.
    """
    if table[i, IS_PRISMATIC] != 0.0:
        return sliding_frame(table, i, qi)
    return turning_frame(table, i, np.sin(qi), np.cos(qi))


@compiled(inline=True)
def joint_motion(table, i, rate):
    """Return S rate: rotation or translation along z at ``rate``."""
    if table[i, IS_PRISMATIC] != 0.0:
        return (0.0, 0.0, 0.0, 0.0, 0.0, rate * table[i, JOINT_SCALE])
    return (0.0, 0.0, rate, 0.0, 0.0, 0.0)


@compiled(inline=True)
def joint_component(table, i, vector):
    """Return S . vector: a force's component along the joint (a torque)."""
    if table[i, IS_PRISMATIC] != 0.0:
        return vector[5] * table[i, JOINT_SCALE]
    return vector[2]


@compiled(inline=True)
def transpose_times(R, x0, x1, x2):
    """Return R^T x for R the first 9 numbers of ``R`` (3x3 row-major)."""
    return (R[0] * x0 + R[3] * x1 + R[6] * x2,
            R[1] * x0 + R[4] * x1 + R[7] * x2,
            R[2] * x0 + R[5] * x1 + R[8] * x2)


@compiled(inline=True)
def motion_to_child(X, m):
    """Return X m: a parent-frame motion vector in the body frame."""
    w0, w1, w2 = m[0], m[1], m[2]
    # u - p x w, then both rotated by E = R^T.
    u0 = m[3] - (X[10] * w2 - X[11] * w1)
    u1 = m[4] - (X[11] * w0 - X[9] * w2)
    u2 = m[5] - (X[9] * w1 - X[10] * w0)
    return transpose_times(X, w0, w1, w2) + transpose_times(X, u0, u1, u2)


@compiled(inline=True)
def force_to_parent(X, f):
    """Return X^T f: a body-frame force in the parent frame."""
    n0, n1, n2, f0, f1, f2 = f
    g0 = X[0] * f0 + X[1] * f1 + X[2] * f2
    g1 = X[3] * f0 + X[4] * f1 + X[5] * f2
    g2 = X[6] * f0 + X[7] * f1 + X[8] * f2
    return (X[0] * n0 + X[1] * n1 + X[2] * n2 + X[10] * g2 - X[11] * g1,
            X[3] * n0 + X[4] * n1 + X[5] * n2 + X[11] * g0 - X[9] * g2,
            X[6] * n0 + X[7] * n1 + X[8] * n2 + X[9] * g1 - X[10] * g0,
            g0, g1, g2)


@compiled(inline=True)
def motion_cross(v, m):
    """Return v x m for two motion vectors (Featherstone eq. 2.31)."""
    w0, w1, w2, u0, u1, u2 = v
    a0, a1, a2, b0, b1, b2 = m
    return (w1 * a2 - w2 * a1, w2 * a0 - w0 * a2, w0 * a1 - w1 * a0,
            w1 * b2 - w2 * b1 + u1 * a2 - u2 * a1,
            w2 * b0 - w0 * b2 + u2 * a0 - u0 * a2,
            w0 * b1 - w1 * b0 + u0 * a1 - u1 * a0)


@compiled(inline=True)
def force_cross(v, f):
    """Return v x* f for motion v, force f (Featherstone eq. 2.32)."""
    w0, w1, w2, u0, u1, u2 = v
    n0, n1, n2, f0, f1, f2 = f
    return (w1 * n2 - w2 * n1 + u1 * f2 - u2 * f1,
            w2 * n0 - w0 * n2 + u2 * f0 - u0 * f2,
            w0 * n1 - w1 * n0 + u0 * f1 - u1 * f0,
            w1 * f2 - w2 * f1, w2 * f0 - w0 * f2, w0 * f1 - w1 * f0)


@compiled(inline=True)
def inertia_times(array, row, column, v):
    """
    Return I v for a rigid inertia stored as ten parameters.

    ``array[row, column:column + 13]`` = [m, h (3), Ibar (3x3)] (the MASS..
    columns of a body row): I v = [Ibar w + h x u; m u - h x w]
    (Featherstone eq. 2.63).
    """
    m = array[row, column]
    h0 = array[row, column + 1]
    h1 = array[row, column + 2]
    h2 = array[row, column + 3]
    k = column + 4
    w0, w1, w2, u0, u1, u2 = v
    return (array[row, k] * w0 + array[row, k + 1] * w1
            + array[row, k + 2] * w2 + h1 * u2 - h2 * u1,
            array[row, k + 3] * w0 + array[row, k + 4] * w1
            + array[row, k + 5] * w2 + h2 * u0 - h0 * u2,
            array[row, k + 6] * w0 + array[row, k + 7] * w1
            + array[row, k + 8] * w2 + h0 * u1 - h1 * u0,
            m * u0 - (h1 * w2 - h2 * w1), m * u1 - (h2 * w0 - h0 * w2),
            m * u2 - (h0 * w1 - h1 * w0))


@compiled(inline=True)
def body_inertia_times(table, i, v):
    """Return I_i v for body ``i`` of the table."""
    return inertia_times(table, i, MASS, v)


@compiled(inline=True)
def body_wrench(f_ext, table, i):
    """Return f_ext[i], given in the URDF body frame, in the axis frame."""
    q = AXIS_FRAME
    Q = (table[i, q], table[i, q + 1], table[i, q + 2], table[i, q + 3],
         table[i, q + 4], table[i, q + 5], table[i, q + 6], table[i, q + 7],
         table[i, q + 8])
    return (transpose_times(Q, f_ext[i, 0], f_ext[i, 1], f_ext[i, 2])
            + transpose_times(Q, f_ext[i, 3], f_ext[i, 4], f_ext[i, 5]))


@compiled(inline=True)
def subtract_wrench(table, i, wrenches, work, row, column):
    """Subtract body i's external wrench (row i of ``wrenches``) there."""
    store(work, row, column, subtract(load6(work, row, column),
                                      body_wrench(wrenches, table, i)))


@compiled(inline=True)
def store_rigid_inertia_to_parent(X, source, row, column, out, out_row,
                                  out_column):
    """
    Write X^T I X, a rigid inertia seen from the parent, over another one.

    Both are ten parameters [m, h, Ibar] at ``source[row, column:]`` and
    ``out[out_row, out_column:]`` (written, not added, so the callers need
    no zeroing pass first).  Rotated: h_r = R h, Ibar_r = R Ibar R^T;
    moved to the parent origin (parallel axes, Featherstone eq. 2.66
    written without dividing by m, so massless bodies are fine):
    h' = h_r + m p, Ibar' = Ibar_r - m P P - P H - H P (P = p x, H = h_r x).
    """
    m = source[row, column]
    s0 = source[row, column + 1]
    s1 = source[row, column + 2]
    s2 = source[row, column + 3]
    p = (X[9], X[10], X[11])
    h = (X[0] * s0 + X[1] * s1 + X[2] * s2,
         X[3] * s0 + X[4] * s1 + X[5] * s2,
         X[6] * s0 + X[7] * s1 + X[8] * s2)
    out[out_row, out_column] = m
    for r in range(3):
        out[out_row, out_column + 1 + r] = h[r] + m * p[r]
    # -m P P - P H - H P = m (|p|^2 1 - p p^T) + 2 (p.h) 1 - p h^T - h p^T.
    diagonal = m * (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) + 2.0 * (
        p[0] * h[0] + p[1] * h[1] + p[2] * h[2])
    k = column + 4
    for r in range(3):
        # (R Ibar)[r, :], then (R Ibar R^T)[r, c], symmetric: c >= r only.
        a0 = (X[3 * r] * source[row, k] + X[3 * r + 1] * source[row, k + 3]
              + X[3 * r + 2] * source[row, k + 6])
        a1 = (X[3 * r] * source[row, k + 1]
              + X[3 * r + 1] * source[row, k + 4]
              + X[3 * r + 2] * source[row, k + 7])
        a2 = (X[3 * r] * source[row, k + 2]
              + X[3 * r + 1] * source[row, k + 5]
              + X[3 * r + 2] * source[row, k + 8])
        for c in range(r, 3):
            value = (a0 * X[3 * c] + a1 * X[3 * c + 1] + a2 * X[3 * c + 2]
                     - m * p[r] * p[c] - p[r] * h[c] - h[r] * p[c])
            if r == c:
                out[out_row, out_column + 4 + 4 * r] = value + diagonal
            else:
                out[out_row, out_column + 4 + 3 * r + c] = value
                out[out_row, out_column + 4 + 3 * c + r] = value
