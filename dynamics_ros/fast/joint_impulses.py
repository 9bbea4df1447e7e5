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
The joint impulses of a simulator step, compiled: friction and limits.

``Simulator.constrain`` (sim/simulator.py) with ``sim.joint_effects``'
``impulse_bounds``, ``solve_impulses`` and ``box_qp``, in the compiled
step (fast/sim_step.py) instead of a dozen numpy calls after it: the
steps of an arm resting on a limit (a gripper's closed fingers) or with
Coulomb friction then cost what the others cost.

The operations are the Python step's in its order but for the linear
solves: M^-1 by Cholesky here (``cholesky``), by LU there
(np.linalg.inv, np.linalg.solve in the active-set method), so the two
agree to rounding (about 1e-15 relative), not bit for bit, as the
implicit damping of fast/sim_step.py.  Where the Cholesky factorization
fails (M + dt D not positive definite) or the state is not finite, the
functions here return False and the Python step takes the step, with
its errors.
"""

import numpy as np

from .cholesky import (cholesky, cholesky_solve_vector, inverse_factor,
                       inverse_from_factor)
from .compiler import compiled

# Rows of the scratch ``impulses`` (``impulse_scratch``: (2 nq +
# IMPULSE_ROWS, nq)): M^-1 (rows 0 to nq - 1), then L^-1 of its factor,
# reused as the active-set method's system (rows nq to 2 nq - 1), then
# these vectors, by their offset from row 2 nq.
VELOCITY = 0        # the velocities the impulses act on
LOWER = 1           # the impulse bounds (impulse_bounds)
UPPER = 2
IMPULSE = 3         # the impulses
TARGET = 4          # the active-set method's unconstrained step
GRADIENT = 5        # its gradient, b + A p
ACTIVE = 6          # 1.0: the joint takes part in the problem
FREE = 7            # 1.0: the joint is off its bounds in the method
RIGHT_SIDE = 8      # the free joints' right-hand side, packed
FORCE = 9           # dt times the implicit damping's force
IMPULSE_ROWS = 10


def impulse_scratch(model):
    """Return the scratch ``impulses`` of ``constrain`` for ``model``."""
    return np.zeros((2 * model.nq + IMPULSE_ROWS, model.nq))


@compiled
def impulse_bounds(friction, lower_limit, upper_limit, q, dt, lower,
                   upper):
    """
    Write joint_effects.impulse_bounds: Coulomb friction and the stops.

    At most ``friction * dt`` either way; unbounded toward the inside of a
    limit the joint is at or past.
    """
    for i in range(q.shape[0]):
        bound = friction[i] * dt
        lower[i] = -bound
        upper[i] = bound
        if q[i] >= upper_limit[i]:
            lower[i] = -np.inf
        if q[i] <= lower_limit[i]:
            upper[i] = np.inf


@compiled
def first_bound_in_the_way(p, target, lower, upper, free):
    """
    Return (fraction, joint, bound) of the first bound met going to target.

    joint_effects.first_bound_in_the_way; joint -1: none in the way.
    """
    step, blocking, bound = 1.0, -1, 0.0
    for i in range(p.shape[0]):
        if free[i] == 0.0:
            continue
        direction = target[i] - p[i]
        if target[i] > upper[i] and direction > 0.0:
            fraction, limit = (upper[i] - p[i]) / direction, upper[i]
        elif target[i] < lower[i] and direction < 0.0:
            fraction, limit = (lower[i] - p[i]) / direction, lower[i]
        else:
            continue
        if fraction < step:
            # max(fraction, 0.0) as Python's max picks.
            step, blocking, bound = (0.0 if 0.0 > fraction else fraction,
                                     i, limit)
    return step, blocking, bound


@compiled
def free_step(A, b, p, free, active, target, system, right_side):
    """
    Write to ``target`` p with its free joints solved for; False: not SPD.

    box_qp's ``target[free] = solve(A[free, free], -(b[free] + A[free,
    ~free] @ p[~free]))``, ~free among the active joints, by Cholesky.
    """
    n = p.shape[0]
    m = 0
    for i in range(n):
        target[i] = p[i]
        if free[i] == 0.0:
            continue
        held = 0.0
        for j in range(n):
            if active[j] != 0.0 and free[j] == 0.0:
                held += A[i, j] * p[j]
        right_side[m] = -(b[i] + held)
        c = 0
        for j in range(n):
            if free[j] != 0.0:
                system[m, c] = A[i, j]
                c += 1
        m += 1
    if m == 0:
        return True
    if not cholesky(system[:m, :m]):
        return False
    cholesky_solve_vector(system[:m, :m], right_side[:m])
    m = 0
    for i in range(n):
        if free[i] != 0.0:
            target[i] = right_side[m]
            m += 1
    return True


@compiled
def box_qp(A, b, lower, upper, active, p, scratch, system):
    """
    Write to ``p`` the minimum of 1/2 p^T A p + b^T p within the bounds.

    joint_effects.box_qp (a primal active-set method) over the ``active``
    joints, p zero elsewhere; ``scratch``: the vector rows of
    ``impulses``.  False where a system is not positive definite.
    """
    n = b.shape[0]
    free, target = scratch[FREE], scratch[TARGET]
    gradient, right_side = scratch[GRADIENT], scratch[RIGHT_SIDE]
    count = 0
    largest = 0.0
    for i in range(n):
        p[i] = 0.0
        free[i] = active[i]
        if active[i] != 0.0:
            count += 1
            size = abs(b[i])
            largest = size if size > largest else largest
    tolerance = 1e-13 * (largest if largest > 1e-300 else 1e-300)
    for _ in range(4 * count + 10):
        if not free_step(A, b, p, free, active, target, system, right_side):
            return False
        step, blocking, bound = first_bound_in_the_way(p, target, lower,
                                                       upper, free)
        for i in range(n):
            if active[i] != 0.0:
                p[i] = p[i] + step * (target[i] - p[i])
        if blocking >= 0:
            p[blocking] = bound
            free[blocking] = 0.0
            continue
        worst, pull = -1, -np.inf
        for i in range(n):
            if active[i] == 0.0:
                continue
            value = 0.0
            for j in range(n):
                if active[j] != 0.0:
                    value += A[i, j] * p[j]
            gradient[i] = b[i] + value
            if free[i] != 0.0:
                value = -np.inf
            elif p[i] <= lower[i]:
                value = -gradient[i]
            else:
                value = gradient[i]
            if worst < 0 or value > pull:   # the first largest: np.argmax
                worst, pull = i, value
        if pull <= tolerance:
            return True
        free[worst] = 1.0
    return True


@compiled
def solve_impulses(inverse, velocity, lower, upper, scratch, system):
    """
    Write joint_effects.solve_impulses to ``scratch[IMPULSE]``.

    The impulses within [lower, upper] that bring the joint velocities
    to rest; joints whose bounds are both zero take none.  False where
    the active-set method met a system that is not positive definite.
    """
    n = velocity.shape[0]
    p, active = scratch[IMPULSE], scratch[ACTIVE]
    count, only = 0, -1
    for i in range(n):
        p[i] = 0.0
        active[i] = 1.0 if upper[i] > lower[i] else 0.0
        if active[i] != 0.0:
            count += 1
            only = i
    if count == 1:
        # min(max(-v / A_ii, lower), upper) as Python's min and max pick.
        value = -velocity[only] / inverse[only, only]
        value = lower[only] if lower[only] > value else value
        p[only] = upper[only] if upper[only] < value else value
        return True
    if count > 1:
        return box_qp(inverse, velocity, lower, upper, active, p, scratch,
                      system)
    return True


@compiled
def constrain(mass, dt, share, implicit, stiff, gains, reference,
              lower_limit, upper_limit, friction, z_start, zd_start, z, zd,
              impulses):
    """
    Apply the implicit damping, friction and limit impulses to (z, zd).

    Simulator.constrain, in place on the integrated state (z, zd) of the
    step from (z_start, zd_start), given M(z) in ``mass`` (overwritten);
    with ``implicit`` the dampers D = ``stiff`` + ``gains`` toward the
    ``reference`` velocities are solved for with the impulses, (M + dt D)
    zd+ = M zd + dt (gains reference - D zd) + impulse.  False, with (z,
    zd) untouched: the Python step's turn (M + dt D not positive definite,
    or a system of the active-set method not).
    """
    n = z.shape[0]
    if implicit:
        for i in range(n):
            mass[i, i] += dt * (stiff[i] + gains[i])
    if not cholesky(mass):
        return False
    inverse, factor = impulses[:n], impulses[n:2 * n]
    scratch = impulses[2 * n:]
    inverse_factor(mass, factor)
    inverse_from_factor(factor, inverse)
    velocity, force = scratch[VELOCITY], scratch[FORCE]
    lower, upper = scratch[LOWER], scratch[UPPER]
    for i in range(n):
        velocity[i] = zd[i]
    if implicit:
        for i in range(n):
            force[i] = dt * (gains[i] * reference[i]
                             - (stiff[i] + gains[i]) * zd[i])
        for i in range(n):
            value = 0.0
            for j in range(n):
                value += inverse[i, j] * force[j]
            velocity[i] = zd[i] + value
    impulse_bounds(friction, lower_limit, upper_limit, z, dt, lower, upper)
    if not solve_impulses(inverse, velocity, lower, upper, scratch, factor):
        return False
    p = scratch[IMPULSE]
    for i in range(n):
        change = 0.0
        for j in range(n):
            change += inverse[i, j] * p[j]
        if implicit:
            change = change + (velocity[i] - zd[i])
        q = z[i]
        q_next = q + share * dt * change
        qd_next = zd[i] + change
        if lower[i] < p[i] and p[i] < upper[i]:   # stopped
            qd_next = 0.0
            if zd_start[i] == 0.0:                # held where it was
                q_next = z_start[i]
        if q >= upper_limit[i]:
            q_next = upper_limit[i]
        if q <= lower_limit[i]:
            q_next = lower_limit[i]
        # Carried past a limit by the others' impulses: on it, stopped.
        if q_next > upper_limit[i]:
            q_next = upper_limit[i]
            qd_next = qd_next if qd_next < 0.0 else 0.0
        elif q_next < lower_limit[i]:
            q_next = lower_limit[i]
            qd_next = qd_next if qd_next > 0.0 else 0.0
        z[i] = q_next
        zd[i] = qd_next
    return True
