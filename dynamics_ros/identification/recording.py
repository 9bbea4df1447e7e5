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
Recorded joint data in: ROS 2 bags (sqlite3, MCAP), CSV; filtered states.

Bags are read by rosbag2_py where ROS 2 is installed and by the PyPI
``rosbags`` library (pure Python) otherwise, both storage formats through
one small interface (``bag_reader``).  Positions and efforts come from
``sensor_msgs/msg/JointState`` messages, matched by joint *name* (a
message may list other joints, in any order).

Velocities and accelerations are derived from the positions, not taken
from the drivers (often differentiated without filtering, or absent): a
Butterworth low-pass run forward and backward (scipy.signal.filtfilt,
zero phase), then central differences of the filtered positions, each
filtered again.  The efforts go through the same filter, so that the
torques computed from the filtered states and the measured ones see the
same attenuation near the cut-off ("parallel filtering", Swevers et al.
1997 sec. 5; Gautier 1997).
"""

import csv
import os
import stat

import numpy as np
import scipy.signal

from .bag_reader import decode_joint_state, open_bag
from ..errors import IdentificationError

JOINT_STATE = 'sensor_msgs/msg/JointState'
DEFAULT_TOPIC = 'joint_states'
DEFAULT_CUTOFF = 5.0         # Hz: the excitation's harmonics stay below
FILTER_ORDER = 4
MINIMUM_SAMPLES = 200
MINIMUM_DURATION = 2.0       # s
MOTIONLESS = 1e-3            # rad (or m): a joint moving less never moved
# Largest recording file read (a bag of a day at 1 kHz of a 7-joint arm is
# about 20 GB; a CSV is read whole, so its cap is lower): what is larger is
# not a recording, or is read by splitting it (several bags).
MAX_BAG_BYTES = 64 * 2 ** 30
MAX_CSV_BYTES = 2 * 2 ** 30
# Messages per chunk read from a bag or CSV (memory stays bounded).
CHUNK_SAMPLES = 50000


class Recording:
    """
    Joint data over time, as recorded.

    ``times`` (N,) s, ``positions`` and ``efforts`` (N, nq) in
    ``joint_names`` order, ``velocities`` (N, nq) or None, and ``source``
    (where it came from, for messages).
    """

    def __init__(self, joint_names, times, positions, efforts,
                 velocities=None, source='data'):
        """Hold the arrays."""
        self.joint_names = list(joint_names)
        self.times = np.asarray(times, dtype=float)
        self.positions = np.asarray(positions, dtype=float)
        self.efforts = None if efforts is None else np.asarray(
            efforts, dtype=float)
        self.velocities = None if velocities is None else np.asarray(
            velocities, dtype=float)
        self.source = source

    def __len__(self):
        """Return the number of samples."""
        return len(self.times)

    def select(self, joint_names):
        """Return the recording of ``joint_names`` only, in that order."""
        missing = [j for j in joint_names if j not in self.joint_names]
        if missing:
            raise IdentificationError(
                '%s has no data for joints %s (it has: %s)' % (
                    self.source, ', '.join(missing),
                    ', '.join(self.joint_names) or 'none'))
        index = [self.joint_names.index(j) for j in joint_names]
        return Recording(joint_names, self.times, self.positions[:, index],
                         self.efforts[:, index],
                         None if self.velocities is None
                         else self.velocities[:, index], self.source)

    def part(self, rows):
        """Return the samples ``rows`` (a slice or index array)."""
        return Recording(self.joint_names, self.times[rows],
                         self.positions[rows], self.efforts[rows],
                         None if self.velocities is None
                         else self.velocities[rows], self.source)


def checked_path(path, kind, cap):
    """
    Refuse what is not a recording before opening it (IdentificationError).

    ``os.stat`` first, never ``open``: a FIFO would block the reader, a
    character device such as /dev/zero never ends.  A bag may be a folder
    (its files are checked by the same rule) or a regular file; a CSV is a
    regular file.  Files larger than ``cap`` bytes are refused.
    """
    source = '%s %r' % (kind, os.path.basename(os.path.normpath(str(path))))
    try:
        status = os.stat(path)
    except OSError as error:
        raise IdentificationError('%s: %s' % (
            source, error.strerror or 'cannot be read'))
    if stat.S_ISDIR(status.st_mode) and kind == 'bag':
        size = 0
        for name in os.listdir(path):
            inner = os.stat(os.path.join(path, name))
            if not (stat.S_ISREG(inner.st_mode) or stat.S_ISDIR(
                    inner.st_mode)):
                raise IdentificationError(
                    '%s: %r in it is not a regular file' % (source, name))
            size += inner.st_size
    elif stat.S_ISREG(status.st_mode):
        size = status.st_size
    else:
        raise IdentificationError(
            '%s is not a regular file%s (a FIFO, device or socket is not a '
            'recording)' % (source, ' or folder' if kind == 'bag' else ''))
    if size > cap:
        raise IdentificationError('%s is %.3g GB, more than the %.3g GB a '
                                  'recording may be (split it into several)'
                                  % (source, size / 2 ** 30, cap / 2 ** 30))
    return source


def message_time(message, timestamp):
    """Return the header stamp in s, or the bag's receive time if unset."""
    if message.sec == 0 and message.nanosec == 0:
        return timestamp * 1e-9
    return message.sec + message.nanosec * 1e-9


