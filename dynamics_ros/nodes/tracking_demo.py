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
The ROS side of ``make demo``: two tracking runs on the simulated arm.

Starts ``simulator_node`` as a separate process, then runs the same
reference trajectory twice, as a ros2_control user would:

1. ``pd``: the trajectory goes to the simulator's
   ``joint_trajectory_controller/joint_trajectory`` and its PID follows it
   (feedback alone, no model);
2. ``computed_torque``: ``inverse_dynamics_node`` is started as a process
   in ``computed_torque`` mode, its ``effort_commands`` remapped onto the
   simulator's ``effort_controller/commands``, and gets the trajectory.

Before each run the simulator is reset (``~/reset``) and the trajectory is
sent right after, stamped to begin ``lead`` seconds later in simulated
time; ``joint_states`` are recorded until the motion has ended.  Both
nodes read the package's config/ files, as the launch files do.  DDS stays
on loopback in the ROS_DOMAIN_ID this process was given.
"""

import os
import signal
import subprocess
import sys
import threading
import time

from builtin_interfaces.msg import Duration, Time
import numpy as np
import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from .qos import PUBLISH_QOS
from ..resources import shipped_file

SIMULATOR_TRAJECTORY = 'joint_trajectory_controller/joint_trajectory'


def trajectory_message(joint_names, motion, start_seconds, step=0.02):
    """Return the reference as a JointTrajectory beginning at a sim time."""
    message = JointTrajectory()
    seconds = int(np.floor(start_seconds))
    message.header.stamp = Time(
        sec=seconds, nanosec=int(round((start_seconds - seconds) * 1e9)))
    message.joint_names = list(joint_names)
    times = np.arange(0.0, motion.duration + 0.5 * step, step)
    q, qd, qdd = motion.state(times)
    for k, t in enumerate(times):
        point = JointTrajectoryPoint()
        point.positions = q[k].tolist()
        point.velocities = qd[k].tolist()
        point.accelerations = qdd[k].tolist()
        whole = int(np.floor(t))
        point.time_from_start = Duration(
            sec=whole, nanosec=int(round((t - whole) * 1e9)))
        message.points.append(point)
    return message


class TrackingRecorder(Node):
    """Send references, reset the simulator and record joint states."""

    def __init__(self, joint_names):
        """Create publishers, the reset client and the recorder."""
        super().__init__('tracking_demo', parameter_overrides=[
            Parameter('use_sim_time', value=True)])
        self.joint_names = list(joint_names)
        self.lock = threading.Lock()
        self.samples = []
        self.efforts_seen = 0
        self.create_subscription(JointState, 'joint_states', self.on_state,
                                 PUBLISH_QOS)
        self.simulator_trajectory = self.create_publisher(
            JointTrajectory, SIMULATOR_TRAJECTORY, PUBLISH_QOS)
        self.controller_trajectory = self.create_publisher(
            JointTrajectory, 'joint_trajectory', PUBLISH_QOS)
        self.reset_client = self.create_client(Trigger, 'simulator_node/reset')
        self.create_subscription(Float64MultiArray, 'effort_controller/commands',
                                 self.on_effort, PUBLISH_QOS)

    def on_effort(self, message):
        """Count effort commands (the controller is up once they flow)."""
        with self.lock:
            self.efforts_seen += 1

    def effort_count(self):
        """Return how many effort commands were seen."""
        with self.lock:
            return self.efforts_seen

    def on_state(self, message):
        """Record (stamp, positions in joints order, efforts)."""
        index = {name: k for k, name in enumerate(message.name)}
        if any(name not in index for name in self.joint_names):
            return
        order = [index[name] for name in self.joint_names]
        stamp = message.header.stamp.sec + 1e-9 * message.header.stamp.nanosec
        with self.lock:
            self.samples.append((stamp, np.asarray(message.position)[order],
                                 np.asarray(message.effort)[order]))

    def latest_time(self):
        """Return the stamp of the newest joint state (None before one)."""
        with self.lock:
            return self.samples[-1][0] if self.samples else None

    def take(self, begin, end):
        """Return (times, positions, efforts) of samples in [begin, end]."""
        with self.lock:
            rows = [s for s in self.samples if begin <= s[0] <= end]
        if not rows:
            return np.zeros(0), np.zeros((0, len(self.joint_names))), \
                np.zeros((0, len(self.joint_names)))
        return (np.array([r[0] for r in rows]), np.array([r[1] for r in rows]),
                np.array([r[2] for r in rows]))


def node_process(module, parameter_file, overrides, remaps, env, log_path):
    """Start a dynamics_ros node module as a child, its output to a log."""
    command = [sys.executable, '-m', module, '--ros-args', '--params-file',
               parameter_file]
    for name, value in overrides.items():
        command += ['-p', '%s:=%s' % (name, value)]
    for source, target in remaps:
        command += ['-r', '%s:=%s' % (source, target)]
    # A file, not a pipe: an unread pipe would block a chatty node.
    with open(log_path, 'w') as log:
        process = subprocess.Popen(command, env=env, stdout=log,
                                   stderr=subprocess.STDOUT)
    process.log_path = log_path
    return process


def stop(process):
    """Stop a child node: SIGINT, then SIGKILL if it lingers."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(10.0)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class TrackingDemo:
    """Run the PD and computed-torque runs; collect what was recorded."""

    def __init__(self, urdf_path, joint_names, motion, progress, log_folder,
                 lead=1.5, timeout=60.0, model_parameters=None):
        """
        Keep the settings; nothing starts before ``run``.

        ``model_parameters``: more model parameters for both nodes
        (``root_link``, ``tip_link``, ``xacro_args``), as ROS values.
        """
        self.urdf_path = os.path.abspath(urdf_path)
        self.model_parameters = dict(model_parameters or {})
        self.log_folder = log_folder
        self.joint_names = list(joint_names)
        self.motion = motion
        self.progress = progress
        self.lead = lead
        self.timeout = timeout
        self.processes = []

    def wait(self, condition, what):
        """Poll ``condition`` until true or the timeout; say what failed."""
        deadline = time.monotonic() + self.timeout
        while not condition():
            for process in self.processes:
                if process.poll() is not None:
                    with open(process.log_path) as log:
                        output = log.read()
                    raise RuntimeError('%s exited (%d) while waiting for %s:\n'
                                       '%s' % (process.args[2], process.returncode,
                                               what, output))
            if time.monotonic() > deadline:
                raise RuntimeError('timed out after %.0f s waiting for %s' % (
                    self.timeout, what))
            time.sleep(0.02)

    def run(self):
        """Run both runs; return {run: (times, positions, efforts)}."""
        env = dict(os.environ)
        common = dict(self.model_parameters, urdf_path=self.urdf_path,
                      joints='[%s]' % ','.join(self.joint_names))
        rclpy.init()
        recorder = TrackingRecorder(self.joint_names)
        executor = SingleThreadedExecutor()
        executor.add_node(recorder)
        spinner = threading.Thread(target=executor.spin, daemon=True)
        spinner.start()
        results = {}
        try:
            self.progress('starting simulator_node (config/simulator.yaml)')
            self.processes.append(node_process(
                'dynamics_ros.nodes.simulator_node',
                shipped_file('config', 'simulator.yaml'), dict(
                    common, initial_positions='[%s]' % ','.join(
                        repr(float(v)) for v in self.motion.start)), [], env,
                os.path.join(self.log_folder, 'simulator_node.log')))
            self.wait(lambda: recorder.latest_time() is not None,
                      'joint_states from simulator_node')
            self.wait(recorder.reset_client.service_is_ready,
                      'the simulator reset service')
            results['pd'] = self.track(recorder,
                                       recorder.simulator_trajectory, 'pd')
            self.progress('starting inverse_dynamics_node in computed_torque '
                          'mode (config/inverse_dynamics.yaml)')
            self.processes.append(node_process(
                'dynamics_ros.nodes.inverse_dynamics_node',
                shipped_file('config', 'inverse_dynamics.yaml'), dict(
                    common, mode='computed_torque', use_sim_time='true'),
                [('effort_commands', 'effort_controller/commands')], env,
                os.path.join(self.log_folder, 'inverse_dynamics_node.log')))
            self.wait(lambda: recorder.controller_trajectory
                      .get_subscription_count() > 0,
                      'inverse_dynamics_node to subscribe')
            # Its first answers include compiling the fast path: reset the
            # simulator only once commands flow at the joint-state rate.
            self.wait(lambda: recorder.effort_count() > 200,
                      'effort commands from inverse_dynamics_node')
            results['computed_torque'] = self.track(
                recorder, recorder.controller_trajectory, 'computed_torque')
        finally:
            for process in reversed(self.processes):
                stop(process)
            executor.shutdown()
            recorder.destroy_node()
            rclpy.try_shutdown()
        return results

    def track(self, recorder, publisher, name):
        """Reset the simulator, send the reference, record one run."""
        self.wait(lambda: publisher.get_subscription_count() > 0,
                  'a subscriber to %s' % publisher.topic_name)
        future = recorder.reset_client.call_async(Trigger.Request())
        self.wait(future.done, 'the simulator to reset')
        if not future.result().success:
            raise RuntimeError('reset failed: %s' % future.result().message)
        now = recorder.get_clock().now().nanoseconds * 1e-9
        begin = now + self.lead
        publisher.publish(trajectory_message(self.joint_names, self.motion,
                                             begin))
        end = begin + self.motion.duration
        shown = -1
        while True:
            latest = recorder.latest_time() or 0.0
            if latest >= end + 0.2:
                break
            elapsed = int(max(0.0, latest - begin))
            if elapsed != shown and latest >= begin:
                shown = elapsed
                self.progress('  %-16s t = %4.1f / %.1f s (simulated)' % (
                    name, min(latest - begin, self.motion.duration),
                    self.motion.duration))
            self.wait(lambda: (recorder.latest_time() or 0.0) > latest,
                      'joint_states during the %s run' % name)
            time.sleep(0.05)
        times, positions, efforts = recorder.take(begin, end)
        return times - begin, positions, efforts
