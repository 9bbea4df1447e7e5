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
ROS 2 bags read through one small interface, by rosbag2_py or by rosbags.

On a ROS 2 machine bags are read by ``rosbag2_py`` (the ROS package
rosbag2_py, released for Humble through Rolling: package.xml depends on
it); elsewhere by the PyPI library ``rosbags`` (pure Python, no ROS
install; requirements.txt).  Both give the same thing: a bag's topics with
their types, and its messages as (topic, receive time in ns, serialized
bytes).  ``decode_joint_state`` reads a serialized JointState itself, so
this layer needs neither rclpy nor the message packages (the core stays
ROS-free) and both readers share one decoder.

The layout is plain CDR (what rmw serializes and rosbag2 stores): a
4-byte encapsulation header (0x0001 little-endian, 0x0000 big-endian),
then header.stamp (int32 sec, uint32 nanosec), header.frame_id, the names
(a uint32 count, each a uint32 length counting its NUL, then its bytes),
then position, velocity and effort (each a uint32 count and its float64s,
aligned to 8 from the end of the encapsulation header).
"""

from collections import namedtuple
import importlib
import importlib.util
import os
import struct

# Which reader: 'rosbag2_py', 'rosbags', or unset for the first importable.
BACKEND_VARIABLE = 'DYNAMICS_ROS_BAG_READER'
BACKENDS = ('rosbag2_py', 'rosbags')
ROSBAGS_RANGE = '>=0.11.0,<0.12'
INSTALL_HINT = (
    'reading ROS 2 bags needs rosbag2_py (on ROS 2: rosdep install, or '
    'apt install ros-$ROS_DISTRO-rosbag2-py, then source the setup file) '
    'or the Python package rosbags (pip install "rosbags%s")'
    % ROSBAGS_RANGE)
ORIGIN = 4                   # CDR alignment counts from after the header
ENCAPSULATION = {b'\x00\x01': '<', b'\x00\x00': '>'}

JointStateSample = namedtuple(
    'JointStateSample', 'sec nanosec frame_id name position velocity effort')
JointStateSample.__doc__ = 'A decoded sensor_msgs/msg/JointState.'


class CdrCursor:
    """Reads CDR primitives from ``data`` in order, checking the bounds."""

    def __init__(self, data, order):
        """Start after the encapsulation header; ``order``: '<' or '>'."""
        self.data = data
        self.order = order
        self.at = ORIGIN

    def align(self, size):
        """Skip the padding before a primitive of ``size`` bytes."""
        self.at += -(self.at - ORIGIN) % size

    def take(self, size):
        """Return the next ``size`` bytes (ValueError past the end)."""
        if size < 0 or self.at + size > len(self.data):
            raise ValueError('message ends at byte %d, %d more needed at %d'
                             % (len(self.data), size, self.at))
        start = self.at
        self.at += size
        return self.data[start:self.at]

    def unpack(self, code, size):
        """Return one aligned primitive of struct ``code``."""
        self.align(size)
        return struct.unpack(self.order + code, self.take(size))[0]

    def string(self):
        """Return the next CDR text: a length counting the NUL, the bytes."""
        size = self.unpack('I', 4)
        raw = self.take(size)
        if size == 0 or raw[-1:] != b'\x00':
            raise ValueError('string without its NUL at byte %d' % self.at)
        return raw[:-1].decode('utf-8')

    def count(self, item_size):
        """Return a sequence's length, refused if longer than the data."""
        count = self.unpack('I', 4)
        if count * item_size > len(self.data) - self.at:
            raise ValueError('sequence of %d items past the end' % count)
        return count

    def doubles(self):
        """Return a float64 sequence as a tuple."""
        count = self.count(8)
        if count == 0:
            return ()
        self.align(8)
        return struct.unpack('%s%dd' % (self.order, count),
                             self.take(8 * count))


