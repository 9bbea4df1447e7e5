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
What a joint does to the torque and the state besides the rigid-body dynamics.

- ``saturate_effort``: URDF ``<limit effort>`` clips the commanded torque;
- ``damping_torque``: URDF ``<dynamics damping>``, viscous, smooth, so it
  stays inside the integrated ODE where it is not stiff (the stiff part is
  integrated implicitly by the simulator, see simulator.py);
- ``wrap_continuous``: continuous joints keep one angle in [-pi, pi);
- ``impulse_bounds`` / ``solve_impulses``: URDF ``<dynamics friction>``
  (Coulomb) and the position limits, both non-smooth, handled at the
  velocity level after each step as bounded joint impulses, the way physics
  engines treat joint friction and joint stops (a small box-constrained
  quadratic program).  That gives exact sticking below the friction level,
  a constant sliding deceleration above it, and a stop at a limit that
  neither needs a stiffness tuned to the step nor can produce a NaN.
"""

import numpy as np


def saturate_effort(model, effort):
    """Clip commanded joint efforts to +-``model.effort_limit``."""
    limit = model.effort_limit
    return np.clip(np.asarray(effort, dtype=float), -limit, limit)


def damping_torque(damping, qd):
    """Viscous joint torque ``-damping * qd`` (URDF <dynamics damping>)."""
    return -damping * qd


def wrap_continuous(model, q):
    """Return q with continuous joints wrapped to [-pi, pi)."""
    if not np.any(model.continuous):
        return q
    q = np.array(q, dtype=float)
    # Only angles outside the range: wrapping one inside it would round it.
    wrap = model.continuous & ((q < -np.pi) | (q >= np.pi))
    q[wrap] = np.mod(q[wrap] + np.pi, 2.0 * np.pi) - np.pi
    return q


def impulse_bounds(model, q, dt):
    """
    Return (lower, upper) joint impulse bounds for one step of ``dt``.

    Coulomb friction may exert at most ``friction * dt`` either way; a joint
    at or past its upper limit may in addition be pushed back without bound
    (the stop), one at or past its lower limit pushed forward.
    """
    friction = model.friction * dt
    lower, upper = -friction, friction.copy()
    lower[q >= model.upper_limit] = -np.inf
    upper[q <= model.lower_limit] = np.inf
    return lower, upper


def solve_impulses(inverse_inertia, velocity, lower, upper):
    """
    Impulses p in [lower, upper] that bring the joint velocities to rest.

    The velocity after the impulse is ``velocity + inverse_inertia @ p``.
    Each joint wants its own velocity zero; where that needs more impulse
    than the bound allows the impulse saturates (sliding friction, a stop
    that only pushes).  That is the box-constrained quadratic program
    min 1/2 p^T A p + velocity^T p (the principle of maximum dissipation),
    whose gradient is the velocity after the impulse.  Joints whose bounds
    are both zero take no impulse and drop out of the problem.
    """
    p = np.zeros_like(velocity)
    joints = np.flatnonzero(upper > lower)
    if joints.size == 1:
        i = joints[0]
        p[i] = min(max(-velocity[i] / inverse_inertia[i, i], lower[i]),
                   upper[i])
    elif joints.size > 1:
        p[joints] = box_qp(inverse_inertia[np.ix_(joints, joints)],
                           velocity[joints], lower[joints], upper[joints])
    return p


def box_qp(A, b, lower, upper):
    """
    Minimize 1/2 p^T A p + b^T p over lower <= p <= upper (A positive).

    A primal active-set method (Nocedal & Wright, Numerical Optimization,
    2nd ed., sec. 16.5): solve for the free variables with the others on
    their bounds, stop at the first bound in the way, release a bound whose
    gradient pulls away from it; finite, exact up to rounding.
    """
    p = np.zeros_like(b)
    free = np.ones(b.size, dtype=bool)
    tolerance = 1e-13 * max(np.max(np.abs(b)), 1e-300)
    for _ in range(4 * b.size + 10):
        target = p.copy()
        if free.any():
            target[free] = np.linalg.solve(
                A[np.ix_(free, free)],
                -(b[free] + A[np.ix_(free, ~free)] @ p[~free]))
        step, blocking, bound = first_bound_in_the_way(
            p, target, lower, upper, free)
        p = p + step * (target - p)
        if blocking is not None:
            p[blocking] = bound
            free[blocking] = False
            continue
        gradient = b + A @ p
        pull = np.where(free, -np.inf,
                        np.where(p <= lower, -gradient, gradient))
        worst = int(np.argmax(pull))
        if pull[worst] <= tolerance:
            return p
        free[worst] = True
    return p


def first_bound_in_the_way(p, target, lower, upper, free):
    """
    Return (fraction, index, bound) of the first bound met going to target.

    (1.0, None, None) when the whole way is within bounds.
    """
    step, blocking, bound = 1.0, None, None
    for i in np.flatnonzero(free):
        direction = target[i] - p[i]
        if target[i] > upper[i] and direction > 0.0:
            fraction, limit = (upper[i] - p[i]) / direction, upper[i]
        elif target[i] < lower[i] and direction < 0.0:
            fraction, limit = (lower[i] - p[i]) / direction, lower[i]
        else:
            continue
        if fraction < step:
            step, blocking, bound = max(fraction, 0.0), i, limit
    return step, blocking, bound
