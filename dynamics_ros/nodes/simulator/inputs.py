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
simulator_node's inputs: commands, trajectories, pushes and ~/reset.

The callbacks run on the executor thread (trajectories on a reader thread
of their own) and only queue what they received, as the items of
``state``; the simulation thread applies them between two steps
(``loop``).  A message that cannot be used raises BadInput,
which ``ThrottledWarnings.dropping`` turns into a throttled warning.
"""

import threading

import numpy as np
from rclpy.serialization import deserialize_message
from trajectory_msgs.msg import JointTrajectory

from .state import Command, ExternalWrench, FollowTrajectory, Reset, VoltageCommand
from .trajectory_cdr import read_trajectory
from ..shared.conversions import BadInput, message_vector, name_index, refuse_mimic_joints
from ..shared.model_source import NO_MODEL
from ..shared.trajectory_conversions import message_trajectory, point_field, trajectory_arrays
from ...reasons import cut, names_text, quote

COMMAND_TOPICS = {
    'effort': 'effort_controller/commands',
    'position': 'position_controller/commands',
    'velocity': 'velocity_controller/commands',
}
TRAJECTORY_TOPIC = 'joint_trajectory_controller/joint_trajectory'
VOLTAGE_TOPIC = 'voltage_controller/commands'
WRENCH_TOPIC = '~/external_wrench'


def trajectory_efforts(arrays, joint_names):
    """
    Return the (k, n) feed-forward efforts of a trajectory, or None.

    ``arrays``: its conversions.TrajectoryArrays.  Efforts are read by
    joint name into ``joint_names`` order; either every point has them or
    none does (else BadInput).
    """
    if arrays.fields['effort'] is None:
        return None
    if not np.all(arrays.fields['effort'][1]):
        raise BadInput('JointTrajectory has efforts on some points only')
    names = list(arrays.joint_names)
    index = name_index(names, joint_names, 'JointTrajectory')
    return point_field(arrays, 'effort', index, names, False)[0]


class SimulatorInputs:
    """The input callbacks of SimulatorNode (a mixin: they queue only)."""

    def on_command(self, mode, msg):
        """Queue a forward command in ``joints`` order (else BadInput)."""
        if self.joint_names is None:
            raise BadInput(NO_MODEL)
        values = message_vector(msg, len(self.joint_names),
                                '%s command' % mode, self.mimic)
        self.pending.append(Command(mode, values))

    def on_voltage(self, msg):
        """Queue motor voltages in ``joints`` order (else BadInput)."""
        if self.joint_names is None:
            raise BadInput(NO_MODEL)
        self.pending.append(VoltageCommand(message_vector(
            msg, len(self.joint_names), 'voltage command', self.mimic)))

    def on_external_wrench(self, msg):
        """Queue a push on the link of ``header.frame_id`` (else BadInput)."""
        simulation = self.simulation
        if simulation is None:
            raise BadInput(NO_MODEL)
        model = simulation.simulator.model
        link = msg.header.frame_id
        if link not in model.frames:
            raise BadInput('WrenchStamped frame_id %s is not a link of model '
                           '%s (links: %s)' % (quote(link), quote(model.name),
                                               names_text(sorted(
                                                   model.frames))))
        torque, force = msg.wrench.torque, msg.wrench.force
        wrench = np.array([torque.x, torque.y, torque.z, force.x, force.y,
                           force.z])
        if not np.all(np.isfinite(wrench)):
            raise BadInput('WrenchStamped has non-finite values (%s)' %
                           quote(wrench))
        stamp = msg.header.stamp
        self.pending.append(self.at_stamp(
            stamp.sec + 1e-9 * stamp.nanosec,
            ExternalWrench(link, wrench, simulation.model)))

    def on_trajectory(self, data):
        """
        Hand a serialized trajectory to the reader thread.

        Deserializing a 10,000-point JointTrajectory takes about 130 ms
        with the GIL held: done here, on the executor thread, it would hold
        up parameter and ~/reset services.  The reader reads the bytes
        straight into arrays where it can (``trajectory_cdr``, a few ms),
        and takes the newest only: one superseded before it was read is
        skipped, as the newer trajectory would replace it anyway.
        """
        with self.trajectory_ready:
            self.trajectory_data = data
            self.trajectory_ready.notify()

    def read_trajectories(self):
        """Read the trajectories on_trajectory hands over (reader thread)."""
        while True:
            with self.trajectory_ready:
                while self.trajectory_data is None:
                    if self.stopping.is_set():
                        return
                    self.trajectory_ready.wait(0.1)
                data, self.trajectory_data = self.trajectory_data, None
            try:
                self.queue_trajectory(read_trajectory(data) or
                                      message_trajectory(deserialize_message(
                                          data, JointTrajectory)))
            except BadInput as error:
                self.warnings.ignored(TRAJECTORY_TOPIC, str(error))
            except Exception as error:  # noqa: B902 (undecodable bytes)
                self.warnings.ignored(TRAJECTORY_TOPIC, cut(
                    'cannot read it: %s' % error))

    def queue_trajectory(self, arrays):
        """Queue a trajectory (TrajectoryArrays) to follow (else BadInput)."""
        simulation = self.simulation
        if simulation is None:
            raise BadInput(NO_MODEL)
        model = simulation.simulator.model
        refuse_mimic_joints(arrays.joint_names, model.mimic,
                            'JointTrajectory')
        trajectory = trajectory_arrays(arrays, model.joint_names,
                                       simulation.simulator.t)
        efforts = trajectory_efforts(arrays, model.joint_names)
        self.pending.append(self.at_stamp(trajectory.start_time,
                                          FollowTrajectory(
                                              trajectory, efforts,
                                              simulation.model)))

    def on_reset(self, request, response):
        """Reset to the initial state once the loop has applied it."""
        if self.simulation is None:
            response.success = False
            response.message = NO_MODEL
            return response
        done = threading.Event()
        self.pending.append(Reset(done))
        response.success = done.wait(10.0)
        # The time tells the states after the reset from those before it.
        response.message = (
            'reset to the initial state at t = %.9f s of simulated time, '
            'held (hold_mode %s) until the next command' % (
                self.reset_time, self.settings['hold_mode'])
            if response.success else 'the simulation loop did not answer')
        return response
