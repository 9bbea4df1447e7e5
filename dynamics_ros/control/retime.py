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
Time-optimal retiming of a path through waypoints under effort limits.

The path is the one a user expects through the waypoints: a cubic spline of
the waypoints' positions (scipy's not-a-knot spline, toppra's
``SplineInterpolator``) over the cumulative joint-space distance between
them (chord length, s in rad or m), so two waypoints give a straight line
and the path never depends on the timing it came with.  Along it, the
path-velocity decomposition q(t) = p(s(t)) makes every limit linear in
(u, x) = (s_dd, s_d^2) at a path position s::

    qd  = p'(s) s_d                      |qd_j|  <= v_j     (x bound)
    qdd = p'(s) u + p''(s) x             |qdd_j| <= alpha_j
    tau = a(s) u + b(s) x + c(s)         |tau_j| <= tau_j,max

with a = ID(p, 0, p') - c, b = ID(p, p', p'') - c, c = ID(p, 0, 0) (the
rigid-body dynamics are quadratic in qd and linear in qdd; Pham and Pham,
"A new approach to time-optimal path parameterization based on reachability
analysis", IEEE T-RO 34(3), 2018, eq. 4).  The coefficients come from our
inverse dynamics, three batched calls over the whole grid (a MimicModel in
its independent coordinates, the model's payload included).  toppra (PyPI,
the authors' implementation of that paper) solves the reachability
analysis: the largest controllable s_d at every grid point, backward, then
the greedy forward pass, in the interpolation discretization (each interval
satisfies the limits at both of its ends, section VI-B of the paper).

Output: toppra's solution (u constant on each grid interval) made C2 by a
moving average over 0.2 % of its duration, at most 8 ms (``PathTiming``:
joint_trajectory_controller plays points with accelerations as quintics,
which cannot follow a jump of u), sampled at the instants where it is
piecewise cubic, with q, qd, qdd and the efforts the controller takes as
feed-forward.  The output is then
played as the controller plays it (``feasibility.evaluate``, 1 kHz) and,
where it exceeds a limit (between grid points the discretized limits are
not enforced), the limits of the grid points around that instant are
lowered by the excess and the problem solved again (the first solve uses
slightly lowered limits, FIRST_SCALE, and is enough on the test and
benchmark paths): the result is checked, not assumed.  Velocity limits
hold at the grid points (toppra's x bound) and at the middle of every
interval (a row linear in (u, x), ``middle_velocity_rows``).

A trajectory given with times that already keeps every limit (at the
margin) is returned with its timing unchanged, only annotated with efforts.
"""

from dataclasses import dataclass
import importlib
import sys
import types
from typing import Optional

import numpy as np

from .feasibility import (evaluate, InfeasiblePath, KINDS,
                          refuse_static_overload, report_of, TooManySamples,
                          trajectory_of)
from .trajectory import waypoint_references
from ..dynamics.rnea import inverse_dynamics

# Grid points per waypoint segment and bounds on the whole grid: enough
# that the limits between grid points hold to a fraction of a percent.
POINTS_PER_SEGMENT = 200
MIN_POINTS, MAX_POINTS = 400, 3000
# Rounds of lowering the limits where the played trajectory exceeds them.
MAX_ROUNDS = 12
# Lowered by the excess and this much more (relative), so a round is enough
# for most excesses.
HEADROOM = 1e-4
# The first solve uses these fractions of the limits: played at 1 kHz,
# the output exceeds the velocities and accelerations toppra kept at the
# grid points by up to 0.05 % on the test paths with the grid above, and
# each further solve costs as much as the first; efforts at the full
# limit (where gravity takes most of one, a reserve of the limit is a
# large share of what is left for accelerating, 0.6 % of the duration).
FIRST_SCALE = {'effort': 1.0, 'velocity': 0.9995, 'acceleration': 0.9995}
# Largest width (s) of the moving average that makes the output's
# acceleration continuous (PathTiming): 8 control cycles at 1 kHz.  The
# average lasts its width longer than toppra's timing, so the width used
# is WIDTH_SHARE of that timing (at least MIN_WIDTH): a cost that is a
# share of the duration, not a fixed 8 ms (a 7 ms move took twice as long).
# 0.2 %: a 1 s path's acceleration ramps over 2 ms (at 0.1 %, computed
# torque on the simulator of test_retime_node clipped now and then).
SMOOTHING = 0.008
WIDTH_SHARE = 0.002
MIN_WIDTH = 2e-5
# toppra's own cap on s_d for velocity bounds (constants.JVEL_MAXSD).
MAX_PATH_SPEED = 1e8
TOPPRA_RANGE = '>=0.6.9,<0.7'


class DeferredModule(types.ModuleType):
    """
    A stand-in for a module that is imported when first used.

    toppra imports matplotlib.pyplot at import time for its plotting
    helpers (toppra/algorithm/algorithm.py, parametrizer.py): 1.2 s of a
    first retime's 2 s, and retiming never plots.
    """

    def __getattr__(self, name):
        """Import the real module and return its attribute."""
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), name)


def import_without_pyplot(name):
    """Import ``name`` with matplotlib(.pyplot) deferred if not loaded."""
    stand_ins = {}
    if 'matplotlib.pyplot' not in sys.modules:
        stand_ins['matplotlib.pyplot'] = DeferredModule('matplotlib.pyplot')
        if 'matplotlib' not in sys.modules:
            stand_ins['matplotlib'] = DeferredModule('matplotlib')
            stand_ins['matplotlib'].pyplot = stand_ins['matplotlib.pyplot']
    sys.modules.update(stand_ins)
    try:
        return importlib.import_module(name)
    finally:
        for key, module in stand_ins.items():
            if sys.modules.get(key) is module:
                del sys.modules[key]


def load_toppra():
    """Return the toppra module, or raise ImportError saying how to get it."""
    try:
        toppra = import_without_pyplot('toppra')
        import toppra.algorithm  # noqa: F401
        import toppra.constraint  # noqa: F401
    except ImportError as error:
        raise ImportError(
            'retiming needs the Python package toppra (pip install '
            '"toppra%s"; not a dependency of the ROS package: rosdep has '
            'only the pip key python3-toppra-pip): %s'
            % (TOPPRA_RANGE, error)) from error
    return toppra


@dataclass
class RetimedTrajectory:
    """
    A trajectory that keeps its limits, in model order.

    ``times`` (k,) seconds from start; ``positions``, ``velocities``,
    ``accelerations``, ``efforts`` (k, n) (velocities / accelerations None
    when an unchanged input had none).  ``retimed``: False when the input
    timing was kept.  ``report``: the check of what is returned (played as
    joint_trajectory_controller plays it); ``input_report``: of the input
    timing, if there was one.  ``path_parameter``: s of every point on the
    waypoint path (retimed only); ``rounds``: solves needed.
    """

    times: np.ndarray
    positions: np.ndarray
    velocities: Optional[np.ndarray]
    accelerations: Optional[np.ndarray]
    efforts: np.ndarray
    retimed: bool
    report: object
    input_report: object = None
    path_parameter: Optional[np.ndarray] = None
    rounds: int = 0

    @property
    def duration(self):
        """Return the time of the last point (s)."""
        return float(self.times[-1])


def distinct_waypoints(positions, tolerance=1e-12):
    """Return ``positions`` without waypoints equal to the one before."""
    positions = np.atleast_2d(np.asarray(positions, dtype=float))
    keep = np.ones(len(positions), dtype=bool)
    keep[1:] = np.linalg.norm(np.diff(positions, axis=0), axis=1) > tolerance
    return positions[keep]


def chord_parameters(positions):
    """Return s of each waypoint: the cumulative joint-space distance."""
    steps = np.linalg.norm(np.diff(positions, axis=0), axis=1)
    return np.concatenate([[0.0], np.cumsum(steps)])


def waypoint_path(positions):
    """
    Return (path, s of the waypoints): the spline through the waypoints.

    Repeated waypoints are dropped; at least two distinct ones are needed
    (ValueError otherwise).  ``path(s, order)`` gives p, p' or p''.
    """
    toppra = load_toppra()
    positions = distinct_waypoints(positions)
    if len(positions) < 2:
        raise ValueError('a path needs at least two distinct waypoints')
    if not np.all(np.isfinite(positions)):
        raise ValueError('waypoint positions must be finite')
    ss = chord_parameters(positions)
    return toppra.SplineInterpolator(ss, positions), ss


def path_grid(ss, points=None):
    """
    Return the grid points: uniform in s, plus every waypoint.

    Not the waypoints of a densely sampled input (more than a tenth as many
    waypoints as grid points): they would multiply the grid.
    ``points``: the number of uniform intervals (default POINTS_PER_SEGMENT
    per waypoint segment, within MIN_POINTS and MAX_POINTS).
    """
    if points is None:
        points = int(np.clip(POINTS_PER_SEGMENT * (len(ss) - 1), MIN_POINTS,
                             MAX_POINTS))
    grid = np.linspace(0.0, ss[-1], int(points) + 1)
    if len(ss) <= points // 10:   # not a densely sampled input
        grid = np.union1d(grid, ss)
    # Points closer than rounding would make a degenerate interval.
    keep = np.concatenate([[True], np.diff(grid) > 1e-9 * ss[-1]])
    keep[-1] = True
    grid = grid[keep]
    if grid[-2] >= grid[-1] - 1e-9 * ss[-1]:
        grid = np.delete(grid, -2)
    return grid


class PathDynamics:
    """
    Joint data along the path at the grid points (computed once).

    q, q', q'' of the path and the torque coefficients a, b, c of
    tau = a u + b x + c (module docstring), each (N + 1, n).
    """

    def __init__(self, model, path, grid):
        """Evaluate the path and three batched inverse dynamics on ``grid``."""
        self.grid = grid
        self.q = path(grid)
        self.dq = path(grid, 1)
        self.ddq = path(grid, 2)
        # p' at the middle of each interval (the last point has none).
        self.middle_dq = path(0.5 * (grid[1:] + grid[:-1]), 1)
        zero = np.zeros_like(self.q)
        self.c = np.atleast_2d(inverse_dynamics(model, self.q, zero, zero))
        self.a = np.atleast_2d(inverse_dynamics(
            model, self.q, zero, self.dq)) - self.c
        self.b = np.atleast_2d(inverse_dynamics(
            model, self.q, self.dq, self.ddq)) - self.c


def velocity_bound(dynamics, velocity):
    """
    Return (N + 1, 2): ``0 <= x <= min_j (v_j / |p'_j|)^2`` per grid point.

    ``velocity`` (N + 1, n) are the (possibly lowered) limits per point.
    """
    slope = np.abs(dynamics.dq)
    with np.errstate(divide='ignore', invalid='ignore'):
        speed = np.where(slope > 0.0, velocity / slope, np.inf)
    top = np.minimum(np.min(speed, axis=1), MAX_PATH_SPEED) ** 2
    return np.column_stack([np.zeros_like(top), top])


def normalized_rows(dynamics, effort, acceleration):
    """
    Return (a, b, c) of the limited rows, each divided by its limit.

    Rows: every joint with a finite effort limit (tau = a u + b x + c),
    then every joint with a finite acceleration limit (qdd = p' u + p'' x).
    Divided by the limit per grid point, each row is ``|a u + b x + c| <= 1``,
    one constant F and g for the whole grid.
    """
    parts = ([], [], [])
    finite = np.isfinite(effort[0])
    if np.any(finite):
        limit = effort[:, finite]
        for part, values in zip(parts, (dynamics.a, dynamics.b, dynamics.c)):
            part.append(values[:, finite] / limit)
    finite = np.isfinite(acceleration[0])
    if np.any(finite):
        limit = acceleration[:, finite]
        zero = np.zeros_like(limit)
        for part, values in zip(parts, (dynamics.dq, dynamics.ddq, zero)):
            part.append(values[:, finite] / limit)
    if not parts[0]:
        return None
    return tuple(np.hstack(part) for part in parts)


def middle_velocity_rows(dynamics, velocity):
    """
    Return (a, b) of ``|qd_j|^2 <= v_j^2`` at the middle of each interval.

    x is linear in s between grid points, so at the middle of interval i
    x = x_i + ds_i u_i (u_i = (x_i+1 - x_i) / (2 ds_i)) and
    qd_j^2 = p'_j(middle)^2 (x_i + ds_i u_i): linear in (u_i, x_i), a row
    of stage i divided by v_j^2.  Between grid points ``|p'|`` varies and the
    x bound at the points alone lets qd exceed its limit by up to 1 % there.
    None if no joint has a velocity limit.
    """
    finite = np.isfinite(velocity[0])
    if not np.any(finite):
        return None
    square = dynamics.middle_dq[:, finite] ** 2 / velocity[:-1, finite] ** 2
    ds = np.diff(dynamics.grid)[:, None]
    a = np.vstack([ds * square, np.zeros((1, square.shape[1]))])
    b = np.vstack([square, np.zeros((1, square.shape[1]))])
    return a, b


def make_constraints(toppra, dynamics, effort, velocity, acceleration):
    """Return toppra constraints for the per-grid-point limits given."""
    base = toppra.constraint.LinearConstraint
    interpolation = toppra.constraint.DiscretizationType.Interpolation
    to_interpolation = toppra.constraint.linear_constraint \
        .canlinear_colloc_to_interpolate

    class VelocityBound(base):
        """x bounds of the velocity limits (toppra's CanonicalLinear)."""

        def __init__(self):
            super().__init__()
            self.dof = dynamics.q.shape[1]
            self._format_string = '    joint velocity limits\n'

        def compute_constraint_params(self, path, gridpoints):
            return (None, None, None, None, None, None,
                    velocity_bound(dynamics, velocity))

    class GivenRows(base):
        """A constraint whose rows per grid point are computed already."""

        def __init__(self, rows, text, discretization=None):
            super().__init__()
            self.rows = rows
            self.dof = dynamics.q.shape[1]
            self.identical = True
            if discretization is not None:
                self.set_discretization_type(discretization)
            self._format_string = '    %s\n' % text

    class NormalizedLimits(GivenRows):
        """``|a u + b x + c| <= 1`` for the effort and acceleration rows."""

        def compute_constraint_params(self, path, gridpoints):
            a, b, c = self.rows
            m = a.shape[1]
            F = np.vstack([np.eye(m), -np.eye(m)])
            g = np.ones(2 * m)
            a, b, c, F, g, _, _ = to_interpolation(
                a, b, c, F, g, None, None, gridpoints, identical=True)
            return a, b, c, F, g, None, None

    class MiddleVelocity(GivenRows):
        """qd_j^2 <= v_j^2 at the middle of each interval (collocation)."""

        def compute_constraint_params(self, path, gridpoints):
            a, b = self.rows
            m = a.shape[1]
            return (a, b, np.zeros_like(a), np.eye(m), np.ones(m), None,
                    None)

    constraints = [VelocityBound()]
    rows = normalized_rows(dynamics, effort, acceleration)
    if rows is not None:
        constraints.append(NormalizedLimits(
            rows, 'normalized effort and acceleration', interpolation))
    rows = middle_velocity_rows(dynamics, velocity)
    if rows is not None:
        constraints.append(MiddleVelocity(rows,
                                          'velocity between grid points'))
    return constraints


def solve(toppra, path, dynamics, scale, limits):
    """
    Return s_d at the grid points (None: no parameterization found).

    ``scale``: kind -> (N + 1,) fraction of the limits at each grid point.
    """
    per_point = {kind: scale[kind][:, None] * limits.of(kind)[None, :]
                 for kind in KINDS}
    constraints = make_constraints(
        toppra, dynamics, per_point['effort'], per_point['velocity'],
        per_point['acceleration'])
    instance = toppra.algorithm.TOPPRA(
        constraints, path, gridpoints=dynamics.grid, solver_wrapper='seidel')
    _, sd, _ = instance.compute_parameterization(0.0, 0.0)
    if sd is None or not np.all(np.isfinite(sd)):
        return None
    return np.maximum(sd, 0.0)


class PathTiming:
    """
    toppra's solution as a function of time, and its moving average.

    On grid interval i the path acceleration u_i is constant (x = s_d^2
    linear in s, toppra's ParametrizeConstAccel), lasting
    2 ds / (sd_i + sd_i+1).  So s(t) is piecewise quadratic and C1, and its
    acceleration jumps where the optimum switches between limits.  The
    controller plays points with accelerations as quintics, whose
    acceleration is continuous: a jump between two points makes the quintic
    overshoot the limit by up to 16 % of the jump.  The output therefore
    follows the moving average of s(t) over a window of ``width`` seconds,

        s_w(t) = (1/w) int_{t-w}^{t} s(r) dr,
        s_w' = (s(t) - s(t - w)) / w,   s_w'' = (s'(t) - s'(t - w)) / w,

    which is C2 (its acceleration a moving average of toppra's, ramping
    over w at a switch instead of jumping), stays on the path (s_w in
    [0, s_end]), starts and ends at rest and lasts w longer.  Between the
    instants where t or t - w crosses a grid time s_w is a cubic in t: those
    instants are the output points, and the controller's quintic between
    them follows p(s_w(t)) closely.
    """

    def __init__(self, grid, sd, width):
        """Integrate the piecewise-constant u of ``sd`` on ``grid``."""
        x = sd ** 2
        ds = np.diff(grid)
        speed = sd[:-1] + sd[1:]
        if np.any(speed <= 0.0):
            raise InfeasiblePath('the path cannot be followed: the '
                                 'time-optimal path speed is zero over an '
                                 'interval')
        self.grid, self.sd, self.width = grid, sd, float(width)
        self.u = (x[1:] - x[:-1]) / (2.0 * ds)
        steps = 2.0 * ds / speed
        self.times = np.concatenate([[0.0], np.cumsum(steps)])
        # S(t) = int_0^t s: exact per interval (s is quadratic there).
        pieces = grid[:-1] * steps + 0.5 * sd[:-1] * steps ** 2 \
            + self.u * steps ** 3 / 6.0
        self.integral = np.concatenate([[0.0], np.cumsum(pieces)])

    @property
    def duration(self):
        """Return the duration of the averaged timing (toppra's + width)."""
        return float(self.times[-1]) + self.width

    def raw(self, t):
        """Return (S, s, s') of toppra's timing at ``t`` (held outside)."""
        t = np.asarray(t, dtype=float)
        end = self.times[-1]
        i = np.clip(np.searchsorted(self.times, t, side='right') - 1, 0,
                    len(self.u) - 1)
        tau = np.clip(t, 0.0, end) - self.times[i]
        s0, v0, u = self.grid[i], self.sd[i], self.u[i]
        s = s0 + v0 * tau + 0.5 * u * tau ** 2
        v = v0 + u * tau
        S = self.integral[i] + s0 * tau + 0.5 * v0 * tau ** 2 \
            + u * tau ** 3 / 6.0
        before, after = t < 0.0, t > end
        s = np.where(before, 0.0, np.where(after, self.grid[-1], s))
        v = np.where(before | after, 0.0, v)
        S = np.where(before, 0.0, np.where(
            after, self.integral[-1] + self.grid[-1] * (t - end), S))
        return S, s, v

    def averaged(self, t):
        """Return (s, s', s'') of the moving average at ``t`` (from 0)."""
        w = self.width
        if w <= 0.0:
            _, s, v = self.raw(t)
            i = np.clip(np.searchsorted(self.times, t, side='right') - 1, 0,
                        len(self.u) - 1)
            return s, v, self.u[i]
        S1, s1, v1 = self.raw(t)
        S0, s0, v0 = self.raw(np.asarray(t, dtype=float) - w)
        s = np.clip((S1 - S0) / w, 0.0, self.grid[-1])
        return s, (s1 - s0) / w, (v1 - v0) / w

    def point_times(self):
        """Return the output times: every grid time and it plus the width."""
        times = np.union1d(self.times, self.times + self.width)
        # Instants closer than 0.1 ms (a quarter width) add nothing but
        # points.
        close = min(1e-4, 0.25 * self.width) if self.width > 0.0 else 1e-4
        keep = np.concatenate([[True], np.diff(times) > close])
        keep[-1] = True
        if len(times) > 2 and times[-1] - times[-2] <= close:
            keep[-2] = False
        return times[keep]


def point_states(path, timing):
    """Return (times, s, q, qd, qdd) of the output points of ``timing``."""
    # Whole nanoseconds, as a JointTrajectory carries them: the quintic
    # between two points 0.1 ms apart moves its acceleration by 0.3 % of
    # the limit when its duration is rounded after the check.
    times = np.round(timing.point_times() * 1e9) / 1e9
    s, sd, sdd = timing.averaged(times)
    s[0], s[-1] = 0.0, timing.grid[-1]       # exactly at the ends
    sd[0] = sd[-1] = sdd[0] = sdd[-1] = 0.0   # at rest
    dq, ddq = path(s, 1), path(s, 2)
    qd = dq * sd[:, None]
    qdd = dq * sdd[:, None] + ddq * (sd ** 2)[:, None]
    return times, s, path(s), qd, qdd


def lower_where_exceeded(scale, grid, path_positions, samples, limits):
    """
    Lower ``scale`` around every sample beyond its limit.

    A sample at path position s in grid interval i lowers the limits of
    grid points i - 1 .. i + 2 by its excess (and HEADROOM more).  Returns
    True if any sample was over.
    """
    exceeded = False
    last = len(grid) - 1
    for kind in KINDS:
        limit = limits.of(kind)
        with np.errstate(divide='ignore', invalid='ignore'):
            ratio = np.where(np.isfinite(limit),
                             np.abs(samples.of(kind)) / limit, 0.0)
        ratio = ratio.max(axis=1)
        over = np.flatnonzero(ratio > 1.0)
        if over.size == 0:
            continue
        exceeded = True
        intervals = np.clip(np.searchsorted(
            grid, path_positions[over], side='right') - 1, 0, last)
        # The smallest factor per grid point, spread to i - 1 .. i + 2.
        factor = np.ones(last + 1)
        np.minimum.at(factor, intervals, (1.0 - HEADROOM) / ratio[over])
        spread = factor.copy()
        for shift in (-1, 1, 2):
            if shift > 0:
                spread[shift:] = np.minimum(spread[shift:], factor[:-shift])
            else:
                spread[:shift] = np.minimum(spread[:shift], factor[-shift:])
        scale[kind] *= spread
    return exceeded


def retime(model, positions, limits, times=None, velocities=None,
           accelerations=None, margin=1.0, rate=1000.0, grid_points=None,
           smoothing=SMOOTHING):
    """
    Return a RetimedTrajectory through ``positions`` that keeps ``limits``.

    ``positions`` (k, n) waypoints in model order; ``limits`` a
    ``feasibility.Limits`` (``limits_in_use``); ``margin`` the fraction of
    every limit to use (e.g. 0.9).  With ``times`` (and optional
    ``velocities`` / ``accelerations``) the input timing is checked first
    and kept if it keeps the limits.  Otherwise the time-optimal timing
    along the waypoint path, checked at ``rate`` Hz as
    joint_trajectory_controller plays it.

    Raises InfeasiblePath naming the pose and joint where holding still
    already needs more than the limit (no timing helps), or when no
    parameterization keeps the limits; ValueError for unusable input;
    ImportError without toppra (only when a retiming is needed).
    """
    target = limits.scaled(margin)
    positions = np.atleast_2d(np.asarray(positions, dtype=float))
    if positions.shape[1] != model.nq:
        raise ValueError('positions have %d columns for %d joints'
                         % (positions.shape[1], model.nq))
    if not np.all(np.isfinite(positions)):
        raise ValueError('waypoint positions must be finite')
    if not np.any(np.isfinite(limits.velocity)) and \
            not np.any(np.isfinite(limits.acceleration)):
        raise ValueError('retiming needs velocity or acceleration limits '
                         '(the URDF gives none: set velocity_limits or '
                         'acceleration_limits); with effort limits alone '
                         'a path may be followed infinitely fast')
    input_report = None
    if times is not None:
        trajectory = trajectory_of(times, positions, velocities,
                                   accelerations)
        input_report = report_of(evaluate(model, trajectory, rate), target,
                                 model.joint_names)
        if input_report.feasible:
            efforts = np.atleast_2d(inverse_dynamics(
                model, *waypoint_references(trajectory)))
            return RetimedTrajectory(
                trajectory.times.copy(), positions.copy(),
                None if velocities is None else trajectory.velocities.copy(),
                None if accelerations is None
                else trajectory.accelerations.copy(),
                efforts, False, input_report, input_report)
    refuse_static_overload(model, distinct_waypoints(positions), target,
                           where=None)
    toppra = load_toppra()
    path, ss = waypoint_path(positions)
    dynamics = PathDynamics(model, path, path_grid(ss, grid_points))
    refuse_static_overload(model, dynamics.q, target, where=[
        's = %.4f of %.4f' % (s, ss[-1]) for s in dynamics.grid])
    scale = {kind: np.full(len(dynamics.grid), FIRST_SCALE[kind])
             for kind in KINDS}
    for rounds in range(1, MAX_ROUNDS + 1):
        sd = solve(toppra, path, dynamics, scale, target)
        if sd is None:
            raise InfeasiblePath(
                'no timing of the path keeps the limits (toppra found no '
                'parameterization; limits at %s of their values)' % margin)
        timing = PathTiming(dynamics.grid, sd, 0.0)
        timing = PathTiming(dynamics.grid, sd, min(smoothing, max(
            MIN_WIDTH, WIDTH_SHARE * timing.duration)))
        times, s, q, qd, qdd = point_states(path, timing)
        samples = evaluate(model, trajectory_of(times, q, qd, qdd), rate)
        sample_s = timing.averaged(samples.times)[0]
        if not lower_where_exceeded(scale, dynamics.grid, sample_s, samples,
                                    target):
            break
    report = report_of(samples, target, model.joint_names)
    if not report.feasible:
        raise InfeasiblePath('the retimed trajectory still exceeds the '
                             'limits after %d rounds: %s'
                             % (MAX_ROUNDS, report.text()))
    efforts = np.atleast_2d(inverse_dynamics(model, q, qd, qdd))
    return RetimedTrajectory(times, q, qd, qdd, efforts, True, report,
                             input_report, s, rounds)


TRAJECTORY_MODES = ('annotate', 'retime')


@dataclass
class TrajectoryOutcome:
    """
    What a node does with a trajectory, and its report.

    ``result``: the RetimedTrajectory to publish, None when refused
    (``refusal`` says why: a pose gravity alone overloads, or no timing
    keeps the limits).  ``report``: the check of the input timing
    (annotate) or of the output (retime).  ``summary()``: plain values for
    the feasibility topic.
    """

    mode: str
    result: Optional[RetimedTrajectory]
    report: object
    refusal: Optional[str] = None
    input_duration: float = 0.0

    @property
    def feasible(self):
        """Return True if what is published keeps the limits."""
        return self.result is not None and self.report.feasible

    def summary(self):
        """Return plain values (the YAML of ``trajectory_feasibility``)."""
        values = {'mode': self.mode, 'published': self.result is not None,
                  'retimed': bool(self.result is not None
                                  and self.result.retimed),
                  'input_duration': float(self.input_duration)}
        if self.result is not None:
            values['output_duration'] = self.result.duration
        if self.refusal is not None:
            values['refused'] = self.refusal
        if self.report is not None:
            values.update(self.report.as_dict())
        else:
            values['feasible'] = False
        return values


def annotate_or_retime(model, trajectory, limits, mode='annotate',
                       margin=1.0, rate=1000.0):
    """
    Check a control.trajectory.Trajectory, and retime it in 'retime' mode.

    ``trajectory``: model order, times from its start (as
    ``nodes.shared.conversions.trajectory_arrays`` reads a JointTrajectory), played
    as joint_trajectory_controller plays it (each segment's degree from the
    fields its two points carry).  'annotate': the input timing with the
    efforts at its points (``waypoint_references``) and its report;
    published even when it exceeds a limit (the report says where).
    'retime': the same when it keeps the limits at ``margin``, else the
    time-optimal timing of its waypoints (``retime``); refused (result
    None) when no timing keeps them.
    """
    if mode not in TRAJECTORY_MODES:
        raise ValueError('trajectory mode must be one of %s, got %r'
                         % (', '.join(TRAJECTORY_MODES), mode))
    times = np.asarray(trajectory.times, dtype=float)
    duration = float(times[-1])
    try:
        report = report_of(evaluate(model, trajectory, rate),
                           limits.scaled(margin), model.joint_names)
    except TooManySamples as error:
        return TrajectoryOutcome(mode, None, None, refusal=str(error),
                                 input_duration=duration)
    if mode == 'annotate' or report.feasible:
        efforts = np.atleast_2d(inverse_dynamics(
            model, *waypoint_references(trajectory)))
        result = RetimedTrajectory(
            times.copy(), trajectory.positions.copy(),
            trajectory.velocities.copy(), trajectory.accelerations.copy(),
            efforts, False, report, report)
        return TrajectoryOutcome(mode, result, report,
                                 input_duration=duration)
    try:
        result = retime(model, trajectory.positions, limits, margin=margin,
                        rate=rate)
    except (InfeasiblePath, TooManySamples) as error:
        # TooManySamples: a timing within limits far below the path's
        # needs (hours long) is refused like one that cannot keep them.
        return TrajectoryOutcome(mode, None, None, refusal=str(error),
                                 input_duration=duration)
    result.input_report = report
    return TrajectoryOutcome(mode, result, result.report,
                             input_duration=duration)