def read_bag(path, joint_names=None, topic=DEFAULT_TOPIC):
    """
    Read JointState messages of ``topic`` from a ROS 2 bag (sqlite3, MCAP).

    ``joint_names``: the joints to keep (default: those of the first
    message).  A message without all of them is skipped (drivers that
    publish joints in groups are merged by their stamps first); errors
    name a missing topic, missing joints and missing efforts.
    """
    return joined(list(bag_chunks(path, joint_names, topic, None)))


def joined(chunks):
    """Return one Recording of consecutive chunks."""
    first = chunks[0]
    return Recording(first.joint_names,
                     np.concatenate([c.times for c in chunks]),
                     np.concatenate([c.positions for c in chunks]),
                     np.concatenate([c.efforts for c in chunks]),
                     source=first.source)


def bag_chunks(path, joint_names=None, topic=DEFAULT_TOPIC,
               size=CHUNK_SAMPLES):
    """
    Yield the bag's samples as Recordings of about ``size`` samples each.

    ``size`` None: one Recording of everything.  Samples are those of
    ``read_bag``; messages that share a stamp are merged (a stamp split
    across a chunk boundary keeps its joints only if one part has all).
    """
    source = checked_path(path, 'bag', MAX_BAG_BYTES)
    wanted = topic if topic.startswith('/') else '/' + topic
    try:
        reader = open_bag(path)
    except ImportError as error:
        raise IdentificationError('%s: %s' % (source, error))
    except Exception as error:  # noqa: B902 (the readers' own and OS errors)
        raise IdentificationError(
            '%s cannot be read as a ROS 2 bag (sqlite3 or MCAP; a bag folder '
            'or its .db3 / .mcap file): %s' % (source, str(error)[:200]))
    try:
        topics = reader.topics()
        found = [name for name in topics if name in (topic, wanted)]
        if not found:
            raise IdentificationError(
                '%s has no topic %r (topics: %s)' % (
                    source, wanted, ', '.join(sorted(topics)) or 'none'))
        if any(topics[name] != JOINT_STATE for name in found):
            raise IdentificationError('%s: topic %r is %s, not %s' % (
                source, wanted, topics[found[0]], JOINT_STATE))
        stamps, by_stamp, seen = [], {}, set()
        produced = False
        for _, timestamp, raw in reader.messages(found):
            try:
                message = decode_joint_state(raw)
            except (ValueError, UnicodeDecodeError) as error:
                raise IdentificationError('%s: a message cannot be decoded '
                                          '(%s)' % (source,
                                                    str(error)[:200]))
            names = list(message.name)
            seen.update(names)
            if len(message.position) != len(names):
                continue
            effort = message.effort if len(message.effort) == len(names) \
                else [np.nan] * len(names)
            t = message_time(message, timestamp)
            if t not in by_stamp:
                by_stamp[t] = {}
                stamps.append(t)
            for k, name in enumerate(names):
                by_stamp[t][name] = (message.position[k], effort[k])
            if size is not None and len(stamps) >= size:
                if joint_names is None:
                    joint_names = list(by_stamp[stamps[0]])
                chunk = stamp_rows(source, wanted, stamps, by_stamp,
                                   joint_names, seen, final=False)
                stamps, by_stamp = [], {}
                if chunk is not None:
                    produced = True
                    yield chunk
    finally:
        reader.close()
    if not stamps and not produced:
        raise IdentificationError('%s: no %s messages with positions on %r'
                                  % (source, JOINT_STATE, wanted))
    if stamps:
        if joint_names is None:
            joint_names = list(by_stamp[stamps[0]])
        yield stamp_rows(source, wanted, stamps, by_stamp, joint_names,
                         seen, final=True)


