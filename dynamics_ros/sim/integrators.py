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
One step of ``qdd = acceleration(t, q, qd)`` by a chosen integrator.

Every integrator has the signature ``step(acceleration, t, q, qd, dt)`` and
returns ``(q, qd)`` at ``t + dt``.

- ``rk4``: classical fourth-order Runge-Kutta, the full dynamics at all four
  stages (what Mackay's FLX uses, Mackay 1988, doc/theory/flexible_links.md);
- ``semi_implicit_euler``: velocity first, then position with the new
  velocity (symplectic Euler; first order, bounded energy error, one
  dynamics call per step);
- ``adaptive``: scipy ``solve_ivp`` (error-controlled Runge-Kutta) across the
  step, for offline runs where accuracy matters more than a fixed cost.
"""

import numpy as np
from scipy.integrate import solve_ivp


def rk4(acceleration, t, q, qd, dt):
    """Advance one step with the classical Runge-Kutta method."""
    h = 0.5 * dt
    k1q, k1v = qd, acceleration(t, q, qd)
    k2q = qd + h * k1v
    k2v = acceleration(t + h, q + h * k1q, k2q)
    k3q = qd + h * k2v
    k3v = acceleration(t + h, q + h * k2q, k3q)
    k4q = qd + dt * k3v
    k4v = acceleration(t + dt, q + dt * k3q, k4q)
    sixth = dt / 6.0
    return (q + sixth * (k1q + 2.0 * k2q + 2.0 * k3q + k4q),
            qd + sixth * (k1v + 2.0 * k2v + 2.0 * k3v + k4v))


def semi_implicit_euler(acceleration, t, q, qd, dt):
    """Advance one step: qd += dt * qdd(q, qd), then q += dt * qd."""
    qd_next = qd + dt * acceleration(t, q, qd)
    return q + dt * qd_next, qd_next


class Adaptive:
    """
    Error-controlled integration across each step by scipy ``solve_ivp``.

    ``method`` is any explicit solve_ivp method ('RK45', 'DOP853', ...) or an
    implicit one for stiff cases ('Radau', 'BDF', 'LSODA').
    """

    def __init__(self, method='DOP853', rtol=1e-9, atol=1e-12):
        self.method = method
        self.rtol = rtol
        self.atol = atol

    def __call__(self, acceleration, t, q, qd, dt):
        """Advance one step to tolerance; raise if the solver fails."""
        n = q.size

        def derivative(time, x):
            return np.concatenate((x[n:], acceleration(time, x[:n], x[n:])))

        solution = solve_ivp(derivative, (t, t + dt), np.concatenate((q, qd)),
                             method=self.method, rtol=self.rtol,
                             atol=self.atol)
        if not solution.success:
            raise RuntimeError('adaptive integration failed at t = %g s: %s'
                               % (t, solution.message))
        x = solution.y[:, -1]
        return x[:n], x[n:]


# How much of the end-of-step velocity change an impulse applied after the
# step should also move the position: semi-implicit Euler moves q with the
# end velocity (a full step), the Runge-Kutta methods integrate a constant
# force, which moves q by half the velocity change times the step.
POSITION_SHARE = {'rk4': 0.5, 'semi_implicit_euler': 1.0, 'adaptive': 0.5}

FIXED_STEP = {'rk4': rk4, 'semi_implicit_euler': semi_implicit_euler}

INTEGRATORS = ('rk4', 'semi_implicit_euler', 'adaptive')


def integrator(name, **adaptive_options):
    """Return the step function called ``name`` (one of ``INTEGRATORS``)."""
    if name in FIXED_STEP:
        return FIXED_STEP[name]
    if name == 'adaptive':
        return Adaptive(**adaptive_options)
    raise ValueError('unknown integrator %r: choose one of %s'
                     % (name, ', '.join(INTEGRATORS)))
