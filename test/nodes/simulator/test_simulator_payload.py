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

A two-link arm swings on a constant effort command, its steps those of
the ROS-free Simulator of its model; the ``payload.*`` parameters are set
in one atomic set: the run goes on (time, state and the effort command
carried over, no reset to the initial state) and from then on the node's
steps are those of the ROS-free Simulator of the model with the payload,
to rounding: the compiled step follows the new model.  Sets no rigid body
can have are refused with the reason, and the run goes on unchanged.  The
node runs in lockstep with this test (doc/theory/lockstep.md): no joint
state is lost however loaded the machine.
"""

import os

from conftest import assert_close, REPO_ROOT
import dynamics_ros as dr
from dynamics_ros.model.payload import add_payload
from dynamics_ros.sim.simulator import Simulator
import numpy as np
from rcl_interfaces.srv import SetParametersAtomically
from rclpy.parameter import Parameter
from ros_harness import answering_collector, finish, NodeProcess, \
    reorder, reserve_domain_id, RosTester, stamp_of, TESTER_ANSWERS
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


def velocities(msg):
    """Return a joint state's velocities in model order."""
    return reorder(msg.velocity, msg.name, MODEL.joint_names)


def replayed(model, first, until, effort):
    """Return the ROS-free Simulator run from ``first`` to time ``until``."""
    simulator = Simulator(model, dt=DT, q0=positions(first),
                          qd0=velocities(first), start_time=stamp_of(first))
    for _ in range(int(round((until - stamp_of(first)) / DT))):
        simulator.step(effort)
    return simulator


def matches(simulator, msg):
    """Return whether ``msg`` is the state of ``simulator`` (to rounding)."""
    return np.allclose(simulator.q, positions(msg), rtol=1e-9, atol=1e-9) \
        and np.allclose(simulator.qd, velocities(msg), rtol=1e-9, atol=1e-9)


def test_payload_picked_up_at_run_time():
    node = NodeProcess('simulator_node', DOMAIN_ID, {
        'urdf_path': URDF, 'rate': 1.0 / DT, 'integrator': 'rk4',
        'real_time_factor': 0.0, 'publish_rate': 200.0,
        'command_timeout': 0.0, 'initial_positions': START.tolist(),
        # Paced by this test, which may stop spinning for a while.
        'lockstep': True, 'lockstep_peers': [TESTER_ANSWERS],
        'lockstep_timeout': 600.0})
    tester = RosTester(DOMAIN_ID)
    try:
        states = answering_collector(tester, '/joint_states')
        efforts = tester.publisher(Float64MultiArray,
                                   '/effort_controller/commands')
        # The first step may wait for the compiled kernels to load.
        tester.wait_for(lambda: states.messages, timeout=180.0,
                        what='the first joint_states')
        effort = np.array([1.5, -0.4])   # model order: shoulder, elbow
        msg = Float64MultiArray(data=effort.tolist())

        def driven():
            return [m for m in states.messages[-20:]
                    if np.array_equal(m.effort, effort)]

        tester.wait_for(driven, action=lambda: efforts.publish(msg),
                        every=0.5, what='the effort command applied')
        start = driven()[0]

        # No rigid body: refused with the reason, the run unchanged.
        for values, reason in (
                ({'payload__mass': -1.0}, 'payload mass'),
                ({'payload__mass': 1.0, 'payload__inertia': [
                    0.001, 0.0, 0.0, 0.001, 0.0, 0.01]},
                 'triangle inequality')):
            result = set_atomically(tester, **values)
            assert not result.successful and reason in result.reason, \
                result.reason
        tester.spin(0.2)
        last = states.messages[-1]
        assert matches(replayed(MODEL, start, stamp_of(last), effort), last)

        anchor = states.messages[-1]   # the bare arm's (before the set)
        result = set_atomically(tester, payload__mass=MASS,
                                payload__com=COM, payload__inertia=INERTIA)
        assert result.successful, result.reason
        heavy = add_payload(MODEL, MASS, COM, INERTIA)
        # The first state the bare arm does not explain is after the
        # pick-up; from it on the node steps the arm holding the payload.
        # States are read as they come (in order, from one publisher), the
        # bare arm stepped along.
        scan = {'bare': replayed(MODEL, anchor, stamp_of(anchor), effort),
                'read': states.messages.index(anchor) + 1,
                'previous': anchor, 'first': None}

        def deviated():
            bare = scan['bare']
            while scan['read'] < len(states.messages):
                msg = states.messages[scan['read']]
                scan['read'] += 1
                for _ in range(int(round((stamp_of(msg) - bare.t) / DT))):
                    bare.step(effort)
                if not matches(bare, msg):
                    scan['first'] = msg
                    return True
                scan['previous'] = msg
            return False

        tester.wait_for(deviated, what='the payload acting')
        first, previous, bare = scan['first'], scan['previous'], scan['bare']
        # No state lost before it: one every 5 steps at 200 Hz, and the
        # new simulation counts its 5 steps afresh (9 at most between).
        assert stamp_of(first) - stamp_of(previous) < 0.0095
        # Where the bare arm would be, a step or five later (no reset to
        # the initial positions, time running on).
        assert np.max(np.abs(positions(first) - bare.q)) < 1e-2
        assert np.max(np.abs(positions(first) - START)) > 0.05
        tester.wait_for(lambda: stamp_of(states.messages[-1])
                        >= stamp_of(first) + 0.3, what='0.3 s more')
        second = next(m for m in states.messages
                      if stamp_of(m) >= stamp_of(first) + 0.3)
        assert np.array_equal(second.effort, effort)   # the command went on
        simulator = replayed(heavy, first, stamp_of(second), effort)
        # Same model, integrator, step and arithmetic as the node.
        assert_close(simulator.q, positions(second), rtol=1e-9,
                     what='positions with the payload')
        assert_close(simulator.qd, velocities(second), rtol=1e-9,
                     what='velocities with the payload')
        assert not matches(replayed(MODEL, first, stamp_of(second), effort),
                           second)
        assert tester.warnings('simulator_node', 'goes on', 20), \
            node.output()
    finally:
        finish(node, tester)
