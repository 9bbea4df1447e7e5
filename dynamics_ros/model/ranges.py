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
The numbers a robot model may hold, per quantity, and their check.

Used where numbers enter a model: the URDF reader, payloads.  Beyond these
a number is a typo or a placeholder (1e308, 1e30 "infinite" damping) that
overflows later in the dynamics, so it is refused where it is read, with
the element and the value.
"""

import numpy as np

from ..errors import ModelError

# Largest size of each quantity (SI units).
LIMITS = {
    'mass': 1e6,                 # kg: a large excavator arm is 1e4
    'inertia': 1e6,              # kg m^2
    'length': 1e3,               # m: origins and centres of mass
    'damping': 1e6,              # N m s/rad (N s/m)
    'friction': 1e6,             # N m (N)
    # Joint limits of this size or more mean "no limit" (SDF's 1e16).
    'no limit': 1e15,
    'effort limit': np.inf,      # N m or N, but not negative or NaN
    'velocity limit': np.inf,    # rad/s or m/s, likewise
    'mimic multiplier': 1e3,
    'mimic offset': 1e6,         # rad or m
    'gravity': 1e3,              # m/s^2 (100 g)
}


def within(value, quantity, what, lowest=None):
    """Refuse a number outside ``LIMITS[quantity]`` (and below ``lowest``)."""
    bound = LIMITS[quantity]
    shown = ', '.join('%g' % v for v in np.ravel(value))
    if np.any(np.isnan(value)) or np.any(np.abs(value) > bound):
        raise ModelError('%s: %s %s is outside the range a robot model '
                         'may give (%s)' % (
                             what, quantity, shown, 'a number' if bound ==
                             np.inf else 'finite, at most %g in size' % bound))
    if lowest is not None and np.any(np.asarray(value) < lowest):
        raise ModelError('%s: %s %s is negative' % (what, quantity, shown))
