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
Time-stamped input streams (dynamics_ros.streams), ROS-free.

Freshness of a stamp against the node's clock, the steps of a time
stream (gap, jump forward, jump back), several joint_states publishers
merged into one state with estimated velocities, the command timeout,
and warnings throttled by kind with their repeats counted.
"""

from dynamics_ros.streams.clock_jumps import (BACK, check_max_state_age,
                                              ClockJumpDetector, FIRST,
                                              FORWARD, GAP, stamp_problem)
from dynamics_ros.streams.command_timeout import (check_command_timeout,
                                                  CommandTimeout)
from dynamics_ros.streams.joint_state_merger import (JointStateMerger,
                                                     MergeProblem)
from dynamics_ros.streams.log_throttle import kind_of, KindThrottle
import numpy as np
import pytest

ARM = ['j1', 'j2', 'j3']
JOINTS = ARM + ['finger']


def test_a_stamp_is_fresh_within_max_state_age_of_the_clock():
    assert stamp_problem(99.95, 100.0, 0.1) is None
    assert stamp_problem(100.05, 100.0, 0.1) is None   # a little ahead
    stale = stamp_problem(98.0, 100.0, 0.1)
    assert stale.kind == 'stale' and '2 s older' in stale.text
    ahead = stamp_problem(2.0 ** 31, 100.0, 0.1)
    assert ahead.kind == 'ahead' and 'ahead of the node clock' in ahead.text
    # Wall-clock stamps on a use_sim_time node.
    assert stamp_problem(1.7e9, 12.0, 0.1).kind == 'ahead'
    assert stamp_problem(1.0, 1.7e9, 0.0) is None   # 0: no check


@pytest.mark.parametrize('value', [-0.1, float('nan'), float('inf'), 61.0,
                                   'fast', True, None])
def test_max_state_age_must_be_a_time(value):
    assert 'max_state_age must be' in check_max_state_age(value)


def test_max_state_age_zero_and_times_are_accepted():
    assert check_max_state_age(0.0) is None
    assert check_max_state_age(0.1) is None
    assert check_max_state_age(2) is None


def test_steps_of_a_time_stream():
    detector = ClockJumpDetector(max_step=0.1, max_forward=1.0)
    assert detector.update(10.0).kind == FIRST
    assert detector.update(10.001) == ('advance', pytest.approx(0.001))
    # Reordered by a little (a second publisher): tolerated, latest kept.
    assert detector.update(10.0005).kind == 'advance'
    assert detector.latest == 10.001
    assert detector.update(10.601) == (GAP, pytest.approx(0.6))
    assert detector.update(10.601 + 3 * 3600.0) == (
        FORWARD, pytest.approx(3 * 3600.0))
    assert detector.update(10.7) == (BACK, pytest.approx(-3 * 3600.0 + 0.099))
    assert detector.latest == 10.7
    assert detector.update(10.701).kind == 'advance'
    detector.reset()
    assert detector.update(0.0).kind == FIRST


def test_a_detector_needs_a_positive_step():
    with pytest.raises(ValueError, match='max_step must be > 0'):
        ClockJumpDetector(0.0)


def test_one_publisher_of_every_joint_is_answered_as_it_is():
    merger = JointStateMerger(JOINTS, max_state_age=0.1)
    q, qd, tau = np.arange(4.0), np.ones(4), np.full(4, 2.0)
    merger.update(5.0, q, qd, tau)
    state = merger.state(5.05)
    assert state.position is q and state.velocity is qd
    assert state.effort is tau and state.estimated is None
    assert state.oldest == 5.0
    with pytest.raises(MergeProblem) as stale:
        merger.state(5.2)
    assert stale.value.kind == 'stale' and 'joints j1, j2' in str(
        stale.value)


def test_arm_and_gripper_publishers_are_merged():
    merger = JointStateMerger(JOINTS, max_state_age=0.1)
    arm_index = np.array([0, 1, 2])
    merger.update(1.0, np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0, 3.0]),
                  np.array([4.0, 5.0, 6.0]), arm_index)
    with pytest.raises(MergeProblem) as waiting:
        merger.state(1.0)
    assert waiting.value.kind == 'incomplete'
    assert 'missing joints finger (no publisher' in str(waiting.value)
    # The gripper: position and velocity, no effort.
    merger.update(1.001, np.array([0.04]), np.array([0.01]), None,
                  np.array([3]))
    state = merger.state(1.002)
    assert np.array_equal(state.position, [0.1, 0.2, 0.3, 0.04])
    assert np.array_equal(state.velocity, [1.0, 2.0, 3.0, 0.01])
    assert state.effort is None and state.oldest == 1.0
    # Arm messages at 500 Hz go on being answered with the gripper's
    # latest value while it is fresh (20 Hz: 50 ms old at most).
    for k in range(1, 26):
        t = 1.0 + 0.002 * k
        merger.update(t, np.array([0.1, 0.2, 0.3]) + k, np.zeros(3),
                      np.zeros(3), arm_index)
        state = merger.state(t)
        assert state.position[3] == 0.04 and state.position[0] == 0.1 + k
        assert state.oldest == 1.001
    # The gripper stalls: stale once it is older than max_state_age.
    merger.update(1.2, np.zeros(3), np.zeros(3), np.zeros(3), arm_index)
    with pytest.raises(MergeProblem) as stale:
        merger.state(1.2)
    assert stale.value.kind == 'stale'
    assert 'missing joints finger (last heard of 0.199 s ago' in str(
        stale.value)


def test_a_full_message_after_a_partial_one_is_not_written_into():
    merger = JointStateMerger(JOINTS, max_state_age=0.0)
    q = np.arange(4.0)
    merger.update(1.0, q, np.zeros(4), None)
    merger.update(2.0, np.array([9.0]), np.array([0.0]), None, np.array([3]))
    assert np.array_equal(q, np.arange(4.0))   # the caller's array intact
    assert merger.state(1e9).position[3] == 9.0   # 0: no age limit


def test_missing_velocities_are_estimated_never_zero():
    merger = JointStateMerger(JOINTS, max_state_age=0.1)
    arm_index = np.array([0, 1, 2])
    merger.update(1.0, np.zeros(3), np.zeros(3), None, arm_index)
    merger.update(1.0, np.array([0.5]), None, None, np.array([3]))
    with pytest.raises(MergeProblem) as unknown:
        merger.state(1.0)
    assert unknown.value.kind == 'no velocity'
    assert 'joints finger yet' in str(unknown.value)
    merger.update(1.05, np.array([0.51]), None, None, np.array([3]))
    state = merger.state(1.05)
    assert state.velocity[3] == pytest.approx(0.01 / 0.05, rel=1e-12)
    assert np.array_equal(state.estimated, [False, False, False, True])
    # Two positions further apart than max_state_age: not a velocity.
    merger.update(1.3, np.array([0.6]), None, None, np.array([3]))
    merger.update(1.3, np.zeros(3), np.zeros(3), None, arm_index)
    with pytest.raises(MergeProblem, match='no velocity'):
        merger.state(1.3)


def test_a_continuous_joint_is_differenced_the_short_way_round():
    merger = JointStateMerger(['wheel'], max_state_age=0.1,
                              continuous=[True])
    merger.update(0.0, np.array([np.pi - 0.01]), None, None)
    merger.update(0.01, np.array([-np.pi + 0.01]), None, None)
    assert merger.state(0.01).velocity[0] == pytest.approx(2.0, rel=1e-9)


def test_velocities_can_be_refused_instead():
    merger = JointStateMerger(ARM, max_state_age=0.1, velocities='refuse')
    merger.update(1.0, np.zeros(3), None, None)
    merger.update(1.01, np.ones(3), None, None)
    with pytest.raises(MergeProblem, match='refused, not estimated'):
        merger.state(1.01)
    with pytest.raises(ValueError, match='velocities must be one of'):
        JointStateMerger(ARM, velocities='zero')


def test_a_command_times_out_once_at_its_deadline():
    timeout = CommandTimeout(0.5)
    assert not timeout.expired(100.0)   # nothing timed yet
    timeout.received(1.0)
    assert not timeout.expired(1.499)
    timeout.received(1.2)   # a newer command restarts it
    assert not timeout.expired(1.6)
    assert timeout.expired(1.7) and timeout.deadline is None
    assert not timeout.expired(1.8)   # once
    timeout.received(2.0)
    timeout.cancel()
    assert not timeout.expired(10.0)
    off = CommandTimeout(0.0)
    off.received(0.0)
    assert not off.expired(1e9)


@pytest.mark.parametrize('value', [-1.0, float('nan'), float('inf'), 1e9,
                                   'soon', False])
def test_command_timeout_must_be_a_time(value):
    assert 'command_timeout must be' in check_command_timeout(value)


class FakeClock:
    """A clock the test moves."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_warnings_of_one_kind_at_most_once_a_period_with_their_count():
    clock, lines = FakeClock(), []
    throttle = KindThrottle(lines.append, period=1.0, clock=clock)
    for k in range(1000):   # 1 kHz for 2 s, the text changing each time
        clock.now = 0.002 * k
        throttle.warn('gap', 'gap of %.3f s at t = %.3f' % (0.5, clock.now))
        throttle.warn('stale', lambda: 'stale state')
    assert lines[:2] == ['gap of 0.500 s at t = 0.000', 'stale state']
    assert lines[2].startswith('gap of 0.500 s at t = 1.000 (x500 in the '
                               'last 1 s)')
    assert len(lines) == 4   # two kinds, twice each, in 2 s
    assert throttle.suppressed('gap') == 499
    clock.now = 5.0
    assert throttle.flush() == 2
    assert lines[4] == 'gap of 0.500 s at t = 1.998 (x499 in the last 4 s)'
    assert throttle.flush() == 0