def decode_joint_state(data):
    """
    Return the JointStateSample serialized in ``data`` (bytes-like).

    ValueError for anything that is not a whole plain-CDR JointState.
    """
    data = bytes(data)
    order = ENCAPSULATION.get(data[:2])
    if order is None:
        raise ValueError('not plain CDR (encapsulation %r)' % data[:2])
    cursor = CdrCursor(data, order)
    sec = cursor.unpack('i', 4)
    nanosec = cursor.unpack('I', 4)
    frame_id = cursor.string()
    names = [cursor.string() for _ in range(cursor.count(5))]
    position = cursor.doubles()
    velocity = cursor.doubles()
    effort = cursor.doubles()
    return JointStateSample(sec, nanosec, frame_id, names, position,
                            velocity, effort)


class Rosbag2PyBag:
    """
    A bag read by rosbag2_py's SequentialReader (ROS 2 installed).

    ``module``: the rosbag2_py module (a stand-in in the tests).
    """

    def __init__(self, path, module=None):
        """Open the bag folder, or its .db3 / .mcap file."""
        self.module = module or importlib.import_module('rosbag2_py')
        self.reader = self.module.SequentialReader()
        # storage_id '' lets rosbag2 tell sqlite3 from MCAP (Jazzy on).
        self.reader.open(
            self.module.StorageOptions(uri=str(path), storage_id=''),
            self.module.ConverterOptions(input_serialization_format='cdr',
                                         output_serialization_format='cdr'))

    def topics(self):
        """Return {topic: message type} of the bag."""
        return {topic.name: topic.type
                for topic in self.reader.get_all_topics_and_types()}

    def messages(self, topics):
        """Yield (topic, receive time ns, serialized bytes) of ``topics``."""
        self.reader.set_filter(self.module.StorageFilter(topics=list(topics)))
        while self.reader.has_next():
            topic, data, timestamp = self.reader.read_next()
            yield topic, timestamp, data

    def close(self):
        """Close the bag (older rosbag2_py closes when collected)."""
        close = getattr(self.reader, 'close', None)
        if close is not None:
            close()


class RosbagsBag:
    """A bag read by the PyPI library rosbags (no ROS install)."""

    def __init__(self, path):
        """Open the bag folder, or its .db3 / .mcap file."""
        from pathlib import Path

        from rosbags.highlevel import AnyReader
        from rosbags.typesys import get_typestore, Stores

        # A bag without message definitions needs a typestore to open.
        self.reader = AnyReader([Path(path)],
                                default_typestore=get_typestore(Stores.LATEST))
        self.reader.open()

    def topics(self):
        """Return {topic: message type} of the bag."""
        return {c.topic: c.msgtype for c in self.reader.connections}

    def messages(self, topics):
        """Yield (topic, receive time ns, serialized bytes) of ``topics``."""
        connections = [c for c in self.reader.connections
                       if c.topic in topics]
        for connection, timestamp, data in self.reader.messages(
                connections=connections):
            yield connection.topic, timestamp, data

    def close(self):
        """Close the bag."""
        self.reader.close()


def importable(name):
    """Whether module ``name`` can be imported (without importing it)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def backend_name(requested=None):
    """
    Return the name of the reader to use.

    ``requested``, else $DYNAMICS_ROS_BAG_READER, else the first importable
    of rosbag2_py and rosbags; ImportError naming what to install when none
    is importable.
    """
    requested = requested or os.environ.get(BACKEND_VARIABLE) or None
    if requested is not None:
        if requested not in BACKENDS:
            raise ValueError('%s must be one of %s, got %r' % (
                BACKEND_VARIABLE, ', '.join(BACKENDS), requested))
        if not importable(requested):
            raise ImportError('%s is not installed: %s'
                              % (requested, INSTALL_HINT))
        return requested
    for name in BACKENDS:
        if importable(name):
            return name
    raise ImportError(INSTALL_HINT)


def open_bag(path, backend=None):
    """Return the bag at ``path`` opened by ``backend_name(backend)``."""
    name = backend_name(backend)
    if name == 'rosbag2_py':
        return Rosbag2PyBag(path)
    return RosbagsBag(path)
