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
Computed-torque control: tau = M(q) (qdd_d + Kp e + Kd de) + h(q, qd).

The bracket is a commanded acceleration, so the law is one inverse-dynamics
call with it: RNEA(q, qd, v) = M(q) v + h(q, qd) (Luh, Walker and Paul's
resolved-acceleration use of Newton-Euler; Turney et al. 1980 show the
Newton-Euler and Lagrange forms give the same torques).  O(n), no mass
matrix is formed.
"""

import math

import numpy as np

from .saturation import saturate
from .. import fast
from ..checks import per_joint_reason
from ..dynamics.rnea import inverse_dynamics
from ..fast.packing import packed
from ..model.robot_model import RobotModel

# The largest gains gain_reason accepts: kp in 1/s^2, kd in 1/s.
MAX_GAINS = {'kp': 1e6, 'kd': 1e4}
GAIN_UNITS = {'kp': '1/s^2', 'kd': '1/s'}


def position_error(model, q_desired, q):
    """
    Return q_desired - q, wrapped to [-pi, pi) on continuous joints.

    Either argument may be a batch (N, nq); the joints are the last axis.
    """
    error = np.asarray(q_desired, dtype=float) - np.asarray(q, dtype=float)
    if error.shape[-1:] != (model.nq,):
        raise ValueError('q and q_desired must have %d values per state (one '
                         'per joint of %r), got shape %s' % (
                             model.nq, model.name, error.shape))
    wrap = model.continuous
    # Most arms have no continuous joint: indexing by an all-False mask
    # would still cost a few microseconds per 1 kHz message.
    if wrap.any():
        error[..., wrap] = np.mod(error[..., wrap] + np.pi,
                                  2.0 * np.pi) - np.pi
    return error


def _state_array(value, name, model, shape=None):
    """
    Return ``value`` as a float array of nq values per state, or raise.

    ``shape`` None: (nq,) or a batch (N, nq); else (nq,) or ``shape`` (the
    targets of a batch are one state for all, or one per state).  NaN is
    not refused here: it propagates to the torque, for the caller to see.
    """
    n = model.nq
    if value is None:
        raise ValueError('%s must be %d numbers (one per joint of %r), got '
                         'None' % (name, n, model.name))
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError('%s must be %d numbers (one per joint of %r), got '
                         '%s' % (name, n, model.name, type(value).__name__))
    allowed = {(n,)}
    if shape is None:
        if array.ndim == 2 and array.shape[1] == n:
            allowed.add(array.shape)
    else:
        allowed.add(shape)
    if array.shape not in allowed:
        raise ValueError('%s must have shape (%d,)%s (one value per joint '
                         'of %r), got shape %s' % (
                             name, n, ' or (N, %d)' % n if shape is None
                             else ' or %s' % (shape,), model.name,
                             array.shape))
    return array


def check_law_gains(model, kp, kd):
    """
    Raise ValueError unless ``kp`` and ``kd`` are finite, 1 or nq values.

    The law's own check (NaN gains would make every torque NaN); the
    ranges a node accepts are ``gain_reason``'s.
    """
    for name, gains in (('kp', kp), ('kd', kd)):
        try:
            values = np.asarray(gains, dtype=float)
        except (TypeError, ValueError):
            raise ValueError('%s must be one number or %d (one per joint), '
                             'got %s' % (name, model.nq, type(gains).__name__))
        if values.shape not in ((), (1,), (model.nq,)):
            raise ValueError('%s must be one number or %d (one per joint), '
                             'got shape %s' % (name, model.nq, values.shape))
        if not np.all(np.isfinite(values)):
            raise ValueError('%s must be finite, got %s' % (
                name, np.array2string(values.reshape(-1)[:8], precision=4)))


def gain_reason(name, value, n=None):
    """
    Return why ``value`` is not usable as gains ``kp`` or ``kd``, else None.

    One gain or one per joint, each finite, >= 0 and at most MAX_GAINS[name]
    (1/s^2 for kp, 1/s for kd): larger gains are no controller a sampled
    loop can run (kp = 1e6 is a natural frequency of 1000 rad/s, beyond the
    Nyquist rate of a 1 kHz loop's 3142 rad/s / 2) but a typo.
    """
    largest = MAX_GAINS[name]
    return per_joint_reason(
        value, name, lambda k: (k >= 0.0) & (k <= largest),
        '>= 0 and <= %g (%s)' % (largest, GAIN_UNITS[name]), n,
        unit=' (%s)' % GAIN_UNITS[name])


def commanded_acceleration(model, q, qd, q_desired, qd_desired, qdd_desired,
                           kp, kd):
    """Return v = qdd_d + Kp (q_d - q) + Kd (qd_d - qd) (gains per joint)."""
    return (np.asarray(qdd_desired, dtype=float)
            + np.asarray(kp, dtype=float) * position_error(model, q_desired, q)
            + np.asarray(kd, dtype=float) * (np.asarray(qd_desired, dtype=float)
                                             - np.asarray(qd, dtype=float)))


def computed_torque(model, q, qd, q_desired, qd_desired, qdd_desired, kp, kd):
    """
    Return tau = M(q) (qdd_d + Kp e + Kd de) + h(q, qd), model order.

    ``q``, ``qd``: (nq,) or a batch (N, nq); the targets (nq,) or as ``q``;
    ``kp``, ``kd``: one finite gain or one per joint.  Anything else (None,
    a scalar target, a column (nq, 1), NaN gains) is a ValueError.
    """
    # One state of float64 vectors: the compiled law, without limits.
    compiled = compiled_law(model, q, qd, q_desired, qd_desired, qdd_desired,
                            kp, kd, None)
    if compiled is not None:
        return compiled[0]
    q = _state_array(q, 'q', model)
    qd = _state_array(qd, 'qd', model, q.shape)
    if qd.shape != q.shape:
        raise ValueError('q and qd must have one shape, got %s and %s' % (
            q.shape, qd.shape))
    q_desired, qd_desired, qdd_desired = (
        _state_array(value, name, model, q.shape) for value, name in (
            (q_desired, 'q_desired'), (qd_desired, 'qd_desired'),
            (qdd_desired, 'qdd_desired')))
    check_law_gains(model, kp, kd)
    v = commanded_acceleration(model, q, qd, q_desired, qd_desired,
                               qdd_desired, kp, kd)
    return inverse_dynamics(model, q, qd, v)


# Limits of the compiled law when none apply, by nq (read-only arrays).
_UNLIMITED = {}


def compiled_law(model, q, qd, q_desired, qd_desired, qdd_desired, kp, kd,
                 limits):
    """
    Return the kernel's (tau, clipped, count), or None where it cannot run.

    It runs for a RobotModel on the compiled path with float64 vectors of
    nq values (else the kernel raises TypeError or returns -1, and the
    caller takes the numpy composition, which checks the shapes);
    ``limits`` None: no clipping.  A node answers at 1 kHz with this one
    call, so the arguments are not checked before it: NaN gains, which
    the composition refuses, can only show as a tau that is not finite,
    and the gains are checked then (one dot product per call, not a dozen
    numpy checks).
    """
    if not (fast.ENABLED and isinstance(model, RobotModel)):
        return None
    pack = packed(model)
    if limits is None:
        limits = _UNLIMITED.get(pack.nq)
        if limits is None:
            limits = _UNLIMITED[pack.nq] = np.full(pack.nq, np.inf)
            limits.flags.writeable = False
    tau, clipped = np.empty(pack.nq), np.empty(pack.nq)
    try:
        count = fast.computed_torque.computed_torque_kernel(
            pack.table, pack.work, q, qd, q_desired, qd_desired, qdd_desired,
            kp, kd, limits, tau, clipped)
    # Unavailable: no compiled path; TypeError: not float64 vectors.
    except (fast.Unavailable, TypeError):
        return None
    if count < 0:
        return None
    if not math.isfinite(tau.dot(tau)):
        check_law_gains(model, kp, kd)
    return tau, clipped, count


def saturated_computed_torque(model, q, qd, q_desired, qd_desired,
                              qdd_desired, kp, kd, limits):
    """
    Return (tau, clipped, count): the computed torque and it within limits.

    One state, model order: ``clipped`` is tau clipped to +-``limits``
    (per joint, model order) as ``saturation.saturate`` clips, ``count``
    how many joints were clipped.  For a RobotModel and float64 vectors on
    the compiled path it is one kernel (``compiled_law``: what a node
    answers at 1 kHz); anything else is ``computed_torque`` and
    ``saturate`` (per-joint gains may then be scalars).
    """
    compiled = compiled_law(model, q, qd, q_desired, qd_desired, qdd_desired,
                            kp, kd, limits)
    if compiled is not None:
        return compiled
    tau = computed_torque(model, q, qd, q_desired, qd_desired, qdd_desired,
                          kp, kd)
    clipped, mask = saturate(tau, np.asarray(limits, dtype=float))
    return tau, clipped, int(np.count_nonzero(mask))
