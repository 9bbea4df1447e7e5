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
Compiled analytic derivatives of inverse dynamics: dtau/dq, dtau/dqd, M.

The numpy reference (``dynamics/rnea_derivatives.py``) carries a tangent
matrix through the body-frame RNEA.  Here every quantity is in the root
frame, as in Carpentier and Mansard (2018, "Analytical derivatives of rigid
body dynamics algorithms"): a change of q_k then moves the whole
subtree of joint k as one rigid body, with twist S_k, and what is left over
are a few 6-vectors per joint, so each entry of the Jacobians is a handful
of 6-term dot products.

Root-frame RNEA (Featherstone 2008, Table 5.1, written in one frame):
v_i = v_p + S_i qd_i, a_i = a_p + S_i qdd_i + Psid_i qd_i,
f_i = I_i a_i + v_i x* I_i v_i - f_ext_i, F_i = sum of f over the subtree
of i, tau_i = S_i . F_i, with a_base = -g and

    Psid_i = v_p x S_i  (= dS_i/dt),
    Psidd_i = a_p x S_i + v_p x Psid_i.

Differentiating (k an ancestor of body i, or i itself; body-fixed vectors
turn at S_k x, so the "rigid" parts below are S_k x v_i, S_k x a_i, ...):

    dv_i/dq_k = S_k x v_i + Psid_k,
    da_i/dq_k = S_k x a_i + Psid_k x v_i + Psidd_k,
    dv_i/dqd_k = S_k,   da_i/dqd_k = S_k x v_i + 2 Psid_k,

so df_i/dq_k = S_k x* f_i + B_i Psid_k + I_i Psidd_k and
df_i/dqd_k = B_i S_k + 2 I_i Psid_k, where
B_i x = v_i x* (I_i x) - I_i (v_i x x) + x x* (I_i v_i) = (P_i + P_i^T) x +
x x* h_i, with P_i = (v_i x*) I_i and h_i = I_i v_i.  Summed over subtrees
(composites IC, PC, HC; P + P^T is nine numbers, ``store_coupling``) and
projected on S_j, and since a rigid turn leaves S_j . F_j unchanged:

- k ancestor of j, or k = j:  dtau_j/dq_k = S_j . (BC_j Psid_k + IC_j Psidd_k)
  = r_j . Psid_k + s_j . Psidd_k and dtau_j/dqd_k = r_j . S_k
  + 2 s_j . Psid_k, with r_j = BC_j^T S_j, s_j = IC_j S_j;
- j a strict ancestor of k:  dtau_j/dq_k = S_j . (S_k x* F_k + BC_k Psid_k
  + IC_k Psidd_k) and dtau_j/dqd_k = S_j . (BC_k S_k + 2 IC_k Psid_k);
- M[j, k] = S_j . IC_k S_k (the CRBA), armature on the diagonal;
- zero for two joints on different branches.

Passes: outward for the motion (``motion_pass``) and the accelerations and
forces (``acceleration_pass``), inward for the subtree sums and M
(``inertia_pass``), then the entries, each joint walking up to the root
(``jacobian_entries``): O(n d) work, d the depth of the tree.
"""

import numpy as np

from .compiler import compiled
from .crba import chain_mass_matrix, CHAIN_ROWS_FROM, compose, \
    root_joint_motion
from .lanes import parent_row
from .packing import ARMATURE, IS_CHAIN, MASS, PARENT, work_columns
from .spatial import add, body_wrench, column_dot, dot, force_cross, \
    force_to_parent, inertia_times, joint_frame, load12, load6, load_column, \
    motion_cross, scale, store, store_base_motion, store_column, \
    store_rigid_inertia_to_parent, subtract
from .wrapper import sample_entry

# Columns of a work row, all in the root frame: body pose, S, v, a,
# Psid, Psidd, the body's own rigid inertia (ten parameters), momentum
# I v and external wrench; then the quantities summed over the subtree (one
# run of columns, up to SUBTREE_SUMS_END, added to the parent's in one
# loop): the force F on the subtree, the rigid inertia IC, the momentum
# HC = sum I v and the block T of PC + PC^T (symmetric 3x3: T00, T01, T02,
# T11, T12, T22; see ``store_coupling``); then the sine and cosine of the
# joint angle (a batch's, ``lanes``).
POSE, JOINT, VELOCITY, ACCELERATION, PSI_DOT, PSI_DDOT, BODY_INERTIA, \
    BODY_MOMENTUM, EXTERNAL, SUBTREE_FORCE, COMPOSITE, MOMENTUM, COUPLING, \
    SUBTREE_SUMS_END, ANGLE = work_columns(
        'rnea_derivatives', POSE=12, JOINT=6, VELOCITY=6, ACCELERATION=6,
        PSI_DOT=6, PSI_DDOT=6, BODY_INERTIA=13, BODY_MOMENTUM=6, EXTERNAL=6,
        SUBTREE_FORCE=6, COMPOSITE=13, MOMENTUM=6, COUPLING=6,
        SUBTREE_SUMS_END=0, ANGLE=2)
# Rows of the per-call scratch ``columns`` of a chain: 6-vectors of every
# joint, one component a row (``chain_jacobian_entries``).
COLUMN_ROWS = 42


@compiled(inline=True)
def store_coupling(v, work, i):
    """
    Write the block T of P + P^T, P = (v x*) I, for body i (root frame).

    With v = [w; u] and I = [[Ibar, h x], [-h x, m 1]] (Featherstone eq.
    2.63), P = [[w x Ibar - u x h x, w x h x + m u x], [-w x h x, m w x]],
    and, skew matrices being antisymmetric (a x b x + b x a x =
    a b^T + b a^T - 2 (a . b) 1, and w x h x - h x w x = (w x h) x),

        P + P^T = [[T, p x], [-p x, 0]],
        T = G + G^T - h u^T - u h^T + 2 (u . h) 1,   G = w x Ibar,

    where p = m u + w x h is the linear part of the momentum I v.  So
    (P + P^T) x needs only T and p, and both add up over a subtree.
    """
    k = BODY_INERTIA + 4
    w0, w1, w2, u0, u1, u2 = v
    h0 = work[i, BODY_INERTIA + 1]
    h1 = work[i, BODY_INERTIA + 2]
    h2 = work[i, BODY_INERTIA + 3]
    # Columns of G = w x Ibar: w x (column c of Ibar).
    a0, a1, a2 = work[i, k], work[i, k + 3], work[i, k + 6]
    b0, b1, b2 = work[i, k + 1], work[i, k + 4], work[i, k + 7]
    c0, c1, c2 = work[i, k + 2], work[i, k + 5], work[i, k + 8]
    G00 = w1 * a2 - w2 * a1
    G10 = w2 * a0 - w0 * a2
    G20 = w0 * a1 - w1 * a0
    G01 = w1 * b2 - w2 * b1
    G11 = w2 * b0 - w0 * b2
    G21 = w0 * b1 - w1 * b0
    G02 = w1 * c2 - w2 * c1
    G12 = w2 * c0 - w0 * c2
    G22 = w0 * c1 - w1 * c0
    uh = 2.0 * (u0 * h0 + u1 * h1 + u2 * h2)
    store(work, i, COUPLING, (
        2.0 * (G00 - h0 * u0) + uh, G01 + G10 - h0 * u1 - u0 * h1,
        G02 + G20 - h0 * u2 - u0 * h2, 2.0 * (G11 - h1 * u1) + uh,
        G12 + G21 - h1 * u2 - u1 * h2, 2.0 * (G22 - h2 * u2) + uh))


@compiled(inline=True)
def coupling_times(work, j, x):
    """Return (PC_j + PC_j^T) x = [T x_w + p x x_u; x_w x p] (store_coupling)."""
    T00, T01, T02, T11, T12, T22 = load6(work, j, COUPLING)
    p0 = work[j, MOMENTUM + 3]
    p1 = work[j, MOMENTUM + 4]
    p2 = work[j, MOMENTUM + 5]
    x0, x1, x2, y0, y1, y2 = x
    return (T00 * x0 + T01 * x1 + T02 * x2 + p1 * y2 - p2 * y1,
            T01 * x0 + T11 * x1 + T12 * x2 + p2 * y0 - p0 * y2,
            T02 * x0 + T12 * x1 + T22 * x2 + p0 * y1 - p1 * y0,
            x1 * p2 - x2 * p1, x2 * p0 - x0 * p2, x0 * p1 - x1 * p0)


@compiled(inline=True)
def motion_step(table, work, first, i, X, qdi):
    """
    Write body i's pose, S, v, Psid, inertias, momenta and T.

    What does not depend on qdd (``motion_pass``); the state's work rows
    begin at ``first`` (``lanes``), X is the joint frame.
    """
    row = first + i
    p = int(table[i, PARENT])
    pose = X if p < 0 else compose(load12(work, first + p, POSE), X)
    S = root_joint_motion(table, i, pose)
    v_parent = load6(work, parent_row(table, first, i), VELOCITY)
    v = add(v_parent, scale(S, qdi))
    store(work, row, POSE, pose)
    store(work, row, JOINT, S)
    store(work, row, VELOCITY, v)
    store(work, row, PSI_DOT, motion_cross(v_parent, S))
    store_rigid_inertia_to_parent(pose, table, i, MASS, work, row,
                                  BODY_INERTIA)
    h = inertia_times(work, row, BODY_INERTIA, v)
    store(work, row, BODY_MOMENTUM, h)
    store(work, row, MOMENTUM, h)
    for k in range(13):
        work[row, COMPOSITE + k] = work[row, BODY_INERTIA + k]
    store_coupling(v, work, row)


@compiled
def motion_pass(table, q, qd, f_ext, work):
    """
    Outward pass: write what does not depend on qdd, body by body.

    Pose, S, v, Psid; the body's rigid inertia and momentum in the root
    frame (its own, and as the start of the subtree sums the composite
    ones), T and its external wrench; the base's v = 0, a = -g (Turney's
    elevator).
    """
    n = q.shape[0]
    store_base_motion(table, work, VELOCITY, ACCELERATION)
    for i in range(n):
        motion_step(table, work, 0, i, joint_frame(table, i, q[i]), qd[i])
    if f_ext.shape[0] > 0:
        for i in range(n):
            store(work, i, EXTERNAL, force_to_parent(
                load12(work, i, POSE), body_wrench(f_ext, table, i)))


@compiled(inline=True)
def acceleration_step(table, work, first, i, qdi, qddi, accelerating,
                      external):
    """Write body i's a, Psidd (if ``accelerating``) and f."""
    row = first + i
    p = parent_row(table, first, i)
    S = load6(work, row, JOINT)
    psi_dot = load6(work, row, PSI_DOT)
    a_parent = load6(work, p, ACCELERATION)
    a = add(a_parent, scale(psi_dot, qdi))
    if accelerating:
        a = add(a, scale(S, qddi))
        store(work, row, PSI_DDOT, add(motion_cross(a_parent, S),
                                       motion_cross(load6(work, p, VELOCITY),
                                                    psi_dot)))
    store(work, row, ACCELERATION, a)
    f = add(inertia_times(work, row, BODY_INERTIA, a),
            force_cross(load6(work, row, VELOCITY),
                        load6(work, row, BODY_MOMENTUM)))
    if external:
        f = subtract(f, load6(work, row, EXTERNAL))
    store(work, row, SUBTREE_FORCE, f)


