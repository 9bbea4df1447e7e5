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
JointTrajectory <-> arrays for every dynamics_ros node.

::

    message_trajectory(msg)                          # TrajectoryArrays
    trajectory_arrays(msg, joint_names, start_time)  # control.trajectory.
                                                     # Trajectory

``msg`` may be a JointTrajectory or its TrajectoryArrays (read from the
message, or from its serialized bytes by ``trajectory_cdr``).
``start_time`` (absolute seconds) is used when ``header.stamp`` is zero
(start on receipt), as joint_trajectory_controller does.  What cannot be
used raises ``conversions.BadInput`` saying why.
"""

from typing import NamedTuple

import numpy as np

from .conversions import BadInput, name_index
from ...control.trajectory import Trajectory
from ...reasons import names_text, quote


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
# Most points of a trajectory a node takes: 100 s at the 1 kHz of
# joint_trajectory_controller, ~20 MB of fields for 7 joints.  Beyond it a
# message is refused before its fields are read.
MAX_POINTS = 100000


def check_point_count(count):
    """Raise BadInput if a trajectory has more than MAX_POINTS points."""
    if count > MAX_POINTS:
        raise BadInput('JointTrajectory has %d points, over the bound of %d '
                       '(MAX_POINTS)' % (count, MAX_POINTS))


def message_trajectory(msg):
    """
    Return the TrajectoryArrays of a JointTrajectory message.

    One pass per field: the values are joined into one buffer, not read
    per point.  A point whose field has another length than the joint
    names is BadInput.
    """
    points = msg.points
    check_point_count(len(points))
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
    check_point_count(times.size)
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
