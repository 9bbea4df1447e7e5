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

Each run starts its own nodes as separate processes and tracks the same
reference trajectory, as a ros2_control user would:

1. ``pd``: ``simulator_node`` alone; the trajectory goes to its
   ``joint_trajectory_controller/joint_trajectory`` and its PID follows it
   (feedback alone, no model);
2. ``computed_torque``: ``simulator_node`` and ``inverse_dynamics_node``
   in ``computed_torque`` mode; the trajectory goes to the latter, whose
   stamped efforts (``feedforward``) drive the simulated arm.

Both runs are in lockstep (doc/theory/lockstep.md): the simulator takes
no step after a published joint state until every peer has answered it -
``inverse_dynamics_node`` and the recorder here, which answers each state
once it has recorded it.  The trajectory is stamped to begin ``lead``
seconds of simulated time after the start and takes effect at that stamp.
So each run depends on its states and answers alone: the same table on a
quiet machine and on a busy one.  Both nodes read the package's config/
files, as the launch files do; DDS stays on loopback in the ROS_DOMAIN_ID
this process was given.
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
from rclpy.experimental import EventsExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.signals import SignalHandlerOptions
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from .shared.qos import LOCKSTEP_QOS, PUBLISH_QOS
from ..resources import shipped_file

SIMULATOR_TRAJECTORY = 'joint_trajectory_controller/joint_trajectory'
# The recorder's answers, and the feed-forward node's (its efforts).
RECORDER_ANSWERS = 'tracking_demo/recorded'
EFFORT_ANSWERS = 'feedforward'


def stamp_message(seconds):
    """Return a builtin_interfaces Time of ``seconds`` (>= 0)."""
    nanoseconds = int(round(seconds * 1e9))
    return Time(sec=nanoseconds // 1000000000,
                nanosec=nanoseconds % 1000000000)


def trajectory_message(joint_names, motion, start_seconds, step=0.02):
    """Return the reference as a JointTrajectory beginning at a sim time."""
    message = JointTrajectory()
    message.header.stamp = stamp_message(start_seconds)
    message.joint_names = list(joint_names)
    times = np.arange(0.0, motion.duration + 0.5 * step, step)
    q, qd, qdd = motion.state(times)
    for k, t in enumerate(times):
        point = JointTrajectoryPoint()
        point.positions = q[k].tolist()
        point.velocities = qd[k].tolist()
        point.accelerations = qdd[k].tolist()
        point.time_from_start = Duration(
            sec=stamp_message(t).sec, nanosec=stamp_message(t).nanosec)
        message.points.append(point)
    return message


class TrackingRecorder(Node):
    """Record joint states and answer each in lockstep."""

    def __init__(self, joint_names, **kwargs):
        """
        Create the trajectory publishers, the recorder and its answers.

        ``kwargs`` go to rclpy's Node (``context``, say).
        """
        super().__init__('tracking_demo', parameter_overrides=[
            Parameter('use_sim_time', value=True)], **kwargs)
        self.joint_names = list(joint_names)
        self.lock = threading.Lock()
        # stamp ns -> (positions, velocities, efforts), joints order
        self.samples = {}
        self.waiting = None   # a state not answered until ``go``
        self.going = False
        self.create_subscription(JointState, 'joint_states', self.on_state,
                                 LOCKSTEP_QOS)
        self.answers = self.create_publisher(JointState, RECORDER_ANSWERS,
                                             LOCKSTEP_QOS)
        self.simulator_trajectory = self.create_publisher(
            JointTrajectory, SIMULATOR_TRAJECTORY, PUBLISH_QOS)
        self.controller_trajectory = self.create_publisher(
            JointTrajectory, 'joint_trajectory', PUBLISH_QOS)

    def on_state(self, message):
        """Record the state in joints order; answer it."""
        index = {name: k for k, name in enumerate(message.name)}
        if any(name not in index for name in self.joint_names):
            return
        order = [index[name] for name in self.joint_names]
        stamp = message.header.stamp
        with self.lock:
            # A state published again (for a peer still starting) is one.
            self.samples[stamp.sec * 1000000000 + stamp.nanosec] = tuple(
                np.asarray(values)[order] for values in (
                    message.position, message.velocity, message.effort))
            if not self.going:
                self.waiting = stamp
                return
        self.answer(stamp)

    def answer(self, stamp):
        """Say that the state stamped ``stamp`` is recorded."""
        answer = JointState()
        answer.header.stamp = stamp
        self.answers.publish(answer)

    def restart(self):
        """Forget the samples of a run; hold the first answer back again."""
        with self.lock:
            self.samples = {}
            self.waiting = None
            self.going = False

    def go(self):
        """Answer from now on (the state held back first)."""
        with self.lock:
            self.going = True
            waiting, self.waiting = self.waiting, None
        if waiting is not None:
            self.answer(waiting)

    def latest_time(self):
        """Return the time of the newest joint state, s (None before one)."""
        with self.lock:
            return max(self.samples) * 1e-9 if self.samples else None

    def take(self, begin, end, velocities=False):
        """
        Return (times, positions, efforts) of the samples in [begin, end].

        ``velocities``: (times, positions, velocities, efforts).
        """
        with self.lock:
            stamps = sorted(s for s in self.samples
                            if begin <= s * 1e-9 <= end)
            rows = [self.samples[s] for s in stamps]
        n = len(self.joint_names)
        fields = (0, 1, 2) if velocities else (0, 2)
        return (np.array(stamps) * 1e-9,) + tuple(
            np.array([row[k] for row in rows]).reshape(-1, n)
            for k in fields)


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


