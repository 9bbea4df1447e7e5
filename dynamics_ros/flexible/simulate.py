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
Fixed-step simulation of a FlexibleModel, as FLX runs it.

Mackay (1988) sec. 3.1: classical fourth-order Runge-Kutta with a fixed
step and the full dynamics at all four stages.  The step must be well
below the shortest flexural period (about 1/50 of it; at 1/5 the scheme
damps the flexure away, his Fig. 3.14).  Joint torques come from a
controller sampled once per step and held over it (a digital controller).
"""

from dataclasses import dataclass

import numpy as np


@dataclass
class SimulationResult:
    """Recorded samples: times (N,), z, zd, zdd (N, nz), tau (N, nq)."""

    time: np.ndarray
    z: np.ndarray
    zd: np.ndarray
    zdd: np.ndarray
    tau: np.ndarray


def rk4_step(derivative, x, dt):
    """Advance x by one classical Runge-Kutta step; also return f(x)."""
    k1 = derivative(x)
    k2 = derivative(x + 0.5 * dt * k1)
    k3 = derivative(x + 0.5 * dt * k2)
    k4 = derivative(x + dt * k3)
    return x + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4), k1


def simulate(fm, z0, zd0, duration, dt=1e-3, controller=None,
             record_every=1, progress=None):
    """
    Integrate the flexible model from (z0, zd0) for ``duration`` seconds.

    ``controller(t, q, qd)`` returns joint torques (default none).  Samples
    are recorded every ``record_every`` steps with the torque applied over
    the following step and the acceleration it produced;
    ``progress(fraction, t)`` is called about every 5 % of the run.
    """
    z0, zd0 = fm.check(z0, 'z0'), fm.check(zd0, 'zd0')
    if dt <= 0 or duration < 0:
        raise ValueError('dt must be > 0 and duration >= 0')
    steps = int(round(duration / dt))
    nz = fm.nz
    x = np.concatenate((z0, zd0))
    records = []
    report_every = max(1, steps // 20)
    for step in range(steps + 1):
        t = step * dt
        tau = np.zeros(fm.nq) if controller is None else np.asarray(
            controller(t, x[:fm.nq], x[nz:nz + fm.nq]), dtype=float)

        def derivative(state, tau=tau):
            return fm.state_derivative(state, tau)

        if step == steps:
            if step % record_every == 0:
                records.append((t, x.copy(), derivative(x)[nz:], tau))
            break
        x_next, rate = rk4_step(derivative, x, dt)
        if not np.all(np.isfinite(x_next)) or np.max(np.abs(
                x_next[:nz] - x[:nz])) > 1.0:
            raise RuntimeError(
                'simulation of %r diverged at t = %.4f s (a coordinate moved '
                'more than 1 per step): reduce dt (now %g s) or the '
                'controller gains' % (fm.model.name, t, dt))
        if step % record_every == 0:
            records.append((t, x.copy(), rate[nz:], tau))
        x = x_next
        if progress is not None and (step + 1) % report_every == 0:
            progress((step + 1) / steps, (step + 1) * dt)
    return SimulationResult(
        time=np.array([r[0] for r in records]),
        z=np.array([r[1][:nz] for r in records]),
        zd=np.array([r[1][nz:] for r in records]),
        zdd=np.array([r[2] for r in records]),
        tau=np.array([r[3] for r in records]).reshape(len(records), fm.nq))


def crossing_times(time, signal, level=0.0, rising=True):
    """Linearly interpolated times at which ``signal`` crosses ``level``."""
    s = np.asarray(signal) - level
    if rising:
        index = np.nonzero((s[:-1] < 0) & (s[1:] >= 0))[0]
    else:
        index = np.nonzero((s[:-1] > 0) & (s[1:] <= 0))[0]
    fraction = s[index] / (s[index] - s[index + 1])
    return time[index] + fraction * (time[index + 1] - time[index])


def mean_period(time, signal, level=None):
    """
    Mean period of an oscillation from its rising crossings of ``level``.

    ``level`` defaults to the signal's mean.  Returns nan with fewer than
    two crossings.
    """
    if level is None:
        level = float(np.mean(signal))
    crossings = crossing_times(time, signal, level)
    if crossings.size < 2:
        return float('nan')
    return float((crossings[-1] - crossings[0]) / (crossings.size - 1))
