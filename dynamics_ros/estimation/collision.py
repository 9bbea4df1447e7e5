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
Collision decision from external joint torques: thresholds, hysteresis.

As in Haddadin, De Luca and Albu-Schaeffer (2017, collision detection):
a collision is declared when the size of any joint's residual exceeds its
threshold, |r_i| > threshold_i.  It ends when every joint is back below
``(1 - hysteresis) * threshold_i``, so a residual hovering at a threshold
(noise, a slowly varying model error) does not toggle the decision.
"""

import numpy as np

from ..checks import number_reason, per_joint_reason

DEFAULT_THRESHOLD = 5.0  # N m (or N), every joint
DEFAULT_HYSTERESIS = 0.2


def check_thresholds(value, n=None):
    """Return a reason unless ``value`` is 1 or ``n`` thresholds > 0."""
    return per_joint_reason(
        value, 'thresholds', lambda t: (t > 0.0) & np.isfinite(t),
        'finite and > 0', n, unit=' (N m or N)')


def check_hysteresis(value):
    """Return a reason unless 0 <= ``value`` < 1, else None."""
    return number_reason(
        value, 'hysteresis', lambda h: 0.0 <= h < 1.0,
        'in [0, 1) (the share of a threshold a residual must fall below '
        'it to end a collision)', kind='a number in [0, 1)')


class CollisionDetector:
    """
    Contact or not, from external joint torques, with hysteresis.

    ``thresholds``: one value or one per joint (model order), N m or N.
    ``update(torques)`` returns the decision; ``changed`` says whether that
    update changed it, ``joints`` which joints are above their threshold.
    """

    def __init__(self, thresholds=DEFAULT_THRESHOLD,
                 hysteresis=DEFAULT_HYSTERESIS, n=None):
        for reason in (check_thresholds(thresholds, n),
                       check_hysteresis(hysteresis)):
            if reason:
                raise ValueError(reason)
        self.thresholds = np.asarray(thresholds, dtype=float).reshape(-1)
        if n is not None:
            self.thresholds = np.broadcast_to(self.thresholds, (n,)).copy()
        self.hysteresis = float(hysteresis)
        self.reset()

    def reset(self):
        """Return to 'no collision'."""
        self.collision = False
        self.changed = False
        self.joints = np.zeros(self.thresholds.shape, dtype=bool)

    def update(self, torques):
        """Decide on ``torques`` (finite, model order); return the decision."""
        size = np.abs(np.asarray(torques, dtype=float))
        self.joints = size > self.thresholds
        if self.collision:
            ended = np.all(size <= (1.0 - self.hysteresis) * self.thresholds)
            self.changed = bool(ended)
        else:
            self.changed = bool(np.any(self.joints))
        if self.changed:
            self.collision = not self.collision
        return self.collision
