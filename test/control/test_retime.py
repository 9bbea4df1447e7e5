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
Retiming under effort limits, judged by Pinocchio and an independent toppra.

Arms: Panda, and Baxter's right arm (example-robot-data; no other test runs
Baxter).  Random waypoint paths (seeded) that exceed the effort limits when
timed by velocity and acceleration limits alone; after ``retime``:

- the output, played as joint_trajectory_controller plays it (quintic
  between points, built here with scipy's BPoly.from_derivatives, not the
  package's sampler) at 1 kHz, keeps the effort limits by Pinocchio's rnea,
  and the velocity and acceleration limits, to 1e-6 relative;
- every played position lies on the waypoint path (scipy's CubicSpline over
  the chord length, built here);
- the duration is within 2 % of toppra's time-optimal solution with torque
  constraints from Pinocchio's rnea (toppra's own SecondOrderConstraint,
  its own velocity and acceleration constraints, a finer grid).
"""

import dynamics_ros as dr
from dynamics_ros.control.feasibility import check, Limits, limits_in_use
from dynamics_ros.control.retime import retime
import numpy as np
import oracle
import pytest
from scipy.interpolate import BPoly, CubicSpline
from scipy.spatial import cKDTree
import toppra
import toppra.algorithm
import toppra.constraint

PANDA_XML = oracle.example_arm_xml('panda')
BAXTER_XML = oracle.keep_chain(open(
    oracle.robots_directory() + '/baxter_description/urdf/baxter.urdf',
    encoding='utf-8').read(), None, 'right_hand_link')
# Acceleration limits high enough that efforts, not accelerations, bind
# (three times Franka's datasheet for the Panda).
ACCELERATION = {'panda': 3.0 * np.array([15, 7.5, 10, 12.5, 15, 20, 20.0]),
                'baxter': np.full(7, 30.0)}
# The limits hold to this fraction (the acceptance).
RELATIVE = 1e-6
RATE = 1000.0


def arm(name):
    """Return (model, xml) of ``name``."""
    xml = PANDA_XML if name == 'panda' else BAXTER_XML
    return dr.load_urdf(xml), xml


def random_waypoints(model, rng, spread=0.2):
    """5-10 waypoints inside ``spread`` of each joint's half range."""
    k = int(rng.integers(5, 11))
    middle = 0.5 * (model.lower_limit + model.upper_limit)
    half = 0.5 * (model.upper_limit - model.lower_limit)
    return middle + spread * half * rng.uniform(-1.0, 1.0, (k, model.nq))


def played(times, positions, velocities, accelerations, rate=RATE):
    """
    Sample the trajectory as the controller plays it, at ``rate`` Hz.

    Quintic Hermite segments (scipy's BPoly.from_derivatives); returns
    (t, q, qd, qdd).
    """
    t = np.union1d(np.arange(0.0, times[-1], 1.0 / rate), [times[-1]])
    columns = [BPoly.from_derivatives(times, np.stack(
        [positions[:, j], velocities[:, j], accelerations[:, j]], axis=1))
        for j in range(positions.shape[1])]
    return (t,) + tuple(np.stack([c(t, nu) for c in columns], axis=1)
                        for nu in range(3))


def pinocchio_efforts(reference, q, qd, qdd):
    """Pinocchio's rnea at every sample, (N, n)."""
    return np.array([reference.rnea(*state) for state in zip(q, qd, qdd)])


def chord_spline(waypoints):
    """Return the waypoint path: CubicSpline over the cumulative distance."""
    s = np.concatenate([[0.0], np.cumsum(np.linalg.norm(
        np.diff(waypoints, axis=0), axis=1))])
    return CubicSpline(s, waypoints), s


def distance_to_path(spline, s_end, q):
    """Return the distance of each q (N, n) to the spline (rad)."""
    fine = np.linspace(0.0, s_end, 20001)
    _, nearest = cKDTree(spline(fine)).query(q)
    s = fine[nearest]
    for _ in range(5):   # Newton on |p(s) - q|^2, all rows at once
        error = spline(s) - q
        d1, d2 = spline(s, 1), spline(s, 2)
        gradient = np.sum(error * d1, axis=1)
        curvature = np.sum(d1 * d1 + error * d2, axis=1)
        s = np.clip(s - gradient / curvature, 0.0, s_end)
    return np.linalg.norm(spline(s) - q, axis=1)


