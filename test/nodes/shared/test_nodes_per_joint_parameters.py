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
Per-joint parameters over real node processes: one value or one per joint.

``ros2 param set /inverse_dynamics_node kp 200.0`` used to fail with
"Wrong parameter type, expected '8' got '3'" (kp was a double[]); every
per-joint parameter is now declared with dynamic typing and takes a
number (all joints) or a list (one per joint), at start and at run time,
in every node.  The inverse dynamics node's torques show the gains in use:
they must equal computed torque with the scalar broadcast, or with the
list per joint (a node that took the list's first value for every joint,
or kept the old gains, gives other torques).
"""

import os

from builtin_interfaces.msg import Time
from conftest import REPO_ROOT
import dynamics_ros as dr
from dynamics_ros.control.computed_torque import computed_torque
import numpy as np
import pytest
from rcl_interfaces.msg import ParameterType
from rcl_interfaces.srv import GetParameters
from ros_harness import inverse_dynamics_topics, NodeProcess, \
    reserve_domain_id, RosTester, TIMEOUT
from sensor_msgs.msg import JointState

DOMAIN_ID = reserve_domain_id(__name__)
URDF = os.path.join(REPO_ROOT, 'urdf', 'two_link_planar.urdf')
MODEL = dr.load_urdf(URDF)
FIRST_ANSWER = 600.0  # s: an upper bound; the wait ends at the answer


@pytest.fixture(scope='module')
def ros():
    """Run the three nodes with per-joint parameters given both ways."""
    common = {'urdf_path': URDF}
    nodes = [
        NodeProcess('inverse_dynamics_node', DOMAIN_ID, dict(
            common, mode='computed_torque', saturate=False, kp=150.0,
            kd=[5.0, 7.0], max_state_age=0.0)),   # made-up stamps (1 s)
        NodeProcess('simulator_node', DOMAIN_ID, dict(
            common, pos_kp=300.0, vel_kp=[20.0, 10.0])),
        NodeProcess('external_torque_node', DOMAIN_ID, dict(
            common, gain=[40.0, 60.0], thresholds=4.0)),
    ]
    tester = inverse_dynamics_topics(RosTester(DOMAIN_ID))
    tester.stamp = 0
    # The first state is the reference the node holds: zero.  Its first
    # answer may wait for kernels compiling on a loaded machine.
    torques(tester, [0.0, 0.0], [0.0, 0.0], timeout=FIRST_ANSWER)
    yield tester
    alive = [node.alive() for node in nodes]
    statuses = [node.stop() for node in nodes]
    tester.close()
    for node, lived, status in zip(nodes, alive, statuses):
        assert lived and status == 0, node.output()


def remote_value(ros, node, name):
    """Return (type, value) of parameter ``name`` of ``node``."""
    client = ros.node.create_client(GetParameters,
                                    '/%s/get_parameters' % node)
    try:
        ros.wait_for(client.service_is_ready, what='get_parameters')
        future = client.call_async(GetParameters.Request(names=[name]))
        ros.wait_for(future.done, what='get_parameters reply')
        value, = future.result().values
    finally:
        ros.node.destroy_client(client)
    if value.type == ParameterType.PARAMETER_DOUBLE:
        return 'double', value.double_value
    assert value.type == ParameterType.PARAMETER_DOUBLE_ARRAY, value
    return 'double[]', list(value.double_array_value)


def torques(ros, q, qd, timeout=TIMEOUT):
    """Publish one joint state; return the node's feedforward efforts."""
    ros.stamp += 1
    stamp = Time(sec=1, nanosec=ros.stamp)
    msg = JointState(name=list(MODEL.joint_names), position=list(q),
                     velocity=list(qd))
    msg.header.stamp = stamp
    ros.feedforward.clear()
    ros.wait_for(lambda: any(m.header.stamp == stamp
                             for m in ros.feedforward.messages),
                 action=lambda: ros.states.publish(msg), timeout=timeout,
                 what='feedforward for stamp %d' % ros.stamp)
    reply = [m for m in ros.feedforward.messages if m.header.stamp == stamp]
    return np.array(reply[0].effort)


def expected(q, qd, kp, kd):
    """Return computed torque holding the first state (zero), per joint."""
    zero = np.zeros(MODEL.nq)
    return computed_torque(MODEL, np.array(q), np.array(qd), zero, zero,
                           zero, np.broadcast_to(kp, MODEL.nq),
                           np.broadcast_to(kd, MODEL.nq))


Q, QD = [0.1, -0.2], [0.3, 0.1]
START_GAINS = {'kp': 150.0, 'kd': [5.0, 7.0]}   # as the fixture gives them


@pytest.fixture
def gains_back(ros):
    """Put the start gains back after a test that sets them."""
    yield
    results = ros.set_parameters('inverse_dynamics_node', **START_GAINS)
    assert all(r.successful for r in results), [r.reason for r in results]


def test_gains_given_at_start_as_a_number_and_as_a_list(ros):
    assert remote_value(ros, 'inverse_dynamics_node', 'kp') == (
        'double', START_GAINS['kp'])
    assert remote_value(ros, 'inverse_dynamics_node', 'kd') == (
        'double[]', START_GAINS['kd'])
    np.testing.assert_allclose(torques(ros, Q, QD),
                               expected(Q, QD, **START_GAINS),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize('kp,kd', [(200.0, 3.0), ([200.0, 50.0], 3.0),
                                   (80.0, [1.0, 9.0])])
def test_gains_set_at_run_time_as_a_number_or_a_list(ros, gains_back, kp,
                                                     kd):
    results = ros.set_parameters('inverse_dynamics_node', kp=kp, kd=kd)
    assert all(r.successful for r in results), [r.reason for r in results]
    np.testing.assert_allclose(torques(ros, Q, QD), expected(Q, QD, kp, kd),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize('node,name,scalar,values', [
    ('inverse_dynamics_node', 'kp', 120.0, [120.0, 60.0]),
    ('inverse_dynamics_node', 'acceleration_limits', 5.0,
     [5.0, float('inf')]),
    ('simulator_node', 'pos_kp', 250.0, [250.0, 90.0]),
    ('simulator_node', 'vel_max_integral_error', 0.5, [0.5, float('inf')]),
    ('external_torque_node', 'gain', 30.0, [30.0, 45.0]),
    ('external_torque_node', 'thresholds', 6.0, [6.0, 3.0]),
])
def test_every_node_takes_both_shapes_and_refuses_a_wrong_count(
        ros, gains_back, node, name, scalar, values):
    for value, shape in ((scalar, 'double'), (values, 'double[]'),
                         (scalar, 'double')):
        result, = ros.set_parameters(node, **{name: value})
        assert result.successful, (node, name, value, result.reason)
        assert remote_value(ros, node, name) == (shape, value)
    result, = ros.set_parameters(node, **{name: [1.0, 2.0, 3.0]})
    assert not result.successful
    assert result.reason == (
        '%s has 3 values: give 1 or one per joint (2)' % name), result.reason
    assert remote_value(ros, node, name) == ('double', scalar)
