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
Excitation trajectories: finite Fourier series optimized for identification.

Swevers, Ganseman, Tukel, De Schutter and Van Brussel (1997), "Optimal
robot excitation and identification", IEEE Trans. Robotics and Automation
13(5), eq. 27: each joint follows a periodic sum of L harmonics of the base
pulsation w_f,

    q_i(t) = q_i0 + sum_l a_il / (w_f l) sin(w_f l t)
                  - b_il / (w_f l) cos(w_f l t),

whose velocity and acceleration are analytic (no differentiation of
measured data is needed to plan it) and whose periodicity lets data be
averaged over periods.  The coefficients are chosen to minimize the
condition number of the base regressor over one period (sec. 4; their
eq. 30 uses the same criterion), so that noise on the torques maps to the
parameters as little as possible.

Two choices keep every candidate feasible, so the optimizer needs no
constraints: a_i1 and b_i1 are set so that velocity and acceleration are
zero at t = 0 (sum_l a_il = 0, sum_l l b_il = 0: the robot starts from rest
at q(0)), and each joint's series is scaled and centred so that its
position stays within its limits (less a margin) and its velocity and
acceleration within theirs.
"""

import numpy as np
import scipy.optimize

from .base_parameters import identification_regressor, model_base_parameters

DEFAULT_PERIOD = 10.0            # s
DEFAULT_HARMONICS = 5
DEFAULT_VELOCITY_FRACTION = 0.8  # of the URDF velocity limit
DEFAULT_ACCELERATION = 4.0       # rad/s^2 (URDF has no acceleration limits)
DEFAULT_MARGIN = 0.1             # rad (or m) inside each position limit
UNLIMITED_RANGE = np.pi          # +- this for a joint without limits
# L-BFGS steps and random starts by default: most of the drop of the
# condition number comes in the first steps (Panda: 131 -> 103 in 3).
DEFAULT_ITERATIONS = 12
DEFAULT_RESTARTS = 1


class FourierTrajectory:
    """
    Finite Fourier series per joint (Swevers et al. 1997 eq. 27).

    ``a``, ``b`` (nq, L) coefficients (rad/s), ``q0`` (nq,) offsets,
    ``period`` (s): w_f = 2 pi / period.
    """

    def __init__(self, a, b, q0, period=DEFAULT_PERIOD):
        """Hold the coefficients."""
        self.a = np.asarray(a, dtype=float)
        self.b = np.asarray(b, dtype=float)
        self.q0 = np.asarray(q0, dtype=float)
        self.period = float(period)

    @property
    def pulsation(self):
        """Return w_f (rad/s)."""
        return 2.0 * np.pi / self.period

    def evaluate(self, t):
        """Return q, qd, qdd at times ``t`` (N,): each (N, nq)."""
        t = np.atleast_1d(np.asarray(t, dtype=float))
        L = self.a.shape[1]
        w = self.pulsation * np.arange(1, L + 1)        # (L,)
        phase = t[:, None] * w[None, :]                 # (N, L)
        s, c = np.sin(phase), np.cos(phase)
        q = self.q0 + (s / w) @ self.a.T - (c / w) @ self.b.T
        qd = c @ self.a.T + s @ self.b.T
        qdd = (-s * w) @ self.a.T + (c * w) @ self.b.T
        return q, qd, qdd


def position_range(model, margin=DEFAULT_MARGIN):
    """Return (lower, upper) usable positions: the limits less ``margin``."""
    lower = np.where(np.isfinite(model.lower_limit),
                     model.lower_limit + margin, -UNLIMITED_RANGE)
    upper = np.where(np.isfinite(model.upper_limit),
                     model.upper_limit - margin, UNLIMITED_RANGE)
    if np.any(upper <= lower):
        bad = [model.joint_names[i] for i in np.flatnonzero(upper <= lower)]
        raise ValueError('joints %s: position range narrower than twice the '
                         'margin %g' % (', '.join(bad), margin))
    return lower, upper


def limits(model, velocity_fraction=DEFAULT_VELOCITY_FRACTION,
           acceleration=DEFAULT_ACCELERATION, margin=DEFAULT_MARGIN):
    """Return (lower, upper, max velocity, max acceleration) per joint."""
    lower, upper = position_range(model, margin)
    velocity = np.where(np.isfinite(model.velocity_limit),
                        model.velocity_limit * velocity_fraction, 2.0)
    acceleration = np.broadcast_to(np.asarray(acceleration, dtype=float),
                                   (model.nq,)).copy()
    return lower, upper, velocity, acceleration


def rest_coefficients(free_a, free_b):
    """
    Return (a, b) (nq, L) from the free harmonics 2..L of each.

    a_1 = -sum_{l>1} a_l (zero velocity at t = 0) and b_1 = -sum_{l>1} l b_l
    (zero acceleration).
    """
    L = free_a.shape[1] + 1
    harmonics = np.arange(2, L + 1)
    a = np.column_stack((-free_a.sum(axis=1), free_a))
    b = np.column_stack((-(free_b * harmonics).sum(axis=1), free_b))
    return a, b


def fit_to_limits(a, b, period, bounds, grid=400):
    """
    Scale each joint's series into its limits and centre it: a trajectory.

    ``bounds`` = (lower, upper, max velocity, max acceleration).  Position,
    velocity and acceleration scale with the coefficients, so one factor
    per joint meets all three on a grid of the period (``grid`` points);
    the offset q0 then centres the motion in the position range.
    """
    lower, upper, velocity, acceleration = bounds
    shape = FourierTrajectory(a, b, np.zeros(a.shape[0]), period)
    t = np.linspace(0.0, period, grid, endpoint=False)
    q, qd, qdd = shape.evaluate(t)
    span = np.maximum(q.max(axis=0) - q.min(axis=0), 1e-12)
    factor = np.min(np.vstack((
        (upper - lower) / span,
        velocity / np.maximum(np.abs(qd).max(axis=0), 1e-12),
        acceleration / np.maximum(np.abs(qdd).max(axis=0), 1e-12))), axis=0)
    # Grid points can miss a peak between them: keep 2 % in reserve.
    factor *= 0.98
    middle = 0.5 * (lower + upper)
    q0 = middle - factor * 0.5 * (q.max(axis=0) + q.min(axis=0))
    return FourierTrajectory(a * factor[:, None], b * factor[:, None], q0,
                             period)


def trajectory_of(x, nq, harmonics, period, bounds):
    """Return the feasible trajectory of the optimizer's vector ``x``."""
    free = x.reshape(2, nq, harmonics - 1)
    a, b = rest_coefficients(free[0], free[1])
    return fit_to_limits(a, b, period, bounds)