def stamp_rows(source, wanted, stamps, by_stamp, joint_names, seen, final):
    """Return the Recording of merged messages (None: none complete)."""
    if final:
        missing = [j for j in joint_names if j not in seen]
        if missing:
            raise IdentificationError(
                '%s: joints %s never appear on %r (it has: %s)' % (
                    source, ', '.join(missing), wanted,
                    ', '.join(sorted(seen))))
    rows = [(t, by_stamp[t]) for t in sorted(stamps)
            if all(j in by_stamp[t] for j in joint_names)]
    if not rows:
        return None
    times = np.array([t for t, _ in rows])
    positions = np.array([[joints[j][0] for j in joint_names]
                          for _, joints in rows], dtype=float)
    efforts = np.array([[joints[j][1] for j in joint_names]
                        for _, joints in rows], dtype=float)
    # A driver without torque sensing publishes empty efforts (NaN here);
    # non-finite values a driver did send are left for the survey to count.
    without = [joint_names[i] for i in range(len(joint_names))
               if np.all(np.isnan(efforts[:, i]))]
    if without:
        raise IdentificationError(
            '%s: the JointState messages on %r carry no effort for joints '
            '%s: identification needs the measured joint torques (record '
            'a driver that publishes effort)' % (source, wanted,
                                                 ', '.join(without)))
    return Recording(joint_names, times, positions, efforts, source=source)


def write_bag(recording, path, storage='sqlite3', topic=DEFAULT_TOPIC):
    """
    Write ``recording`` as JointState messages to a ROS 2 bag.

    ``storage``: 'sqlite3' or 'mcap'.  Efforts of None are written as
    empty arrays (as drivers without torque sensing publish them).
    """
    from rosbags.rosbag2 import StoragePlugin, Writer
    from rosbags.typesys import get_typestore, Stores

    plugins = {'sqlite3': StoragePlugin.SQLITE3, 'mcap': StoragePlugin.MCAP}
    if storage not in plugins:
        raise ValueError('storage must be sqlite3 or mcap, got %r'
                         % (storage,))
    store = get_typestore(Stores.LATEST)
    JointState = store.types[JOINT_STATE]
    Header = store.types['std_msgs/msg/Header']
    Time = store.types['builtin_interfaces/msg/Time']
    wanted = topic if topic.startswith('/') else '/' + topic
    with Writer(path, version=9, storage_plugin=plugins[storage]) as writer:
        connection = writer.add_connection(wanted, JOINT_STATE,
                                           typestore=store)
        empty = np.zeros(0)
        for k, t in enumerate(recording.times):
            nanoseconds = int(round(t * 1e9))
            message = JointState(
                header=Header(stamp=Time(sec=nanoseconds // 10 ** 9,
                                         nanosec=nanoseconds % 10 ** 9),
                              frame_id=''),
                name=list(recording.joint_names),
                position=np.ascontiguousarray(recording.positions[k], dtype=float),
                velocity=empty if recording.velocities is None
                else np.ascontiguousarray(recording.velocities[k], dtype=float),
                effort=empty if recording.efforts is None
                else np.ascontiguousarray(recording.efforts[k], dtype=float))
            writer.write(connection, nanoseconds,
                         store.serialize_cdr(message, JOINT_STATE))


def read_csv(path):
    """
    Read a CSV of joint data.

    Columns: ``time``, then ``<joint>.position`` and ``<joint>.effort`` per
    joint (other columns are ignored).  Every row has the header's number
    of cells, each a number (``nan`` and ``inf`` are numbers here: the
    survey counts and drops such rows); anything else is refused with the
    line it is on.
    """
    return joined(list(csv_chunks(path, None)))


