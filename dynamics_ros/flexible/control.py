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
FLX's drive: cubic-spline joint trajectories and independent joint PIDs.

Mackay (1988) sec. 3.1: the simulator takes the cubic-spline coefficients
of a joint trajectory; independent fixed-gain PID controllers turn the
position error, its derivative and its integral into joint torques; there
are no actuator dynamics, and the controllers may be switched off at a
given time (sec. 3.3.5).  A feedforward term is optional (not in FLX).
"""

import numpy as np
from scipy.interpolate import CubicSpline


class CubicSplineTrajectory:
    """
    Joint trajectory through via points, at rest at both ends.

    ``times`` (m,) increasing, ``positions`` (m, nq).  Before the first and
    after the last time the trajectory holds its end point.
    """

    def __init__(self, times, positions):
        """Fit a clamped cubic spline through the via points."""
        times = np.asarray(times, dtype=float)
        positions = np.asarray(positions, dtype=float)
        if times.ndim != 1 or times.size < 2 or np.any(np.diff(times) <= 0):
            raise ValueError('times must be at least 2 increasing values, '
                             'got %s' % times)
        if positions.ndim != 2 or positions.shape[0] != times.size:
            raise ValueError('positions must have shape (%d, nq), got %s'
                             % (times.size, positions.shape))
        self.times = times
        self.spline = CubicSpline(times, positions, bc_type='clamped', axis=0)

    @property
    def duration(self):
        """Time of the last via point."""
        return float(self.times[-1])

    def __call__(self, t):
        """Return (q, qd, qdd) at time t."""
        if t <= self.times[0] or t >= self.times[-1]:
            end = self.times[0] if t <= self.times[0] else self.times[-1]
            q = self.spline(end)
            return q, np.zeros_like(q), np.zeros_like(q)
        return self.spline(t), self.spline(t, 1), self.spline(t, 2)


class PIDController:
    """
    Independent fixed-gain joint PIDs on a trajectory (Mackay sec. 3.1).

    Call once per control period ``dt`` with (t, q, qd): the integral of the
    position error advances by error * dt.  After ``cutoff`` (s) the torques
    are zero.  ``feedforward(t, q_ref, qd_ref, qdd_ref)`` is added if given.
    """

    def __init__(self, trajectory, kp, ki, kd, dt, cutoff=None,
                 feedforward=None):
        """Store gains (scalars or one per joint) and reset the integral."""
        self.trajectory = trajectory
        self.kp, self.ki, self.kd = (np.asarray(k, dtype=float)
                                     for k in (kp, ki, kd))
        self.dt = float(dt)
        self.cutoff = cutoff
        self.feedforward = feedforward
        self.integral = None

    def __call__(self, t, q, qd):
        """Return the joint torques at time t."""
        q_ref, qd_ref, qdd_ref = self.trajectory(t)
        if self.cutoff is not None and t >= self.cutoff:
            return np.zeros_like(q_ref)
        error = q_ref - np.asarray(q)
        if self.integral is None:
            self.integral = np.zeros_like(error)
        self.integral = self.integral + error * self.dt
        tau = self.kp * error + self.ki * self.integral + self.kd * (
            qd_ref - np.asarray(qd))
        if self.feedforward is not None:
            tau = tau + self.feedforward(t, q_ref, qd_ref, qdd_ref)
        return tau
