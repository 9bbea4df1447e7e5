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
``ThrottledWarnings`` and drops the message (``ThrottledWarnings.dropping``).

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
  ``joint_state_arrays(msg, joint_names)`` is the one-shot form.
  ``joint_state_message(names, stamp, position=, velocity=, effort=)``
  builds a JointState (``stamp`` is a builtin_interfaces Time).

Float64MultiArray::

    matrix_message(M) / message_matrix(msg)     # 2-D, row-major, labels
                                                # 'rows'/'cols', dim[0].stride
                                                # = rows*cols, dim[1].stride
                                                # = cols (eigen_conversions)
    vector_message(v) / message_vector(msg, n)  # 1-D command vectors (data
                                                # only, as ros2_control's
                                                # forward_command_controller)

JointTrajectory::

    trajectory_arrays(msg, joint_names, start_time)  # control.trajectory.
                                                     # Trajectory

  ``start_time`` (absolute seconds) is used when ``header.stamp`` is zero
  (start on receipt), as joint_trajectory_controller does.

Mimic joints (``model.mimic``: joint -> (master, multiplier, offset)):
``refuse_mimic_joints(names, mimic, what)`` raises BadInput when a command
or trajectory names a mimic joint (it follows its master and takes no
command of its own, as ros2_control exports no command interface for it);
``message_vector(..., mimic=model.mimic)`` names them in the reason about a
command's size.  A JointState naming mimic joints is read as any other: they are
extra names, ignored (their values follow from their masters').

Time: ``to_seconds(Time or Duration msg)``, ``time_message(seconds)``.

Warnings: ``ThrottledWarnings(logger, period=2.0).warn(key, text)`` logs a
warning at most once per ``period`` seconds (wall clock) per ``key`` and
says how many were suppressed meanwhile (``text`` may be a function, called
only when the warning is logged); ``.warn_each(key, flags, text)`` does so
for each set flag j of a bool array, with ``text(j)``, in array
operations; ``.ignored(topic, reason)`` logs
'<topic> ignored: <reason>' keyed by both.  A text longer than
``MAX_LOG_CHARS`` is cut.

Quoting user input (names from messages, parameter values) in a reason or a
log: ``quote(value)`` is its repr cut to ``QUOTE_CHARS`` (80) characters with
'...', ``names_text(names)`` the first few names, each quoted, and how many
more.  A 100k-character joint name gives a short log line.
"""

import math
import time
from typing import NamedTuple, Optional

from builtin_interfaces.msg import Time
import numpy as np
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, MultiArrayDimension

from ..control.trajectory import Trajectory

QUOTE_CHARS = 80  # a quoted user value (name, parameter) is cut to this
NAMES_SHOWN = 5  # a list of names in a reason shows this many
MAX_LOG_CHARS = 2000  # a ThrottledWarnings text is cut to this


class BadInput(ValueError):
    """A message, or a value in it, that cannot be used: says why."""


def shorten(text, limit=QUOTE_CHARS):
    """Return ``text`` cut to ``limit`` characters plus '...' if longer."""
    text = str(text)
    return text if len(text) <= limit else text[:limit] + '...'


def quote(value, limit=QUOTE_CHARS):
    """
    Return the repr of a user value, at most about ``limit`` characters.

    A string is cut before quoting (``'abc...'``); a long sequence shows
    its first items only, so no huge repr is ever built.
    """
    if isinstance(value, str):
        return repr(value) if len(value) <= limit else \
            repr(value[:limit]) + '...'
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    try:
        size = len(value)
    except TypeError:
        return shorten(repr(value), limit)
    if isinstance(value, (bytes, bytearray)):
        return shorten(repr(bytes(value[:limit + 1])), limit)
    items = []
    length = 2
    for item in list(value[:NAMES_SHOWN * 4]):
        text = quote(item.item() if hasattr(item, 'item') else item, limit)
        items.append(text)
        length += len(text) + 2
        if length > limit:
            break
    text = '[%s' % ', '.join(items)
    if len(items) < size:
        return shorten(text, limit) + ', ... (%d values)]' % size
    return text + ']'


def names_text(names, shown=NAMES_SHOWN, limit=QUOTE_CHARS):
    """Return 'a, b, ... (N more)': the first names, each cut to ``limit``."""
    names = list(names)
    text = ', '.join(shorten(name, limit) for name in names[:shown])
    if len(names) > shown:
        text += ', ... (%d more)' % (len(names) - shown)
    return text


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


def name_index(names, joint_names, what='message'):
    """
    Return the index into ``names`` of each of ``joint_names``.

    Duplicated names and ``joint_names`` missing from ``names`` raise
    BadInput; extra names are allowed.
    """
    if len(names) == 0:
        raise BadInput('empty %s: no joint names' % what)
    index = {}
    for i, name in enumerate(names):
        if name in index:
            raise BadInput('%s names joint %s twice' % (what, quote(name)))
        index[name] = i
    missing = [name for name in joint_names if name not in index]
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
    """Read JointState messages into arrays in a fixed joint order."""

    def __init__(self, joint_names):
        """Read joints ``joint_names`` (in that order) from messages."""
        self.joint_names = list(joint_names)
        self._names = None
        self._index = None

    def __call__(self, msg):
        """Return JointArrays of ``msg`` (BadInput: what is wrong)."""
        names = list(msg.name)
        if names != self._names:
            # Publishers keep one name order: look it up once, reuse.
            index = name_index(names, self.joint_names, 'JointState')
            self._names, self._index = names, index
        index, size = self._index, len(names)
        position = pick(msg.position, index, size, 'position', names)
        velocity = np.zeros(len(index))
        if len(msg.velocity):
            velocity = pick(msg.velocity, index, size, 'velocity', names)
        effort = None
        if len(msg.effort):
            effort = pick(msg.effort, index, size, 'effort', names)
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


class TrajectoryArrays(NamedTuple):
    """
    The fields of a JointTrajectory as arrays, one row per point.

    ``fields[name]`` is (values (k, m), has (k,)): the points that carry
    that field (the others' rows are zeros), or None when no point does.
    Read from a message (``message_trajectory``) or from its serialized
    bytes (``trajectory_cdr.read_trajectory``).
    """

    stamp: tuple       # header.stamp as (sec, nanosec)
    joint_names: list
    times: np.ndarray  # time_from_start of each point, s
    fields: dict


FIELDS = ('positions', 'velocities', 'accelerations', 'effort')


def message_trajectory(msg):
    """
    Return the TrajectoryArrays of a JointTrajectory message.

    One pass per field: the values are joined into one buffer, not read
    per point.  A point whose field has another length than the joint
    names is BadInput.
    """
    points = msg.points
    stamps = np.array([(p.time_from_start.sec, p.time_from_start.nanosec)
                       for p in points], dtype=float).reshape(-1, 2)
    fields = {}
    for field in FIELDS:
        columns = [getattr(point, field) for point in points]
        lengths = np.fromiter(map(len, columns), dtype=int,
                              count=len(columns))
        has = lengths != 0
        if not np.any(has):
            fields[field] = None
            continue
        size = len(msg.joint_names)
        wrong = np.flatnonzero(has & (lengths != size))
        if wrong.size:
            k = int(wrong[0])
            raise BadInput('JointTrajectory point %d %s has %d values for %d '
                           'names' % (k, field, lengths[k], size))
        given = [columns[k] for k in np.flatnonzero(has)]
        try:
            data = np.frombuffer(b''.join(given), dtype=float)
        except TypeError:  # plain lists (a message built in Python)
            data = np.array(given, dtype=float).ravel()
        values = np.zeros((len(columns), size))
        values[has] = data.reshape(-1, size)
        fields[field] = (values, has)
    stamp = msg.header.stamp
    return TrajectoryArrays((stamp.sec, stamp.nanosec), list(msg.joint_names),
                            stamps[:, 0] + 1e-9 * stamps[:, 1], fields)


def point_field(arrays, field, index, names, optional):
    """
    Return one field of every point as (values (k, n) in ``index`` order, has).

    An optional field may be missing from some or all points (their rows
    are zeros); BadInput for a required field a point lacks, a length other
    than the names', or a non-finite value.
    """
    k, size = arrays.times.size, len(names)
    given = arrays.fields.get(field)
    if given is None:
        if optional:
            return np.zeros((k, len(index))), np.zeros(k, dtype=bool)
        raise BadInput('JointTrajectory point 0 %s has 0 values for %d '
                       'names' % (field, size))
    values, has = given
    if values.shape[1] != size:
        k = int(np.argmax(has))
        raise BadInput('JointTrajectory point %d %s has %d values for %d '
                       'names' % (k, field, values.shape[1], size))
    if not optional and not np.all(has):
        k = int(np.argmin(has))
        raise BadInput('JointTrajectory point %d %s has 0 values for %d '
                       'names' % (k, field, size))
    values = values[:, index]
    finite = np.isfinite(values)
    if not np.all(finite):
        k, j = (int(x[0]) for x in np.nonzero(~finite))
        raise BadInput('JointTrajectory point %d %s of joint %s is %r (not '
                       'finite)' % (k, field, quote(names[index[j]]),
                                    float(values[k, j])))
    return values, has


def trajectory_arrays(msg, joint_names, start_time):
    """
    Return a control.trajectory.Trajectory of ``msg`` (else BadInput).

    ``msg``: a JointTrajectory, or its TrajectoryArrays.  Every joint of
    ``joint_names`` must be named, no other joint may be (a partial or
    foreign trajectory is refused), there must be at least one point, times
    from start must be strictly increasing and every point must have
    positions.  Starts at ``header.stamp``, or at ``start_time`` (absolute
    seconds) when the stamp is zero.  Converted with numpy: a 10,000-point
    trajectory costs milliseconds.
    """
    names = list(msg.joint_names)
    index = name_index(names, joint_names, 'JointTrajectory')
    unknown = sorted(set(names) - set(joint_names))
    if unknown:
        raise BadInput('JointTrajectory names joints %s that are not '
                       'controlled (joints: %s)' % (
                           names_text(unknown), names_text(joint_names)))
    arrays = msg if isinstance(msg, TrajectoryArrays) else \
        message_trajectory(msg)
    times = arrays.times
    if times.size == 0:
        raise BadInput('JointTrajectory has no points')
    steps = np.diff(times)
    if times[0] < 0.0 or np.any(steps <= 0.0):
        k = 0 if times[0] < 0.0 else int(np.flatnonzero(steps <= 0.0)[0]) + 1
        raise BadInput('JointTrajectory times from start must be >= 0 and '
                       'strictly increasing, point %d is at %r s%s' % (
                           k, float(times[k]),
                           ' after %r s' % float(times[k - 1]) if k else ''))
    (positions, _), (velocities, has_velocity), \
        (accelerations, has_acceleration) = (
            point_field(arrays, field, index, names, optional)
            for field, optional in (('positions', False),
                                    ('velocities', True),
                                    ('accelerations', True)))
    sec, nanosec = arrays.stamp
    return Trajectory(
        times=times, positions=positions, velocities=velocities,
        accelerations=accelerations, has_velocity=has_velocity,
        has_acceleration=has_acceleration,
        start_time=(start_time if sec == 0 and nanosec == 0
                    else sec + 1e-9 * nanosec))


def warning_text(text, suppressed):
    """Return a throttled warning: ``text`` cut, and how many it stood for."""
    text = shorten(text, MAX_LOG_CHARS)
    if suppressed > 0:
        text = '%s (%d similar warnings suppressed)' % (text, suppressed)
    return text


class ThrottledWarnings:
    """Log warnings at most once per period per key (wall clock)."""

    def __init__(self, logger, period=2.0, clock=time.monotonic):
        """Log through ``logger`` (an rclpy logger or any .warning())."""
        self.logger = logger
        self.period = period
        self.clock = clock
        self._last = {}
        self._suppressed = {}
        self._each = {}   # warn_each: key -> (next allowed time, count)

    def warn(self, key, text):
        """
        Log ``text`` unless ``key`` was logged less than a period ago.

        ``text`` may be a function returning the text: it is called only
        when the warning is logged (a 1 kHz path formats nothing it drops).
        """
        now = self.clock()
        last = self._last.get(key)
        if last is not None and now - last < self.period:
            self._suppressed[key] = self._suppressed.get(key, 0) + 1
            return False
        if len(self._last) > 1000:  # many distinct keys: forget old ones
            self._last.clear()
        suppressed = self._suppressed.pop(key, 0)
        if callable(text):
            text = text()
        self._last[key] = now
        self.logger.warning(warning_text(text, suppressed))
        return True

    def warn_each(self, key, flags, text):
        """
        Warn ``text(j)`` for each j where the bool array ``flags`` is set.

        Throttled as ``warn`` is, per (``key``, j), but with array
        operations: a 1 kHz caller that flags several joints in every
        message pays a few numpy calls, not a Python call per flag, and
        ``text`` is called only for the warnings logged.
        """
        now = self.clock()
        state = self._each.get(key)
        if state is None or state[0].size != flags.size:
            state = self._each[key] = (np.full(flags.size, -np.inf),
                                       np.zeros(flags.size, dtype=np.int64))
        allowed, count = state
        count += flags
        due = flags & (allowed <= now)
        if not np.count_nonzero(due):
            return
        for j in np.flatnonzero(due).tolist():
            self.logger.warning(warning_text(text(j), int(count[j]) - 1))
            count[j] = 0
            allowed[j] = now + self.period

    def ignored(self, topic, reason):
        """Warn that a message on ``topic`` was dropped, and why."""
        return self.warn((topic, reason), '%s ignored: %s' % (topic, reason))

    def dropping(self, topic, callback):
        """
        Return ``callback`` with its BadInput caught: warned, message dropped.

        The one place a node's message callback turns a refusal into a
        throttled '<topic> ignored: <reason>' warning.
        """
        def receive(msg):
            try:
                callback(msg)
            except BadInput as error:
                self.ignored(topic, str(error))
        return receive
