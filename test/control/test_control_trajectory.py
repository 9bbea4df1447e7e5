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
JTC-style trajectory sampling against scipy's Hermite interpolants.

scipy's BPoly.from_derivatives builds the unique polynomial with the given
end values and derivatives: the oracle for the cubic and quintic segments.
"""

from conftest import assert_close
from dynamics_ros.control.trajectory import (sample, Trajectory,
                                             waypoint_references)
import numpy as np
import pytest
from scipy.interpolate import BPoly

TIMES = np.array([0.0, 0.4, 1.0, 1.7])
START = 50.0
RNG = np.random.default_rng(3)
Q = RNG.uniform(-1, 1, (4, 2))
QD = RNG.uniform(-1, 1, (4, 2))
QDD = RNG.uniform(-1, 1, (4, 2))


def trajectory(velocity=True, acceleration=True, times=TIMES, **extra):
    """Trajectory of Q, QD, QDD; every waypoint has the chosen fields."""
    k = len(times)
    return Trajectory(times=np.asarray(times), positions=Q[:k],
                      velocities=QD[:k], accelerations=QDD[:k],
                      has_velocity=np.full(k, velocity),
                      has_acceleration=np.full(k, acceleration),
                      start_time=START, **extra)


def hermite(derivatives, t, nu):
    """Evaluate scipy BPoly through the waypoints with ``derivatives``."""
    return np.array([BPoly.from_derivatives(
        TIMES, [[d[k, j] for d in derivatives] for k in range(len(TIMES))])(
            t, nu) for j in range(Q.shape[1])])


@pytest.mark.parametrize('velocity,acceleration,derivatives', [
    (True, True, (Q, QD, QDD)),    # quintic
    (True, False, (Q, QD)),        # cubic
    (False, False, (Q,)),          # linear
])
def test_segments_match_hermite_interpolation(velocity, acceleration,
                                              derivatives):
    traj = trajectory(velocity, acceleration)
    for t in (0.0, 0.1, 0.4, 0.77, 1.3, 1.6999):
        q, qd, qdd = sample(traj, START + t)
        expected = [hermite(derivatives, t, nu) for nu in range(3)]
        if len(derivatives) == 1:
            expected[2] = np.zeros(2)  # linear: zero inside segments
        for value, reference, name in zip((q, qd, qdd), expected,
                                          ('q', 'qd', 'qdd')):
            assert_close(value, reference, rtol=1e-9,
                         what='%s at t = %g' % (name, t))


def test_degree_follows_both_ends_of_a_segment():
    traj = trajectory()
    traj.has_acceleration[2] = False   # segment 1 and 2 become cubic
    traj.has_velocity[3] = False       # segment 2 becomes linear
    q, qd, qdd = sample(traj, START + 0.7)
    cubic = BPoly.from_derivatives(
        TIMES[1:3], [[Q[1, 0], QD[1, 0]], [Q[2, 0], QD[2, 0]]])
    assert_close([q[0], qd[0], qdd[0]],
                 [cubic(0.7), cubic(0.7, 1), cubic(0.7, 2)])
    q, qd, qdd = sample(traj, START + 1.2)
    slope = (Q[3] - Q[2]) / (TIMES[3] - TIMES[2])
    assert_close(qd, slope)
    assert_close(q, Q[2] + slope * 0.2)
    assert np.all(qdd == 0.0)


def test_after_the_end_the_last_position_is_held():
    q, qd, qdd = sample(trajectory(), START + 99.0)
    assert_close(q, Q[-1])
    assert np.all(qd == 0.0) and np.all(qdd == 0.0)


def test_before_the_first_waypoint_it_starts_from_the_held_state():
    times = TIMES + 1.0   # first waypoint 1 s after the start
    q0, qd0 = np.array([0.5, -0.5]), np.array([0.1, 0.0])
    traj = trajectory(times=times, initial=(q0, qd0),
                      received_time=START)
    q, qd, _ = sample(traj, START)
    assert_close(q, q0)
    assert_close(qd, qd0)
    q, qd, qdd = sample(traj, START + 0.6)
    spline = [BPoly.from_derivatives(
        [0.0, 1.0], [[q0[j], qd0[j], 0.0], [Q[0, j], QD[0, j], QDD[0, j]]])
        for j in range(2)]
    assert_close(q, [s(0.6) for s in spline])
    assert_close(qdd, [s(0.6, 2) for s in spline])
    # Before it arrived: hold; with no initial state: hold waypoint 0.
    assert_close(sample(traj, START - 5.0)[0], q0)
    no_initial = trajectory(times=times)
    assert_close(sample(no_initial, START + 0.5)[0], Q[0])


def test_waypoint_references_keep_given_and_derive_missing_fields():
    traj = trajectory(velocity=True, acceleration=False)
    q, qd, qdd = waypoint_references(traj)
    assert_close(q, Q)
    assert_close(qd, QD)
    for k in range(3):   # the cubic starting at waypoint k
        assert_close(qdd[k], hermite((Q, QD), TIMES[k], 2))
    assert np.all(qdd[-1] == 0.0)


@pytest.mark.parametrize('seed', range(6))
def test_waypoint_references_equal_sampling_each_waypoint(seed):
    # Any mix of waypoints with and without velocities / accelerations:
    # the one-pass form gives what sample() gives at each waypoint.
    rng = np.random.default_rng(seed)
    k = 7
    times = np.cumsum(rng.uniform(0.1, 1.0, k)) - 0.1
    has_v = rng.random(k) < 0.6
    has_a = has_v & (rng.random(k) < 0.6)
    traj = Trajectory(
        times=times, positions=rng.uniform(-1, 1, (k, 3)),
        velocities=np.where(has_v[:, None], rng.uniform(-1, 1, (k, 3)), 0.0),
        accelerations=np.where(has_a[:, None], rng.uniform(-1, 1, (k, 3)),
                               0.0),
        has_velocity=has_v, has_acceleration=has_a, start_time=START)
    q, qd, qdd = waypoint_references(traj)
    for i, t in enumerate(times):
        _, sampled_qd, sampled_qdd = sample(traj, START + t)
        assert_close(qd[i], traj.velocities[i] if has_v[i] else sampled_qd)
        assert_close(qdd[i], traj.accelerations[i] if has_a[i]
                     else sampled_qdd)
