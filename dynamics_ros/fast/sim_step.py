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
One fixed simulator step of a rigid model, compiled, impulses included.

The step ``dynamics_ros.sim.simulator.Simulator.step`` takes with an effort
held over the step, from the saturation of the effort to the end of the
integration, in one call: the four (rk4) or one (semi-implicit Euler)
articulated-body calls of ``aba.aba_sample`` run in the same machine code as
the integrator's vector arithmetic, instead of a dozen numpy calls each.
The arithmetic is that of ``sim.integrators`` and ``sim.joint_effects``
operation for operation, so the results are the same numbers.

Stiff damping (sim/simulator.py: the joints' and the PID dampers handed
over, integrated implicitly) is finished here too on the steps where no
friction or limit acts: M(q) by the CRBA pass of ``crba.crba_sample``, dt D
added to its diagonal, and (M + dt D) dqd = dt (gains reference - D qd)
solved by
Cholesky (``cholesky``), which is the Python step's solve in other
arithmetic (np.linalg.inv there): the same numbers to rounding, about
1e-15 relative, not bit for bit.

The friction and limit impulses too, on the steps where they act
(``impulse_step``, ``joint_impulses.constrain``: Simulator.constrain,
with M^-1 by Cholesky, so equal to rounding as the implicit damping),
the stiff damping then solved with them.  What is left to the Python
step: the wrap of continuous joints, the error messages, and the
impulses where the kernel cannot solve them (a state that is not
finite, a matrix that is not positive definite: status CONSTRAIN).

