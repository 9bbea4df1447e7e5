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
The 1 kHz message path of inverse_dynamics_node, read and written serialized.

Serialized JointStates read in place (``joint_state_cdr``), against rclpy's
deserializer followed by ``conversions.JointStateReader``: the same arrays,
bit for bit, or the same BadInput with the same text, or a decline (None:
the node then deserializes).  Serialized outputs (``serialized_message``)
against rclpy's deserialization of the bytes the node publishes.
"""

from builtin_interfaces.msg import Time
from dynamics_ros.nodes.shared.conversions import BadInput, JointStateReader
from dynamics_ros.nodes.shared.joint_state_cdr import JointStateCdrReader
from dynamics_ros.nodes.shared.serialized_message import (
    serialized_effort_state, serialized_vector)
from hypothesis import given, settings, strategies as st
import numpy as np
import pytest
from rclpy.serialization import deserialize_message, serialize_message
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

JOINTS = ['joint_a', 'joint_b', 'joint_c']
POOL = JOINTS + ['gripper', 'j', 'a_longer_joint_name']
ODD = [float('nan'), float('inf'), -float('inf')]
values = st.one_of(st.floats(allow_nan=False, allow_infinity=False,
                             width=64), st.sampled_from(ODD))


@st.composite
def joint_states(draw):
    """Draw a JointState: mostly usable, sometimes wrong in one way."""
    names = draw(st.permutations(POOL))[:draw(st.integers(0, len(POOL)))]
    if names and draw(st.integers(0, 9)) == 0:
        names.append(draw(st.sampled_from(names)))      # a duplicate
    n = len(names)
    msg = JointState(name=names)
    msg.header.stamp.sec = draw(st.integers(-2 ** 31, 2 ** 31 - 1))
    msg.header.stamp.nanosec = draw(st.integers(0, 2 ** 32 - 1))
    # Its length moves everything after it through both 8-byte phases.
    msg.header.frame_id = draw(st.text(max_size=9))
    for field in ('position', 'velocity', 'effort'):
        size = draw(st.sampled_from((n, n, n, 0, max(n - 1, 0), n + 1)))
        setattr(msg, field, draw(st.lists(values, min_size=size,
                                          max_size=size)))
    return msg


def oracle(data, reader):
    """Return ((sec, nanosec), JointArrays) through rclpy, or the BadInput."""
    msg = deserialize_message(data, JointState)
    try:
        arrays = reader(msg)
    except BadInput as error:
        return error
    return (msg.header.stamp.sec, msg.header.stamp.nanosec), arrays


def same(fast, slow):
    """Assert one read equals the other (or both raised the same reason)."""
    if isinstance(slow, BadInput):
        assert isinstance(fast, BadInput) and str(fast) == str(slow), (
            fast, slow)
        return
    assert not isinstance(fast, BadInput), (fast, slow)
    assert fast[0] == slow[0]
    for field in ('position', 'velocity', 'effort'):
        a, b = getattr(fast[1], field), getattr(slow[1], field)
        if b is None:
            assert a is None, field
        else:
            assert a.dtype == b.dtype and np.array_equal(a, b), field


def read(reader, data):
    """Return what ``reader`` gives for ``data``, the BadInput included."""
    try:
        return reader(data)
    except BadInput as error:
        return error


@settings(max_examples=400, deadline=None)
@given(st.lists(joint_states(), min_size=1, max_size=6))
def test_the_read_in_place_equals_rclpys_and_the_message_reader(messages):
    # One reader for the whole stream: its remembered names must follow
    # every change of names, order and frame_id length.
    fast_reader = JointStateCdrReader(JOINTS)
    slow_reader = JointStateReader(JOINTS)
    for msg in messages:
        data = serialize_message(msg)
        fast = read(fast_reader, data)
        assert fast is not None, msg   # what rclpy writes is read here
        same(fast, oracle(data, slow_reader))


def test_a_usual_stream_reads_every_message_in_place():
    reader = JointStateCdrReader(JOINTS)
    rng = np.random.default_rng(3)
    names = ['gripper', 'joint_c', 'joint_a', 'joint_b']
    for k in range(50):
        msg = JointState(name=names, position=rng.normal(size=4).tolist(),
                         velocity=rng.normal(size=4).tolist())
        msg.header.stamp = Time(sec=k, nanosec=1000 * k)
        stamp, arrays = reader(serialize_message(msg))
        assert stamp == (k, 1000 * k)
        assert arrays.position.tolist() == [msg.position[2], msg.position[3],
                                            msg.position[1]]
        assert arrays.velocity.tolist() == [msg.velocity[2], msg.velocity[3],
                                            msg.velocity[1]]
        assert arrays.effort is None


@pytest.mark.parametrize('msg,reason', [
    (JointState(), 'empty JointState'),
    (JointState(name=['x'], position=[0.0]), 'missing joints joint_a'),
    (JointState(name=JOINTS, position=[0.0] * 2), 'position has 2 values'),
    (JointState(name=JOINTS), 'position has 0 values for 3 names'),
    (JointState(name=JOINTS, position=[0.0, float('nan'), 0.0]),
     "position of joint 'joint_b' is nan"),
    (JointState(name=JOINTS, position=[0.0] * 3, effort=[1.0]),
     'effort has 1 values for 3 names'),
])
def test_bad_joint_states_give_the_message_readers_reason(msg, reason):
    with pytest.raises(BadInput) as raised:
        JointStateCdrReader(JOINTS)(serialize_message(msg))
    assert reason in str(raised.value)


@settings(max_examples=300, deadline=None)
@given(joint_states(), st.data())
def test_cut_or_damaged_bytes_are_declined_or_refused(msg, data):
    raw = bytearray(serialize_message(msg))
    reader = JointStateCdrReader(JOINTS)
    if data.draw(st.booleans()):
        read(reader, bytes(raw))   # names remembered from the whole one
    damaged = raw[:data.draw(st.integers(0, len(raw)))]
    if damaged and data.draw(st.booleans()):
        at = data.draw(st.integers(0, len(damaged) - 1))
        damaged[at] = data.draw(st.integers(0, 255))
    result = read(reader, bytes(damaged))   # no other exception
    if result is None or isinstance(result, BadInput):
        return
    stamp, arrays = result
    # What is read is in the bytes: as rclpy reads them, when it can.
    assert arrays.position.shape == arrays.velocity.shape == (3,)
    try:
        slow = oracle(bytes(damaged), JointStateReader(JOINTS))
    except Exception:  # noqa: B902 (rclpy refuses them: the node drops)
        return
    same(result, slow)


def test_other_encodings_and_nul_in_a_name_are_left_to_rclpy():
    reader = JointStateCdrReader(['a'])
    data = serialize_message(JointState(name=['a'], position=[1.0]))
    assert reader(b'\x00\x00' + data[2:]) is None           # big-endian
    assert reader(data[:10]) is None
    named = bytearray(data)
    named[named.index(b'a\x00')] = 0                     # name '\0' + NUL
    assert reader(bytes(named)) is None


def test_serialized_outputs_read_back_as_the_messages():
    names = ['joint_c', 'joint_a', 'joint_b']
    effort = np.array([1.5, -2.25, 1e300])
    state = serialized_effort_state(names)
    vector = serialized_vector(3)
    assert state is not None and vector is not None
    sec, nanosec = 1234, 999999999
    msg = deserialize_message(
        state.serialized(sec * 1000000000 + nanosec, (effort,)), JointState)
    assert (msg.header.stamp.sec, msg.header.stamp.nanosec) == (sec, nanosec)
    assert list(msg.name) == names and msg.header.frame_id == ''
    assert list(msg.effort) == effort.tolist()
    assert len(msg.position) == len(msg.velocity) == 0
    data = deserialize_message(vector.serialized(0, (effort[::-1],)),
                               Float64MultiArray)
    assert list(data.data) == effort[::-1].tolist()
    assert len(data.layout.dim) == 0 and data.layout.data_offset == 0
    # Reused buffers: the next values replace the last ones entirely.
    again = deserialize_message(vector.serialized(0, (-effort,)),
                                Float64MultiArray)
    assert list(again.data) == (-effort).tolist()