def condition_number(model, trajectory, base, samples=100):
    """Return the base regressor's condition number over one period."""
    t = np.linspace(0.0, trajectory.period, samples, endpoint=False)
    W, _ = identification_regressor(model, *trajectory.evaluate(t),
                                    friction=base.names[-1].endswith(
                                        '.offset'))
    # From the eigenvalues of W_b^T W_b (r x r): an SVD of the tall W_b
    # costs 50 times more here, and cond(W_b) of a few hundred loses
    # nothing squared.
    Wb = base.regressor(W)
    values = np.linalg.eigvalsh(Wb.T @ Wb)
    return float(np.sqrt(values[-1] / max(values[0], 1e-300)))


def single_threaded_blas():
    """
    Return a context holding BLAS to one thread (or doing nothing).

    The optimizer's matrices are small (100 x 7 rows, 64 columns): BLAS
    threads cost more than they bring, ten times more on a busy machine
    (134 ms against 14 ms per evaluation measured on a loaded 2-core
    one).  threadpoolctl sets it for the optimization only.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        import contextlib
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api='blas')


def optimize_excitation(model, harmonics=DEFAULT_HARMONICS,
                        period=DEFAULT_PERIOD, bounds=None, friction=True,
                        iterations=DEFAULT_ITERATIONS,
                        restarts=DEFAULT_RESTARTS, samples=100, seed=0,
                        progress=None):
    """
    Return (trajectory, condition number): Swevers et al.'s optimum.

    Minimizes log cond(W_base) over one period sampled ``samples`` times,
    from ``restarts`` random starts, ``iterations`` L-BFGS steps each
    (numerical gradients).  ``bounds`` as ``limits(model)`` returns.
    ``progress(text)`` gets a line per restart.
    """
    if harmonics < 2:
        raise ValueError('an excitation needs at least 2 harmonics, got %r'
                         % (harmonics,))
    bounds = limits(model) if bounds is None else bounds
    base = model_base_parameters(model, friction=friction)
    rng = np.random.default_rng(seed)
    nq = model.nq

    def cost(x):
        return np.log(condition_number(
            model, trajectory_of(x, nq, harmonics, period, bounds), base,
            samples))

    best = None
    for attempt in range(restarts):
        x0 = rng.normal(size=2 * nq * (harmonics - 1))
        with single_threaded_blas():
            result = scipy.optimize.minimize(
                cost, x0, method='L-BFGS-B',
                options={'maxiter': iterations, 'eps': 1e-6})
        if best is None or result.fun < best.fun:
            best = result
        if progress is not None:
            progress('excitation: start %d/%d, condition number %.4g (best '
                     '%.4g)' % (attempt + 1, restarts, np.exp(result.fun),
                                np.exp(best.fun)))
    trajectory = trajectory_of(best.x, nq, harmonics, period, bounds)
    return trajectory, condition_number(model, trajectory, base, samples)


class TrajectoryPlan:
    """
    A JointTrajectory's content as plain arrays (no ROS types).

    ``joint_names``, ``times`` (N,) from the start (s), ``positions``,
    ``velocities``, ``accelerations`` (N, nq): what a node puts into
    trajectory_msgs/JointTrajectory points.
    """

    def __init__(self, joint_names, times, positions, velocities,
                 accelerations):
        """Hold the points."""
        self.joint_names = list(joint_names)
        self.times = np.asarray(times, dtype=float)
        self.positions = np.asarray(positions, dtype=float)
        self.velocities = np.asarray(velocities, dtype=float)
        self.accelerations = np.asarray(accelerations, dtype=float)

    def to_dict(self):
        """Return the plan as lists (YAML or JSON)."""
        return {'joint_names': self.joint_names,
                'times': self.times.tolist(),
                'positions': self.positions.tolist(),
                'velocities': self.velocities.tolist(),
                'accelerations': self.accelerations.tolist()}

    @classmethod
    def from_dict(cls, data):
        """Read a plan written by ``to_dict``."""
        return cls(data['joint_names'], data['times'], data['positions'],
                   data['velocities'], data['accelerations'])


def trajectory_plan(model, trajectory, periods=1, rate=100.0,
                    settle=2.0):
    """
    Return the TrajectoryPlan of ``periods`` periods sampled at ``rate``.

    The first point is the start position at rest, ``settle`` seconds
    after the plan starts (time for a controller to get there); the series
    then runs from t = 0 of its period.
    """
    count = int(round(periods * trajectory.period * rate))
    t = np.arange(count + 1) / rate
    q, qd, qdd = trajectory.evaluate(t)
    return TrajectoryPlan(model.joint_names, t + settle, q, qd, qdd)
