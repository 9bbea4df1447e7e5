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
simulator_node picks a payload up at run time (its ``payload.*``).

A two-link arm holds still on an effort command equal to its own gravity
torques; the ``payload.*`` parameters are set in one atomic set: the run
goes on (time, state and the effort command carried over, no reset) and
from then on the node's steps are those of the ROS-free Simulator of the
model with the payload - to rounding, so the compiled step follows the
new model.  Sets no rigid body can have are refused with the reason.
"""

import os

from conftest import assert_close, REPO_ROOT
import dynamics_ros as dr
from dynamics_ros.model.payload import add_payload
from dynamics_ros.sim.simulator import Simulator
import numpy as np
from rcl_interfaces.srv import SetParametersAtomically
from rclpy.parameter import Parameter
from ros_harness import finish, NodeProcess, reorder, reserve_domain_id, \
    RosTester, stamp_of
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

DOMAIN_ID = reserve_domain_id(__name__)
URDF = os.path.join(REPO_ROOT, 'urdf', 'two_link_planar.urdf')
MODEL = dr.load_urdf(URDF)
DT = 1e-3
START = np.array([-np.pi / 2 + 0.7, 0.4])   # model order: shoulder, elbow
MASS, COM = 1.5, [0.15, 0.02, 0.0]
INERTIA = [0.004, 0.0, 0.0, 0.006, 0.0, 0.008]


def set_atomically(tester, **values):
    """Set simulator_node parameters in one set; return the result."""
    client = tester.node.create_client(
        SetParametersAtomically, '/simulator_node/set_parameters_atomically')
    try:
        tester.wait_for(client.service_is_ready, what='parameter service')
        request = SetParametersAtomically.Request()
        request.parameters = [
            Parameter(name.replace('__', '.'), value=value).to_parameter_msg()
            for name, value in values.items()]
        future = client.call_async(request)
        tester.wait_for(future.done, what='set_parameters_atomically reply')
        return future.result().result
    finally:
        tester.node.destroy_client(client)


def positions(msg):
    """Return a joint state's positions in model order."""
    return reorder(msg.position, msg.name, MODEL.joint_names)


def test_payload_picked_up_at_run_time():
    node = NodeProcess('simulator_node', DOMAIN_ID, {
        'urdf_path': URDF, 'rate': 1.0 / DT, 'integrator': 'rk4',
        'real_time_factor': 2.0, 'publish_rate': 200.0,
        'command_timeout': 0.0, 'initial_positions': START.tolist()})
    tester = RosTester(DOMAIN_ID)
    try:
        states = tester.collector(JointState, '/joint_states')
        efforts = tester.publisher(Float64MultiArray,
                                   '/effort_controller/commands')
        # The first step may wait for the compiled kernels to load.
        tester.wait_for(lambda: states.messages, timeout=180.0,
                        what='the first joint_states')
        hold = dr.gravity_torques(MODEL, START)
        msg = Float64MultiArray(data=hold.tolist())

        def holding():
            return any(np.array_equal(m.effort, hold)
                       for m in states.messages)

        tester.wait_for(holding, action=lambda: efforts.publish(msg),
                        every=0.5, what='the holding effort applied')
        # Exact gravity torques: the arm stays where it is.
        tester.spin(0.3)
        last = states.messages[-1]
        assert np.max(np.abs(positions(last) - START)) < 1e-9

        # No rigid body: refused with the reason, nothing changes.
        for values, reason in (
                ({'payload__mass': -1.0}, 'payload mass'),
                ({'payload__mass': 1.0, 'payload__inertia': [
                    0.001, 0.0, 0.0, 0.001, 0.0, 0.01]},
                 'triangle inequality')):
            result = set_atomically(tester, **values)
            assert not result.successful and reason in result.reason, \
                result.reason
        tester.spin(0.3)
        assert np.max(np.abs(positions(states.messages[-1]) - START)) < 1e-9

        before = stamp_of(states.messages[-1])
        result = set_atomically(tester, payload__mass=MASS,
                                payload__com=COM, payload__inertia=INERTIA)
        assert result.successful, result.reason

        # The same effort no longer holds the heavier arm: it sinks from
        # where it was (no reset: the run, its time and command go on).
        def sinking():
            return [m for m in states.messages
                    if np.max(np.abs(positions(m) - START)) > 1e-6]

        tester.wait_for(sinking, what='the arm sinking with the payload')
        first = min(sinking(), key=stamp_of)
        assert stamp_of(first) > before
        tester.wait_for(lambda: stamp_of(states.messages[-1]) >
                        stamp_of(first) + 0.3, what='0.3 s more')
        second = next(m for m in sorted(states.messages, key=stamp_of)
                      if stamp_of(m) >= stamp_of(first) + 0.3)
        assert np.array_equal(second.effort, hold)   # the command went on
        heavy = add_payload(MODEL, MASS, COM, INERTIA)
        for model in (heavy, MODEL):
            simulator = Simulator(
                model, dt=DT, q0=positions(first),
                qd0=reorder(first.velocity, first.name, MODEL.joint_names),
                start_time=stamp_of(first))
            steps = int(round((stamp_of(second) - stamp_of(first)) / DT))
            for _ in range(steps):
                simulator.step(hold)
            if model is MODEL:
                # Without the payload the steps would differ: the check
                # below tells the models apart.
                assert np.max(np.abs(simulator.q - positions(second))) > 1e-4
                continue
            # Same model, integrator, step and arithmetic as the node.
            assert_close(simulator.q, positions(second), rtol=1e-9,
                         what='positions with the payload')
            assert_close(simulator.qd, reorder(
                second.velocity, second.name, MODEL.joint_names),
                rtol=1e-9, what='velocities with the payload')
        assert tester.warnings('simulator_node', 'goes on', 20), \
            node.output()
    finally:
        finish(node, tester)