@compiled
def acceleration_pass(table, qd, qdd, f_ext, work):
    """
    Outward pass after ``motion_pass``: write a, Psidd and f of each body.

    ``qdd`` of size 0: zero joint accelerations, and Psidd is not written
    (only the forces are wanted then, for the bias torques).
    """
    accelerating = qdd.size > 0
    for i in range(qd.shape[0]):
        acceleration_step(table, work, 0, i, qd[i],
                          qdd[i] if accelerating else 0.0, accelerating,
                          f_ext.shape[0] > 0)


@compiled(inline=True)
def joint_torque(work, j):
    """Return S_j . F_j: joint j's torque of the forces of ``work`` row j."""
    return dot(load6(work, j, JOINT), load6(work, j, SUBTREE_FORCE))


@compiled(inline=True)
def inertia_step(table, work, first, j, M, top):
    """
    Write row and column j of a tree's M (its rows from ``top``).

    M[j, k] = S_k . IC_j S_j for j and each ancestor k (``inertia_pass``).
    """
    row = first + j
    S = load6(work, row, JOINT)
    s = inertia_times(work, row, COMPOSITE, S)
    M[top + j, j] = dot(S, s) + table[j, ARMATURE]
    k = int(table[j, PARENT])
    while k >= 0:
        M[top + k, j] = dot(load6(work, first + k, JOINT), s)
        M[top + j, k] = M[top + k, j]
        k = int(table[k, PARENT])


