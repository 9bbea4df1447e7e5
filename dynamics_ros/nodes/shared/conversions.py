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
Messages <-> numpy arrays for every dynamics_ros node.

Readers return the arrays, or raise ``BadInput`` saying what is wrong with
the message; a node catches it once per callback, logs it with
``ThrottledWarnings`` (``throttled_warnings``) and drops the message
(``ThrottledWarnings.dropping``).  Trajectories: ``trajectory_conversions``.

JointState (by joint *name*, never by index)::

    reader = JointStateReader(joint_names)     # the order you want
    arrays = reader(msg)                       # JointArrays (or BadInput)
    arrays.position, arrays.velocity           # (n,) float, joint_names order
    arrays.effort                              # (n,) or None if msg had none

  Names in the message that are not in ``joint_names`` are ignored (a
  joint_states topic also carries gripper and other joints).  BadInput is
  raised for: an empty message, duplicated names, ``joint_names`` entries
  missing from the message, position/velocity/effort lengths that differ
  from the name count (velocity and effort may be empty; empty velocity
  reads as zeros), and non-finite values of the joints read.
  ``joint_state_message(names, stamp, position=, velocity=, effort=)``
  builds a JointState (``stamp`` is a builtin_interfaces Time).

Float64MultiArray: ``matrix_message(M)`` / ``message_matrix(msg)`` (2-D,
row-major, labels 'rows'/'cols', dim[0].stride = rows*cols, dim[1].stride
= cols, as eigen_conversions), ``vector_message(v)`` /
``message_vector(msg, n)`` (1-D command vectors, data only, as
ros2_control's forward_command_controller).

Mimic joints (``model.mimic``: joint -> (master, multiplier, offset)):
``refuse_mimic_joints(names, mimic, what)`` raises BadInput when a command
or trajectory names a mimic joint (it follows its master and takes no
command of its own); ``message_vector(..., mimic=model.mimic)`` names them
in the reason about a command's size.

Time: ``to_seconds(Time or Duration msg)``, ``time_message(seconds)``.
Quoting user input in a reason: ``dynamics_ros.reasons``.
"""

import importlib
from typing import NamedTuple, Optional

from builtin_interfaces.msg import Time
import numpy as np
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, MultiArrayDimension

from ...reasons import NAMES_SHOWN, names_text, quote, shorten

# Names kept importable from here: they moved to modules of their own.
MOVED = {
    'ThrottledWarnings': 'throttled_warnings',
    'warning_text': 'throttled_warnings',
    'FIELDS': 'trajectory_conversions',
    'TrajectoryArrays': 'trajectory_conversions',
    'message_trajectory': 'trajectory_conversions',
    'point_field': 'trajectory_conversions',
    'trajectory_arrays': 'trajectory_conversions',
}


def __getattr__(name):
    """Return a name that moved out of this module (PEP 562)."""
    if name in MOVED:
        module = importlib.import_module('.' + MOVED[name], __package__)
        return getattr(module, name)
    raise AttributeError('module %r has no attribute %r' % (__name__, name))


class BadInput(ValueError):
    """
    A message, or a value in it, that cannot be used: says why.

    ``kind`` (optional) names the reason in a few words that do not change
    from one message to the next ('stale', 'ahead'): warnings are
    throttled by it (else by the reason's words without its values).
    """

    def __init__(self, text, kind=None):
        """Say why (``text``), and of what kind the reason is."""
        super().__init__(text)
        self.kind = kind


class JointArrays(NamedTuple):
    """Joint positions, velocities and efforts in a chosen joint order."""

    position: np.ndarray
    velocity: np.ndarray
    effort: Optional[np.ndarray]


def to_seconds(stamp):
    """Return a builtin_interfaces Time or Duration as float seconds."""
    return stamp.sec + 1e-9 * stamp.nanosec


def time_message(seconds):
    """Return a builtin_interfaces Time of ``seconds`` (>= 0)."""
    nanoseconds = int(round(seconds * 1e9))
    return Time(sec=nanoseconds // 1000000000,
                nanosec=nanoseconds % 1000000000)


def is_zero_time(stamp):
    """Return True for an all-zero stamp (meaning 'now' / 'on receipt')."""
    return stamp.sec == 0 and stamp.nanosec == 0


def name_index(names, joint_names, what='message', partial=False):
    """
    Return the index into ``names`` of each of ``joint_names``.

    Duplicated names and ``joint_names`` missing from ``names`` raise
    BadInput; extra names are allowed.  ``partial``: some of
    ``joint_names`` may be missing (not all): return (index of the ones
    named, their positions in ``joint_names``, None when all are named).
    """
    if len(names) == 0:
        raise BadInput('empty %s: no joint names' % what)
    index = {}
    for i, name in enumerate(names):
        if name in index:
            raise BadInput('%s names joint %s twice' % (what, quote(name)))
        index[name] = i
    missing = [name for name in joint_names if name not in index]
    if partial:
        if len(missing) < len(joint_names):
            if not missing:
                return np.array([index[name] for name in joint_names],
                                dtype=int), None
            present = np.array([j for j, name in enumerate(joint_names)
                                if name in index], dtype=int)
            return np.array([index[joint_names[j]] for j in present],
                            dtype=int), present
    if missing:
        unknown = sorted(set(names) - set(joint_names))
        raise BadInput('%s is missing joints %s%s' % (
            what, names_text(missing),
            ' (it names unknown joints %s)' % names_text(unknown)
            if unknown else ''))
    return np.array([index[name] for name in joint_names], dtype=int)


def pick(values, index, size, field, names, what='JointState'):
    """Return ``values[index]`` as floats (BadInput: length, non-finite)."""
    if len(values) != size:
        raise BadInput('%s %s has %d values for %d names' % (
            what, field, len(values), size))
    picked = np.asarray(values, dtype=float)[index]
    if not np.isfinite(picked).all():
        bad = int(np.flatnonzero(~np.isfinite(picked))[0])
        raise BadInput('%s %s of joint %s is %r (not finite)' % (
            what, field, quote(names[index[bad]]), float(picked[bad])))
    return picked


class JointStateReader:
    """
    Read JointState messages into arrays in a fixed joint order.

    ``partial``: a message may name some of the joints only (an arm's
    driver and a gripper's on one topic): ``__call__`` then returns
    (JointArrays of the joints named, their positions in ``joint_names``
    or None when all are named), the velocity None when the message has
    none (never zeros: a velocity not measured is not a velocity of 0).
    ``whole``: with ``partial``, a message must name every joint all the
    same (BadInput, as without ``partial``).
    """

    def __init__(self, joint_names, partial=False, whole=False):
        """Read joints ``joint_names`` (in that order) from messages."""
        self.joint_names = list(joint_names)
        self.partial = partial
        self.whole = whole
        self._names = None
        self._index = None
        self._joints = None

    def __call__(self, msg):
        """Return JointArrays of ``msg`` (BadInput: what is wrong)."""
        names = list(msg.name)
        if names != self._names:
            # Publishers keep one name order: look it up once, reuse.
            some = self.partial and not self.whole
            index = name_index(names, self.joint_names, 'JointState', some)
            if some:
                index, self._joints = index
            self._names, self._index = names, index
        index, size = self._index, len(names)
        position = pick(msg.position, index, size, 'position', names)
        velocity = None if self.partial else np.zeros(len(index))
        if len(msg.velocity):
            velocity = pick(msg.velocity, index, size, 'velocity', names)
        effort = None
        if len(msg.effort):
            effort = pick(msg.effort, index, size, 'effort', names)
        if self.partial:
            return JointArrays(position, velocity, effort), self._joints
        return JointArrays(position, velocity, effort)


def joint_state_arrays(msg, joint_names):
    """Return JointArrays of ``msg`` in ``joint_names`` order."""
    return JointStateReader(joint_names)(msg)


def joint_state_message(names, stamp=None, position=None, velocity=None,
                        effort=None, frame_id=''):
    """Return a JointState; fields left None stay empty."""
    msg = JointState()
    if stamp is not None:
        msg.header.stamp = stamp
    msg.header.frame_id = frame_id
    msg.name = list(names)
    for field, values in (('position', position), ('velocity', velocity),
                          ('effort', effort)):
        if values is not None:
            setattr(msg, field, [float(x) for x in values])
    return msg


def matrix_message(matrix):
    """Return a 2-D matrix as a row-major Float64MultiArray."""
    matrix = np.asarray(matrix, dtype=float)
    rows, cols = matrix.shape
    msg = Float64MultiArray()
    msg.layout.dim = [
        MultiArrayDimension(label='rows', size=rows, stride=rows * cols),
        MultiArrayDimension(label='cols', size=cols, stride=cols)]
    msg.layout.data_offset = 0
    msg.data = matrix.ravel(order='C').tolist()
    return msg


def message_matrix(msg):
    """Return the matrix of a 2-D row-major Float64MultiArray."""
    dims = msg.layout.dim
    if len(dims) != 2:
        raise BadInput('Float64MultiArray has %d dimensions, expected 2'
                       % len(dims))
    rows, cols = dims[0].size, dims[1].size
    offset = msg.layout.data_offset
    if len(msg.data) < offset + rows * cols:
        raise BadInput('Float64MultiArray has %d values for a %dx%d '
                       'matrix' % (len(msg.data), rows, cols))
    data = np.asarray(msg.data, dtype=float)
    stride = dims[1].stride or cols
    return np.array([data[offset + stride * i:offset + stride * i + cols]
                     for i in range(rows)]).reshape(rows, cols)


def vector_message(values):
    """Return a Float64MultiArray holding ``values`` (data only)."""
    msg = Float64MultiArray()
    msg.data = [float(x) for x in values]
    return msg


def message_vector(msg, size, what='command', mimic=None):
    """
    Return the (size,) data of a Float64MultiArray.

    BadInput: a size that differs from ``size``, or a non-finite value.  An
    all-NaN message means "no command" in ros2_control; it is refused too.
    ``mimic`` (a model's mimic joints) is named in the reason for a wrong
    size: a command for every joint, mimic ones included, is a likely one.
    """
    data = np.asarray(msg.data, dtype=float)
    if data.shape != (size,):
        raise BadInput('%s size (%d) does not match number of joints '
                       '(%d)%s' % (what, data.size, size, mimic_note(mimic)))
    if not np.all(np.isfinite(data)):
        if np.all(np.isnan(data)):
            raise BadInput('%s is all NaN (no command)' % what)
        bad = int(np.flatnonzero(~np.isfinite(data))[0])
        raise BadInput('%s has non-finite values (value %d is %r)' % (
            what, bad, float(data[bad])))
    return data


def refuse_mimic_joints(names, mimic, what='message'):
    """Raise BadInput if ``names`` include joints of ``mimic``."""
    named = [name for name in names if name in mimic]
    if named:
        raise BadInput(
            '%s names mimic joint%s %s: a mimic joint follows its master '
            'and takes no command of its own; command the master instead' % (
                what, 's' if len(named) > 1 else '', ', '.join(
                    '%s (follows %s)' % (shorten(name),
                                         shorten(mimic[name][0]))
                    for name in named[:NAMES_SHOWN])))


def mimic_note(mimic):
    """Return a note naming the mimic joints a command leaves out, or ''."""
    if not mimic:
        return ''
    return ' (mimic joints %s follow their masters and take no command)' % (
        names_text(sorted(mimic)))
