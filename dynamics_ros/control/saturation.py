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
Effort saturation: clip joint torque commands to per-joint limits.

The limits in use are the URDF's ``<limit effort>`` (``model.effort_limit``,
inf where the URDF gives none), or per-joint ``override`` values, times
``scale``::

    limits = effort_limits(model.effort_limit, scale, override)
    tau, clipped = saturate(tau, limits)   # clipped: bool mask

A limit of inf leaves that joint unbounded.  ``check_scale`` and
``check_limits`` return a reason for a value that cannot be used (the
node refuses such a parameter set), else None.
"""

import numpy as np

from ..checks import number_reason

# A scale above this is not a safety margin but a way around the limits.
MAX_SCALE = 1e3


def check_scale(scale):
    """Return a reason unless 0 < ``scale`` <= MAX_SCALE, else None."""
    return number_reason(
        scale, 'effort_limit_scale', lambda value: 0.0 < value <= MAX_SCALE,
        'finite, > 0 and <= %g' % MAX_SCALE)


def check_limits(values, n=None):
    """
    Return a reason if ``values`` are not per-joint effort limits, else None.

    An empty sequence (use the URDF's) is valid.  Otherwise each value must
    be > 0 (inf: no limit for that joint, NaN refused) and, when ``n`` is
    given, there must be ``n`` of them.
    """
    try:
        limits = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return 'effort_limits must be numbers (N m or N), one per joint'
    if limits.size == 0:
        return None
    if limits.ndim != 1:
        return 'effort_limits must be a list of numbers, one per joint'
    bad = np.flatnonzero(~(limits > 0.0))  # NaN compares False
    if bad.size:
        return 'effort_limits must be > 0 (.inf: no limit), value %d is %r' \
            % (int(bad[0]), float(limits[bad[0]]))
    if n is not None and limits.size != n:
        return 'effort_limits has %d values for %d joints (give one per ' \
            'joint in joints order, or [] for the URDF limits)' % (
                limits.size, n)
    return None


def effort_limits(urdf_limits, scale=1.0, override=None):
    """
    Return the per-joint limits in use: ``override`` or the URDF's, * scale.

    ``override`` None or empty means the URDF limits; else it is already in
    the order of ``urdf_limits`` and of the same size.
    """
    limits = np.asarray(urdf_limits, dtype=float)
    if override is not None and len(override):
        limits = np.asarray(override, dtype=float)
    return limits * float(scale)


def saturate(tau, limits):
    """
    Return (tau clipped to [-limits, limits], mask of the clipped joints).

    A NaN in ``tau`` stays NaN (never published: the node checks).
    """
    tau = np.asarray(tau, dtype=float)
    clipped = np.clip(tau, -limits, limits)
    return clipped, np.abs(tau) > limits
