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
Bags through one reader interface: rosbags here, rosbag2_py on ROS 2.

The JointState decoder is held to rosbags' own CDR serializer (both byte
orders, exact values); the rosbag2_py adapter runs against a stand-in of
rosbag2_py's reader API that serves a real bag's bytes, and must give what
the rosbags path gives; the real rosbag2_py is tested where it imports.
"""

import importlib.machinery
import os
import types

from dynamics_ros.errors import IdentificationError
from dynamics_ros.identification import bag_reader
from dynamics_ros.identification.bag_reader import (
    backend_name, decode_joint_state, Rosbag2PyBag)
from dynamics_ros.identification.recording import (
    read_bag, Recording, write_bag)
import numpy as np
import pytest

JOINTS = ['shoulder', 'elbow', 'wrist_joint_3']
JOINT_STATE = 'sensor_msgs/msg/JointState'


def typestore():
    """Return rosbags' typestore of the newest ROS 2 messages."""
    from rosbags.typesys import get_typestore, Stores
    return get_typestore(Stores.LATEST)


def joint_state(store, sec, nanosec, names, position, velocity, effort):
    """Return a rosbags JointState message."""
    types_ = store.types
    return types_[JOINT_STATE](
        header=types_['std_msgs/msg/Header'](
            stamp=types_['builtin_interfaces/msg/Time'](
                sec=sec, nanosec=nanosec), frame_id='base_link'),
        name=list(names), position=np.array(position, dtype=float),
        velocity=np.array(velocity, dtype=float),
        effort=np.array(effort, dtype=float))


def recording(samples=240):
    """Return a three-joint Recording at 100 Hz with distinct values."""
    times = 5.0 + 0.01 * np.arange(samples)
    phase = np.arange(len(JOINTS))
    positions = np.sin(np.outer(times, 1.0 + phase) + phase)
    efforts = 3.0 * np.cos(np.outer(times, 2.0 + phase))
    return Recording(JOINTS, times, positions, efforts)


@pytest.mark.parametrize('little_endian', [True, False])
def test_decoder_reads_what_rosbags_serializes(little_endian):
    """Every field back, exactly, in either byte order."""
    store = typestore()
    # Odd name lengths put the float64 sequences off 8-byte alignment.
    message = joint_state(store, 1712345678, 987654321, ['a', 'bcd', 'efghi'],
                          [0.1, -2.5e-300, np.pi], [], [1e300, -0.0, 7.25])
    data = store.serialize_cdr(message, JOINT_STATE,
                               little_endian=little_endian)
    sample = decode_joint_state(data)
    assert (sample.sec, sample.nanosec) == (1712345678, 987654321)
    assert sample.frame_id == 'base_link'
    assert sample.name == ['a', 'bcd', 'efghi']
    assert sample.position == (0.1, -2.5e-300, np.pi)
    assert sample.velocity == ()
    assert sample.effort == (1e300, -0.0, 7.25)


def test_decoder_refuses_what_is_not_a_whole_joint_state():
    """Truncated bytes and another encoding: ValueError saying so."""
    store = typestore()
    data = bytes(store.serialize_cdr(joint_state(
        store, 1, 2, JOINTS, [1.0, 2.0, 3.0], [], [4.0, 5.0, 6.0]),
        JOINT_STATE))
    assert decode_joint_state(data).effort == (4.0, 5.0, 6.0)
    for cut in (3, 10, 40, len(data) - 1):
        with pytest.raises(ValueError):
            decode_joint_state(data[:cut])
    with pytest.raises(ValueError, match='not plain CDR'):
        decode_joint_state(b'\x00\x07' + data[2:])
    # A name count far past the data is refused before any allocation: it
    # sits after the encapsulation (4), stamp (8) and 'base_link' (4 + 10,
    # padded to 4) at byte 28.
    with pytest.raises(ValueError, match='past the end'):
        decode_joint_state(data[:28] + b'\xff\xff\xff\x7f' + data[32:])


class FakeSequentialReader:
    """rosbag2_py.SequentialReader's reading API over a real bag's bytes."""

    def __init__(self, calls):
        """Record the calls in ``calls``."""
        self.calls = calls
        self.queue = []
        self.entries = []

    def open(self, storage_options, converter_options):
        """Read the bag at ``storage_options.uri`` with rosbags."""
        from rosbags.rosbag2 import Reader
        self.calls.append(('open', storage_options.uri,
                           storage_options.storage_id,
                           converter_options.input_serialization_format))
        with Reader(storage_options.uri) as reader:
            self.metadata = [types.SimpleNamespace(name=c.topic,
                                                   type=c.msgtype)
                             for c in reader.connections]
            self.entries = [(c.topic, bytes(raw), t)
                            for c, t, raw in reader.messages()]

    def get_all_topics_and_types(self):
        """Return the topics' metadata."""
        return self.metadata

    def set_filter(self, storage_filter):
        """Keep the messages of the filter's topics."""
        self.calls.append(('filter', list(storage_filter.topics)))
        self.queue = [e for e in self.entries
                      if e[0] in storage_filter.topics]

    def has_next(self):
        """Whether a message is left."""
        return bool(self.queue)

    def read_next(self):
        """Return (topic, serialized bytes, timestamp ns)."""
        return self.queue.pop(0)

    def close(self):
        """Record the close."""
        self.calls.append(('close',))


