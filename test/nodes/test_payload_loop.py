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
The payload loop over DDS: pick up, estimate, compensate.

The nodes start as ``simulation.launch.py payload_estimation:=true``
starts them (its parameters and remappings, read through the launch
stand-ins), on a Panda cut at panda_hand: the simulator, inverse_dynamics_node
in computed-torque mode feeding it, linearization_node,
external_torque_node and payload_estimation_node, all on the simulator's
/clock.  The arm holds a pose; the simulator picks up 2 kg with an offset
centre of mass (its ``payload.*`` parameters, one atomic set); the hold
error and the observer's residual grow; a tour of still poses, the
estimation service, and both followers take the estimate; the hold error
and the residual fall back.  The launch runs in lockstep
(``lockstep:=true``, doc/theory/lockstep.md): the simulator waits for
computed torque, the observer and the linearization at every joint state,
so no command comes late however loaded the machine, and the tour's
trajectory is stamped ahead, to start exactly there.  Every wait is on a
condition with a generous timeout, every measurement over simulated time:
nothing depends on speed.
"""

import os
import signal

from builtin_interfaces.msg import Duration
from conftest import REPO_ROOT
from dynamics_ros.nodes.shared.conversions import time_message
from dynamics_ros.nodes.shared.payload_input import payload_parameters
from geometry_msgs.msg import InertiaStamped
from launch_standins import load_launch_file, node_fully_qualified_name, \
    parameters_reaching
import numpy as np
from oracle import example_arm_xml
from payload_plant import box_inertia
from rcl_interfaces.msg import Log
from rcl_interfaces.srv import SetParametersAtomically
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_harness import inertia_stamped, NodeProcess, reorder, \
    reserve_domain_id, RosTester, stamp_of
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

DOMAIN_ID = reserve_domain_id(__name__)
LAUNCH = os.path.join(REPO_ROOT, 'launch', 'simulation.launch.py')
TIP = 'panda_hand'
JOINTS = ['panda_joint%d' % k for k in range(1, 8)]
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
# What the simulator picks up: 1.5 kg, centre of mass 7 cm from the
# flange, 4 cm off its axis, a turned box (off-diagonal inertia).
MASS = 1.5
COM = [0.03, -0.025, 0.06]
INERTIA = box_inertia(MASS, (0.08, 0.12, 0.16))
# Computed-torque gains of the hold: 20 rad/s, critically damped (the
# config's 10 rad/s lets the unmodelled payload sag the wrist by a tenth
# of a radian, settling for seconds).
KP, KD = 400.0, 40.0
# simulation.launch.py's peers in lockstep (LOCKSTEP_PEERS there): the
# launch stand-ins join a list of strings into one string.
LOCKSTEP_PEERS = ['feedforward', 'external_torques',
                  'state_space/operating_point']
# The pose held, and the still poses of the estimation tour (wrist turned
# so gravity takes three directions in the hand frame).
HOLD = np.array([0.2, -0.5, 0.1, -2.0, 0.3, 1.8, 0.6])
TOUR = [np.array([0.2, -0.5, 0.1, -2.0, 1.2, 1.2, -0.6]),
        np.array([0.2, -0.2, 0.1, -1.6, -1.0, 2.6, 1.8]),
        np.array([0.2, -0.5, 0.1, -2.3, 0.3, 0.8, 2.4])]
MOVE = 1.0     # s of simulated time from one pose to the next
STILL = 2.5    # s held at each pose
SETTLE = 2.0   # s of simulated time after a change before measuring
MEASURE = 1.0  # s of simulated time measured


def launched(arguments):
    """Return (executable, parameters, remappings) of each launched node."""
    recorded = load_launch_file(LAUNCH, {'dynamics_ros': REPO_ROOT},
                                arguments)
    for node in recorded.nodes:
        if node.package != 'dynamics_ros':
            continue
        fqn = node_fully_qualified_name(recorded, node, node.executable)
        parameters = {}
        for name, (value, _) in parameters_reaching(
                recorded, node, fqn).items():
            if value in ('true', 'false'):   # launch_ros types them
                value = value == 'true'
            # Dotted names nest in a parameter file, as rcl reads them.
            *path, last = name.split('.')
            table = parameters
            for key in path:
                table = table.setdefault(key, {})
            table[last] = value
        remaps = {recorded.value(a): recorded.value(b)
                  for a, b in node.remappings}
        if parameters.get('lockstep_peers'):
            parameters['lockstep_peers'] = list(LOCKSTEP_PEERS)
        yield node.executable, parameters, remaps


def set_atomically(tester, node_name, parameters):
    """Set rclpy Parameters of a remote node in one set; return the result."""
    client = tester.node.create_client(
        SetParametersAtomically, '/%s/set_parameters_atomically' % node_name)
    try:
        tester.wait_for(client.service_is_ready,
                        what='set_parameters_atomically of %s' % node_name)
        request = SetParametersAtomically.Request()
        request.parameters = [p.to_parameter_msg() for p in parameters]
        future = client.call_async(request)
        tester.wait_for(future.done, what='set_parameters_atomically reply')
        return future.result().result
    finally:
        tester.node.destroy_client(client)


def picked_up():
    """Return the payload as the InertiaStamped the parameters are made of."""
    return inertia_stamped(TIP, MASS, COM, INERTIA)


class Loop:
    """The tester's view of the running loop."""

    def __init__(self, tester):
        self.tester = tester
        self.states = tester.collector(JointState, 'joint_states')
        self.torques = tester.collector(JointState, 'external_torques')
        self.payloads = tester.collector(InertiaStamped, 'payload', LATCHED)
        self.trajectories = tester.publisher(JointTrajectory,
                                             'joint_trajectory')

    def now(self):
        """Return the simulated time of the latest joint state."""
        self.tester.wait_for(lambda: self.states.messages,
                             what='joint_states')
        return stamp_of(self.states.messages[-1])

    def wait_until(self, t):
        """Spin until the simulated time reaches ``t``."""
        self.tester.wait_for(lambda: self.now() >= t, timeout=120.0,
                             what='simulated time %.1f s' % t)

    def measure(self, target):
        """
        Wait SETTLE, then return (hold error, residual) over MEASURE.

        Hold error: largest |q - target| (rad) of any joint at any joint
        state; residual: largest |external torque| (N m).
        """
        start = self.now() + SETTLE
        self.wait_until(start + MEASURE)
        # The observer's answers to the last states (it answered each
        # before the simulator stepped on).
        self.tester.wait_for(lambda: self.torques.messages and max(
            stamp_of(m) for m in self.torques.messages) >= start + MEASURE,
            what='external torques at %.1f s' % (start + MEASURE))
        errors = [np.max(np.abs(reorder(m.position, m.name, JOINTS) - target))
                  for m in self.states.messages
                  if start <= stamp_of(m) <= start + MEASURE]
        residuals = [np.max(np.abs(m.effort)) for m in self.torques.messages
                     if start <= stamp_of(m) <= start + MEASURE]
        assert len(errors) > 10 and len(residuals) > 10, (
            len(errors), len(residuals))
        speeds = [np.max(np.abs(m.velocity)) for m in self.states.messages
                  if start <= stamp_of(m) <= start + MEASURE]
        print('measured from %.2f s: error %.3g residual %.3g speed %.3g'
              % (start, max(errors), max(residuals), max(speeds)))
        return max(errors), max(residuals)

    def reach(self, pose):
        """
        Bring the arm to ``pose`` and hold it there.

        Sent again every 10 s of wall time until the arm is there: at
        start-up inverse_dynamics_node drops a trajectory when its clock
        jumps to the simulator's (jump_policy hold).
        """
        msg = self.trajectory([pose])
        self.tester.wait_for_subscriber(self.trajectories)

        def there():
            m = self.states.messages
            return m and np.max(np.abs(reorder(
                m[-1].position, m[-1].name, JOINTS) - pose)) < 1e-3

        self.tester.wait_for(there, timeout=120.0,
                             action=lambda: self.trajectories.publish(msg),
                             every=10.0, what='the arm at the pose')

    def trajectory(self, poses):
        """Return one JointTrajectory through the poses (MOVE, STILL each)."""
        msg = JointTrajectory(joint_names=JOINTS)
        t = 0.0
        for pose in poses:
            for t in (t + MOVE, t + MOVE + STILL):
                msg.points.append(JointTrajectoryPoint(
                    positions=[float(x) for x in pose],
                    velocities=[0.0] * len(JOINTS),
                    time_from_start=Duration(sec=int(t), nanosec=int(
                        round((t - int(t)) * 1e9)))))
        return msg

    def follow(self, poses):
        """Send the poses as one trajectory; wait until it ended."""
        msg = self.trajectory(poses)
        self.tester.wait_for_subscriber(self.trajectories)
        # Stamped ahead: in lockstep it starts at its stamp, from the
        # state there (doc/theory/lockstep.md).
        start = self.now() + 0.2
        msg.header.stamp = time_message(start)
        self.trajectories.publish(msg)
        self.wait_until(start + len(poses) * (MOVE + STILL))