def reference_duration(reference, waypoints, limits, points=600):
    """Return the duration of toppra's optimum with Pinocchio torques."""
    spline, s = chord_spline(waypoints)
    path = toppra.SplineInterpolator(s, waypoints)
    n = waypoints.shape[1]

    def inverse_dynamics(q, qd, qdd):
        return reference.rnea(q, qd, qdd)

    effort = np.column_stack([-limits.effort, limits.effort])
    interpolation = toppra.constraint.DiscretizationType.Interpolation
    constraints = [
        toppra.constraint.JointVelocityConstraint(limits.velocity),
        toppra.constraint.JointAccelerationConstraint(
            limits.acceleration, discretization_scheme=interpolation),
        toppra.constraint.SecondOrderConstraint.joint_torque_constraint(
            inverse_dynamics, effort, np.zeros(n),
            discretization_scheme=interpolation)]
    grid = np.linspace(0.0, s[-1], points + 1)
    instance = toppra.algorithm.TOPPRA(constraints, path, gridpoints=grid,
                                       solver_wrapper='seidel')
    trajectory = instance.compute_trajectory(0.0, 0.0)
    assert trajectory is not None, 'the reference found no solution'
    return trajectory.duration


def kinematic_only(limits):
    """Return the same velocity and acceleration limits, no effort ones."""
    return Limits(np.full_like(limits.effort, np.inf), limits.velocity,
                  limits.acceleration)


CASES = [('panda', seed) for seed in (2, 6, 13)] + \
    [('baxter', seed) for seed in (4, 5)]


@pytest.mark.parametrize('name,seed', CASES)
def test_retimed_path_keeps_every_limit(name, seed):
    model, xml = arm(name)
    reference = oracle.PinocchioOracle(model, xml)
    limits = limits_in_use(model, acceleration_limits=ACCELERATION[name])
    rng = np.random.default_rng(seed)
    waypoints = random_waypoints(model, rng)

    # Timed by velocity and acceleration alone, the path asks for more
    # effort than the motors have (Pinocchio says so, and so does check).
    fast = retime(model, waypoints, kinematic_only(limits))
    t, q, qd, qdd = played(fast.times, fast.positions, fast.velocities,
                           fast.accelerations)
    tau = pinocchio_efforts(reference, q, qd, qdd)
    assert np.max(np.abs(tau) / limits.effort) > 1.05
    report = check(model, fast.times, fast.positions, fast.velocities,
                   fast.accelerations, limits=limits)
    assert not report.feasible and report.first.kind == 'effort'

    result = retime(model, waypoints, limits)
    assert result.retimed and result.report.feasible
    t, q, qd, qdd = played(result.times, result.positions,
                           result.velocities, result.accelerations)
    tau = pinocchio_efforts(reference, q, qd, qdd)
    for values, limit, what in ((tau, limits.effort, 'effort'),
                                (qd, limits.velocity, 'velocity'),
                                (qdd, limits.acceleration, 'acceleration')):
        worst = np.max(np.abs(values) / limit)
        assert worst <= 1.0 + RELATIVE, '%s at %.9f of its limit' % (
            what, worst)
    # The effort limits bind somewhere (it is not merely slow).
    assert np.max(np.abs(tau) / limits.effort) > 0.98
    # The efforts of the points are the inverse dynamics of the points.
    expected = pinocchio_efforts(reference, result.positions,
                                 result.velocities, result.accelerations)
    assert np.max(np.abs(result.efforts - expected)) <= 1e-9 * np.max(
        np.abs(expected))

    spline, s = chord_spline(waypoints)
    # On the path: exactly at the points (evaluated on the same spline), and
    # between them to within the quintic's deviation from p(s(t)).
    assert np.max(distance_to_path(spline, s[-1], result.positions)) < 1e-9
    assert np.max(distance_to_path(spline, s[-1], q)) < 1e-6
    assert np.allclose(q[0], waypoints[0], atol=1e-12)
    assert np.allclose(q[-1], waypoints[-1], atol=1e-12)

    optimum = reference_duration(reference, waypoints, limits)
    assert abs(result.duration - optimum) <= 0.02 * optimum, (
        'duration %.4f s, reference %.4f s' % (result.duration, optimum))
