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

import numpy as np

from .saturation import saturate
from .. import fast
from ..dynamics.rnea import inverse_dynamics
from ..fast.packing import packed
from ..model.robot_model import RobotModel


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


def commanded_acceleration(model, q, qd, q_desired, qd_desired, qdd_desired,
                           kp, kd):
    """Return v = qdd_d + Kp (q_d - q) + Kd (qd_d - qd) (gains per joint)."""
    return (np.asarray(qdd_desired, dtype=float)
            + np.asarray(kp, dtype=float) * position_error(model, q_desired, q)
            + np.asarray(kd, dtype=float) * (np.asarray(qd_desired, dtype=float)
                                             - np.asarray(qd, dtype=float)))


def computed_torque(model, q, qd, q_desired, qd_desired, qdd_desired, kp, kd):
    """Return tau = M(q) (qdd_d + Kp e + Kd de) + h(q, qd), model order."""
    v = commanded_acceleration(model, q, qd, q_desired, qd_desired,
                               qdd_desired, kp, kd)
    return inverse_dynamics(model, q, qd, v)


def saturated_computed_torque(model, q, qd, q_desired, qd_desired,
                              qdd_desired, kp, kd, limits):
    """
    Return (tau, clipped, count): the computed torque and it within limits.

    One state, model order: ``clipped`` is tau clipped to +-``limits``
    (per joint, model order) as ``saturation.saturate`` clips, ``count``
    how many joints were clipped.  For a RobotModel and float64 vectors on
    the compiled path it is one kernel (``fast.computed_torque``: what a
    node answers at 1 kHz); anything else is ``computed_torque`` and
    ``saturate`` (per-joint gains may then be scalars).
    """
    if fast.ENABLED and model.__class__ is RobotModel:
        table, work, n = packed(model)
        tau, clipped = np.empty(n), np.empty(n)
        try:
            count = fast.computed_torque.computed_torque_kernel(
                table, work, q, qd, q_desired, qd_desired, qdd_desired, kp,
                kd, limits, tau, clipped)
        # Unavailable: no compiled path; TypeError: not float64 vectors.
        except (fast.Unavailable, TypeError):
            count = -1
        if count >= 0:
            return tau, clipped, count
    tau = computed_torque(model, q, qd, q_desired, qd_desired, qdd_desired,
                          kp, kd)
    clipped, mask = saturate(tau, np.asarray(limits, dtype=float))
    return tau, clipped, int(np.count_nonzero(mask))
