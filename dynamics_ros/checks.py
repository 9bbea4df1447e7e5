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
Why a setting cannot be used: the reason a node gives when it refuses one.

A ``check_*`` function of the control and estimation modules returns None
for a usable value, else a sentence naming the setting, what it must be
and the value given.  The two shapes they share are here: one number in a
range (``number_reason``), and one number for every joint or one per joint
(``per_joint_reason``).
"""

import numpy as np


def number_reason(value, name, usable, requirement, kind='a number'):
    """
    Return why ``value`` is not a usable number, else None.

    ``usable(x)`` says whether the float ``x`` is; ``requirement`` says in
    words what it must be ('finite and > 0'), ``kind`` what it is.
    """
    try:
        number = float(value)
    except (TypeError, ValueError):
        return '%s must be %s' % (name, kind)
    if not usable(number):
        return '%s must be %s, got %r' % (name, requirement, number)
    return None


def per_joint_reason(value, name, usable, requirement, n=None,
                     unit='', kind='numbers'):
    """
    Return why ``value`` is not one or ``n`` usable numbers, else None.

    ``usable(values)`` tests an array element by element; ``requirement``
    says in words what each must be; ``unit`` (e.g. ' (1/s)') follows the
    word number.  ``n`` None: any count (the model is not known yet).
    """
    try:
        values = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        return '%s must be %s%s, one or one per joint' % (name, kind, unit)
    if values.size == 0:
        return '%s must be one number%s, or one per joint' % (name, unit)
    bad = np.flatnonzero(~usable(values))
    if bad.size:
        return '%s must be %s, value %d is %r' % (
            name, requirement, int(bad[0]), float(values[bad[0]]))
    if n is not None and values.size not in (1, n):
        return '%s has %d values: give 1 or one per joint (%d)' % (
            name, values.size, n)
    return None