def test_pick_up_estimate_compensate(tmp_path):
    urdf = tmp_path / 'panda.urdf'
    urdf.write_text(example_arm_xml('panda'))
    nodes = [NodeProcess(executable, DOMAIN_ID, parameters, remaps)
             for executable, parameters, remaps in launched({
                 'urdf': str(urdf), 'tip_link': TIP,
                 'payload_estimation': 'true', 'publish_rate': '100',
                 'lockstep': 'true', 'real_time_factor': '0'})]
    names = [node.node_name for node in nodes]
    assert 'payload_estimation_node' in names
    tester = RosTester(DOMAIN_ID)
    try:
        loop = Loop(tester)
        # Static poses, the whole tour in the window.
        assert all(result.successful for result in tester.set_parameters(
            'payload_estimation_node', mode='static',
            window=(len(TOUR) + 1) * (MOVE + STILL) + 1.0))
        assert all(result.successful for result in tester.set_parameters(
            'inverse_dynamics_node', kp=[KP], kd=[KD]))
        # The loop closes over DDS, in lockstep: no dead time whatever the
        # load.  A peer stalled by a busy machine is waited for, not held
        # without (lockstep_timeout is wall time).
        assert tester.set_parameters('simulator_node',
                                     lockstep_timeout=600.0)[0].successful
        loop.reach(HOLD)
        free_error, free_residual = loop.measure(HOLD)

        result = set_atomically(tester, 'simulator_node',
                                payload_parameters(picked_up()))
        assert result.successful, result.reason
        loaded_error, loaded_residual = loop.measure(HOLD)

        loop.follow(TOUR + [HOLD])
        client = tester.node.create_client(
            Trigger, '/payload_estimation_node/estimate_payload')
        tester.wait_for(client.service_is_ready, what='estimate_payload')
        future = client.call_async(Trigger.Request())
        tester.wait_for(future.done, what='estimate_payload answer')
        answer = future.result()
        assert answer.success, answer.message
        tester.wait_for(lambda: loop.payloads.messages, what='payload')
        estimate = loop.payloads.messages[-1].inertia
        for follower in ('inverse_dynamics_node', 'external_torque_node'):
            tester.wait_for(lambda: tester.warnings(
                follower, 'payload from the payload topic', Log.INFO),
                what='%s following the payload' % follower)
        held_error, held_residual = loop.measure(HOLD)
        figures = (
            'hold error rad: free %.3g, loaded %.3g, estimated %.3g; '
            'residual N m: free %.3g, loaded %.3g, estimated %.3g; '
            'estimate %.4f kg at [%.4f, %.4f, %.4f]; %s' % (
                free_error, loaded_error, held_error, free_residual,
                loaded_residual, held_residual, estimate.m, estimate.com.x,
                estimate.com.y, estimate.com.z, answer.message))
        print(figures)
        # Picking up 2 kg sags the hold by centiradians and shows as
        # newtonmetres of "external" torque.
        assert loaded_error > 10.0 * free_error + 1e-3, figures
        assert loaded_residual > 1.0, figures
        assert abs(estimate.m - MASS) < 0.02 * MASS, figures
        assert np.max(np.abs(np.array([
            estimate.com.x, estimate.com.y, estimate.com.z]) - COM)) < 5e-3
        # Measured over four runs (load average 7-13): hold error 1e-14 to
        # 5e-12 rad free, 0.0847 rad loaded, 5e-7 to 1.3e-6 rad with the
        # estimate; residual 1e-14 to 5e-11, 7.66 and 2e-5 to 8e-5 N m;
        # estimate 1.5000 kg, com within 1e-6 m.  The free hold of an exact
        # model is exact to rounding, so "within 10 % of the no-payload
        # value" is asserted as:
        # the hold error the payload added is cut to at most 10 % of itself
        # (measured: about 1e-5 of itself); the error left is below 1e-4 rad.
        assert held_error - free_error <= 0.1 * (
            loaded_error - free_error), figures
        assert held_error < 1e-4, figures
        # The residual is back below the noise of a joint torque sensor
        # (0.05 N m, as payload_plant's efforts).
        assert held_residual < 0.05, figures
    finally:
        tester.close()
        alive = {node.node_name: node.alive() for node in nodes}
        # All asked to stop at once: five shutdowns on a loaded machine
        # overlap instead of queueing behind each other's STOP_TIMEOUT (the
        # linearization_node, a peer answering every state, was seen
        # taking more than 10 s beside two busy processes).
        for node in nodes:
            if node.alive():
                node.process.send_signal(signal.SIGINT)
        statuses = {node.node_name: node.stop() for node in nodes}
        for node in nodes:   # shown when the test fails
            print('--- %s:\n%s' % (node.node_name, node.output()[-3000:]))
    for node in nodes:
        assert alive[node.node_name] and statuses[node.node_name] == 0, \
            node.output()
