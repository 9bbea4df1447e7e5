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
One joint state from several ``joint_states`` publishers.

A common setup publishes an arm's joints at 500 Hz and its gripper's at
20 Hz on the same topic, each message naming only its own joints.  A node
that needs every joint keeps the latest value of each with its stamp, as
joint_state_publisher's ``source_list`` users and MoveIt's
CurrentStateMonitor expect, and answers when every joint it needs is
fresh: stamped no more than ``max_state_age`` seconds before the node's
clock (0: no age limit).

Velocities.  A publisher that sends none (many gripper drivers) leaves
its joints' velocities unknown, never zero: with ``velocities=
'estimate'`` (default) they are the backward difference of that joint's
last two positions, (q_k - q_{k-1}) / (t_k - t_{k-1}) (continuous joints
through the shorter way round), known from its second message on, and
only if the two are at most ``max_state_age`` apart; with ``'refuse'``
the state is refused until a publisher sends them.  Efforts are merged
the same way, but never estimated (``effort`` is None until every joint
has one).

``state(now)`` returns the merged MergedState, or raises MergeProblem
whose ``kind`` ('incomplete', 'stale', 'no velocity') keys a throttled
warning and whose text names the joints.  One publisher of every joint
(the usual case) costs three array assignments and a comparison.
"""

from typing import NamedTuple, Optional

import numpy as np

from .clock_jumps import DEFAULT_MAX_STATE_AGE

VELOCITY_POLICIES = ('estimate', 'refuse')
NAMES_SHOWN = 5


class MergedState(NamedTuple):
    """
    The latest fresh value of every joint, in the merger's joint order.

    ``oldest``: the stamp of the joint heard from longest ago, s;
    ``estimated``: a bool mask of the velocities estimated from positions,
    or None when every velocity was measured.
    """

    oldest: float
    position: np.ndarray
    velocity: np.ndarray
    effort: Optional[np.ndarray]
    estimated: Optional[np.ndarray]


class MergeProblem(ValueError):
    """No state to answer with: ``kind`` keys the warning, str() says why."""

    def __init__(self, kind, text):
        super().__init__(text)
        self.kind = kind


def names_of(joint_names, mask, shown=NAMES_SHOWN):
    """Return the names where ``mask`` is set, the first few, each cut."""
    names = [joint_names[j] for j in np.flatnonzero(mask)]
    text = ', '.join(name[:80] for name in names[:shown])
    if len(names) > shown:
        text += ', ... (%d more)' % (len(names) - shown)
    return text


class JointStateMerger:
    """
    The latest position, velocity and effort of each of ``joint_names``.

    ``max_state_age``: s, the oldest joint value answered with (0: any);
    ``velocities``: 'estimate' or 'refuse' (see the module);
    ``continuous``: bool mask of the joints whose positions wrap at pi.
    """

    def __init__(self, joint_names, max_state_age=DEFAULT_MAX_STATE_AGE,
                 velocities='estimate', continuous=None):
        if velocities not in VELOCITY_POLICIES:
            raise ValueError('velocities must be one of %s, got %r' % (
                ', '.join(VELOCITY_POLICIES), velocities))
        self.joint_names = list(joint_names)
        self.n = len(self.joint_names)
        self.max_state_age = float(max_state_age)
        self.velocities = velocities
        self.continuous = None if continuous is None or not np.any(
            continuous) else np.asarray(continuous, dtype=bool)
        self.reset()

    def reset(self):
        """Forget every joint's value."""
        n = self.n
        self.position = np.zeros(n)
        self.velocity = np.zeros(n)
        self.effort = np.zeros(n)
        self.stamps = np.full(n, -np.inf)
        self.has_velocity = np.zeros(n, dtype=bool)
        self.has_effort = np.zeros(n, dtype=bool)
        self.measured = np.zeros(n, dtype=bool)   # velocity from a message
        # Summaries kept up to date, so state() tests scalars.
        self.oldest = -np.inf
        self.complete = self.all_velocities = self.all_efforts = False
        self.all_measured = False
        self.owned = True   # the arrays are ours to write into

    def update(self, stamp, position, velocity=None, effort=None,
               index=None):
        """
        Take one message's values of the joints ``index`` (None: all).

        ``position`` (and ``velocity``, ``effort`` when the message has
        them, else None) are in ``index`` order; ``stamp`` in seconds.
        With ``index`` None the arrays are kept, not copied: pass arrays
        no one writes into afterwards.
        """
        if index is None and velocity is not None:
            # Every joint from one message: take its arrays as they are.
            self.position, self.velocity = position, velocity
            self.stamps.fill(stamp)
            self.oldest = stamp
            if not (self.all_measured and self.all_velocities):
                # Filled once, not on each 1 kHz message of one publisher.
                self.measured.fill(True)
                self.has_velocity.fill(True)
            self.complete = self.all_velocities = self.all_measured = True
            if effort is not None:
                self.effort = effort
                if not self.all_efforts:
                    self.has_effort.fill(True)
                self.all_efforts = True
            else:
                self.has_effort.fill(False)
                self.all_efforts = False
            self.owned = False
            return
        if not self.owned:
            self.position = self.position.copy()
            self.velocity = self.velocity.copy()
            self.effort = self.effort.copy()
            self.owned = True
        if index is None:
            index = slice(None)
        if velocity is None:
            if self.velocities == 'estimate':
                velocity, known = self.estimate(stamp, position, index)
            else:
                velocity, known = 0.0, False
            self.measured[index] = False
        else:
            known = True
            self.measured[index] = True
        self.position[index] = position
        self.velocity[index] = velocity
        self.has_velocity[index] = known
        if effort is not None:
            self.effort[index] = effort
        self.has_effort[index] = effort is not None
        self.stamps[index] = stamp
        self.oldest = float(self.stamps.min())
        self.complete = bool(np.isfinite(self.oldest))
        self.all_velocities = bool(self.has_velocity.all())
        self.all_efforts = bool(self.has_effort.all())
        self.all_measured = bool(self.measured.all())

    def estimate(self, stamp, position, index):
        """
        Return (velocity, known) of joints ``index`` from their positions.

        The backward difference from each joint's previous position; not
        known where there is none, or it is older than max_state_age.
        """
        dt = stamp - self.stamps[index]
        step = np.asarray(position, dtype=float) - self.position[index]
        if self.continuous is not None:
            wrap = self.continuous[index]
            step = np.where(wrap, np.angle(np.exp(1j * step)), step)
        limit = self.max_state_age if self.max_state_age > 0.0 else np.inf
        known = np.isfinite(dt) & (dt > 0.0) & (dt <= limit)
        with np.errstate(divide='ignore', invalid='ignore'):
            velocity = np.where(known, step / np.where(known, dt, 1.0), 0.0)
        return velocity, known

    def state(self, now, velocity=True):
        """
        Return the MergedState at clock ``now`` (s), else MergeProblem.

        Every joint must have been heard from, within max_state_age of
        ``now`` when that is > 0, and have a velocity (measured or, with
        'estimate', estimated) unless ``velocity`` is False (a caller
        that uses positions only; unknown velocities are then zeros).
        """
        if not self.complete:
            raise MergeProblem('incomplete', (
                'JointState is missing joints %s (no publisher has sent '
                'them yet)' % names_of(self.joint_names,
                                       ~np.isfinite(self.stamps))))
        age = self.max_state_age
        if age > 0.0 and now - self.oldest > age:
            stale = now - self.stamps > age
            raise MergeProblem('stale', (
                'JointState is missing joints %s (last heard of %.3g s ago, '
                'more than max_state_age %g s)' % (
                    names_of(self.joint_names, stale),
                    now - self.oldest, age)))
        if velocity and not self.all_velocities:
            missing = ~self.has_velocity
            if self.velocities == 'refuse':
                raise MergeProblem('no velocity', (
                    'joint_states give no velocity for joints %s (and '
                    'velocities are refused, not estimated)' % names_of(
                        self.joint_names, missing)))
            raise MergeProblem('no velocity', (
                'no velocity for joints %s yet: estimated from their next '
                'position' % names_of(self.joint_names, missing)))
        estimated = None if self.all_measured else ~self.measured
        return MergedState(self.oldest, self.position, self.velocity,
                           self.effort if self.all_efforts else None,
                           estimated)