def fake_rosbag2_py(calls):
    """Return a module standing in for rosbag2_py."""
    module = types.ModuleType('rosbag2_py')
    module.__spec__ = importlib.machinery.ModuleSpec('rosbag2_py', None)
    module.SequentialReader = lambda: FakeSequentialReader(calls)
    module.StorageOptions = types.SimpleNamespace
    module.ConverterOptions = types.SimpleNamespace
    module.StorageFilter = types.SimpleNamespace
    return module


@pytest.mark.parametrize('storage', ['sqlite3', 'mcap'])
def test_rosbag2_py_adapter_reads_what_rosbags_reads(
        tmp_path, monkeypatch, storage):
    """Through the rosbag2_py adapter, the same Recording, sample for sample."""
    path = str(tmp_path / 'bag')
    written = recording()
    write_bag(written, path, storage=storage)
    monkeypatch.setenv(bag_reader.BACKEND_VARIABLE, 'rosbags')
    by_rosbags = read_bag(path, JOINTS[::-1])
    calls = []
    monkeypatch.setitem(os.sys.modules, 'rosbag2_py', fake_rosbag2_py(calls))
    monkeypatch.setenv(bag_reader.BACKEND_VARIABLE, 'rosbag2_py')
    assert backend_name() == 'rosbag2_py'
    by_rosbag2 = read_bag(path, JOINTS[::-1])
    assert calls == [('open', path, '', 'cdr'),
                     ('filter', ['/joint_states']), ('close',)]
    assert by_rosbag2.joint_names == JOINTS[::-1]
    for name in ('times', 'positions', 'efforts'):
        assert np.array_equal(getattr(by_rosbag2, name),
                              getattr(by_rosbags, name)), name
    # Stamps are whole nanoseconds in the bag.
    assert np.max(np.abs(by_rosbag2.times - written.times)) <= 0.6e-9
    assert np.array_equal(by_rosbag2.positions, written.positions[:, ::-1])
    assert np.array_equal(by_rosbag2.efforts, written.efforts[:, ::-1])


def test_missing_topic_is_named_by_either_reader(tmp_path, monkeypatch):
    """The interface's topics give the same error through both readers."""
    path = str(tmp_path / 'bag')
    write_bag(recording(), path)
    monkeypatch.setitem(os.sys.modules, 'rosbag2_py', fake_rosbag2_py([]))
    for backend in ('rosbags', 'rosbag2_py'):
        monkeypatch.setenv(bag_reader.BACKEND_VARIABLE, backend)
        with pytest.raises(IdentificationError,
                           match=r"no topic '/states' \(topics: "
                                 r'/joint_states\)'):
            read_bag(path, topic='states')


def test_backend_choice_and_missing_readers(monkeypatch):
    """rosbag2_py first; a reader that is not installed says what to do."""
    monkeypatch.delenv(bag_reader.BACKEND_VARIABLE, raising=False)
    monkeypatch.setattr(bag_reader, 'importable', lambda name: True)
    assert backend_name() == 'rosbag2_py'
    monkeypatch.setattr(bag_reader, 'importable',
                        lambda name: name == 'rosbags')
    assert backend_name() == 'rosbags'
    with pytest.raises(ImportError, match='rosbag2_py is not installed: '
                       'reading ROS 2 bags needs rosbag2_py'):
        backend_name('rosbag2_py')
    monkeypatch.setattr(bag_reader, 'importable', lambda name: False)
    with pytest.raises(ImportError, match=r'pip install "rosbags>=0\.11'):
        backend_name()
    with pytest.raises(ValueError, match='DYNAMICS_ROS_BAG_READER must be'):
        backend_name('rosbag3')


def test_rosbag2_py_reads_a_bag_it_wrote(tmp_path):
    """On ROS 2: rosbag2_py's own bag, through the adapter (real API)."""
    rosbag2_py = pytest.importorskip(
        'rosbag2_py', reason='rosbag2_py is not importable here (it comes '
        'with a ROS 2 install: source its setup file); the adapter is '
        'tested against a stand-in above')
    serialization = pytest.importorskip('rclpy.serialization')
    from sensor_msgs.msg import JointState

    path = str(tmp_path / 'ros_bag')
    writer = rosbag2_py.SequentialWriter()
    writer.open(rosbag2_py.StorageOptions(uri=path, storage_id='sqlite3'),
                rosbag2_py.ConverterOptions(
                    input_serialization_format='cdr',
                    output_serialization_format='cdr'))
    writer.create_topic(rosbag2_py.TopicMetadata(
        name='/joint_states', type=JOINT_STATE,
        serialization_format='cdr'))
    written = recording(samples=50)
    for k, t in enumerate(written.times):
        message = JointState(name=JOINTS,
                             position=list(written.positions[k]),
                             effort=list(written.efforts[k]))
        nanoseconds = int(round(t * 1e9))
        message.header.stamp.sec = nanoseconds // 10 ** 9
        message.header.stamp.nanosec = nanoseconds % 10 ** 9
        writer.write('/joint_states', serialization.serialize_message(
            message), nanoseconds)
    close = getattr(writer, 'close', None)
    if close is not None:
        close()
    del writer
    bag = Rosbag2PyBag(path)
    try:
        assert bag.topics() == {'/joint_states': JOINT_STATE}
        samples = [decode_joint_state(raw)
                   for _, _, raw in bag.messages(['/joint_states'])]
    finally:
        bag.close()
    assert len(samples) == 50
    assert [s.name for s in samples] == [JOINTS] * 50
    assert np.array_equal([s.position for s in samples], written.positions)
    assert np.array_equal([s.effort for s in samples], written.efforts)