@compiled(inline=True)
def add_to_parent(table, work, first, j, start, end):
    """Add columns start..end - 1 of body j's row to its parent's."""
    p = int(table[j, PARENT])
    if p >= 0:
        for c in range(start, end):
            work[first + p, c] += work[first + j, c]


@compiled
def inertia_pass(table, work, M, bias, columns):
    """
    Inward pass: sum F, IC, HC and T over subtrees; write M and S . F.

    M[j, k] = S_k . IC_j S_j for j and each ancestor k (the CRBA,
    Featherstone eq. 6.4; armature on the diagonal, zero across branches);
    ``bias`` (unless of size 0) gets S_j . F_j, the joint torques of the
    motion the forces come from.  A chain's M is filled after the pass,
    a row at a time (``chain_mass_matrix``, from rows 0..11 of the
    scratch ``columns``).
    """
    n = table.shape[0] - 1
    chain = table[n, IS_CHAIN] != 0.0 and n >= CHAIN_ROWS_FROM
    clear(table, M)
    for j in range(n - 1, -1, -1):
        S = load6(work, j, JOINT)
        if bias.size > 0:
            bias[j] = joint_torque(work, j)
        if chain:
            store_column(columns, 0, j, S)
            store_column(columns, 6, j, inertia_times(work, j, COMPOSITE, S))
        else:
            inertia_step(table, work, 0, j, M, 0)
        add_to_parent(table, work, 0, j, SUBTREE_FORCE, SUBTREE_SUMS_END)
    if chain:
        chain_mass_matrix(table, columns, M)