def test_a_recurring_warning_is_aggregated_into_one_line_a_minute():
    """
    A gap every 9.5 s for 3 minutes: 19 gaps, a handful of lines.

    The field report: "gap of 0.248 s ... integral restarted" 19 times in
    3 minutes, each on a line of its own (a 1 or 2 s throttle never sees
    a repeat).  A recurring kind's period doubles with each line up to a
    minute: every gap is counted into a line (none lost), and from the
    second minute on there is a line a minute with its count.
    """
    clock, lines = FakeClock(), []
    throttle = KindThrottle(lines.append, period=2.0, clock=clock)
    gaps = [9.5 * k for k in range(19)]
    for when in gaps:
        clock.now = when
        throttle.warn('observer gap', 'gap of 0.248 s at t = %.1f s: '
                      'integral restarted' % when)
    clock.now = 240.0
    throttle.flush()
    assert len(lines) == 8, lines
    counts = [int(line.split('(x')[1].split(' ')[0]) if '(x' in line else 1
              for line in lines]
    assert sum(counts) == 19, lines   # every gap counted once
    assert lines[0] == 'gap of 0.248 s at t = 0.0 s: integral restarted'
    # Periods 2, 4, 8, 16, 32 s, then 60 s: lines at t = 0, 9.5, 19, 28.5,
    # 47.5, 85.5 and 152 s, then the last two gaps when flushed at 240 s.
    assert lines[5] == ('gap of 0.248 s at t = 85.5 s: integral restarted '
                        '(x4 in the last 38 s)')
    assert lines[6] == ('gap of 0.248 s at t = 152.0 s: integral restarted '
                        '(x7 in the last 66.5 s)')
    assert lines[7] == ('gap of 0.248 s at t = 171.0 s: integral restarted '
                        '(x2 in the last 88 s)')
    assert throttle.period_of('observer gap') == 60.0


