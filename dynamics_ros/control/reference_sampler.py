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
The reference of a controller that samples a trajectory at state times.

inverse_dynamics_node samples its reference (the last trajectory, else a
hold of the first position) at the stamp of each joint state it answers.
That time stream can misbehave, and a reference that follows it blindly
sends the arm where it should not go: after a 2 s gap in the states the
reference has run ahead and every command is saturated; ``/clock``
jumping +3 h sends it to the trajectory's end; a simulator that restarts
at t = 0 replays the old trajectory.  ``ReferenceSampler`` watches the
stream with a ClockJumpDetector (dynamics_ros.streams.clock_jumps):

- a gap (no state answered for more than ``max_step``, up to
  ``max_forward``): the reference does not run ahead while there are no
  states; it resumes where it paused (the trajectory re-anchored: its
  times shifted by the gap);
- a jump (back by more than ``max_step``, or ahead by more than
  ``max_forward``): ``jump_policy`` decides: ``'hold'`` (default) drops
  the trajectory and holds the current position (zero velocity), as
  joint_trajectory_controller holds when it gives up a trajectory;
  ``'re-anchor'`` keeps the trajectory and resumes it where it was.

``sample`` returns the reference and the Step, so the caller can say
what happened (a throttled warning).  ``max_step`` None turns the watch
off: the reference is sampled at the times as they come.
"""

import numpy as np

from .trajectory import hold, sample
from ..streams.clock_jumps import (ClockJumpDetector, DEFAULT_MAX_STATE_AGE,
                                   GAP, JUMP_BOUND, JUMPS, Step)

JUMP_POLICIES = ('hold', 're-anchor')
UNWATCHED = Step('advance', 0.0)


def check_jump_policy(value):
    """Return a reason unless ``value`` is one of JUMP_POLICIES."""
    if value not in JUMP_POLICIES:
        return 'jump_policy must be one of %s, got %r' % (
            ', '.join(JUMP_POLICIES), value)
    return None


def step_note(step, jump_policy):
    """Return what a GAP or jump Step did to the reference, in words."""
    if step.kind == GAP:
        return 'no joint state answered for %.3g s: the reference paused ' \
            'over the gap and resumes where it was' % step.delta
    what = 'jumped ahead' if step.delta > 0.0 else 'went back'
    done = 'holding the current position (send a new trajectory)' \
        if jump_policy == 'hold' else 'the trajectory resumes where it was'
    return "the joint states' time %s by %.6g s (/clock jumped, or the " \
        'simulator restarted): %s (jump_policy %s)' % (
            what, abs(step.delta), done, jump_policy)


def shift(trajectory, seconds):
    """Move ``trajectory`` ``seconds`` later in time (in place)."""
    trajectory.start_time += seconds
    if trajectory.received_time is not None:
        trajectory.received_time += seconds


class ReferenceSampler:
    """
    The trajectory to follow (or the position held) and its time watch.

    ``max_step``, ``max_forward``: the ClockJumpDetector's bounds, s
    (``max_step`` None: no watch); ``jump_policy``: 'hold' or 're-anchor'.
    """

    def __init__(self, max_step=DEFAULT_MAX_STATE_AGE, jump_policy='hold',
                 max_forward=JUMP_BOUND):
        self.trajectory = None
        self.held = None
        self.scheduled = None
        self.watch(max_step, jump_policy, max_forward)

    def watch(self, max_step, jump_policy, max_forward=JUMP_BOUND):
        """Use new bounds and policy; keep the trajectory or the hold."""
        reason = check_jump_policy(jump_policy)
        if reason:
            raise ValueError(reason)
        self.jump_policy = jump_policy
        self.detector = None if not max_step else ClockJumpDetector(
            max_step, max_forward)

    def clear(self):
        """Forget the trajectory, the hold and the time stream."""
        self.trajectory = None
        self.held = None
        self.scheduled = None
        if self.detector is not None:
            self.detector.reset()

    def follow(self, trajectory):
        """Make ``trajectory`` (control.trajectory.Trajectory) the reference."""
        self.trajectory = trajectory

    def follow_at_start(self, trajectory):
        """
        Make ``trajectory`` the reference from its start time on.

        Until the first state at or after ``trajectory.start_time`` the
        reference in force stays; from that state on the trajectory is
        followed from it (``take_scheduled``).  So when it takes over
        depends on the states' times only, not on when it arrived: what a
        controller in lockstep with a simulator needs to repeat a run to
        the bit.
        """
        self.scheduled = trajectory

    def take_scheduled(self, t, q, qd):
        """Follow the scheduled trajectory if state (t, q, qd) is at its start."""
        trajectory = self.scheduled
        if trajectory is None or t < trajectory.start_time:
            return
        self.scheduled = None
        trajectory.initial = (np.array(q, dtype=float),
                              np.array(qd, dtype=float))
        trajectory.received_time = t
        self.trajectory = trajectory

    def hold_position(self, q):
        """Drop the trajectory; hold positions ``q`` from now on."""
        self.trajectory = None
        self.held = hold(np.asarray(q, dtype=float))

    def sample(self, t, q):
        """
        Return ((q_d, qd_d, qdd_d), Step) at time ``t`` (s) of a state at ``q``.

        The first state sets the hold used until a trajectory arrives.
        """
        if self.held is None:
            self.held = hold(np.asarray(q, dtype=float))
        step = UNWATCHED if self.detector is None else \
            self.detector.update(t)
        if step.kind == GAP or step.kind in JUMPS:
            if step.kind != GAP and self.jump_policy == 'hold':
                self.hold_position(q)
            elif self.trajectory is not None:
                # Resume where it paused: what was due at the last time
                # answered is due now.
                shift(self.trajectory, step.delta)
        if self.trajectory is None:
            return self.held, step
        return sample(self.trajectory, t), step
