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

"""Message <-> array conversions of the nodes (no DDS needed)."""

import re

from builtin_interfaces.msg import Duration, Time
from dynamics_ros.nodes.shared.conversions import (
    BadInput, joint_state_arrays, joint_state_message, JointStateReader,
    matrix_message, message_matrix, message_vector, names_text, quote,
    ThrottledWarnings, time_message, to_seconds, trajectory_arrays)
import numpy as np
import pytest
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

JOINTS = ['a', 'b', 'c']


def test_joint_state_is_read_by_name():
    msg = JointState(name=['c', 'gripper', 'a', 'b'],
                     position=[3.0, 9.0, 1.0, 2.0],
                     velocity=[30.0, 90.0, 10.0, 20.0])
    arrays = joint_state_arrays(msg, JOINTS)
    assert arrays.position.tolist() == [1.0, 2.0, 3.0]
    assert arrays.velocity.tolist() == [10.0, 20.0, 30.0]
    assert arrays.effort is None


def test_reader_follows_a_change_of_name_order():
    reader = JointStateReader(JOINTS)
    first = reader(JointState(name=['a', 'b', 'c'], position=[1., 2., 3.]))
    second = reader(JointState(name=['b', 'c', 'a'], position=[2., 3., 1.]))
    assert first.position.tolist() == second.position.tolist() == [1, 2, 3]
    assert second.velocity.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize('msg,reason', [
    (JointState(), 'empty JointState'),
    (JointState(name=['x', 'y'], position=[0., 0.]),
     'missing joints a, b, c (it names unknown joints x, y)'),
    (JointState(name=['a', 'b', 'b', 'c'], position=[0.] * 4), 'twice'),
    (JointState(name=JOINTS, position=[0.] * 2), 'position has 2 values'),
    (JointState(name=JOINTS, position=[0.] * 3, velocity=[0.]),
     'velocity has 1 values'),
    (JointState(name=JOINTS, position=[0.] * 3, effort=[0.] * 4),
     'effort has 4 values'),
    (JointState(name=JOINTS, position=[0., float('nan'), 0.]),
     "position of joint 'b' is nan"),
    (JointState(name=JOINTS, position=[0.] * 3,
                velocity=[0., 0., -float('inf')]),
     "velocity of joint 'c' is -inf"),
])
def test_bad_joint_states_give_the_reason(msg, reason):
    with pytest.raises(BadInput, match=re.escape(reason)):
        joint_state_arrays(msg, JOINTS)


def test_non_finite_value_of_an_ignored_joint_is_harmless():
    msg = JointState(name=JOINTS + ['gripper'],
                     position=[1., 2., 3., float('nan')])
    assert joint_state_arrays(msg, JOINTS).position.tolist() == [1, 2, 3]


def test_joint_state_message():
    msg = joint_state_message(JOINTS, Time(sec=3), effort=np.array([1, 2, 3]))
    assert list(msg.name) == JOINTS and list(msg.effort) == [1.0, 2.0, 3.0]
    assert len(msg.position) == 0 and msg.header.stamp.sec == 3


def test_matrix_layout_is_row_major_with_labels():
    matrix = np.arange(6.0).reshape(2, 3)
    msg = matrix_message(matrix)
    rows, cols = msg.layout.dim
    assert (rows.label, rows.size, rows.stride) == ('rows', 2, 6)
    assert (cols.label, cols.size, cols.stride) == ('cols', 3, 3)
    assert list(msg.data) == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert np.array_equal(message_matrix(msg), matrix)
    with pytest.raises(BadInput, match='dimensions'):
        message_matrix(Float64MultiArray(data=[1.0]))


@pytest.mark.parametrize('data,reason', [
    ([1.0, 2.0], 'size (2) does not match number of joints (3)'),
    ([1.0, float('inf'), 2.0], 'non-finite'),
    ([float('nan')] * 3, 'all NaN'),
])
def test_bad_command_vectors(data, reason):
    with pytest.raises(BadInput, match=re.escape(reason)):
        message_vector(Float64MultiArray(data=data), 3)


def test_command_vector():
    values = message_vector(Float64MultiArray(data=[1.0, 2.0, 3.0]), 3)
    assert values.tolist() == [1.0, 2.0, 3.0]


def point(t, positions, velocities=()):
    """Return a JointTrajectoryPoint at t seconds."""
    return JointTrajectoryPoint(
        positions=positions, velocities=list(velocities),
        time_from_start=Duration(sec=int(t), nanosec=int((t % 1) * 1e9)))


def test_trajectory_is_read_by_name_and_starts_at_the_stamp():
    msg = JointTrajectory(joint_names=['b', 'c', 'a'], points=[
        point(0.0, [2., 3., 1.]), point(0.5, [20., 30., 10.], [1., 1., 1.])])
    traj = trajectory_arrays(msg, JOINTS, start_time=7.0)
    assert traj.start_time == 7.0   # zero stamp: start on receipt
    assert traj.positions.tolist() == [[1, 2, 3], [10, 20, 30]]
    assert traj.has_velocity.tolist() == [False, True]
    assert traj.times.tolist() == [0.0, 0.5]
    msg.header.stamp = Time(sec=12, nanosec=500000000)
    assert trajectory_arrays(msg, JOINTS, 7.0).start_time == 12.5


