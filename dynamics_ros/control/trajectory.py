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
Sample a joint trajectory in time the way joint_trajectory_controller does.

A ``Trajectory`` is a list of waypoints (time from start, positions and
optional velocities and accelerations) plus the absolute start time.  Between
two waypoints the spline degree follows ros2_controllers'
``joint_trajectory_controller/trajectory.cpp``: linear when either point has
no velocities, cubic (Hermite) when both have velocities, quintic when both
also have accelerations.  Before the first waypoint it interpolates from the
state held when the trajectory arrived (if known, else it holds the first
waypoint); after the last waypoint it holds the last positions with zero
velocity and acceleration.  Continuous joints are interpolated without
wrap-around (as JTC does unless ``angle_wraparound`` is set).
"""

from dataclasses import dataclass
from typing import Optional

import numpy as np


@dataclass
class Trajectory:
    """
    Waypoints of a joint trajectory, all in one joint order.

    ``times`` (k,) are seconds from ``start_time`` (absolute seconds),
    strictly increasing.  ``positions``, ``velocities``, ``accelerations``
    are (k, n); ``has_velocity`` / ``has_acceleration`` (k,) say which
    waypoints carried them (the arrays hold zeros where they did not).
    ``initial`` is the (q, qd) held at ``received_time`` when the trajectory
    arrived, or None.
    """

    times: np.ndarray
    positions: np.ndarray
    velocities: np.ndarray
    accelerations: np.ndarray
    has_velocity: np.ndarray
    has_acceleration: np.ndarray
    start_time: float = 0.0
    initial: Optional[tuple] = None
    received_time: Optional[float] = None

    @property
    def end_time(self):
        """Absolute time of the last waypoint."""
        return self.start_time + float(self.times[-1])


def polynomial_coefficients(duration, p0, v0, a0, p1, v1, a1, degree):
    """
    Return coefficients c[0..degree] (each (n,)) of p(s) = sum c_k s^k.

    Boundary conditions at s = 0 and s = duration: positions (degree 1),
    plus velocities (degree 3), plus accelerations (degree 5).
    """
    T = duration
    dp = p1 - p0
    if degree == 1:
        return [p0, dp / T]
    if degree == 3:
        return [p0, v0, (3.0 * dp - (2.0 * v0 + v1) * T) / T ** 2,
                (-2.0 * dp + (v0 + v1) * T) / T ** 3]
    return [p0, v0, 0.5 * a0,
            (20.0 * dp - (8.0 * v1 + 12.0 * v0) * T
             - (3.0 * a0 - a1) * T ** 2) / (2.0 * T ** 3),
            (-30.0 * dp + (14.0 * v1 + 16.0 * v0) * T
             + (3.0 * a0 - 2.0 * a1) * T ** 2) / (2.0 * T ** 4),
            (12.0 * dp - 6.0 * (v1 + v0) * T
             - (a0 - a1) * T ** 2) / (2.0 * T ** 5)]


def evaluate_polynomial(coefficients, s):
    """Return position, velocity and acceleration of the polynomial at s."""
    p = np.zeros_like(coefficients[0])
    v = np.zeros_like(p)
    a = np.zeros_like(p)
    for k, c in enumerate(coefficients):
        p = p + c * s ** k
        if k >= 1:
            v = v + k * c * s ** (k - 1)
        if k >= 2:
            a = a + k * (k - 1) * c * s ** (k - 2)
    return p, v, a


def interpolate(duration, state_a, state_b, s):
    """
    Interpolate between two waypoint states at s in [0, duration].

    A state is (positions, velocities or None, accelerations or None); the
    degree is chosen as joint_trajectory_controller chooses it.
    """
    return evaluate_polynomial(
        segment_polynomial(duration, state_a, state_b)[0], s)


def segment_polynomial(duration, state_a, state_b):
    """
    Return (coefficients, degree) of the segment between two states.

    The degree as joint_trajectory_controller chooses it: linear without
    velocities, cubic without accelerations, quintic with both; what is
    missing is zero.
    """
    (p0, v0, a0), (p1, v1, a1) = state_a, state_b
    if v0 is None or v1 is None:
        degree = 1
    elif a0 is None or a1 is None:
        degree = 3
    else:
        degree = 5
    zero = np.zeros_like(p0)
    coefficients = polynomial_coefficients(
        duration, p0, zero if v0 is None else v0, zero if a0 is None else a0,
        p1, zero if v1 is None else v1, zero if a1 is None else a1, degree)
    return coefficients, degree


def waypoint_state(trajectory, k):
    """Return waypoint k as (positions, velocities|None, accelerations|None)."""
    return (trajectory.positions[k],
            trajectory.velocities[k] if trajectory.has_velocity[k] else None,
            trajectory.accelerations[k]
            if trajectory.has_acceleration[k] else None)


def hold(positions):
    """Return the state that holds ``positions`` still."""
    zero = np.zeros_like(positions)
    return positions.copy(), zero, zero.copy()


def sample(trajectory, time):
    """
    Return (q, qd, qdd) of ``trajectory`` at absolute ``time`` (seconds).

    Linear / cubic / quintic between waypoints, a segment from the initial
    state before the first waypoint, a hold before the trajectory began and
    after it ended.
    """
    first_time = trajectory.start_time + float(trajectory.times[0])
    if time < first_time:
        return sample_before_first(trajectory, time, first_time)
    times = trajectory.start_time + trajectory.times
    if time >= times[-1]:
        return hold(trajectory.positions[-1])
    k = int(np.searchsorted(times, time, side='right')) - 1
    return interpolate(times[k + 1] - times[k], waypoint_state(trajectory, k),
                       waypoint_state(trajectory, k + 1), time - times[k])


def sample_before_first(trajectory, time, first_time):
    """Sample between the state held at receipt and the first waypoint."""
    if trajectory.initial is None or trajectory.received_time is None:
        return hold(trajectory.positions[0])
    q0, qd0 = (np.asarray(x, dtype=float) for x in trajectory.initial)
    begin = min(trajectory.received_time, first_time)
    if time < begin or first_time - begin <= 0.0:
        return hold(q0)
    return interpolate(first_time - begin, (q0, qd0, np.zeros_like(q0)),
                       waypoint_state(trajectory, 0), time - begin)


def waypoint_references(trajectory):
    """
    Return (q, qd, qdd), each (k, n), at every waypoint of ``trajectory``.

    A waypoint's own velocities and accelerations are used where it has
    them; where it has not, they are what the sampler gives at that instant
    (the segment that starts there; zero at the last waypoint, a hold).
    All segments at once (numpy), not one ``sample`` per waypoint.
    """
    q = trajectory.positions.copy()
    qd = trajectory.velocities.copy()
    qdd = trajectory.accelerations.copy()
    has_v = np.asarray(trajectory.has_velocity, dtype=bool)
    has_a = np.asarray(trajectory.has_acceleration, dtype=bool)
    sampled_qd = np.zeros_like(qd)
    sampled_qdd = np.zeros_like(qdd)
    if len(q) > 1:
        # At s = 0 a segment's polynomial gives velocity c1, acceleration
        # 2 c2 (polynomial_coefficients): slope and 0 for a linear segment,
        # v0 and 2 (3 dp - (2 v0 + v1) T) / T^2 for a cubic, v0 and a0 for
        # a quintic.
        T = np.diff(trajectory.start_time + trajectory.times)[:, None]
        dp = q[1:] - q[:-1]
        v0, v1 = qd[:-1], qd[1:]
        linear = ~(has_v[:-1] & has_v[1:])[:, None]
        quintic = ~linear & (has_a[:-1] & has_a[1:])[:, None]
        sampled_qd[:-1] = np.where(linear, dp / T, v0)
        cubic_a = 2.0 * ((3.0 * dp - (2.0 * v0 + v1) * T) / T ** 2)
        sampled_qdd[:-1] = np.where(linear, 0.0, np.where(
            quintic, qdd[:-1], cubic_a))
    qd[~has_v] = sampled_qd[~has_v]
    qdd[~has_a] = sampled_qdd[~has_a]
    return q, qd, qdd


def segment_coefficients(trajectory):
    """
    Return the coefficients of every segment, (k - 1, 6, n).

    Row d of segment k is c_d of ``polynomial_coefficients`` for the segment
    from waypoint k to k + 1, zero above the segment's degree (linear, cubic
    or quintic as joint_trajectory_controller chooses it): all segments at
    once with numpy.
    """
    q = trajectory.positions
    qd, qdd = trajectory.velocities, trajectory.accelerations
    has_v = np.asarray(trajectory.has_velocity, dtype=bool)
    has_a = np.asarray(trajectory.has_acceleration, dtype=bool)
    T = np.diff(np.asarray(trajectory.times, dtype=float))[:, None]
    p0, dp = q[:-1], q[1:] - q[:-1]
    v0, v1, a0, a1 = qd[:-1], qd[1:], qdd[:-1], qdd[1:]
    cubic = (has_v[:-1] & has_v[1:])[:, None]
    quintic = cubic & (has_a[:-1] & has_a[1:])[:, None]
    coefficients = np.zeros((len(T), 6, q.shape[1]))
    coefficients[:, 0] = p0
    coefficients[:, 1] = np.where(cubic, v0, dp / T)
    coefficients[:, 2] = np.where(
        quintic, 0.5 * a0,
        np.where(cubic, (3.0 * dp - (2.0 * v0 + v1) * T) / T ** 2, 0.0))
    coefficients[:, 3] = np.where(
        quintic, (20.0 * dp - (8.0 * v1 + 12.0 * v0) * T
                  - (3.0 * a0 - a1) * T ** 2) / (2.0 * T ** 3),
        np.where(cubic, (-2.0 * dp + (v0 + v1) * T) / T ** 3, 0.0))
    coefficients[:, 4] = np.where(
        quintic, (-30.0 * dp + (14.0 * v1 + 16.0 * v0) * T
                  + (3.0 * a0 - 2.0 * a1) * T ** 2) / (2.0 * T ** 4), 0.0)
    coefficients[:, 5] = np.where(
        quintic, (12.0 * dp - 6.0 * (v1 + v0) * T
                  - (a0 - a1) * T ** 2) / (2.0 * T ** 5), 0.0)
    return coefficients


def sample_many(trajectory, times):
    """
    Return (q, qd, qdd), each (len(times), n), at absolute ``times``.

    The same values as ``sample`` at each time, computed for all times at
    once (segment look-up and polynomials with numpy): a trajectory sampled
    at 1 kHz for a feasibility check costs milliseconds.
    """
    times = np.asarray(times, dtype=float).ravel()
    n = trajectory.positions.shape[1]
    q, qd, qdd = (np.empty((times.size, n)) for _ in range(3))
    waypoint_times = trajectory.start_time + np.asarray(trajectory.times,
                                                        dtype=float)
    before = times < waypoint_times[0]
    after = times >= waypoint_times[-1]
    for i in np.flatnonzero(before):   # rare: the segment from receipt
        q[i], qd[i], qdd[i] = sample(trajectory, times[i])
    q[after] = trajectory.positions[-1]
    qd[after] = 0.0
    qdd[after] = 0.0
    inside = ~(before | after)
    if np.any(inside):
        t = times[inside]
        k = np.searchsorted(waypoint_times, t, side='right') - 1
        c = segment_coefficients(trajectory)[k]
        s = (t - waypoint_times[k])[:, None]
        # Horner's rule for p, p' and p'' of sum c_d s^d.
        p = c[:, 5]
        v = 5.0 * c[:, 5]
        a = 20.0 * c[:, 5]
        for d in (4, 3, 2):
            p = p * s + c[:, d]
            v = v * s + d * c[:, d]
            a = a * s + d * (d - 1) * c[:, d]
        q[inside] = (p * s + c[:, 1]) * s + c[:, 0]
        qd[inside] = v * s + c[:, 1]
        qdd[inside] = a
    return q, qd, qdd
