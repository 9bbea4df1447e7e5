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
inverse_dynamics_node's effort limits and the clipping of its outputs.

One ``EffortSaturation`` holds the limits in force for one model and one
set of parameters (``saturate``, ``effort_limit_scale``, ``effort_limits``,
``acceleration_limits``); the node builds it when first needed and forgets
it when the model or a parameter changes.
"""

import math

import numpy as np

from ..shared.parameters import per_joint_values
from ...control.feasibility import limits_in_use
from ...control.saturation import check_limits, effort_limits, saturate
from ...reasons import quote


def worst(values):
    """Return the value of largest magnitude of ``values``."""
    return values[int(np.argmax(np.abs(values)))]


def finite(tau):
    """Return ``tau``; ArithmeticError if a value is NaN or infinite."""
    # One dot product; the exact test only if it overflowed or is NaN.
    if not math.isfinite(tau.dot(tau)) and not np.isfinite(tau).all():
        raise ArithmeticError('torques are not finite (%s)' % quote(tau))
    return tau


def limits_text(name, value, limit):
    """Return the warning for joint ``name`` clipped from ``value``."""
    return 'effort of joint %s saturated: %.6g clipped to the limit +-%.6g ' \
        '(N m, or N for a prismatic joint; see effort_limit_scale, ' \
        'effort_limits, saturate)' % (quote(name), value, limit)


class EffortSaturation:
    """The effort limits of one model and parameter set (see the module)."""

    def __init__(self, model, index, joint_names, parameter, warnings):
        """
        Read the limits of ``model`` with the node's parameters.

        ``index``: model index of each of ``joint_names`` (the joints
        order); ``parameter(name)``: the value of a parameter;
        ``warnings``: the node's ThrottledWarnings.
        """
        self.model, self.index, self.joint_names = model, index, joint_names
        self.parameter, self.warnings = parameter, warnings
        self.unclipped = self.trajectory = None   # computed when needed
        # Joints order and model order; None: no saturation.
        self.limits = self.model_order = None
        if parameter('saturate'):
            self.limits = self.in_use()
            self.model_order = np.empty(model.nq)
            self.model_order[index] = self.limits

    def in_use(self):
        """Return the effort limits in joints order, saturated or not."""
        if self.unclipped is None:
            scale = self.parameter('effort_limit_scale')
            override = self.parameter('effort_limits')
            urdf = self.model.effort_limit[self.index]
            if override is not None and len(override) \
                    and check_limits(override, self.model.nq) is not None:
                self.warnings.warn('effort_limits', (
                    'effort_limits (%d values) do not fit the model (%d '
                    'joints): using the URDF effort limits') % (
                        len(override), self.model.nq))
                override = None
            self.unclipped = effort_limits(urdf, scale, override)
        return self.unclipped

    def saturated(self, efforts):
        """Return ``efforts`` (joints order, (n,) or (k, n)) clipped."""
        if self.limits is None:
            return efforts
        clipped, mask = saturate(efforts, self.limits)
        if np.count_nonzero(mask):
            self.warn(efforts, mask)
        return clipped

    def warn(self, efforts, mask):
        """Warn of the joints ``mask`` clipped from ``efforts``."""
        limits = self.limits
        values = efforts.reshape(-1, efforts.shape[-1])
        # A warning per clipped joint, throttled; formatted only when logged
        # (most clips at 1 kHz are not).
        self.warnings.warn_each(
            'saturated', mask if mask.ndim == 1 else mask.any(axis=0),
            lambda j: limits_text(self.joint_names[j], worst(values[:, j]),
                                  limits[j]))

    def trajectory_limits(self):
        """Return the limits trajectories are checked against (model order)."""
        if self.trajectory is None:
            effort = np.empty(self.model.nq)
            effort[self.index] = self.in_use()
            effort[~(effort > 0.0)] = np.inf   # a URDF's 0: none given
            self.trajectory = limits_in_use(
                self.model, effort, acceleration_limits=per_joint_values(
                    self.parameter('acceleration_limits'), self.model.nq,
                    self.index))
        return self.trajectory