def test_a_kind_quiet_for_a_minute_starts_over_at_its_period():
    clock, lines = FakeClock(), []
    throttle = KindThrottle(lines.append, period=1.0, clock=clock)
    for when in (0.0, 5.0, 10.0):
        clock.now = when
        throttle.warn('stale', 'stale state')
    assert throttle.period_of('stale') == 4.0   # recurring: 1, 2, 4 s
    clock.now = 80.0   # 70 s without one: no longer recurring
    throttle.warn('stale', 'stale state')
    assert throttle.period_of('stale') == 1.0
    assert lines == ['stale state'] * 4


def test_a_throttle_without_growth_keeps_its_period():
    clock, lines = FakeClock(), []
    throttle = KindThrottle(lines.append, period=2.0, clock=clock,
                            max_period=2.0)
    for when in range(0, 20, 3):
        clock.now = float(when)
        throttle.warn('refused', 'refused')
    assert len(lines) == 7 and throttle.period_of('refused') == 2.0


def test_a_text_function_is_called_only_for_lines_logged():
    clock, lines, calls = FakeClock(), [], []
    throttle = KindThrottle(lines.append, clock=clock)

    def text():
        calls.append(1)
        return 'expensive'
    for _ in range(100):
        throttle.warn('kind', text)
    assert len(calls) == 1 and lines == ['expensive']


def test_the_kind_of_a_text_leaves_out_its_values():
    assert kind_of("sample at t = 12.5 s, joint 'a' 1e-3") == \
        kind_of("sample at t = 13 s, joint 'b' -2.5E+4")
    assert kind_of('stale state') != kind_of('ahead state')