@compiled
def subtree_sums(table, work, first, end):
    """Inward pass: add columns first..end - 1 of each body to its parent's."""
    for j in range(table.shape[0] - 2, -1, -1):
        add_to_parent(table, work, 0, j, first, end)


@compiled(inline=True)
def clear(table, matrix):
    """Zero a Jacobian of a branched tree (a chain's is written in full)."""
    n = table.shape[0] - 1
    if table[n, IS_CHAIN] == 0.0:
        for r in range(matrix.shape[0]):
            for c in range(matrix.shape[1]):
                matrix[r, c] = 0.0


@compiled(inline=True)
def velocity_terms(work, j):
    """
    Return r_j, s_j and G_qd of joint j (module notes).

    r = B^T S = (P + P^T) S - S x* HC and s = IC S give the entries of the
    columns of j and its ancestors in row j; G_qd = B_j S_j + 2 IC_j Psid_j
    those of column j in the rows of its strict ancestors k (S_k . G_qd),
    with B S = (P + P^T) S + S x* HC.
    """
    S = load6(work, j, JOINT)
    s = inertia_times(work, j, COMPOSITE, S)
    PS = coupling_times(work, j, S)
    S_momentum = force_cross(S, load6(work, j, MOMENTUM))
    G_qd = add(add(PS, S_momentum),
               scale(inertia_times(work, j, COMPOSITE,
                                   load6(work, j, PSI_DOT)), 2.0))
    return subtract(PS, S_momentum), s, G_qd


@compiled(inline=True)
def joint_terms(work, j):
    """
    Return r_j, s_j, G_q and G_qd of joint j (module notes).

    ``velocity_terms``, and G_q = S_j x* F_j + B_j Psid_j + IC_j Psidd_j,
    which gives the entries of column j in the rows of its strict
    ancestors k of dtau/dq (S_k . G_q).
    """
    r, s, G_qd = velocity_terms(work, j)
    S = load6(work, j, JOINT)
    psi_dot = load6(work, j, PSI_DOT)
    G_q = add(add(force_cross(S, load6(work, j, SUBTREE_FORCE)),
                  coupling_times(work, j, psi_dot)),
              add(force_cross(psi_dot, load6(work, j, MOMENTUM)),
                  inertia_times(work, j, COMPOSITE,
                                load6(work, j, PSI_DDOT))))
    return r, s, G_q, G_qd


@compiled(inline=True)
def jacobian_step(table, work, first, j, dtau_dq, dtau_dqd, top):
    """Write the entries of joint j and its ancestors (rows from ``top``)."""
    row = first + j
    S = load6(work, row, JOINT)
    psi_dot = load6(work, row, PSI_DOT)
    r, s, G_q, G_qd = joint_terms(work, row)
    dtau_dq[top + j, j] = dot(r, psi_dot) + dot(s, load6(work, row, PSI_DDOT))
    dtau_dqd[top + j, j] = dot(r, S) + 2.0 * dot(s, psi_dot)
    k = int(table[j, PARENT])
    while k >= 0:
        S_k = load6(work, first + k, JOINT)
        psi_dot_k = load6(work, first + k, PSI_DOT)
        dtau_dq[top + j, k] = dot(r, psi_dot_k) + dot(
            s, load6(work, first + k, PSI_DDOT))
        dtau_dqd[top + j, k] = dot(r, S_k) + 2.0 * dot(s, psi_dot_k)
        dtau_dq[top + k, j] = dot(S_k, G_q)
        dtau_dqd[top + k, j] = dot(S_k, G_qd)
        k = int(table[k, PARENT])