def test_time_conversions():
    assert to_seconds(time_message(12.25)) == 12.25
    assert time_message(1.999999999999).sec == 2


class Recorder:
    """Stand-in logger."""

    def __init__(self):
        self.lines = []

    def warning(self, text):
        self.lines.append(text)


def test_warnings_are_throttled_per_key():
    clock = [0.0]
    logger = Recorder()
    warnings = ThrottledWarnings(logger, period=2.0, clock=lambda: clock[0])
    for _ in range(5):
        warnings.ignored('joint_states', 'bad')
    warnings.ignored('joint_states', 'other')
    clock[0] = 2.5
    warnings.ignored('joint_states', 'bad')
    assert logger.lines == [
        'joint_states ignored: bad', 'joint_states ignored: other',
        'joint_states ignored: bad (x5 in the last 2.5 s)']


def test_warn_each_throttles_each_flag_and_formats_only_what_it_logs():
    clock = [0.0]
    logger = Recorder()
    warnings = ThrottledWarnings(logger, period=2.0, clock=lambda: clock[0])
    formatted = []

    def text(j):
        formatted.append(j)
        return 'joint %d' % j

    warnings.warn_each('clip', np.array([True, False, True]), text)
    for _ in range(4):
        warnings.warn_each('clip', np.array([True, True, False]), text)
    clock[0] = 2.5
    warnings.warn_each('clip', np.array([True, True, True]), text)
    assert logger.lines == [
        'joint 0', 'joint 2', 'joint 1',
        'joint 0 (4 similar warnings suppressed)',
        'joint 1 (3 similar warnings suppressed)', 'joint 2']
    assert formatted == [0, 2, 1, 0, 1, 2]


LONG = 'x' * 100000


def test_quotes_of_user_input_are_bounded():
    assert quote('abc') == "'abc'"
    assert quote(LONG) == "'%s'..." % ('x' * 80)
    assert quote(1.5) == '1.5' and quote(float('nan')) == 'nan'
    assert quote([1.0, 2.0]) == '[1.0, 2.0]'
    assert len(quote([1.0] * 100000)) < 120
    assert '(100000 values)' in quote([1.0] * 100000)
    assert len(quote([LONG] * 1000)) < 200
    assert names_text(['a', 'b']) == 'a, b'
    text = names_text([LONG] * 10)
    assert len(text) < 500 and text.endswith('(5 more)')


@pytest.mark.parametrize('msg,names', [
    (JointState(name=[LONG], position=[0.0]), JOINTS),
    (JointState(name=[LONG, LONG], position=[0.0, 0.0]), JOINTS),
    (JointState(name=['a', 'b', LONG], position=[0.0, 0.0, float('nan')]),
     ['a', 'b', LONG]),
    (JointState(name=['u%d' % i for i in range(10000)],
                position=[0.0] * 10000), JOINTS),
], ids=['unknown', 'twice', 'NaN', 'many unknown'])
def test_reasons_about_long_names_are_short(msg, names):
    with pytest.raises(BadInput) as refused:
        joint_state_arrays(msg, names)
    assert len(str(refused.value)) < 400, len(str(refused.value))


def long_trajectory(k=10000, names=JOINTS):
    """Return a k-point trajectory, 1 ms apart, positions and velocities."""
    msg = JointTrajectory(joint_names=list(names))
    for i in range(k):
        msg.points.append(JointTrajectoryPoint(
            positions=[0.001 * i] * len(names),
            velocities=[1.0] * len(names),
            time_from_start=Duration(sec=0, nanosec=1000000 * (i + 1))))
    return msg


def test_long_trajectory_is_read_in_one_pass():
    traj = trajectory_arrays(long_trajectory(), JOINTS, 5.0)
    assert traj.positions.shape == (10000, 3)
    assert np.all(traj.has_velocity) and not np.any(traj.has_acceleration)
    assert traj.times[-1] == pytest.approx(10.0)
    assert traj.positions[-1].tolist() == pytest.approx([9.999] * 3)


@pytest.mark.parametrize('change,reason', [
    (lambda m: setattr(m.points[7000], 'positions', [1.0]),
     'point 7000 positions has 1 values for 3 names'),
    (lambda m: setattr(m.points[9999], 'velocities', [0.0, float('inf'),
                                                      0.0]),
     "point 9999 velocities of joint 'b' is inf"),
    (lambda m: setattr(m.points[5], 'time_from_start', Duration(sec=0)),
     'point 5 is at 0.0 s after 0.005 s'),
    (lambda m: setattr(m, 'joint_names', ['a', 'b', 'c', LONG]),
     'that are not controlled'),
])
def test_long_trajectory_reasons_name_the_point_and_stay_short(
        change, reason):
    msg = long_trajectory()
    if 'not controlled' in reason:
        msg = long_trajectory(3)
    change(msg)
    with pytest.raises(BadInput) as refused:
        trajectory_arrays(msg, JOINTS, 0.0)
    text = str(refused.value)
    assert reason in text, text
    assert len(text) < 400, len(text)


def test_long_warnings_are_cut():
    logged = []

    class Logger:
        def warning(self, text):
            logged.append(text)

    ThrottledWarnings(Logger()).warn('k', LONG)
    assert len(logged[0]) < 2100
