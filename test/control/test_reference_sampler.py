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
The reference a sampler gives when its time stream gaps or jumps.

A trajectory from 0 to 1 rad over 1 s (linear): a gap in the states
pauses it (it resumes where it was), a jump holds the current position
(jump_policy 'hold') or resumes it too ('re-anchor'); no watch samples
at the times as they come.
"""

from dynamics_ros.control.reference_sampler import (check_jump_policy,
                                                    ReferenceSampler,
                                                    step_note)
from dynamics_ros.control.trajectory import Trajectory
import numpy as np
import pytest


def ramp(start=100.0):
    """Return a linear trajectory 0 -> 1 rad of one joint over 1 s."""
    return Trajectory(times=np.array([0.0, 1.0]),
                      positions=np.array([[0.0], [1.0]]),
                      velocities=np.zeros((2, 1)),
                      accelerations=np.zeros((2, 1)),
                      has_velocity=np.array([False, False]),
                      has_acceleration=np.array([False, False]),
                      start_time=start)


# States every 50 ms, within max_step (0.1 s) of each other.
STEPS = [100.0, 100.05, 100.1, 100.15, 100.2]


def follow(sampler, times, q=0.3):
    """Return the positions sampled at ``times`` with state ``q``."""
    return [sampler.sample(t, np.array([q]))[0][0][0] for t in times]


def test_the_first_state_is_held_until_a_trajectory():
    sampler = ReferenceSampler()
    reference, step = sampler.sample(5.0, np.array([0.7]))
    assert reference[0][0] == 0.7 and step.kind == 'first'
    assert sampler.sample(5.001, np.array([0.9]))[0][0][0] == 0.7


def test_a_gap_pauses_the_reference_it_does_not_run_ahead():
    sampler = ReferenceSampler(max_step=0.1)
    sampler.follow(ramp())
    assert follow(sampler, STEPS) == pytest.approx(
        [0.0, 0.05, 0.1, 0.15, 0.2], abs=1e-12)
    # No state for 0.5 s: the reference resumes at 0.2, not 0.7.
    reference, step = sampler.sample(100.7, np.array([0.2]))
    assert step.kind == 'gap' and reference[0][0] == pytest.approx(0.2)
    assert follow(sampler, [100.8]) == pytest.approx([0.3])


@pytest.mark.parametrize('jump', [3 * 3600.0, -50.0])
def test_a_jump_holds_the_current_position_by_default(jump):
    sampler = ReferenceSampler(max_step=0.1)
    sampler.follow(ramp())
    follow(sampler, STEPS)
    reference, step = sampler.sample(100.2 + jump, np.array([0.25]))
    assert step.kind == ('forward' if jump > 0 else 'back')
    q, qd, qdd = reference
    assert q[0] == 0.25 and qd[0] == 0.0 and qdd[0] == 0.0
    assert sampler.trajectory is None
    # Held on: the old trajectory is not replayed on the new time base.
    assert follow(sampler, [100.3 + jump, 100.5 + jump]) == [0.25, 0.25]


@pytest.mark.parametrize('jump', [3 * 3600.0, -50.0])
def test_re_anchor_resumes_the_trajectory_where_it_was(jump):
    sampler = ReferenceSampler(max_step=0.1, jump_policy='re-anchor')
    sampler.follow(ramp())
    follow(sampler, STEPS)
    assert follow(sampler, [100.2 + jump, 100.3 + jump]) == pytest.approx(
        [0.2, 0.3], abs=1e-9)


def test_without_a_watch_the_times_are_sampled_as_they_come():
    sampler = ReferenceSampler(max_step=None)
    sampler.follow(ramp())
    assert follow(sampler, [100.5, 100.2, 105.0, 100.9]) == pytest.approx(
        [0.5, 0.2, 1.0, 0.9])


def test_clear_forgets_the_trajectory_the_hold_and_the_stream():
    sampler = ReferenceSampler()
    sampler.follow(ramp())
    follow(sampler, [100.0])
    sampler.clear()
    reference, step = sampler.sample(0.0, np.array([0.4]))
    assert step.kind == 'first' and reference[0][0] == 0.4


def test_jump_policy_is_hold_or_re_anchor():
    assert check_jump_policy('hold') is None
    assert check_jump_policy('re-anchor') is None
    assert 'jump_policy must be one of' in check_jump_policy('replay')
    with pytest.raises(ValueError):
        ReferenceSampler(jump_policy='replay')


def test_what_a_gap_or_a_jump_did_is_said():
    sampler = ReferenceSampler(max_step=0.1)
    sampler.follow(ramp())
    follow(sampler, STEPS)
    _, gap = sampler.sample(100.7, np.array([0.2]))
    assert 'paused over the gap' in step_note(gap, 'hold')
    _, back = sampler.sample(50.0, np.array([0.2]))
    note = step_note(back, 'hold')
    assert 'went back by 50.7 s' in note and 'holding the current' in note
    sampler.watch(0.1, 're-anchor')
    assert sampler.jump_policy == 're-anchor' and sampler.held is not None
    assert sampler.sample(50.01, np.array([0.2]))[1].kind == 'first'


def test_a_trajectory_scheduled_at_its_start_takes_over_there():
    """Lockstep: when it takes over depends on the states' times only."""
    early, late = ReferenceSampler(), ReferenceSampler()
    for sampler in (early, late):
        sampler.sample(99.9, np.array([0.3]))   # holds 0.3
    early.follow_at_start(ramp())               # arrives well before
    for t in (99.95, 99.99):
        early.take_scheduled(t, [0.3], [0.0])
        assert early.sample(t, np.array([0.3]))[0][0][0] == 0.3
    late.sample(99.99, np.array([0.3]))
    late.follow_at_start(ramp())                # arrives just before
    for sampler in (early, late):
        sampler.take_scheduled(100.0, [0.25], [0.1])
    # Both follow it from the state at its start, 100 s.
    for t in STEPS[1:]:
        first = early.sample(t, np.array([0.3]))[0]
        second = late.sample(t, np.array([0.3]))[0]
        assert all(np.array_equal(a, b) for a, b in zip(first, second))
    assert early.trajectory.received_time == 100.0
    assert early.trajectory.initial[0][0] == 0.25
    assert early.sample(100.25, np.array([0.3]))[0][0][0] == \
        pytest.approx(0.25)
