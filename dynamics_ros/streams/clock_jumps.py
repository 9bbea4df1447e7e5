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
Freshness of a stamp on the node's clock, and jumps of a time stream.

Two questions every node that acts on ``joint_states`` must ask, because
the clock it runs on can be a wall clock, a simulator's ``/clock`` that
restarts at zero, or a bag's:

- ``stamp_problem(stamp, now, max_age)``: a state whose stamp is more
  than ``max_age`` seconds older than the node's clock is stale (a driver
  that stalled, a replay); one more than ``max_age`` ahead of it comes
  from another time base (wall-clock stamps on a ``use_sim_time`` node, a
  2^31 s stamp).  Either is dropped, never acted on.  MoveIt's
  CurrentStateMonitor judges joint states the same way (stamp against
  the node's clock).  ``max_age`` 0 turns the check off.
- ``ClockJumpDetector``: fed the times a node acts at (the stamps of the
  states it answers, one after the other), it classifies each step:
  ``advance`` (at most ``max_step``: the normal stream, a little
  reordering between two publishers included), ``gap`` (no state for up
  to ``max_forward``: what depends on time pauses over it), ``forward``
  (a leap beyond ``max_forward``: ``/clock`` jumped) and ``back``
  (earlier by more than ``max_step``: ``/clock`` went back, the simulator
  restarted).  ``JUMPS`` are the two a caller resets for: the reference
  holds or re-anchors, an observer restarts its integral.
"""

import math
from typing import NamedTuple

# Default oldest joint state acted on, s (max_state_age): a 10 Hz driver's
# states are still fresh, a stalled one's are not within 0.1 s.
DEFAULT_MAX_STATE_AGE = 0.1
# Largest max_state_age accepted, s: older states are not a current state.
MAX_STATE_AGE = 60.0
# A time stream that leaps ahead by more than this, s, jumped (rather than
# paused for a gap).
JUMP_BOUND = 1.0

ADVANCE, GAP, FORWARD, BACK, FIRST = 'advance', 'gap', 'forward', 'back', \
    'first'
JUMPS = (FORWARD, BACK)


def check_max_state_age(value):
    """Return a reason unless ``value`` is 0 (off) or a time in (0, 60] s."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or not 0.0 <= value <= MAX_STATE_AGE:
        return 'max_state_age must be a number of s from 0 (no check) to ' \
            '%g, got %r' % (MAX_STATE_AGE, value)
    return None


class StampProblem(NamedTuple):
    """Why a stamp is not acted on: ``kind`` ('stale', 'ahead') and words."""

    kind: str
    text: str


def stamp_problem(stamp, now, max_age):
    """
    Return a StampProblem if ``stamp`` is not fresh on clock ``now``.

    Both in seconds; ``max_age`` 0 (or less) accepts every stamp.  None
    for a fresh stamp.
    """
    age = now - stamp
    if max_age <= 0.0 or -max_age <= age <= max_age:
        return None
    if age > 0.0:
        return StampProblem('stale', (
            'stamp %.9g s is %.3g s older than the node clock (%.9g s; '
            'max_state_age %g s): a stalled driver, or clocks that differ '
            '(use_sim_time?)' % (stamp, age, now, max_age)))
    return StampProblem('ahead', (
        'stamp %.9g s is %.3g s ahead of the node clock (%.9g s; '
        'max_state_age %g s): another time base (use_sim_time? a '
        'simulator that restarted?)' % (stamp, -age, now, max_age)))


class Step(NamedTuple):
    """One step of a time stream: ``kind`` (ADVANCE, GAP, ...), ``delta`` s."""

    kind: str
    delta: float


class ClockJumpDetector:
    """
    Classify each new time of a stream against the latest one.

    ``max_step``: the longest normal step (and the reordering tolerated
    backwards), s; ``max_forward``: the longest gap, s, beyond which a
    step forward is a jump.  ``latest`` is the latest time seen (None
    before the first or after ``reset``).
    """

    def __init__(self, max_step=DEFAULT_MAX_STATE_AGE,
                 max_forward=JUMP_BOUND):
        if not max_step > 0.0:
            raise ValueError('max_step must be > 0 s, got %r' % (max_step,))
        self.max_step = float(max_step)
        self.max_forward = max(float(max_forward), self.max_step)
        self.reset()

    def reset(self):
        """Forget the stream: the next time is the first."""
        self.latest = None

    def update(self, t):
        """Return the Step from the latest time to ``t`` (seconds)."""
        latest = self.latest
        if latest is None:
            self.latest = t
            return Step(FIRST, 0.0)
        delta = t - latest
        if delta < -self.max_step:
            kind = BACK
        elif delta <= self.max_step:
            # Reordered by a little (two publishers): keep the latest.
            if delta > 0.0:
                self.latest = t
            return Step(ADVANCE, delta)
        elif delta <= self.max_forward:
            kind = GAP
        else:
            kind = FORWARD
        self.latest = t
        return Step(kind, delta)
