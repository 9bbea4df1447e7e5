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
inverse_dynamics_node with an identified URDF and its friction file.

The node, started as a process over DDS, loads a URDF whose inertials
were rewritten by the identification's writer and adds the friction of a
friction YAML (viscous plus tanh-smoothed Coulomb, no offset) to gravity
torques; a bad ``friction_file`` is refused with its reason, '' turns the
friction off.  Expected values from Pinocchio on the same URDF text.
"""

from builtin_interfaces.msg import Time
from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.dynamics.friction import JointFriction, write_friction
from dynamics_ros.dynamics.regressor import inertial_parameters
from dynamics_ros.identification.output import write_urdf
import numpy as np
import oracle
import pytest
from ros_harness import finish, inverse_dynamics_topics, NodeProcess, \
    reserve_domain_id, RosTester
from sensor_msgs.msg import JointState

DOMAIN_ID = reserve_domain_id(__name__)
NODE = 'inverse_dynamics_node'


@pytest.fixture(scope='module')
def setup(tmp_path_factory):
    """Identified-style URDF and friction file; the node running on them."""
    folder = tmp_path_factory.mktemp('identified')
    xml = oracle.example_arm_xml('panda')
    nominal = dr.load_urdf(xml)
    pi = inertial_parameters(nominal).reshape(nominal.nq, 10)
    # Each body's density scaled: physical, and a different g(q).
    changed = pi * np.linspace(0.8, 1.3, nominal.nq)[:, None]
    text, _ = write_urdf(xml, nominal, pi, changed)
    model, pinocchio = oracle.oracle_for(text)
    friction = JointFriction(model.joint_names, np.linspace(0.1, 0.7, 7),
                             np.linspace(0.5, 1.1, 7), np.full(7, 3.0),
                             smoothing=0.05)
    path = str(folder / 'friction.yaml')
    write_friction(friction, path)
    node = NodeProcess(NODE, DOMAIN_ID, {
        'robot_description': text, 'mode': 'gravity', 'saturate': False,
        'friction_file': path,
        'max_state_age': 0.0})   # stamps from 1 s: no age check
    tester = RosTester(DOMAIN_ID)
    inverse_dynamics_topics(tester)
    tester.stamp = 0
    yield dict(ros=tester, model=model, pinocchio=pinocchio,
               friction=friction, path=path, folder=folder)
    finish(node, tester)


def torques(ros, model, q, qd):
    """Publish one state; return the node's feed-forward (model order)."""
    ros.stamp += 1
    stamp = Time(sec=1, nanosec=ros.stamp)
    msg = JointState(name=model.joint_names)
    msg.header.stamp = stamp
    msg.position = q.tolist()
    msg.velocity = qd.tolist()
    ros.feedforward.clear()
    ros.wait_for(lambda: any(m.header.stamp == stamp
                             for m in ros.feedforward.messages),
                 action=lambda: ros.states.publish(msg),
                 what='feedforward for stamp %s' % stamp)
    reply = [m for m in ros.feedforward.messages if m.header.stamp == stamp]
    table = dict(zip(reply[0].name, reply[0].effort))
    return np.array([table[name] for name in model.joint_names])


def test_identified_urdf_and_friction_in_the_feedforward(setup):
    """g(q) of the identified URDF plus friction; off with ''; refusals."""
    ros, model = setup['ros'], setup['model']
    rng = np.random.default_rng(3)
    q, qd, _, _ = oracle.random_state(model, rng)
    qd[0] = 0.0   # tanh(0) = 0: no Coulomb friction at rest
    friction = setup['friction']
    expected = setup['pinocchio'].gravity(q) + friction.viscous * qd + \
        friction.coulomb * np.tanh(qd / 0.05)
    assert_close(torques(ros, model, q, qd), expected, what='g + friction')
    results = ros.set_parameters(NODE, friction_file=str(
        setup['folder'] / 'missing.yaml'))
    assert not results[0].successful
    assert 'missing.yaml' in results[0].reason
    assert 'cannot be read' in results[0].reason
    bad = setup['folder'] / 'bad.yaml'
    bad.write_text('joints: {panda_joint1: {coulomb: -1}}\n',
                   encoding='utf-8')
    results = ros.set_parameters(NODE, friction_file=str(bad))
    assert not results[0].successful
    assert 'not a friction YAML' in results[0].reason
    assert 'panda_joint1' not in results[0].reason   # no file contents
    assert all(r.successful for r in ros.set_parameters(
        NODE, friction_file=''))
    assert_close(torques(ros, model, q, qd), setup['pinocchio'].gravity(q),
                 what='g without friction')
