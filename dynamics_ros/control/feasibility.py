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
Can the motors follow a joint trajectory?  Efforts, velocities, accelerations.

A trajectory is checked the way joint_trajectory_controller plays it: sampled
densely (``rate``, 1 kHz by default, plus every waypoint) with the
controller's interpolation between waypoints (``control.trajectory``: linear,
cubic with velocities, quintic with accelerations), not only at the
waypoints.  At every sample the inverse dynamics (``dr.inverse_dynamics``,
one batched call; a MimicModel in its independent coordinates; a payload is
part of the model, ``dr.add_payload``) are compared with the effort limits
in use, and the velocities and accelerations with theirs::

    limits = limits_in_use(model, effort_limits_override=[],
                           effort_scale=1.0,
                           acceleration_limits=[15.0] * 7).scaled(0.9)
    report = check(model, times, positions, velocities, accelerations,
                   limits=limits)
    report.feasible, report.first.text()   # the first violation
    # 'effort of panda_joint2: 95.2 at t = 1.234 s, limit 87 (9.43 % over)'

``limits_in_use`` takes the effort limits as inverse_dynamics_node does
(``control.saturation``: the URDF's ``<limit effort>``, or ``effort_limits``,
times ``effort_limit_scale``), the URDF's velocity limits unless overridden,
and acceleration limits, which a URDF does not carry (none unless given).
A limit of inf leaves that joint and quantity unchecked.
"""

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .saturation import check_limits, effort_limits
from .trajectory import sample_many, segment_coefficients, Trajectory
from ..dynamics.rnea import inverse_dynamics

KINDS = ('effort', 'velocity', 'acceleration')
# Most samples one check evaluates: 5 minutes of trajectory at the 1 kHz of
# joint_trajectory_controller (~70 MB of samples for 7 joints, a few
# seconds of inverse dynamics).  A longer trajectory (2147483647 s would be
# 15.6 TiB) is refused before anything is allocated.
MAX_SAMPLES = 300000
UNITS = {'effort': 'N m or N', 'velocity': 'rad/s or m/s',
         'acceleration': 'rad/s^2 or m/s^2'}


class TooManySamples(ValueError):
    """A trajectory whose check would take more than MAX_SAMPLES samples."""


class InfeasiblePath(ValueError):
    """No timing makes this path feasible (gravity alone exceeds a limit)."""


def per_joint(values, n, name):
    """
    Return ``values`` as (n,) floats: a scalar for all joints or one each.

    Each must be > 0 (inf: no limit); raises ValueError naming ``name``.
    """
    array = np.asarray(values, dtype=float)
    if array.ndim == 0:
        array = np.full(n, float(array))
    reason = check_limits(array, n) if array.size else \
        'effort_limits is empty'
    if reason is not None:
        raise ValueError(reason.replace('effort_limits', name))
    return array


@dataclass
class Limits:
    """
    Per-joint limits in model order, (n,) each; inf means none.

    ``effort`` in N m (N for prismatic joints), ``velocity`` and
    ``acceleration`` in rad/s, rad/s^2 (m/s, m/s^2).
    """

    effort: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray

    def scaled(self, margin):
        """Return these limits times ``margin`` (0 < margin <= 1)."""
        margin = float(margin)
        if not 0.0 < margin <= 1.0:
            raise ValueError('margin must be in (0, 1] (a fraction of the '
                             'limits), got %r' % margin)
        return Limits(self.effort * margin, self.velocity * margin,
                      self.acceleration * margin)

    def of(self, kind):
        """Return the limits of ``kind`` ('effort', 'velocity', ...)."""
        return getattr(self, kind)


def limits_in_use(model, effort_limits_override=None, effort_scale=1.0,
                  velocity_limits=None, acceleration_limits=None):
    """
    Return the Limits a trajectory is checked against, in model order.

    Efforts: ``effort_limits_override`` (one per joint, or None / empty: the
    URDF's) times ``effort_scale``, as inverse_dynamics_node saturates.
    Velocities: ``velocity_limits`` or the URDF's.  Accelerations:
    ``acceleration_limits`` or none.  Scalars apply to every joint.
    """
    n = model.nq
    override = None
    if effort_limits_override is not None and \
            np.size(effort_limits_override):
        override = per_joint(effort_limits_override, n, 'effort_limits')
    effort = effort_limits(model.effort_limit, effort_scale, override)
    velocity = np.asarray(model.velocity_limit, dtype=float)
    if velocity_limits is not None and np.size(velocity_limits):
        velocity = per_joint(velocity_limits, n, 'velocity_limits')
    acceleration = np.full(n, np.inf)
    if acceleration_limits is not None and np.size(acceleration_limits):
        acceleration = per_joint(acceleration_limits, n,
                                 'acceleration_limits')
    # A URDF limit of 0 means "not given" for velocity and effort.
    return Limits(np.where(effort > 0.0, effort, np.inf),
                  np.where(velocity > 0.0, velocity, np.inf), acceleration)


@dataclass
class Violation:
    """One quantity of one joint beyond its limit at one instant."""

    time: float     # seconds from the trajectory's start
    joint: str
    kind: str       # 'effort', 'velocity' or 'acceleration'
    value: float
    limit: float
    position: Optional[np.ndarray] = None   # q at that instant

    @property
    def margin(self):
        """Return ``1 - |value| / limit``, negative by the fraction over."""
        if not np.isfinite(self.value):
            return -np.inf
        return 1.0 - abs(self.value) / self.limit

    def text(self):
        """Return e.g. 'effort of j2: 95.2 at t = 1.234 s, limit 87 (...)'."""
        if not np.isfinite(self.value):
            return (
                '%s of %s: unbounded at t = %.4f s, limit %.6g (a velocity '
                'step: joint_trajectory_controller plays points without '
                'velocities linearly; give them velocities or retime)' % (
                    self.kind, self.joint, self.time, self.limit))
        return '%s of %s: %.6g at t = %.4f s, limit %.6g (%.3g %% over)' % (
            self.kind, self.joint, self.value, self.time, self.limit,
            -100.0 * self.margin)

    def as_dict(self):
        """Return plain values (for YAML or JSON)."""
        return {'time': float(self.time), 'joint': self.joint,
                'kind': self.kind, 'value': float(self.value),
                'limit': float(self.limit), 'margin': float(self.margin)}


@dataclass
class FeasibilityReport:
    """
    The result of ``check``.

    - ``feasible``: nothing beyond its limit at any sample;
    - ``first``: the first Violation in time (None if feasible), ``worst``
      the one furthest over its limit;
    - ``peak``: kind -> (n,) max ``|value| / limit`` per joint over the
      trajectory (1.0 is at the limit; 0 where there is no limit);
    - ``duration`` (s) and ``samples`` checked.
    """

    feasible: bool
    first: Optional[Violation]
    worst: Optional[Violation]
    peak: dict
    joint_names: list
    duration: float
    samples: int
    extra: dict = field(default_factory=dict)

    def text(self):
        """Return one line a user can act on."""
        if self.feasible:
            usage = ', '.join('%s %.1f %%' % (kind, 100.0 * np.max(
                self.peak[kind], initial=0.0)) for kind in KINDS)
            return 'feasible over %.3f s (peak use of the limits: %s)' % (
                self.duration, usage)
        line = 'infeasible: first %s' % self.first.text()
        if self.worst is not None and self.worst is not self.first:
            line += '; worst %s' % self.worst.text()
        return line

    def as_dict(self):
        """Return plain values (for YAML or JSON)."""
        return {
            'summary': self.text(),
            'feasible': bool(self.feasible),
            'duration': float(self.duration),
            'samples': int(self.samples),
            'first_violation': None if self.first is None
            else self.first.as_dict(),
            'worst_violation': None if self.worst is None
            else self.worst.as_dict(),
            'peak_use': {kind: {name: float(value) for name, value in zip(
                self.joint_names, self.peak[kind])} for kind in KINDS},
            **self.extra}


@dataclass
class Samples:
    """A trajectory sampled as the controller plays it, and its efforts."""

    times: np.ndarray          # (N,) seconds from the trajectory's start
    positions: np.ndarray      # (N, n)
    velocities: np.ndarray
    accelerations: np.ndarray
    efforts: np.ndarray

    def of(self, kind):
        """Return the (N, n) values of ``kind``."""
        return {'effort': self.efforts, 'velocity': self.velocities,
                'acceleration': self.accelerations}[kind]


def trajectory_of(times, positions, velocities=None, accelerations=None):
    """
    Return a control.trajectory.Trajectory of arrays (k waypoints, n joints).

    ``times`` (k,) from start, strictly increasing; ``velocities`` and
    ``accelerations`` (k, n) or None (then the controller interpolates
    linearly, resp. cubically).  Raises ValueError for arrays that do not
    fit or are not finite.
    """
    times = np.asarray(times, dtype=float).ravel()
    positions = np.atleast_2d(np.asarray(positions, dtype=float))
    k, n = positions.shape
    if times.shape != (k,):
        raise ValueError('%d times for %d waypoints' % (times.size, k))
    if np.any(np.diff(times) <= 0.0) or not np.all(np.isfinite(times)):
        raise ValueError('times must be finite and strictly increasing')
    arrays = []
    for name, values in (('velocities', velocities),
                         ('accelerations', accelerations)):
        if values is None:
            arrays.append((np.zeros((k, n)), np.zeros(k, dtype=bool)))
            continue
        values = np.asarray(values, dtype=float)
        if values.shape != (k, n):
            raise ValueError('%s have shape %s, positions %s' % (
                name, values.shape, positions.shape))
        arrays.append((values, np.ones(k, dtype=bool)))
    for name, values in (('positions', positions), ('velocities',
                                                    arrays[0][0]),
                         ('accelerations', arrays[1][0])):
        if not np.all(np.isfinite(values)):
            raise ValueError('%s must be finite' % name)
    (qd, has_v), (qdd, has_a) = arrays
    return Trajectory(times=times, positions=positions, velocities=qd,
                      accelerations=qdd, has_velocity=has_v,
                      has_acceleration=has_a & has_v)


def sample_times(trajectory, rate):
    """
    Return the sample times (absolute): every 1/rate s and every waypoint.

    From the first waypoint to the last; the waypoints themselves are
    included, where the controller's acceleration may jump.  Raises
    TooManySamples, naming the bound, when that is more than
    MAX_SAMPLES samples (checked before anything is allocated).
    """
    relative = np.asarray(trajectory.times, dtype=float)
    span = float(relative[-1] - relative[0])
    needed = span * float(rate) + relative.size
    if not needed <= MAX_SAMPLES:   # also NaN
        raise TooManySamples(
            'a trajectory of %.6g s with %d points needs %.3g samples at '
            '%g Hz, over the bound of %d (MAX_SAMPLES: %g s at %g Hz)' % (
                span, relative.size, needed, rate, MAX_SAMPLES,
                MAX_SAMPLES / float(rate), rate))
    times = trajectory.start_time + relative
    dense = np.arange(times[0], times[-1], 1.0 / float(rate))
    return np.unique(np.concatenate([dense, times]))


def velocity_steps(trajectory):
    """
    Return (k, n) the velocity jump at each waypoint as the controller plays.

    Only at waypoints without velocities (joint_trajectory_controller
    interpolates linearly next to them, so the velocity jumps there): the
    velocity leaving a waypoint less the one arriving, rest before the
    first waypoint and after the last.  Zero elsewhere.
    """
    q = trajectory.positions
    k, n = q.shape
    steps = np.zeros((k, n))
    missing = ~np.asarray(trajectory.has_velocity, dtype=bool)
    if not np.any(missing):
        return steps
    arriving, leaving = np.zeros((k, n)), np.zeros((k, n))
    if k > 1:
        c = segment_coefficients(trajectory)
        T = np.diff(np.asarray(trajectory.times, dtype=float))[:, None]
        leaving[:-1] = c[:, 1]
        arriving[1:] = c[:, 1] + T * (2.0 * c[:, 2] + T * (
            3.0 * c[:, 3] + T * (4.0 * c[:, 4] + T * 5.0 * c[:, 5])))
    jump = leaving - arriving
    scale = 1.0 + np.maximum(np.abs(leaving), np.abs(arriving))
    steps[missing] = np.where(np.abs(jump) > 1e-9 * scale, jump,
                              0.0)[missing]
    return steps


def evaluate(model, trajectory, rate=1000.0):
    """
    Return the Samples of ``trajectory`` (model order) at ``rate`` Hz.

    Where the played velocity steps (``velocity_steps``), the sample at
    that waypoint has an unbounded acceleration (+-inf, the step's sign):
    against any limit it is a violation.  Its effort is the one of the
    interpolation's own (finite) acceleration.
    """
    times = sample_times(trajectory, rate)
    q, qd, qdd = sample_many(trajectory, times)
    efforts = np.atleast_2d(inverse_dynamics(model, q, qd, qdd))
    steps = velocity_steps(trajectory)
    if np.any(steps):
        at = np.searchsorted(times, trajectory.start_time + np.asarray(
            trajectory.times, dtype=float))
        rows, joints = np.nonzero(steps)
        qdd = qdd.copy()
        qdd[at[rows], joints] = np.copysign(np.inf, steps[rows, joints])
    return Samples(times - trajectory.start_time, q, qd, qdd, efforts)


def usage(samples, limits, kind):
    """Return ``|value| / limit``, (N, n), of ``kind`` (0: no limit)."""
    limit = limits.of(kind)
    with np.errstate(divide='ignore', invalid='ignore'):
        ratio = np.abs(samples.of(kind)) / limit
    return np.where(np.isfinite(limit), ratio, 0.0)


def report_of(samples, limits, joint_names, tolerance=0.0):
    """
    Return the FeasibilityReport of ``samples`` against ``limits``.

    A sample is over its limit when ``|value| > limit * (1 + tolerance)``.  A
    non-finite value counts as over (NaN efforts are never feasible), but
    for a quantity without a limit an infinite one (a velocity step's
    acceleration) does not.
    """
    peak, first, worst = {}, None, None
    for kind in KINDS:
        ratio = usage(samples, limits, kind)
        values = samples.of(kind)
        # A velocity step's unbounded acceleration (``evaluate``) is over
        # a finite acceleration limit only; NaN is never feasible.
        unchecked = np.isinf(values) & ~np.isfinite(limits.of(kind))
        ratio = np.where(np.isfinite(values) | unchecked, ratio, np.inf)
        peak[kind] = ratio.max(axis=0, initial=0.0)
        over = ratio > 1.0 + tolerance
        if not np.any(over):
            continue
        rows = np.flatnonzero(over.any(axis=1))
        i = rows[0]
        j = int(np.flatnonzero(over[i])[0])
        if first is None or samples.times[i] < first.time:
            first = violation(samples, limits, joint_names, kind, i, j)
        i, j = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
        candidate = violation(samples, limits, joint_names, kind, i, j)
        if worst is None or candidate.margin < worst.margin:
            worst = candidate
    duration = float(samples.times[-1] - samples.times[0]) \
        if len(samples.times) else 0.0
    return FeasibilityReport(first is None, first, worst, peak,
                             list(joint_names), duration, len(samples.times))


def violation(samples, limits, joint_names, kind, i, j):
    """Return the Violation of ``kind`` at sample i, joint j."""
    return Violation(float(samples.times[i]), joint_names[j], kind,
                     float(samples.of(kind)[i, j]),
                     float(limits.of(kind)[j]),
                     samples.positions[i].copy())


def check_trajectory(model, trajectory, limits, rate=1000.0):
    """Return the FeasibilityReport of a Trajectory (model order)."""
    return report_of(evaluate(model, trajectory, rate), limits,
                     model.joint_names)


def check(model, times, positions, velocities=None, accelerations=None,
          limits=None, rate=1000.0):
    """
    Return the FeasibilityReport of a trajectory given as arrays.

    ``times`` (k,) seconds from start, ``positions`` (k, n) in model order,
    ``velocities`` / ``accelerations`` (k, n) or None: sampled as
    joint_trajectory_controller interpolates them.  ``limits``: a Limits
    (default ``limits_in_use(model)``: URDF efforts and velocities).
    """
    if limits is None:
        limits = limits_in_use(model)
    return check_trajectory(model, trajectory_of(
        times, positions, velocities, accelerations), limits, rate)


def refuse_static_overload(model, positions, limits, where=None):
    """
    Raise InfeasiblePath where holding still needs more than the limits.

    ``positions`` (N, n) are poses along a path; at rest the effort is
    ID(q, 0, 0) (gravity, on a MimicModel through its coupling, with the
    payload of the model), and no timing can go below it.  ``where`` (N,)
    names each pose in the message (e.g. the path parameter).  The message
    names the first such pose, the joint and both values.
    """
    positions = np.atleast_2d(positions)
    zero = np.zeros_like(positions)
    static = np.atleast_2d(inverse_dynamics(model, positions, zero, zero))
    with np.errstate(invalid='ignore'):
        over = np.abs(static) > limits.effort
    if not np.any(over):
        return static
    i = int(np.flatnonzero(over.any(axis=1))[0])
    j = int(np.flatnonzero(over[i])[0])
    label = '' if where is None else ' (%s)' % where[i]
    raise InfeasiblePath(
        'infeasible path: at pose %d%s, q = [%s], holding still needs %.6g '
        'at joint %s, more than its effort limit %.6g; no timing can follow '
        'this path (lower the payload, raise effort_limits or change the '
        'path)' % (i, label, ', '.join('%.4f' % x for x in positions[i]),
                   static[i, j], model.joint_names[j], limits.effort[j]))
