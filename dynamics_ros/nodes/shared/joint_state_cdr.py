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
A serialized JointState read straight into arrays.

At 1 kHz, turning each ``joint_states`` message into a Python JointState
(a list of name strings, three arrays) and then into numpy arrays costs
more than the dynamics.  A publisher keeps its joint names and their
order, so the serialized name list is the same bytes in every message:
``JointStateCdrReader`` decodes it once, keeps those bytes, and for each
later message only checks that they are there again (one ``startswith``)
before reading the stamp and the numbers in place.

The layout is plain CDR, little-endian (see ``trajectory_cdr``): the
stamp (int32 sec, uint32 nanosec) right after the 4-byte encapsulation
header, ``frame_id``, the names (a uint32 count, each a uint32 length
counting its NUL and the bytes), then position, velocity and effort, each
a uint32 count and, when not empty, its doubles aligned to 8 from the
origin.  The reader gives the same arrays, and raises the same BadInput
with the same text, as ``conversions.JointStateReader`` on the
deserialized message; whatever it does not read with certainty (another
encoding, a name with a NUL inside, a count past the end of the data) it
declines with None, and the caller deserializes the message as usual.
"""

import math
import struct

import numpy as np

from .conversions import JointArrays, name_index, pick

ORIGIN = 4                  # the CDR stream starts after the encapsulation
CDR_LE = b'\x00\x01'        # plain CDR, little-endian
UINT32 = struct.Struct('<I')
STAMP = struct.Struct('<iI')
FIELDS = ('position', 'velocity', 'effort')


def read_names(data, at):
    """
    Return (names, end) of the string sequence at offset ``at``, or None.

    None for anything not read with certainty: a count or length past the
    data, a string without its NUL, a NUL inside one (rclpy would cut the
    name there), bytes that are not UTF-8.
    """
    end = len(data)
    if at + 4 > end:
        return None
    count = UINT32.unpack_from(data, at)[0]
    at += 4
    if count * 5 > end - at:   # each name takes 5 bytes or more
        return None
    names = []
    for _ in range(count):
        at += -at % 4
        if at + 4 > end:
            return None
        size = UINT32.unpack_from(data, at)[0]
        at += 4
        if size == 0 or at + size > end or data[at + size - 1] != 0:
            return None
        text = data[at:at + size - 1]
        if b'\x00' in text:
            return None
        try:
            names.append(text.decode('utf-8'))
        except UnicodeDecodeError:
            return None
        at += size
    return names, at


class JointStateCdrReader:
    """Read serialized JointStates into arrays in a fixed joint order."""

    def __init__(self, joint_names, partial=False, whole=False):
        """
        Read joints ``joint_names`` (in that order) from messages.

        ``partial``, ``whole``: as conversions.JointStateReader's (a
        message may name some of the joints; the velocity is None when it
        has none).
        """
        self.joint_names = list(joint_names)
        self.partial = partial
        self.whole = whole
        self._name_bytes = None   # the serialized names last seen
        self._names = None
        self._index = None
        self._joints = None
        self._gathers = {}   # layout -> word indices of the values read
        # Name lists seen (several publishers on one topic): bytes ->
        # (names, index, joints), so alternating between them costs a
        # lookup, not a decoding.
        self._known = {}

    def learn_names(self, data, at):
        """Decode the names at ``at``; return False if not read with certainty."""
        read = read_names(data, at)
        if read is None:
            return False
        names, end = read
        name_bytes = bytes(data[at:end])
        known = self._known.get(name_bytes)
        if known is None:
            # The same check and reason as JointStateReader (BadInput).
            some = self.partial and not self.whole
            index = name_index(names, self.joint_names, 'JointState', some)
            joints = None
            if some:
                index, joints = index
            if len(self._known) > 16:
                self._known.clear()
            known = self._known[name_bytes] = (names, index, joints)
        self._name_bytes = name_bytes
        self._names, self._index, self._joints = known
        self._gathers.clear()
        return True

    def __call__(self, data):
        """
        Return ((sec, nanosec), JointArrays) of serialized ``data``.

        BadInput as JointStateReader raises it for the message; None when
        ``data`` is not read here (deserialize it instead).  ``partial``:
        ((sec, nanosec), JointArrays, joints), as JointStateReader's.
        """
        end = len(data)
        if end < 16 or data[0] != 0 or data[1] != 1:
            return None
        stamp = STAMP.unpack_from(data, 4)
        at = 16 + UINT32.unpack_from(data, 12)[0]   # after frame_id
        at += -at % 4
        if at > end:
            return None
        if self._name_bytes is None or not data.startswith(
                self._name_bytes, at):
            if not self.learn_names(data, at):
                return None
        at += len(self._name_bytes)
        # Where each field's values start, and how many there are.
        layout = []
        for _ in FIELDS:
            at += -at % 4
            if at + 4 > end:
                return None
            count = UINT32.unpack_from(data, at)[0]
            at += 4
            if count:
                at += -(at - ORIGIN) % 8
                if count > (end - at) // 8:
                    return None
            layout.append((at, count))
            at += 8 * count
        layout = tuple(layout)
        gather = self._gathers.get(layout)
        if gather is None:
            gather = self.gather(layout)
        if gather is not None:
            # Every double lies on the 8-byte grid from the origin: one
            # gather picks the joints' values of every field at once.
            words = np.frombuffer(data, '<f8', (end - ORIGIN) // 8, ORIGIN)
            values = words[gather]
            # A NaN or inf makes the sum of squares non-finite (so may a
            # huge finite value: then the field-by-field read decides).
            if math.isfinite(values.dot(values)):
                arrays = self.split(values, layout)
            else:
                arrays = self.picked(data, layout)   # BadInput: the reason
        else:
            arrays = self.picked(data, layout)
        if self.partial:
            return stamp, arrays, self._joints
        return stamp, arrays

    def gather(self, layout):
        """
        Return the word indices of the joints' values of ``layout``, or None.

        None when a field has a count other than the names' (or position
        none): ``picked`` then raises the reason.  Remembered per layout.
        """
        size = len(self._names)
        counts = [count for _, count in layout]
        if counts[0] != size or any(c not in (0, size) for c in counts):
            return None
        if len(self._gathers) > 64:   # frame_ids of many lengths
            self._gathers.clear()
        gather = np.concatenate([(at - ORIGIN) // 8 + self._index
                                 for at, count in layout if count])
        self._gathers[layout] = gather
        return gather

    def split(self, values, layout):
        """Return the JointArrays of the gathered ``values`` of ``layout``."""
        n = len(self._index)
        position = values[:n]
        velocity = values[n:2 * n] if layout[1][1] else (
            None if self.partial else np.zeros(n))
        effort = None
        if layout[2][1]:
            effort = values[-n:]
        return JointArrays(position, velocity, effort)

    def picked(self, data, layout):
        """Return the JointArrays of ``layout`` field by field (BadInput)."""
        index, names = self._index, self._names
        arrays = []
        for field, (at, count) in zip(FIELDS, layout):
            if count == 0 and field != 'position':
                arrays.append(None)
                continue
            values = np.frombuffer(data, '<f8', count, at)
            arrays.append(pick(values, index, len(names), field, names))
        position, velocity, effort = arrays
        if velocity is None and not self.partial:
            velocity = np.zeros(len(index))
        return JointArrays(position, velocity, effort)
