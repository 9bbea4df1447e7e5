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
A serialized JointTrajectory read straight into arrays.

``rclpy.serialization.deserialize_message`` builds a Python object per
point and per number: about 130 ms for 10,000 points of 7 joints, all of it
holding the GIL, so a node that reads long trajectories stalls its services
and timers meanwhile.  When every point has fields of the same sizes (what
planners send), the points have at most two layouts (8-byte
alignment of the doubles: a point's layout follows from its sizes and where
it starts modulo 8), so the whole array is read with a few numpy gathers
instead: a few milliseconds.

The layout is plain CDR, little-endian (the encapsulation ROS 2's default
middleware writes): after the 4-byte encapsulation header, each primitive
aligned to its size relative to that origin, a sequence as a uint32 count
and its elements (an empty sequence of doubles is not aligned), a string
as a uint32 length counting its NUL.  Anything else (big-endian, fields of
varying sizes, fewer than three points) returns None, and the caller
deserializes as usual; every count read is checked against the data, so a
malformed buffer is declined or refused (Malformed), never read past its
end.
"""

import struct

import numpy as np

from ..shared.trajectory_conversions import FIELDS, TrajectoryArrays

ORIGIN = 4               # the CDR stream starts after the encapsulation
LITTLE_ENDIAN = (b'\x00\x01', b'\x00\x03')   # CDR_LE, PL_CDR_LE
UINT32 = struct.Struct('<I')
STAMP = struct.Struct('<iI')


class Malformed(ValueError):
    """The bytes are not a JointTrajectory as laid out here."""


class Cursor:
    """A read position in CDR data, aligned relative to ``ORIGIN``."""

    def __init__(self, data, at=ORIGIN):
        self.data = data
        self.at = at

    def align(self, size):
        """Move to the next multiple of ``size`` from the origin."""
        self.at += -(self.at - ORIGIN) % size

    def take(self, size):
        """Return the offset of the next ``size`` bytes and skip them."""
        at = self.at
        if size < 0 or at + size > len(self.data):
            raise Malformed('reads past the end of the data')
        self.at = at + size
        return at

    def uint32(self):
        """Read an aligned uint32."""
        self.align(4)
        return UINT32.unpack_from(self.data, self.take(4))[0]

    def stamp(self):
        """Read (sec, nanosec) of a Time or Duration."""
        self.align(4)
        return STAMP.unpack_from(self.data, self.take(8))

    def string(self):
        """Read a string."""
        size = self.uint32()
        at = self.take(size)
        if size == 0 or self.data[at + size - 1] != 0:
            raise Malformed('a string is not terminated')
        try:
            return bytes(self.data[at:at + size - 1]).decode('utf-8')
        except UnicodeDecodeError as error:
            raise Malformed('a string is not UTF-8: %s' % error)

    def count(self, smallest):
        """Read a sequence's count, each element ``smallest`` bytes or more."""
        count = self.uint32()
        if count * smallest > len(self.data) - self.at:
            raise Malformed('a count of %d does not fit the data' % count)
        return count

    def doubles(self):
        """Return (count, offset) of a sequence of doubles and skip it."""
        count = self.uint32()
        if count == 0:
            return 0, self.at
        self.align(8)
        return count, self.take(8 * count)


def point_layout(cursor):
    """
    Read one point; return its layout relative to where it started.

    (start, {field: (count, count offset, values offset)}, time offset).
    """
    start = cursor.at
    fields = {}
    for field in FIELDS:
        cursor.align(4)
        counted = cursor.at
        count, values = cursor.doubles()
        fields[field] = (count, counted - start, values - start)
    cursor.align(4)
    return start, fields, cursor.take(8) - start


def gather(data, offsets, size, dtype):
    """Return the ``dtype`` values of ``size`` bytes at each of ``offsets``."""
    index = offsets[..., None] + np.arange(size)
    return data[index].view(dtype)[..., 0]


def point_starts(layouts, count, end):
    """
    Return the offset of each of ``count`` points, or None.

    ``layouts`` {phase: layout} of the phases the first points had; a point
    of a phase not among them, or points that run past ``end``, mean the
    counts differ somewhere (None: the general path reads them).
    """
    lengths = {phase: layout[2] + 8 for phase, layout in layouts.items()}
    starts = np.empty(count, dtype=np.int64)
    at = min(layout[0] for layout in layouts.values())
    for k in range(count):
        starts[k] = at
        length = lengths.get((at - ORIGIN) % 8)
        if length is None:
            return None
        at += length
    if at > end:
        return None   # not laid out as assumed (or cut short): decline
    return starts


def read_trajectory(data):
    """
    Return the conversions.TrajectoryArrays of a serialized JointTrajectory.

    None when the fast read does not apply (see the module); Malformed
    when the data cannot be a JointTrajectory.
    """
    if bytes(data[:2]) not in LITTLE_ENDIAN:
        return None
    cursor = Cursor(data)
    stamp = cursor.stamp()
    cursor.string()                                  # header.frame_id
    # A string takes 5 bytes or more (count, NUL), a point 24 (four counts
    # and time_from_start): a damaged count is refused before it is used.
    joint_names = [cursor.string() for _ in range(cursor.count(5))]
    count = cursor.count(24)
    if count < 3:
        return None   # nothing to gain
    # A point's layout depends only on its counts and on where it starts
    # modulo 8 (its phase: 0 or 4).  With the same counts everywhere the
    # first two points give the layout of both phases, or of the only
    # phase that occurs.
    first_points = [point_layout(cursor) for _ in range(2)]
    counts = {tuple(fields[field][0] for field in FIELDS)
              for _, fields, _ in first_points}
    if len(counts) != 1:
        return None
    layouts = {}
    for layout in first_points:
        layouts.setdefault((layout[0] - ORIGIN) % 8, layout)
    sizes = dict(zip(FIELDS, counts.pop()))
    starts = point_starts(layouts, count, len(data))
    if starts is None:
        return None
    phases = (starts - ORIGIN) % 8

    def offsets(pick):
        # The offset ``pick(layout)`` within each point, by its phase.
        table = np.zeros(8, dtype=np.int64)
        for phase, layout in layouts.items():
            table[phase] = pick(layout)
        return starts + table[phases]

    raw = np.frombuffer(data, dtype=np.uint8)
    fields = {}
    for field in FIELDS:
        size = sizes[field]
        # Every point's counts equal the first points': it is laid out as
        # the first point of its phase, so these are its offsets.
        counted = offsets(lambda layout: layout[1][field][1])
        if np.any(gather(raw, counted, 4, '<u4') != size):
            return None   # a point of another shape: the general path
        if size == 0:
            fields[field] = None
            continue
        values = offsets(lambda layout: layout[1][field][2])
        fields[field] = (gather(raw, values[:, None] + 8 * np.arange(size),
                                8, '<f8').copy(), np.ones(count, dtype=bool))
    time_at = offsets(lambda layout: layout[2])
    seconds = gather(raw, time_at, 4, '<i4').astype(float)
    nanoseconds = gather(raw, time_at + 4, 4, '<u4').astype(float)
    return TrajectoryArrays(stamp, joint_names, seconds + 1e-9 * nanoseconds,
                            fields)
