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
Messages kept serialized: only their stamp and numbers are rewritten.

simulator_node publishes ``joint_states`` and ``/clock`` every step, and
inverse_dynamics_node ``feedforward`` and ``effort_commands`` for every
joint state; rclpy publishes ``bytes`` as a serialized message as they
are, so converting and serializing a Python message each time (most of the
cost of a small message) is replaced by packing the new stamp and numbers
into a buffer whose layout was found once.
"""

from array import array
import struct

from builtin_interfaces.msg import Time
import numpy as np
from rclpy.serialization import deserialize_message, serialize_message
from rosgraph_msgs.msg import Clock
from std_msgs.msg import Float64MultiArray

from .conversions import joint_state_message


def doubles(values):
    """Return a float64 numpy array as an array.array('d') (no copy loop)."""
    return array('d', values.tobytes())


# A stamp of (sec, nanosec) as CDR lays it out (little-endian int32, uint32),
# and marker values that no serialized field holds by chance.
STAMP = struct.Struct('<iI')
MARKER_STAMP = (0x5EC0DE5, 0x3ADBEEF)
MARKER_VALUE = 1234567.890625


def found_once(data, marker):
    """Return the offset of the only occurrence of ``marker``, else None."""
    at = data.find(marker)
    if not marker or at < 0 or data.find(marker, at + 1) >= 0:
        return None
    return at


class SerializedMessage:
    """
    A message kept serialized, of which only the stamp and numbers change.

    rclpy publishes ``bytes`` as a serialized message as they are: no
    Python message is converted to C and serialized per step, which is most
    of the cost of a small message.  The offsets of the stamp and of the
    float64 arrays are found once by serializing ``prototype`` filled with
    marker values (``fill``, which must give each array ``sizes[k]``
    distinct markers), and checked by deserializing a filled copy; a
    ValueError says the layout was not recognised (the caller then builds
    messages as usual).  A message without a stamp (``stamped=False``)
    ignores the ``nanoseconds`` of ``serialized``.
    """

    def __init__(self, prototype, fill, sizes, stamped=True):
        stamp = Time(sec=MARKER_STAMP[0], nanosec=MARKER_STAMP[1])
        markers = [MARKER_VALUE * (k + 1) + np.arange(size)
                   for k, size in enumerate(sizes)]
        fill(prototype, stamp, markers)
        data = serialize_message(prototype)
        self.stamp_at = found_once(data, STAMP.pack(*MARKER_STAMP)) \
            if stamped else None
        offsets = [found_once(data, values.tobytes()) for values in markers]
        if (stamped and self.stamp_at is None) or None in offsets:
            raise ValueError('%s: serialized layout not recognised'
                             % type(prototype).__name__)
        self.buffer = bytearray(data)
        # Views of the buffer, possibly unaligned: numpy copies into them.
        self.arrays = [np.frombuffer(self.buffer, np.float64, size, at)
                       for size, at in zip(sizes, offsets)]
        self.check(prototype, fill)

    def check(self, prototype, fill):
        """Raise ValueError unless a filled copy reads back as it should."""
        values = [np.linspace(-1.0, 1.0, numbers.size)
                  for numbers in self.arrays]
        data = self.serialized(1234567890123, values)
        fill(prototype, Time(sec=1234, nanosec=567890123), values)
        if deserialize_message(data, type(prototype)) != prototype:
            raise ValueError('%s: serialized copy does not read back'
                             % type(prototype).__name__)

    def serialized(self, nanoseconds, values=()):
        """Return the message stamped ``nanoseconds`` with ``values``."""
        if self.stamp_at is not None:
            STAMP.pack_into(self.buffer, self.stamp_at,
                            nanoseconds // 1000000000,
                            nanoseconds % 1000000000)
        for numbers, value in zip(self.arrays, values):
            numbers[:] = value
        return bytes(self.buffer)


def fill_joint_state(msg, stamp, arrays):
    """Set a JointState's stamp and its position, velocity, effort."""
    msg.header.stamp = stamp
    msg.position, msg.velocity, msg.effort = (doubles(np.asarray(values))
                                              for values in arrays)


def fill_effort_state(msg, stamp, arrays):
    """Set a JointState's stamp and its effort (no position, velocity)."""
    msg.header.stamp = stamp
    msg.effort = doubles(np.asarray(arrays[0]))


def fill_vector(msg, stamp, arrays):
    """Set a Float64MultiArray's data (it has no stamp)."""
    msg.data = doubles(np.asarray(arrays[0]))


def fill_clock(msg, stamp, arrays):
    """Set a Clock's time (it has no arrays)."""
    msg.clock = stamp


def serialized_joint_state(joint_names):
    """Return the SerializedMessage of a JointState, or None."""
    n = len(joint_names)
    try:
        return SerializedMessage(joint_state_message(joint_names),
                                 fill_joint_state, (n, n, n))
    except ValueError:
        return None


def serialized_effort_state(joint_names):
    """Return the SerializedMessage of a JointState of efforts, or None."""
    try:
        return SerializedMessage(joint_state_message(joint_names),
                                 fill_effort_state, (len(joint_names),))
    except ValueError:
        return None


def serialized_vector(size):
    """Return the SerializedMessage of a Float64MultiArray, or None."""
    try:
        return SerializedMessage(Float64MultiArray(), fill_vector, (size,),
                                 stamped=False)
    except ValueError:
        return None


def serialized_clock():
    """Return the SerializedMessage of a Clock, or None."""
    try:
        return SerializedMessage(Clock(), fill_clock, ())
    except ValueError:
        return None
