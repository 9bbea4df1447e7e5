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
Serialized JointTrajectory read into arrays, against rclpy's deserializer.

The oracle is rclpy's own deserialization of the same bytes (then the
message path of conversions.message_trajectory): every array, time and
name must be equal, bit for bit, or the fast read must decline (None).
"""

from builtin_interfaces.msg import Duration
from dynamics_ros.nodes.shared.conversions import FIELDS, message_trajectory
from dynamics_ros.nodes.simulator.trajectory_cdr import Malformed, read_trajectory
from hypothesis import given, settings, strategies as st
import numpy as np
import pytest
from rclpy.serialization import deserialize_message, serialize_message
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@st.composite
def trajectories(draw):
    """Draw a JointTrajectory: equal field sizes on most, not all."""
    n = draw(st.integers(1, 8))
    msg = JointTrajectory(joint_names=[
        draw(st.text(min_size=1, max_size=12)) for _ in range(n)])
    msg.header.stamp.sec = draw(st.integers(0, 2 ** 31 - 1))
    msg.header.stamp.nanosec = draw(st.integers(0, 999999999))
    msg.header.frame_id = draw(st.text(max_size=9))
    sizes = {field: draw(st.sampled_from((0, n, n, 1, 3)))
             for field in FIELDS}
    ragged = draw(st.booleans())
    for k in range(draw(st.integers(0, 30))):
        point = JointTrajectoryPoint(time_from_start=Duration(
            sec=draw(st.integers(-5, 100)),
            nanosec=draw(st.integers(0, 999999999))))
        for field in FIELDS:
            size = sizes[field]
            if ragged and draw(st.integers(0, 9)) == 0:
                size = draw(st.integers(0, 4))
            setattr(point, field, draw(st.lists(finite, min_size=size,
                                                max_size=size)))
        msg.points.append(point)
    return msg


def same(fast, slow):
    """Assert two TrajectoryArrays are equal."""
    assert fast.stamp == slow.stamp
    assert fast.joint_names == slow.joint_names
    assert np.array_equal(fast.times, slow.times)
    for field in FIELDS:
        if slow.fields[field] is None:
            assert fast.fields[field] is None, field
            continue
        assert np.array_equal(fast.fields[field][0], slow.fields[field][0])
        assert np.array_equal(fast.fields[field][1], slow.fields[field][1])


@settings(max_examples=300, deadline=None)
@given(trajectories())
def test_the_fast_read_equals_rclpys_or_declines(msg):
    data = serialize_message(msg)
    fast = read_trajectory(data)
    if fast is None:
        return
    n = len(msg.joint_names)
    # message_trajectory refuses a field whose length differs from the
    # names'; the fast read leaves that check to trajectory_arrays.
    if any(len(getattr(p, field)) not in (0, n)
           for p in msg.points for field in FIELDS):
        return
    same(fast, message_trajectory(deserialize_message(data,
                                                      JointTrajectory)))


def test_a_long_trajectory_takes_the_fast_read():
    msg = JointTrajectory(joint_names=['a', 'b', 'c'])
    for k in range(10000):
        msg.points.append(JointTrajectoryPoint(
            positions=[k, -k, 0.5 * k], velocities=[1.0, 2.0, 3.0],
            time_from_start=Duration(sec=k // 1000,
                                     nanosec=(k % 1000) * 1000000)))
    data = serialize_message(msg)
    fast = read_trajectory(data)
    assert fast is not None
    same(fast, message_trajectory(msg))
    assert fast.fields['positions'][0][9999].tolist() == [9999, -9999,
                                                          4999.5]


@settings(max_examples=200, deadline=None)
@given(trajectories(), st.data())
def test_cut_or_damaged_bytes_never_read_past_the_end(msg, data):
    raw = bytearray(serialize_message(msg))
    cut = data.draw(st.integers(0, len(raw)))
    damaged = raw[:cut]
    if damaged and data.draw(st.booleans()):
        at = data.draw(st.integers(0, len(damaged) - 1))
        damaged[at] = data.draw(st.integers(0, 255))
    try:
        fast = read_trajectory(bytes(damaged))
    except Malformed:
        return
    if fast is not None:
        for field in FIELDS:
            if fast.fields[field] is not None:
                assert fast.fields[field][0].shape[0] == fast.times.size


def test_a_big_endian_or_empty_buffer_is_left_to_rclpy():
    assert read_trajectory(b'\x00\x00\x00\x00' + bytes(64)) is None
    with pytest.raises(Malformed):
        read_trajectory(b'\x00\x01\x00\x00')


def test_a_huge_damaged_count_is_refused_before_it_is_used():
    msg = JointTrajectory(joint_names=['a', 'b'])
    for k in range(5):
        msg.points.append(JointTrajectoryPoint(
            positions=[k, k], time_from_start=Duration(sec=k)))
    data = bytearray(serialize_message(msg))
    # The point count follows the names: 'b' NUL and its padding.
    at = data.index(b'b\x00') + 4
    assert data[at:at + 4] == (5).to_bytes(4, 'little')
    data[at:at + 4] = b'\xff\xff\xff\xff'    # 4 billion points
    with pytest.raises(Malformed, match='does not fit'):
        read_trajectory(bytes(data))
