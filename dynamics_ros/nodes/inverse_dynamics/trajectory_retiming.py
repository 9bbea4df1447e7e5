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
inverse_dynamics_node's ``trajectory_in`` -> ``trajectory_out``, as messages.

``trajectory_mode`` ``annotate``: the trajectory as it came, every point's
``effort`` set to the inverse dynamics there; ``retime``: when, played as
joint_trajectory_controller plays it, it exceeds a limit at
``trajectory_margin`` of the limits, the time-optimal timing of the same
waypoints within them (``dynamics_ros.control.retime``), with positions,
velocities, accelerations and efforts; else the input, annotated.  A path
that no timing can follow (a pose where holding still needs more than an
effort limit) is refused: nothing is published on ``trajectory_out``.

Every trajectory gets a report on ``trajectory_feasibility``
(std_msgs/String, YAML: mode, published, retimed, durations, feasible,
the first and the worst violation with time, joint, kind, value, limit and
margin, the peak use of each limit per joint, or why it was refused), and
a throttled warning when it exceeds a limit or is refused (keyed by what
happened, not by the numbers).
"""

from builtin_interfaces.msg import Duration
import numpy as np
from std_msgs.msg import String
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
import yaml

from ...control.retime import annotate_or_retime, TrajectoryOutcome

FEASIBILITY_TOPIC = 'trajectory_feasibility'


def duration_message(seconds):
    """Return a builtin_interfaces/Duration of ``seconds`` (>= 0)."""
    nanoseconds = int(round(float(seconds) * 1e9))
    return Duration(sec=nanoseconds // 1000000000,
                    nanosec=nanoseconds % 1000000000)


def rows(values, order):
    """Return the rows of ``values`` (k, n) reordered, as lists, or None."""
    if values is None:
        return None
    return np.asarray(values, dtype=float)[:, order].tolist()


def output_message(msg, result, order, efforts):
    """
    Return the JointTrajectory of ``result`` for input ``msg``.

    ``order``: model index of each of ``msg.joint_names`` (the output keeps
    the input's joint order and header); ``efforts`` (k, n) in model order
    (saturated by the node).
    """
    out = JointTrajectory(header=msg.header,
                          joint_names=list(msg.joint_names))
    columns = [rows(result.positions, order), rows(result.velocities, order),
               rows(result.accelerations, order), rows(efforts, order)]
    for k, time in enumerate(result.times):
        point = JointTrajectoryPoint(time_from_start=duration_message(time))
        point.positions = columns[0][k]
        if columns[1] is not None:
            point.velocities = columns[1][k]
        if columns[2] is not None:
            point.accelerations = columns[2][k]
        point.effort = columns[3][k]
        out.points.append(point)
    return out


def report_message(outcome):
    """Return the std_msgs/String YAML report of a TrajectoryOutcome."""
    return String(data=yaml.safe_dump(outcome.summary(), sort_keys=False))


class TrajectoryRetiming:
    """The trajectory_in -> trajectory_out step of a node (see the module)."""

    def __init__(self, node, warnings, trajectory_out, qos):
        """Publish on ``trajectory_out`` and the feasibility topic."""
        self.node = node
        self.warnings = warnings
        self.trajectory_out = trajectory_out
        self.feasibility = node.create_publisher(String, FEASIBILITY_TOPIC,
                                                 qos)

    def refused(self, reason):
        """
        Report a trajectory_in refused before its check (``reason``).

        A malformed message (no points, names that do not match, lengths
        that differ...) or one that came with no model still gets its
        report (published false, feasible false, refused: the reason), as
        the node page promises one for every trajectory_in.
        """
        mode = self.node.get_parameter('trajectory_mode').value
        self.feasibility.publish(report_message(TrajectoryOutcome(
            mode, None, None, refusal=str(reason))))

    def handle(self, msg, model, trajectory, limits, mode, margin,
               saturated):
        """
        Annotate or retime ``trajectory`` (read from ``msg``); publish.

        ``limits``: feasibility.Limits in model order; ``saturated(efforts
        in model order)`` clips them as the node's other outputs are
        (returns them in model order).  Returns the TrajectoryOutcome.
        """
        outcome = annotate_or_retime(model, trajectory, limits, mode, margin)
        self.feasibility.publish(report_message(outcome))
        if outcome.result is None:
            self.warnings.warn('trajectory refused', (
                'trajectory_in refused, nothing published on '
                'trajectory_out: %s') % outcome.refusal)
            return outcome
        if not outcome.report.feasible:
            self.warnings.warn('trajectory infeasible', lambda: (
                'trajectory_in exceeds the limits (%s mode, margin %g): '
                '%s' % (mode, margin, outcome.report.text())))
        efforts = saturated(outcome.result.efforts)
        if not np.all(np.isfinite(efforts)):
            self.warnings.ignored('trajectory_in',
                                  'its torques are not finite')
            return outcome
        index = {name: i for i, name in enumerate(model.joint_names)}
        order = np.array([index[name] for name in msg.joint_names],
                         dtype=int)
        if outcome.result.retimed:
            msg = output_message(msg, outcome.result, order, efforts)
        else:   # the input as it came, with the efforts at its points
            for point, tau in zip(msg.points, rows(efforts, order)):
                point.effort = tau
        self.trajectory_out.publish(msg)
        return outcome