def csv_chunks(path, size=CHUNK_SAMPLES):
    """Yield a CSV's rows as Recordings of at most ``size`` samples."""
    source = checked_path(path, 'CSV', MAX_CSV_BYTES)
    try:
        stream = open(path, newline='', encoding='utf-8')
    except OSError as error:
        raise IdentificationError('%s: %s' % (source, error.strerror))
    with stream:
        reader = csv.reader(stream)
        try:
            header = next(reader, None)
        except (csv.Error, UnicodeDecodeError) as error:
            raise IdentificationError('%s is not a CSV (%s)' % (
                source, str(error)[:100]))
        if not header or 'time' not in header:
            raise IdentificationError('%s: the first row must name the '
                                      'columns, among them "time"' % source)
        joints = [h[:-len('.position')] for h in header
                  if h.endswith('.position')]
        without = [j for j in joints if j + '.effort' not in header]
        if without:
            raise IdentificationError('%s has no effort column for joints %s'
                                      ' (expected "<joint>.effort")'
                                      % (source, ', '.join(without)[:200]))
        if not joints:
            raise IdentificationError('%s has no "<joint>.position" column'
                                      % source)
        column = {name: k for k, name in enumerate(header)}
        wanted = [column['time']] + [column[j + '.position']
                                     for j in joints] + [
            column[j + '.effort'] for j in joints]
        rows, produced = [], False
        try:
            for row in reader:
                if not row:
                    continue
                line = reader.line_num
                if len(row) != len(header):
                    raise IdentificationError(
                        '%s line %d has %d cells, the header %d' % (
                            source, line, len(row), len(header)))
                try:
                    rows.append([float(row[k]) for k in wanted])
                except ValueError:
                    bad = next(row[k] for k in wanted
                               if not is_number(row[k]))
                    raise IdentificationError(
                        '%s line %d: %r is not a number' % (
                            source, line, bad[:40]))
                if size is not None and len(rows) >= size:
                    produced = True
                    yield csv_recording(joints, rows, source)
                    rows = []
        except (csv.Error, UnicodeDecodeError) as error:
            raise IdentificationError('%s is not a CSV (%s)' % (
                source, str(error)[:100]))
    if rows or not produced:
        yield csv_recording(joints, rows, source)