def interrupt(number, frame):
    """Turn SIGTERM into KeyboardInterrupt, as Ctrl-C."""
    raise KeyboardInterrupt('signal %d' % number)


class TrackingDemo:
    """Run the PD and computed-torque runs; collect what was recorded."""

    def __init__(self, urdf_path, joint_names, motion, progress, log_folder,
                 lead=0.5, timeout=120.0, model_parameters=None):
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
        self.speed = {}   # run -> wall s per simulated s

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
        # Ctrl-C and SIGTERM end the wait in the main thread (KeyboardInterrupt)
        # and the finally clauses stop the nodes; rclpy's own handling
        # would leave them running.
        rclpy.init(signal_handler_options=SignalHandlerOptions.NO)
        previous = signal.signal(signal.SIGTERM, interrupt)
        recorder = TrackingRecorder(self.joint_names)
        # The events executor (C++): the recorder answers 500 states per
        # simulated second, and the simulator waits for each answer.
        executor = EventsExecutor()
        executor.add_node(recorder)
        stopping = threading.Event()

        def spin():
            while not stopping.is_set():
                executor.spin_once(timeout_sec=0.1)

        spinner = threading.Thread(target=spin, daemon=True)
        spinner.start()
        results = {}
        try:
            for name in ('pd', 'computed_torque'):
                recorder.restart()
                results[name] = self.run_once(recorder, name)
        finally:
            stopping.set()
            spinner.join()
            executor.shutdown()
            recorder.destroy_node()
            rclpy.try_shutdown()
            signal.signal(signal.SIGTERM, previous)
        return results

    def start_nodes(self, name):
        """Start the run's nodes in lockstep with the recorder (and CT)."""
        env = dict(os.environ)
        common = dict(self.model_parameters, urdf_path=self.urdf_path,
                      joints='[%s]' % ','.join(self.joint_names))
        controller = name == 'computed_torque'
        peers = [RECORDER_ANSWERS] + ([EFFORT_ANSWERS] if controller else [])
        self.progress('%s run: starting simulator_node%s in lockstep' % (
            name, ' and inverse_dynamics_node' if controller else ''))
        self.processes.append(node_process(
            'dynamics_ros.nodes.simulator.node',
            shipped_file('config', 'simulator.yaml'), dict(
                common, initial_positions='[%s]' % ','.join(
                    repr(float(v)) for v in self.motion.start),
                lockstep='true', real_time_factor='0.0',
                # A demo, not a robot: a busy machine may answer slowly.
                lockstep_timeout='60.0',
                lockstep_peers='[%s]' % ','.join(peers),
                lockstep_effort_peer=EFFORT_ANSWERS if controller else "''"),
            [], env, os.path.join(self.log_folder,
                                  '%s_simulator_node.log' % name)))
        if controller:
            self.processes.append(node_process(
                'dynamics_ros.nodes.inverse_dynamics.node',
                shipped_file('config', 'inverse_dynamics.yaml'), dict(
                    common, mode='computed_torque', use_sim_time='true',
                    lockstep='true'), [], env,
                os.path.join(self.log_folder,
                             '%s_inverse_dynamics_node.log' % name)))

    def run_once(self, recorder, name):
        """Start the nodes of run ``name``, track, stop them; return it."""
        publisher = recorder.simulator_trajectory if name == 'pd' \
            else recorder.controller_trajectory
        try:
            self.start_nodes(name)
            # The simulator waits at t = 0 for every peer's first answer;
            # the recorder gives its own only once the trajectory has gone
            # out, so that it is there before it begins.
            self.wait(lambda: recorder.latest_time() is not None,
                      'joint_states from simulator_node')
            self.wait(lambda: publisher.get_subscription_count() > 0,
                      'a subscriber to %s' % publisher.topic_name)
            begin = self.lead
            publisher.publish(trajectory_message(self.joint_names,
                                                 self.motion, begin))
            return self.track(recorder, name, begin)
        finally:
            for process in reversed(self.processes):
                stop(process)
            self.processes = []

    def track(self, recorder, name, begin):
        """Let the run go; record until the motion has ended."""
        recorder.go()
        started = time.monotonic()
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
        self.speed[name] = (time.monotonic() - started) / max(latest, 1e-9)
        times, positions, efforts = recorder.take(begin, end)
        return times - begin, positions, efforts