@compiled
def jacobian_entries(table, work, dtau_dq, dtau_dqd, columns):
    """
    Write dtau/dq and dtau/dqd from the subtree sums (module notes).

    ``columns`` (COLUMN_ROWS, nq) is scratch for a chain's entries, which
    go a row at a time at any length (0.37 against 0.47 us at 7 joints,
    0.09 against 0.12 at 2), unlike a chain's M (CHAIN_ROWS_FROM).
    """
    n = table.shape[0] - 1
    if table[n, IS_CHAIN] != 0.0:
        chain_jacobian_entries(work, dtau_dq, dtau_dqd, columns)
        return
    clear(table, dtau_dq)
    clear(table, dtau_dqd)
    for j in range(n):
        jacobian_step(table, work, 0, j, dtau_dq, dtau_dqd, 0)


@compiled(reassociate=True)
def chain_jacobian_entries(work, dtau_dq, dtau_dqd, columns):
    """
    ``jacobian_entries`` of a serial chain, a row of entries at a time.

    Every joint k < j is an ancestor of j, so row j of either Jacobian is
    r_j and s_j against the 6-vectors of joints 0..j, and row k right of
    the diagonal is S_k against G_q, G_qd of joints k + 1..n - 1.  Those
    6-vectors are first copied into the rows of ``columns`` (42, nq), one
    component a row, so that each row of entries is a loop along
    contiguous numbers (SIMD lanes) instead of a walk to the root.  The
    rows S_k . G are computed in full and their left part overwritten:
    LLVM vectorizes a loop from column 0 several times better than one
    from k + 1.  One output per loop: a loop that stores into two arrays
    needs more run-time overlap checks than LLVM makes.
    """
    n = dtau_dq.shape[0]
    for j in range(n):
        store_column(columns, 0, j, load6(work, j, JOINT))
        store_column(columns, 6, j, load6(work, j, PSI_DOT))
        store_column(columns, 12, j, load6(work, j, PSI_DDOT))
        r, s, G_q, G_qd = joint_terms(work, j)
        store_column(columns, 18, j, G_q)
        store_column(columns, 24, j, G_qd)
        store_column(columns, 30, j, r)
        store_column(columns, 36, j, s)
    for k in range(n):
        S = load_column(columns, 0, k)
        for j in range(n):
            dtau_dq[k, j] = column_dot(S, columns, 18, j)
        for j in range(n):
            dtau_dqd[k, j] = column_dot(S, columns, 24, j)
    for j in range(n):
        r = load_column(columns, 30, j)
        s = load_column(columns, 36, j)
        t = scale(s, 2.0)
        for k in range(j + 1):
            dtau_dq[j, k] = (column_dot(r, columns, 6, k)
                             + column_dot(s, columns, 12, k))
        for k in range(j + 1):
            dtau_dqd[j, k] = (column_dot(r, columns, 0, k)
                              + column_dot(t, columns, 6, k))


@compiled
def rnea_derivatives_sample(table, q, qd, qdd, f_ext, dtau_dq, dtau_dqd, M,
                            work, columns):
    """
    Write dtau/dq, dtau/dqd and M of one state (module notes).

    ``f_ext`` (nq, 6) in the URDF body frames, or of size 0 for none;
    ``work`` is the model's scratch, ``columns`` (COLUMN_ROWS, nq) more.
    Returns True (``wrapper.sample_entry``: no state fails).
    """
    motion_pass(table, q, qd, f_ext, work)
    acceleration_pass(table, qd, qdd, f_ext, work)
    inertia_pass(table, work, M, M[0, :0], columns)  # (no bias torques)
    jacobian_entries(table, work, dtau_dq, dtau_dqd, columns)
    return True


@compiled
def column_scratch(n):
    """Return the ``columns`` of ``rnea_derivatives_sample``."""
    return np.empty((COLUMN_ROWS, n))


# Compiled ``inverse_dynamics_derivatives``: (dtau_dq, dtau_dqd, M), each
# (nq, nq) for one state, (N, nq, nq) for (N, nq) arguments.
inverse_dynamics_derivatives = sample_entry(
    'inverse_dynamics_derivatives', rnea_derivatives_sample,
    ('q', 'qd', 'qdd'), ((1, 1),) * 3, column_scratch)
