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
linearization_node as a process, over DDS: A and B equal ``dr.linearize``.

Panda with ``joints`` in reverse model order: the published state order is
x = [q; qd] in that order, so the model-order matrices are permuted.
The node keeps the last effort command as its input for good: the input
before any command (g(q)) is checked on a second node, started beside the
first, that never gets one, whatever order the tests run in.
"""

from builtin_interfaces.msg import Time
from conftest import assert_close
import dynamics_ros as dr
import numpy as np
import oracle
import pytest
from ros_harness import finish, linearization_topics, NodeProcess, \
    reserve_domain_id, RosTester
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

DOMAIN_ID, FRESH_DOMAIN = (reserve_domain_id(__name__) for _ in range(2))
NODE = 'linearization_node'
XML = oracle.example_arm_xml('panda')
MODEL, ORACLE = oracle.oracle_for(XML)
JOINTS = list(reversed(MODEL.joint_names))
INDEX = np.array([MODEL.joint_index(name) for name in JOINTS])
ROWS = np.concatenate([INDEX, MODEL.nq + INDEX])


@pytest.fixture(scope='module')
def nodes():
    """Start two nodes at once (one never commanded), each with a tester."""
    started = [(NodeProcess(NODE, domain, {
        'robot_description': XML, 'joints': JOINTS, 'rate': 20.0,
        # Stamps of a made-up time base (7 s): no age check.
        'max_state_age': 0.0}), domain)
        for domain in (DOMAIN_ID, FRESH_DOMAIN)]
    pairs = [(node, linearization_topics(RosTester(domain)))
             for node, domain in started]
    for _, tester in pairs:
        tester.stamp = 0
    yield [tester for _, tester in pairs]
    for node, tester in pairs:
        finish(node, tester)


@pytest.fixture
def ros(nodes):
    """Return the tester of the node the tests command."""
    return nodes[0]


@pytest.fixture
def never_commanded(nodes):
    """Return the tester of the node no test sends a command."""
    return nodes[1]


def decode(msg):
    """Check the 2-D layout of a Float64MultiArray; return the matrix."""
    rows, cols = msg.layout.dim
    assert (rows.label, cols.label) == ('rows', 'cols')
    assert rows.stride == rows.size * cols.size and cols.stride == cols.size
    assert msg.layout.data_offset == 0
    return np.array(msg.data).reshape(rows.size, cols.size)


def operating_point(ros, q, qd, tau=None):
    """Publish a state (and command); return (A, B, operating point)."""
    ros.stamp += 1
    stamp = Time(sec=7, nanosec=ros.stamp)
    msg = JointState(name=JOINTS, position=q[INDEX].tolist(),
                     velocity=qd[INDEX].tolist())
    msg.header.stamp = stamp

    def send():
        ros.states.publish(msg)
        if tau is not None:
            ros.commands.publish(Float64MultiArray(data=tau[INDEX].tolist()))

    def about_this_point():
        return [m for m in ros.point.messages if m.header.stamp == stamp and (
            tau is None or np.array_equal(m.effort, tau[INDEX]))]

    ros.point.clear()
    ros.wait_for(lambda: len(about_this_point()) >= 2, action=send,
                 every=0.2, what='operating point %s' % stamp)
    # The state no longer changes: every A, B from now on is about it.
    ros.a.clear()
    ros.b.clear()
    ros.point.clear()
    ros.wait_for(lambda: ros.a.messages and ros.b.messages and
                 about_this_point(), what='A and B')
    return (decode(ros.a.messages[-1]), decode(ros.b.messages[-1]),
            about_this_point()[-1])


def test_continuous_model_about_gravity_torques(never_commanded):
    rng = np.random.default_rng(11)
    q, qd, _, _ = oracle.random_state(MODEL, rng)
    A, B, point = operating_point(never_commanded, q, qd)
    assert list(point.name) == JOINTS
    assert_close(point.position, q[INDEX])
    assert_close(point.velocity, qd[INDEX])
    gravity = ORACLE.gravity(q)
    assert_close(point.effort, gravity[INDEX], what='default input g(q)')
    A_model, B_model = dr.linearize(MODEL, q, qd, gravity)
    assert_close(A, A_model[np.ix_(ROWS, ROWS)], what='A')
    assert_close(B, B_model[np.ix_(ROWS, INDEX)], what='B')
    # Independent of dr.linearize: x = [q; qd] so dq/dt = qd, and B's
    # lower block is M^-1 (Pinocchio), in joints order.
    n = MODEL.nq
    assert_close(A[:n], np.hstack([np.zeros((n, n)), np.eye(n)]))
    M_inv = np.linalg.inv(ORACLE.crba(q))
    # Inverting M (condition number ~1e3 for Panda) costs digits: 1e-8.
    assert_close(B[n:], M_inv[np.ix_(INDEX, INDEX)], rtol=1e-8, what='M^-1')


def test_last_command_is_the_input(ros):
    rng = np.random.default_rng(12)
    q, qd, _, tau = oracle.random_state(MODEL, rng)
    A, B, point = operating_point(ros, q, qd, tau)
    A_model, B_model = dr.linearize(MODEL, q, qd, tau)
    assert_close(A, A_model[np.ix_(ROWS, ROWS)], what='A about a command')
    assert_close(B, B_model[np.ix_(ROWS, INDEX)], what='B about a command')


def test_discrete_model(ros):
    results = ros.set_parameters(NODE, discrete_dt=0.01)
    assert results[0].successful, results[0].reason
    rng = np.random.default_rng(13)
    q, qd, _, tau = oracle.random_state(MODEL, rng)
    A, B, _ = operating_point(ros, q, qd, tau)
    A_model, B_model = dr.linearize(MODEL, q, qd, tau, dt=0.01)
    assert_close(A, A_model[np.ix_(ROWS, ROWS)], what='A_d')
    assert_close(B, B_model[np.ix_(ROWS, INDEX)], what='B_d')
    assert not np.allclose(A[:MODEL.nq, :MODEL.nq], 0.0)  # ~identity
    results = ros.set_parameters(NODE, discrete_dt=0.0)
    assert results[0].successful


def test_invalid_rate_and_dt_are_rejected(ros):
    for values in ({'rate': 0.0}, {'rate': float('inf')},
                   {'discrete_dt': -0.1}):
        results = ros.set_parameters(NODE, **values)
        assert not results[0].successful and results[0].reason, values
    assert ros.set_parameters(NODE, rate=25.0)[0].successful
