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
A short excitation for the payload: a few seconds, mostly wrist motion.

One period of a finite Fourier series per joint (Swevers et al. 1997 eq.
27, ``identification.excitation.FourierTrajectory``) that starts and ends
at the current pose at rest (zero velocity and acceleration at t = 0 and
t = period).  The wrist - the last three joints - turns the payload
through large angles, which is what makes its inertia and its centre of
mass visible; the other joints move a little (``arm_amplitude``).  Every
joint stays within its position limits less a margin, its velocity limit
(a fraction) and an acceleration limit.  Among a few random series the
one with the lowest condition number of the payload's regressor (the tip
body's ten columns, ``estimation.payload.tip_regressor``) is kept.

``excitation_data`` gives what ``python -m dynamics_ros excite`` writes
(a TrajectoryPlan's lists, the condition number, the series), so the
file is sent the same way.
"""

import numpy as np

from .payload import tip_regressor
from ..identification.excitation import (FourierTrajectory, limits,
                                         rest_coefficients, trajectory_plan)

DEFAULT_DURATION = 6.0        # s
# Six harmonics reach a slow wrist's acceleration limit as well as its
# velocity limit (four left a 0.84 rad/s wrist at a fifth of 4 rad/s^2);
# a longer period at the same harmonics only slows the motion down.
DEFAULT_HARMONICS = 6
# Periods played back to back: the noise averages, what is excited stays.
DEFAULT_PERIODS = 2
WRIST_JOINTS = 3
WRIST_AMPLITUDE = 1.2         # rad, largest excursion of a wrist joint
ARM_AMPLITUDE = 0.15          # rad (or m), of the other joints
DEFAULT_CANDIDATES = 12


def scaled_condition(W):
    """Return the condition number of W with unit-norm columns."""
    norms = np.linalg.norm(W, axis=0)
    values = np.linalg.svd(W / np.where(norms > 0.0, norms, 1.0),
                           compute_uv=False)
    return float(values[0] / max(values[-1], 1e-300))


def fitted(a, b, start, duration, amplitude, bounds, grid=300):
    """
    Return the trajectory of coefficients (a, b) scaled into the limits.

    One factor per joint meets its excursion (``amplitude`` and the room
    between ``start`` and its position limits), velocity and acceleration
    limits on a grid of the period; the offset makes q(0) = ``start``.
    """
    lower, upper, velocity, acceleration = bounds
    shape = FourierTrajectory(a, b, np.zeros(len(start)), duration)
    t = np.linspace(0.0, duration, grid, endpoint=False)
    q, qd, qdd = shape.evaluate(t)
    q = q - q[0]          # the excursion from the start
    with np.errstate(divide='ignore'):
        room_up = np.minimum(upper - start, amplitude) / np.maximum(
            q.max(axis=0), 1e-12)
        room_down = np.minimum(start - lower, amplitude) / np.maximum(
            -q.min(axis=0), 1e-12)
    factor = np.min(np.vstack((
        room_up, room_down,
        velocity / np.maximum(np.abs(qd).max(axis=0), 1e-12),
        acceleration / np.maximum(np.abs(qdd).max(axis=0), 1e-12))), axis=0)
    # Grid points can miss a peak between them: 2 % in reserve.
    factor = 0.98 * np.maximum(factor, 0.0)
    a, b = a * factor[:, None], b * factor[:, None]
    offset = FourierTrajectory(a, b, np.zeros(len(start)), duration).evaluate(
        [0.0])[0][0]
    return FourierTrajectory(a, b, start - offset, duration)


def payload_excitation(model, start, duration=DEFAULT_DURATION,
                       harmonics=DEFAULT_HARMONICS, link=None, bounds=None,
                       wrist_amplitude=WRIST_AMPLITUDE,
                       arm_amplitude=ARM_AMPLITUDE,
                       candidates=DEFAULT_CANDIDATES, seed=0,
                       return_condition=False):
    """
    Return a FourierTrajectory of one ``duration`` period from ``start``.

    ``bounds`` as ``identification.excitation.limits(model)`` returns them
    (position limits less a margin, velocity and acceleration limits).
    A start outside the position range is refused (ValueError).  With
    ``return_condition``: (trajectory, scaled condition number of the
    payload regressor over the period).
    """
    start = np.asarray(start, dtype=float)
    if start.shape != (model.nq,) or not np.all(np.isfinite(start)):
        raise ValueError('start must be %d finite joint positions, got %r'
                         % (model.nq, start.tolist()))
    if harmonics < 2:
        raise ValueError('a payload excitation needs at least 2 harmonics')
    if not duration > 0.0:
        raise ValueError('duration must be positive, got %r' % (duration,))
    bounds = limits(model) if bounds is None else bounds
    lower, upper = bounds[0], bounds[1]
    outside = [model.joint_names[i] for i in np.flatnonzero(
        (start < lower) | (start > upper))]
    if outside:
        raise ValueError('the start pose is outside the position range '
                         '(limits less the margin) of joints %s'
                         % ', '.join(outside))
    amplitude = np.full(model.nq, float(arm_amplitude))
    amplitude[-min(WRIST_JOINTS, model.nq):] = wrist_amplitude
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, duration, 80, endpoint=False)
    best = None
    for _ in range(candidates):
        free = rng.normal(size=(2, model.nq, harmonics - 1))
        a, b = rest_coefficients(free[0], free[1])
        trajectory = fitted(a, b, start, duration, amplitude, bounds)
        W = tip_regressor(model, *trajectory.evaluate(t), link).reshape(
            -1, 10)
        condition = scaled_condition(W)
        if best is None or condition < best[1]:
            best = (trajectory, condition)
    return best if return_condition else best[0]


def excitation_data(model, trajectory, condition, rate=100.0, settle=2.0,
                    periods=DEFAULT_PERIODS):
    """
    Return (plan, dict ``excite`` writes as YAML) of ``periods`` periods.

    A TrajectoryPlan (joint names, times from ``settle``, positions,
    velocities, accelerations) with ``condition_number`` and ``fourier``.
    """
    plan = trajectory_plan(model, trajectory, periods=periods, rate=rate,
                           settle=settle)
    data = plan.to_dict()
    data['condition_number'] = float(condition)
    data['fourier'] = {'period': trajectory.period,
                       'q0': trajectory.q0.tolist(),
                       'a': trajectory.a.tolist(), 'b': trajectory.b.tolist()}
    return plan, data