def is_number(text):
    """Return True if ``float(text)`` works."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def csv_recording(joints, rows, source):
    """Return the Recording of parsed CSV rows."""
    data = np.array(rows, dtype=float).reshape(-1, 1 + 2 * len(joints))
    n = len(joints)
    return Recording(joints, data[:, 0], data[:, 1:1 + n],
                     data[:, 1 + n:], source=source)


def write_csv(recording, path):
    """Write ``recording`` in the layout ``read_csv`` reads."""
    header = ['time'] + ['%s.%s' % (j, kind) for kind in ('position',
                                                          'effort')
                         for j in recording.joint_names]
    with open(path, 'w', newline='', encoding='utf-8') as stream:
        writer = csv.writer(stream)
        writer.writerow(header)
        for k in range(len(recording)):
            writer.writerow([repr(float(recording.times[k]))]
                            + [repr(float(v)) for v in recording.positions[k]]
                            + [repr(float(v)) for v in recording.efforts[k]])


def read_recording(path, joint_names=None, topic=DEFAULT_TOPIC):
    """Read a bag (folder, .db3 or .mcap) or a .csv file."""
    if str(path).lower().endswith('.csv'):
        recording = read_csv(path)
        return recording if joint_names is None else recording.select(
            joint_names)
    return read_bag(path, joint_names, topic)


def recording_chunks(path, joint_names=None, topic=DEFAULT_TOPIC,
                     size=CHUNK_SAMPLES):
    """Yield a bag's or CSV's samples in chunks (``joint_names`` order)."""
    if str(path).lower().endswith('.csv'):
        for chunk in csv_chunks(path, size):
            yield chunk if joint_names is None else chunk.select(
                joint_names)
    else:
        yield from bag_chunks(path, joint_names, topic, size)


class States:
    """
    Filtered samples: t, q, qd, qdd, effort (N, nq) and the rate (Hz).

    ``effort`` is low-pass filtered, ``raw_effort`` as measured (at the same
    times); ``lowpass`` (b, a) is the filter at this rate, for filtering
    regressor columns the way the efforts were (parallel filtering).
    """

    def __init__(self, joint_names, t, q, qd, qdd, effort, raw_effort, rate,
                 lowpass=None, edge=0):
        """Hold the arrays."""
        self.joint_names = joint_names
        self.t, self.q, self.qd, self.qdd = t, q, qd, qdd
        self.effort, self.raw_effort, self.rate = effort, raw_effort, rate
        self.lowpass, self.edge = lowpass, edge

    def part(self, rows):
        """Return the samples ``rows``."""
        return States(self.joint_names, self.t[rows], self.q[rows],
                      self.qd[rows], self.qdd[rows], self.effort[rows],
                      self.raw_effort[rows], self.rate, self.lowpass,
                      self.edge)

    def filter(self, x):
        """Return ``x`` (time along axis 0) through ``lowpass``, zero phase."""
        return scipy.signal.filtfilt(*self.lowpass, x, axis=0)


def check_motion(recording, threshold=MOTIONLESS):
    """Refuse a recording that is too short or where a joint never moves."""
    count = len(recording)
    duration = recording.times[-1] - recording.times[0] if count else 0.0
    if count < MINIMUM_SAMPLES or duration < MINIMUM_DURATION:
        raise IdentificationError(
            '%s is too short: %d samples over %.3g s; identification needs '
            'at least %d samples and %.3g s (a whole excitation period)' % (
                recording.source, count, duration, MINIMUM_SAMPLES,
                MINIMUM_DURATION))
    span = recording.positions.max(axis=0) - recording.positions.min(axis=0)
    still = [(recording.joint_names[i], span[i])
             for i in np.flatnonzero(span < threshold)]
    if still:
        raise IdentificationError(
            '%s: joints never move: %s; their parameters cannot be seen '
            '(drive every joint, e.g. with `python -m dynamics_ros excite`)'
            % (recording.source, ', '.join('%s (range %.3g)' % s
                                           for s in still)))


def default_decimation(rate, cutoff):
    """Return the k that keeps about 20 samples per cut-off period."""
    return max(int(rate / (20.0 * cutoff)), 1)


def filtered_states(recording, cutoff=DEFAULT_CUTOFF, decimate=None):
    """
    Return States: positions filtered, velocities, accelerations derived.

    Irregular samples are first interpolated onto a uniform grid at the
    median rate.  Every signal is filtered at that rate, then every k-th
    sample kept (``decimate``; default ``default_decimation``), and the
    filter's start and end transients (three time constants of the
    cut-off each) are cut off.
    """
    check_motion(recording)
    t = recording.times
    order = np.argsort(t, kind='stable')
    t = t[order]
    step = float(np.median(np.diff(t)))
    if not step > 0.0:
        raise IdentificationError('%s: sample times do not increase'
                                  % recording.source)
    grid = t[0] + step * np.arange(int(np.floor((t[-1] - t[0]) / step)) + 1)
    positions = recording.positions[order]
    efforts = recording.efforts[order]
    q_raw = np.column_stack([np.interp(grid, t, positions[:, i])
                             for i in range(positions.shape[1])])
    e_raw = np.column_stack([np.interp(grid, t, efforts[:, i])
                             for i in range(efforts.shape[1])])
    rate = 1.0 / step
    if not cutoff < 0.5 * rate:
        raise IdentificationError(
            '%s: filter cut-off %g Hz must be below half the sample rate '
            '%.4g Hz' % (recording.source, cutoff, rate))
    b, a = scipy.signal.butter(FILTER_ORDER, cutoff / (0.5 * rate))

    def smooth(x):
        return scipy.signal.filtfilt(b, a, x, axis=0)

    q = smooth(q_raw)
    qd = smooth(np.gradient(q, step, axis=0))
    qdd = smooth(np.gradient(qd, step, axis=0))
    effort = smooth(e_raw)
    k = default_decimation(rate, cutoff) if decimate is None \
        else max(int(decimate), 1)
    edge = int(np.ceil(3.0 * rate / cutoff))
    if len(grid) - 2 * edge < MINIMUM_SAMPLES:
        raise IdentificationError(
            '%s is too short: %d samples left after the filter edges of %d '
            'samples' % (recording.source, max(len(grid) - 2 * edge, 0), edge))
    keep = slice(edge, len(grid) - edge, k)
    decimated = rate / k
    lowpass = scipy.signal.butter(FILTER_ORDER, min(
        cutoff / (0.5 * decimated), 0.99))
    return States(recording.joint_names, grid[keep], q[keep], qd[keep],
                  qdd[keep], effort[keep], e_raw[keep], decimated, lowpass,
                  int(np.ceil(3.0 * decimated / cutoff)))