A model with mimic joints (``MimicModel``) steps in its independent
coordinates q through the same kernels, given its ``coupling``: the tree
(``table``) runs at q_tree = G q + offset, qd_tree = G qd, and
qdd = M_r^-1 (tau - h_r) with M_r = G^T M_tree G, h_r = G^T h_tree
(``coupled_acceleration``, dynamics/mimic_dynamics.py's equations) in
place of ABA; the implicit damping solves with M_r.  The simulator's
Python step of such a model calls the same ``coupled_acceleration``
(``coupled_forward_dynamics``), so the two steps give the same numbers,
as for a rigid model.  A rigid model passes ``NO_COUPLING``.
"""

import numpy as np

from .aba import aba_sample
from .cholesky import cholesky, cholesky_solve_vector
from .compiler import compiled, INPUT_VECTOR, kernel, MATRIX, VECTOR
from .crba import crba_sample
from .joint_impulses import constrain, IMPULSE_ROWS, impulse_scratch
from .rnea import rnea_sample

# Rows of the joint table (``joint_table``).
EFFORT_LIMIT = 0
DAMPING = 1
LOWER_LIMIT = 2
UPPER_LIMIT = 3
FRICTION = 4
JOINT_ROWS = 5

# Integrators (``INTEGRATOR_CODES``).
RK4 = 0
SEMI_IMPLICIT_EULER = 1
INTEGRATOR_CODES = {'rk4': RK4, 'semi_implicit_euler': SEMI_IMPLICIT_EULER}

# What ``fixed_step`` returns.
DONE = 0            # z_next, zd_next are the state at the end of the step
CONSTRAIN = 1       # friction or a limit acts: impulses still to be applied
DIVERGED = 2        # the state is no longer finite
BAD_EFFORT = 3      # the effort is not finite: nothing was computed
BAD_SHAPES = 4      # arrays of the wrong sizes: nothing was computed

# Rows of the scratch ``stages`` (STAGE_ROWS, nq): the state and torque of
# the stage being evaluated, the stage velocities rk4 combines at the end,
# and the accelerations of the (up to) four stages.
STAGE_Q = 0
STAGE_QD = 1
STAGE_TAU = 2
K2Q = 3
K3Q = 4
K1V = 5
K2V = 6
K3V = 7
K4V = 8
SOLVE = 9           # the velocity change of the implicit damping
HELD = 10           # the effort of a position hold (``position_hold_step``)
BOUNDED = 11        # the dampers' reference velocities within the limits
STIFF = 12          # the implicit damping and the dampers' gains, copied
GAINS = 13          # for the impulses (``impulse_step``)
STAGE_ROWS = 14

# Rows of a ``coupling`` (``coupling``, (COUPLING_ROWS + m + 12 + n, m)
# for a tree of m joints and n independent coordinates): the map
# q_tree = G q + offset, G having one entry per row (joint i follows
# coordinate MASTER[i] with MULTIPLIER[i]), then scratch: the tree's state
# and h, M_tree, CRBA's chain columns, M_r (first n columns) and the
# right-hand side.
MASTER = 0
MULTIPLIER = 1
OFFSET = 2
TREE_Q = 3
TREE_QD = 4
TREE_BIAS = 5
REDUCED_RHS = 6
COUPLING_ROWS = 7
# A rigid model's coupling: none.
NO_COUPLING = np.zeros((0, 0))
NO_ACCELERATION = np.zeros(0)
NO_WRENCHES = np.zeros((0, 6))


def joint_table(model, damping=None):
    """
    Return the (JOINT_ROWS, nq) per-joint constants the kernel reads.

    ``damping``: the viscous damping the kernel integrates (explicitly);
    None: the model's.  The simulator passes the part that is not stiff and
    integrates the rest implicitly in Python (sim/simulator.py).
    """
    table = np.empty((JOINT_ROWS, model.nq))
    table[EFFORT_LIMIT] = model.effort_limit
    table[DAMPING] = model.damping if damping is None else damping
    table[LOWER_LIMIT] = model.lower_limit
    table[UPPER_LIMIT] = model.upper_limit
    table[FRICTION] = model.friction
    return table


def coupling(model):
    """
    Return the ``coupling`` of a MimicModel (see COUPLING_ROWS).

    Its ``tree`` is the model the kernels get packed (``table``).
    """
    G = np.asarray(model.G, dtype=float)
    m, n = G.shape
    rows = np.zeros((COUPLING_ROWS + m + 12 + n, m))
    master = np.argmax(G != 0.0, axis=1)
    rows[MASTER] = master
    rows[MULTIPLIER] = G[np.arange(m), master]
    rows[OFFSET] = model.offset
    return rows


@compiled
def coupled_mass_matrix(table, work, coupling, q, reduced):
    """
    Write M_r = G^T M_tree G at q (independent) to ``reduced`` (n, n).

    The tree's positions G q + offset are left in row TREE_Q.
    """
    m = coupling.shape[1]
    n = q.shape[0]
    tree_q = coupling[TREE_Q]
    multiplier = coupling[MULTIPLIER]
    for i in range(m):
        tree_q[i] = multiplier[i] * q[int(coupling[MASTER, i])] \
            + coupling[OFFSET, i]
    tree_mass = coupling[COUPLING_ROWS:COUPLING_ROWS + m]
    columns = coupling[COUPLING_ROWS + m:COUPLING_ROWS + m + 12]
    crba_sample(table, tree_q, tree_mass, work, columns)
    for a in range(n):
        for b in range(n):
            reduced[a, b] = 0.0
    # Every row of G has one entry: M_r[a, b] sums m_i M_ij m_j over the
    # joints i following a and j following b.
    for i in range(m):
        a = int(coupling[MASTER, i])
        for j in range(m):
            b = int(coupling[MASTER, j])
            reduced[a, b] += multiplier[i] * tree_mass[i, j] * multiplier[j]


@compiled
def coupled_acceleration(table, work, coupling, q, qd, tau, qdd):
    """
    Write qdd = M_r^-1 (tau - h_r) of a coupled tree; False: M_r not PD.

    ``coupling`` (``coupling``) holds the map and the scratch; the packed
    ``table`` is the tree's.  h_r = G^T h_tree(G q + offset, G qd).
    """
    m = coupling.shape[1]
    n = q.shape[0]
    base = COUPLING_ROWS + m + 12
    reduced = coupling[base:base + n, :n]
    coupled_mass_matrix(table, work, coupling, q, reduced)
    tree_qd = coupling[TREE_QD]
    multiplier = coupling[MULTIPLIER]
    for i in range(m):
        tree_qd[i] = multiplier[i] * qd[int(coupling[MASTER, i])]
    bias = coupling[TREE_BIAS]
    rnea_sample(table, coupling[TREE_Q], tree_qd, NO_ACCELERATION,
                NO_WRENCHES, bias, work)
    rhs = coupling[REDUCED_RHS]
    for a in range(n):
        rhs[a] = 0.0
    for i in range(m):
        a = int(coupling[MASTER, i])
        rhs[a] += multiplier[i] * bias[i]
    for a in range(n):
        qdd[a] = tau[a] - rhs[a]
    if not cholesky(reduced):
        return False
    cholesky_solve_vector(reduced, qdd)
    return True


@kernel('boolean', MATRIX, MATRIX, MATRIX, INPUT_VECTOR, INPUT_VECTOR,
        INPUT_VECTOR, VECTOR)
def coupled_forward_dynamics(table, work, coupling, q, qd, tau, qdd):
    """
    Write the forward dynamics of a coupled tree at one state to ``qdd``.

    False where M_r is not positive definite or an array has the wrong
    size.  The simulator's Python step of a MimicModel (sim/plants.py), so that
    it computes what the compiled step's stages compute.
    """
    n = qdd.shape[0]
    if not (q.size == qd.size == tau.size == n
            and coupling.shape[0] == COUPLING_ROWS + coupling.shape[1]
            + 12 + n and coupling.shape[1] == table.shape[0] - 1
            and work.shape[0] == table.shape[0] + 1):
        return False
    return coupled_acceleration(table, work, coupling, q, qd, tau, qdd)


def stage_scratch(model):
    """Return the scratch rows ``fixed_step`` needs for ``model``."""
    return np.zeros((STAGE_ROWS, model.nq))


def solve_scratch(model):
    """
    Return the scratch (M, CRBA columns, impulses) of the solves.

    The implicit damping's and the impulses' (``joint_impulses``).
    """
    return (np.zeros((model.nq, model.nq)), np.zeros((12, model.nq)),
            impulse_scratch(model))


@compiled
def stage_acceleration(table, work, joints, damped, held, stages, out,
                       coupling):
    """
    Write qdd at the stage state (rows STAGE_Q, STAGE_QD) to ``stages[out]``.

    Simulator.acceleration: the held effort plus the viscous damping torque
    ``-damping * qd`` (joint_effects.damping_torque), through ABA, or a
    coupled tree's ``coupled_acceleration``.
    """
    n = held.shape[0]
    tau = stages[STAGE_TAU]
    qd = stages[STAGE_QD]
    if damped:
        for i in range(n):
            # effort + (-damping * qd), as numpy evaluates it.
            tau[i] = held[i] + (-joints[DAMPING, i]) * qd[i]
    else:
        for i in range(n):
            tau[i] = held[i]
    if coupling.shape[0] == 0:
        aba_sample(table, stages[STAGE_Q], qd, tau, NO_WRENCHES,
                   stages[out], work)
    elif not coupled_acceleration(table, work, coupling, stages[STAGE_Q],
                                  qd, tau, stages[out]):
        for i in range(n):   # M_r not positive definite: diverged
            stages[out, i] = np.nan


@compiled
def rk4(table, work, joints, damped, dt, q, qd, held, stages, q_next,
        qd_next, coupling):
    """
    Classical Runge-Kutta, operation for operation as integrators.rk4.

    k1q = qd, k2q = qd + h k1v, k3q = qd + h k2v, k4q = qd + dt k3v; the
    stage positions q + h k1q, q + h k2q, q + dt k3q.
    """
    n = q.shape[0]
    h = 0.5 * dt
    Q, QD = stages[STAGE_Q], stages[STAGE_QD]
    for i in range(n):
        Q[i] = q[i]
        QD[i] = qd[i]
    stage_acceleration(table, work, joints, damped, held, stages, K1V,
                       coupling)
    for i in range(n):
        QD[i] = qd[i] + h * stages[K1V, i]
        stages[K2Q, i] = QD[i]
        Q[i] = q[i] + h * qd[i]
    stage_acceleration(table, work, joints, damped, held, stages, K2V,
                       coupling)
    for i in range(n):
        QD[i] = qd[i] + h * stages[K2V, i]
        stages[K3Q, i] = QD[i]
        Q[i] = q[i] + h * stages[K2Q, i]
    stage_acceleration(table, work, joints, damped, held, stages, K3V,
                       coupling)
    for i in range(n):
        QD[i] = qd[i] + dt * stages[K3V, i]   # k4q
        Q[i] = q[i] + dt * stages[K3Q, i]
    stage_acceleration(table, work, joints, damped, held, stages, K4V,
                       coupling)
    rk4_sum(dt, q, qd, stages, q_next, qd_next)


@compiled
def rk4_sum(dt, q, qd, stages, q_next, qd_next):
    """
    Write rk4's end state from the four stages in ``stages``.

    q + dt/6 (k1q + 2 k2q + 2 k3q + k4q), qd + dt/6 (k1v + ... + k4v),
    summed as integrators.rk4 sums them (k4q in row STAGE_QD).
    """
    sixth = dt / 6.0
    for i in range(q.shape[0]):
        q_next[i] = q[i] + sixth * (qd[i] + 2.0 * stages[K2Q, i]
                                    + 2.0 * stages[K3Q, i]
                                    + stages[STAGE_QD, i])
        qd_next[i] = qd[i] + sixth * (stages[K1V, i] + 2.0 * stages[K2V, i]
                                      + 2.0 * stages[K3V, i]
                                      + stages[K4V, i])


@compiled
def semi_implicit_euler(table, work, joints, damped, dt, q, qd, held,
                        stages, q_next, qd_next, coupling):
    """Symplectic Euler, as integrators.semi_implicit_euler."""
    n = q.shape[0]
    for i in range(n):
        stages[STAGE_Q, i] = q[i]
        stages[STAGE_QD, i] = qd[i]
    stage_acceleration(table, work, joints, damped, held, stages, K1V,
                       coupling)
    for i in range(n):
        qd_next[i] = qd[i] + dt * stages[K1V, i]
        q_next[i] = q[i] + dt * qd_next[i]


@compiled
def end_of_step(joints, q, qd):
    """
    Return CONSTRAIN, DIVERGED or DONE for the integrated state.

    CONSTRAIN on the steps Simulator.constrain has something to do:
    a joint with Coulomb friction, or one at or past a position limit.
    DIVERGED as the finite test of Simulator.step (sums in numpy's order
    for fewer than 8 numbers).
    """
    n = q.shape[0]
    for i in range(n):
        if joints[FRICTION, i] > 0.0 or q[i] >= joints[UPPER_LIMIT, i] \
                or q[i] <= joints[LOWER_LIMIT, i]:
            return CONSTRAIN
    return DONE if finite_state(q, qd) else DIVERGED


@compiled
def damper_reference(joints, gains, reference, applied, qd, bounded):
    """
    Write the dampers' reference velocities, bounded, to ``bounded``.

    Simulator._bounded_damping: held effort plus damper within the
    limit, gains (r - qd) within [-limit - applied, limit - applied] at
    the velocity ``qd`` the solve starts from.
    """
    for i in range(qd.shape[0]):
        value = reference[i]
        if gains[i] > 0.0:
            limit = joints[EFFORT_LIMIT, i]
            # np.minimum(np.maximum(value, low), high), as numpy does it.
            low = qd[i] + (-limit - applied[i]) / gains[i]
            high = qd[i] + (limit - applied[i]) / gains[i]
            value = value if value > low else low
            value = value if value < high else high
        bounded[i] = value


@compiled
def mass_matrix(table, work, coupling, q, mass, columns):
    """Write M(q) (a coupled tree's M_r) to ``mass``, by the CRBA."""
    if coupling.shape[0] == 0:
        crba_sample(table, q, mass, work, columns)
    else:
        coupled_mass_matrix(table, work, coupling, q, mass)


@compiled
def finite_state(q, qd):
    """
    Return True if the state is finite, as Simulator.finish tests it.

    Sums in numpy's order for fewer than 8 numbers.
    """
    positions = 0.0
    velocities = 0.0
    for i in range(q.shape[0]):
        positions += q[i]
        velocities += qd[i]
    return np.isfinite(positions + velocities)


@compiled
def impulse_step(table, work, joints, dt, share, implicit, z, zd, z_next,
                 zd_next, stages, mass, columns, impulses, coupling):
    """
    Apply the impulses of friction and the limits to (z_next, zd_next).

    Simulator.constrain on a step that ends with a joint at a limit or
    rubbing (joint_impulses.constrain): with ``implicit``, the damping of
    ``stages[STIFF]`` and the dampers ``stages[GAINS]`` toward
    ``stages[BOUNDED]`` solved for with them.  Returns DONE, DIVERGED (the
    state after the impulses is not finite), or CONSTRAIN with the state
    untouched where the Python step has to take it (a state that is not
    finite before them: its error; a matrix that is not positive
    definite).
    """
    if not finite_state(z_next, zd_next):
        return CONSTRAIN
    mass_matrix(table, work, coupling, z_next, mass, columns)
    if not constrain(mass, dt, share, implicit, stages[STIFF],
                     stages[GAINS], stages[BOUNDED], joints[LOWER_LIMIT],
                     joints[UPPER_LIMIT], joints[FRICTION], z, zd, z_next,
                     zd_next, impulses):
        return CONSTRAIN
    return DONE if finite_state(z_next, zd_next) else DIVERGED


@compiled
def implicit_damping(table, work, joints, dt, stiff, gains, reference, share,
                     q, qd, change, mass, columns, coupling):
    """
    Add the implicit damping's velocity change to (q, qd); return a status.

    Simulator.constrain on a step without impulses: with D = ``stiff`` +
    ``gains`` (the joints' stiff damping and the controller's dampers),
    (M(q) + dt D) dqd = dt (gains reference - D qd), qd += dqd,
    q += share dt dqd.  CONSTRAIN, with (q, qd) untouched, where the solve
    with the impulses has to take over (``impulse_step``): M + dt D not
    positive definite (NaN), or the change carrying a joint onto a limit.
    """
    n = q.shape[0]
    mass_matrix(table, work, coupling, q, mass, columns)
    for i in range(n):
        mass[i, i] += dt * (stiff[i] + gains[i])
    if not cholesky(mass):
        return CONSTRAIN
    for i in range(n):
        damping = stiff[i] + gains[i]
        change[i] = dt * (gains[i] * reference[i] - damping * qd[i])
    cholesky_solve_vector(mass, change)
    for i in range(n):
        moved = q[i] + share * dt * change[i]
        if moved >= joints[UPPER_LIMIT, i] or moved <= joints[LOWER_LIMIT, i]:
            return CONSTRAIN
    for i in range(n):
        q[i] += share * dt * change[i]
        qd[i] += change[i]
    return DONE


@compiled
def saturate(joints, effort, applied):
    """
    Write the effort clipped to the limits to ``applied``; False: not finite.

    np.clip(effort, -limit, limit) (joint_effects.saturate_effort), as
    numpy computes it: min(max(effort, -limit), limit) with
    max(a, b) = a if a > b else b, min(a, b) = a if a < b else b.
    """
    # As Simulator._vector: one sum is finite exactly when every term is.
    total = 0.0
    for i in range(effort.shape[0]):
        total += effort[i]
    if not np.isfinite(total):
        return False
    for i in range(effort.shape[0]):
        limit = joints[EFFORT_LIMIT, i]
        value = effort[i]
        value = value if value > -limit else -limit
        applied[i] = value if value < limit else limit
    return True


@compiled
def explicit_step(table, work, joints, method, damped, dt, z, zd, effort,
                  stages, applied, z_next, zd_next, coupling):
    """
    Saturate the effort and integrate the explicit part; return a status.

    The body of ``fixed_step``, shared by ``implicit_fixed_step``.
    """
    n = z.size
    m = table.shape[0] - 1
    if not (zd.size == effort.size == applied.size
            == z_next.size == zd_next.size == joints.shape[1] == n
            and joints.shape[0] == JOINT_ROWS
            and stages.shape[0] == STAGE_ROWS and stages.shape[1] == n
            and work.shape[0] == m + 2
            and (coupling.shape[0] == 0 and n == m or coupling.shape[1] == m
                 and coupling.shape[0] == COUPLING_ROWS + m + 12 + n)):
        return BAD_SHAPES
    if not saturate(joints, effort, applied):
        return BAD_EFFORT
    if method == RK4:
        rk4(table, work, joints, damped, dt, z, zd, applied, stages, z_next,
            zd_next, coupling)
    else:
        semi_implicit_euler(table, work, joints, damped, dt, z, zd, applied,
                            stages, z_next, zd_next, coupling)
    return end_of_step(joints, z_next, zd_next)


@compiled
def scratch_fits(n, mass, columns, impulses):
    """Return True if the scratch of the solves fits nq = ``n``."""
    return (mass.shape[0] == mass.shape[1] == n
            and columns.shape[0] == 12 and columns.shape[1] == n
            and impulses.shape[0] == 2 * n + IMPULSE_ROWS
            and impulses.shape[1] == n)


@compiled
def fixed_step_body(table, work, joints, method, damped, dt, z, zd, effort,
                    stages, applied, z_next, zd_next, share, mass, columns,
                    impulses, coupling):
    """Integrate, then apply the impulses (``fixed_step``)."""
    if not scratch_fits(z.size, mass, columns, impulses):
        return BAD_SHAPES
    status = explicit_step(table, work, joints, method, damped, dt, z, zd,
                           effort, stages, applied, z_next, zd_next,
                           coupling)
    if status != CONSTRAIN:
        return status
    return impulse_step(table, work, joints, dt, share, False, z, zd, z_next,
                        zd_next, stages, mass, columns, impulses, coupling)


@kernel('int64', MATRIX, MATRIX, MATRIX, 'int64', 'boolean', 'float64',
        INPUT_VECTOR, INPUT_VECTOR, INPUT_VECTOR, MATRIX, VECTOR, VECTOR,
        VECTOR, 'float64', MATRIX, MATRIX, MATRIX, MATRIX)
def fixed_step(table, work, joints, method, damped, dt, z, zd, effort,
               stages, applied, z_next, zd_next, share, mass, columns,
               impulses, coupling):
    """
    Integrate one step of ``dt`` under ``effort``; return a status above.

    ``table``, ``work``: the packed model (packing.packed); ``joints``: its
    ``joint_table``; ``method``: RK4 or SEMI_IMPLICIT_EULER; ``damped``:
    whether any joint has explicit viscous damping; ``stages``:
    ``stage_scratch``; ``share``: the integrator's POSITION_SHARE;
    ``mass``, ``columns``: ``solve_scratch``; ``impulses``:
    ``impulse_scratch``; ``coupling``: a MimicModel's (``coupling``), or
    NO_COUPLING.  Writes the saturated effort to ``applied`` and the
    state at the end of the step, after the impulses of friction and the
    limits where they act, to ``z_next``, ``zd_next``.  No implicit
    damping: a kernel of its own, so that the steps of a model without
    stiff damping pay nothing for it (every argument costs its unboxing).
    """
    return fixed_step_body(table, work, joints, method, damped, dt, z, zd,
                           effort, stages, applied, z_next, zd_next, share,
                           mass, columns, impulses, coupling)


@compiled
def implicit_step(table, work, joints, method, damped, dt, z, zd, effort,
                  stages, applied, z_next, zd_next, stiff, gains, reference,
                  share, mass, columns, impulses, coupling):
    """Integrate, then solve the implicit damping (``implicit_fixed_step``)."""
    n = z.size
    if not (stiff.size == gains.size == reference.size == n
            and scratch_fits(n, mass, columns, impulses)):
        return BAD_SHAPES
    status = explicit_step(table, work, joints, method, damped, dt, z, zd,
                           effort, stages, applied, z_next, zd_next,
                           coupling)
    if status != DONE and status != CONSTRAIN:
        return status
    bounded = stages[BOUNDED]
    damper_reference(joints, gains, reference, applied, zd_next, bounded)
    if status == DONE:
        status = implicit_damping(table, work, joints, dt, stiff, gains,
                                  bounded, share, z_next, zd_next,
                                  stages[SOLVE], mass, columns, coupling)
        if status == DONE and not finite_state(z_next, zd_next):
            status = DIVERGED
    if status == CONSTRAIN:
        # Impulses act (or the damping carried a joint onto a limit): the
        # damping is solved for with them.
        for i in range(n):
            stages[STIFF, i] = stiff[i]
            stages[GAINS, i] = gains[i]
        status = impulse_step(table, work, joints, dt, share, True, z, zd,
                              z_next, zd_next, stages, mass, columns,
                              impulses, coupling)
        if status == CONSTRAIN:   # the Python step's turn
            return status
    # The controller's dampers are the actuators' too: their torque over
    # the step, at its end velocity (backward Euler), joins the effort.
    for i in range(n):
        applied[i] += gains[i] * (bounded[i] - zd_next[i])
    return status   # DONE or DIVERGED, each path tested the state once


@kernel('int64', MATRIX, MATRIX, MATRIX, 'int64', 'boolean', 'float64',
        INPUT_VECTOR, INPUT_VECTOR, INPUT_VECTOR, MATRIX, VECTOR, VECTOR,
        VECTOR, INPUT_VECTOR, INPUT_VECTOR, INPUT_VECTOR, 'float64', MATRIX,
        MATRIX, MATRIX, MATRIX)
def implicit_fixed_step(table, work, joints, method, damped, dt, z, zd,
                        effort, stages, applied, z_next, zd_next, stiff,
                        gains, reference, share, mass, columns, impulses,
                        coupling):
    """
    ``fixed_step``, then the implicit damping; return a status.

    The joints' damping ``stiff`` and the controller's dampers ``gains``
    toward ``reference`` velocities are integrated implicitly
    (``implicit_damping``, positions moved by ``share`` of the velocity
    change; ``mass``, ``columns``: ``solve_scratch``), with the impulses
    of friction and the limits where they act (``impulse_step``;
    ``impulses``: ``impulse_scratch``); ``applied`` then includes the
    dampers' torque.
    """
    return implicit_step(table, work, joints, method, damped, dt, z, zd,
                         effort, stages, applied, z_next, zd_next, stiff,
                         gains, reference, share, mass, columns, impulses,
                         coupling)


@kernel('int64', MATRIX, MATRIX, MATRIX, 'int64', 'boolean', 'float64',
        INPUT_VECTOR, INPUT_VECTOR, INPUT_VECTOR, INPUT_VECTOR, INPUT_VECTOR,
        MATRIX, VECTOR, VECTOR, VECTOR, INPUT_VECTOR, INPUT_VECTOR,
        INPUT_VECTOR, 'float64', MATRIX, MATRIX, MATRIX, MATRIX)
def position_hold_step(table, work, joints, method, damped, dt, z, zd, p,
                       target, d, stages, applied, z_next, zd_next, stiff,
                       gains, reference, share, mass, columns, impulses,
                       coupling):
    """
    ``implicit_fixed_step`` under the effort of a position hold.

    The effort held over the step is p (target - q) - d qd at its start,
    in the operations of controllers.JointCommands' hold (so the same
    numbers as that effort handed to the step), written to
    ``stages[HELD]``: one call a step instead of the hold's four numpy
    operations and then the step's.  Without implicit damping (``stiff``
    and ``gains`` all zero) the step is ``fixed_step``'s.
    """
    n = z.size
    if not (p.size == target.size == d.size == zd.size == n
            and stages.shape[0] == STAGE_ROWS and stages.shape[1] == n
            and stiff.size == gains.size == n):
        return BAD_SHAPES
    held = stages[HELD]
    implicit = False
    for i in range(n):
        held[i] = p[i] * (target[i] - z[i]) - d[i] * zd[i]
        implicit = implicit or stiff[i] != 0.0 or gains[i] != 0.0
    if not implicit:
        return fixed_step_body(table, work, joints, method, damped, dt, z,
                               zd, held, stages, applied, z_next, zd_next,
                               share, mass, columns, impulses, coupling)
    return implicit_step(table, work, joints, method, damped, dt, z, zd,
                         held, stages, applied, z_next, zd_next, stiff,
                         gains, reference, share, mass, columns, impulses,
                         coupling)
