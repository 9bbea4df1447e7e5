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
Untrusted input stays data, with the nodes as processes over DDS.

inverse_dynamics_node runs the two-link arm from ``urdf_path``.  Text on
the ``robot_description`` topic that is not XML - the path of another
robot's URDF, a .xacro path, xacro expressions, the path of a secret file -
is refused with a short reason and the arm's model is kept (its gravity
torques against the closed form).  Setting ``urdf_path`` or
``friction_file`` to /dev/zero, a FIFO or a directory is refused at once,
the node answering on; at start-up such a ``urdf_path``, an
``actuator_config`` at /dev/zero or a ``flexible_config`` that is a secret
file stop the node with the reason and no traceback.  No file's text
reaches a log or a reply.
"""

import os

from conftest import assert_close, REPO_ROOT
import numpy as np
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_harness import finish, NodeProcess, reserve_domain_id, RosTester
from sensor_msgs.msg import JointState
from std_msgs.msg import String

DOMAIN_ID = reserve_domain_id(__name__)
STARTUP_DOMAIN_ID = reserve_domain_id(__name__)   # nodes that exit at once
NODE = 'inverse_dynamics_node'
URDF_DIR = os.path.join(REPO_ROOT, 'urdf')
TWO_LINK_PATH = os.path.join(URDF_DIR, 'two_link_planar.urdf')
PUMA_PATH = os.path.join(URDF_DIR, 'puma560.urdf')
MARKER = 'MARKER_51c0d2_SECRET'
REFUSED = 'robot description is not URDF XML'
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
# ThrottledWarnings' period (nodes/shared/conversions.py): a refusal is logged at
# most once per period, so each message of the test waits it out.
THROTTLE = 2.0
Q = np.array([0.3, -0.2])


def two_link_gravity(q, g=9.81):
    """Closed-form gravity torques of urdf/two_link_planar.urdf."""
    m1, m2, l1, lc1, lc2 = 2.0, 1.5, 1.0, 0.5, 0.4
    g2 = m2 * lc2 * g * np.cos(q[0] + q[1])
    return np.array([(m1 * lc1 + m2 * l1) * g * np.cos(q[0]) + g2, g2])


@pytest.fixture(scope='module')
def files(tmp_path_factory):
    """Make a secret file, a FIFO, a folder and a xacro of another robot."""
    folder = tmp_path_factory.mktemp('untrusted')
    secret = folder / 'secret.txt'
    secret.write_text('root:x:0:0:%s:/root:/bin/bash\n' % MARKER,
                      encoding='utf-8')
    fifo = str(folder / 'robot.urdf')
    os.mkfifo(fifo)
    xacro = folder / 'other.urdf.xacro'
    # Expanded, this would be a one-joint robot named xacro_ran.
    xacro.write_text(
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="xacro_'
        '${\'ran\'}"><link name="base"/><link name="l1"><inertial><mass '
        'value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" '
        'iyz="0"/></inertial></link><joint name="j1" type="revolute">'
        '<parent link="base"/><child link="l1"/><axis xyz="0 0 1"/><limit '
        'lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>',
        encoding='utf-8')
    return {'secret': str(secret), 'fifo': fifo, 'folder': str(folder),
            'xacro': str(xacro)}


@pytest.fixture(scope='module')
def ros():
    """Run the node on the two-link arm's urdf_path, and a tester."""
    node = NodeProcess(NODE, DOMAIN_ID, {'urdf_path': TWO_LINK_PATH})
    tester = RosTester(DOMAIN_ID)
    tester.process = node
    tester.states = tester.publisher(JointState, 'joint_states')
    tester.description = tester.publisher(String, 'robot_description',
                                          LATCHED)
    tester.feedforward = tester.collector(JointState, 'feedforward')
    yield tester
    finish(node, tester)


def gravity(ros):
    """Return the feed-forward torques the node answers at Q."""
    msg = JointState(name=['shoulder', 'elbow'], position=list(Q))
    ros.feedforward.clear()
    ros.wait_for(lambda: ros.feedforward.messages,
                 action=lambda: ros.states.publish(msg), what='feedforward')
    return np.array(ros.feedforward.messages[-1].effort)


def assert_model_kept(ros):
    """Assert the two-link arm still answers and nothing secret is logged."""
    assert_close(gravity(ros), two_link_gravity(Q), what='model kept')
    output = ros.process.output()
    assert MARKER not in output
    assert 'xacro_ran' not in output and "model 'puma560'" not in output
    assert all(MARKER not in m.msg for m in ros.logs.messages)


def test_text_on_the_topic_is_xml_only(ros, files):
    assert_close(gravity(ros), two_link_gravity(Q), what='start')
    home = os.environ.get('HOME', '/root')
    for text in (PUMA_PATH, files['xacro'], files['secret'],
                 "${xacro.load_yaml('%s')}" % files['secret'],
                 '$(env HOME)'):
        before = len(ros.warnings(NODE, REFUSED))
        ros.spin(THROTTLE)
        ros.description.publish(String(data=text))
        ros.wait_for(lambda: len(ros.warnings(NODE, REFUSED)) > before,
                     what='the refusal of %r' % text)
        refusal = ros.warnings(NODE, REFUSED)[-1]
        assert 'keeping the previous model' in refusal
        assert len(refusal) < 300 and text not in refusal
        assert home not in refusal.replace(REFUSED, '')
    assert_model_kept(ros)


@pytest.mark.parametrize('kind, reason', [
    ('/dev/zero', "'/dev/zero' is a character device, not a regular file"),
    ('fifo', 'is a FIFO, not a regular file'),
    ('folder', 'is a directory'),
])
def test_special_files_as_parameters_are_refused(ros, files, kind, reason):
    """urdf_path and friction_file: refused at once, the node answers on."""
    path = files.get(kind, kind)
    result = ros.set_parameters(NODE, urdf_path=path)[0]
    assert not result.successful
    assert reason in result.reason, result.reason
    ros.wait_for(lambda: ros.warnings(NODE, 'parameter set refused'),
                 what='the refusal in the log')
    result = ros.set_parameters(NODE, friction_file=path)[0]
    assert not result.successful
    assert 'friction_file' in result.reason
    result = ros.set_parameters(NODE, robot_description=TWO_LINK_PATH)[0]
    assert not result.successful and REFUSED in result.reason
    assert ros.process.alive()
    assert_model_kept(ros)


def test_a_secret_file_as_urdf_path_is_not_quoted(ros, files):
    result = ros.set_parameters(NODE, urdf_path=files['secret'])[0]
    assert not result.successful
    assert 'is not XML' in result.reason and MARKER not in result.reason
    assert_model_kept(ros)


def start_and_exit(node_name, parameters):
    """Start a node that must stop at once; return its output."""
    node = NodeProcess(node_name, STARTUP_DOMAIN_ID, parameters)
    try:
        status = node.wait_exit()
        output = node.output()
    finally:
        node.stop()
    assert status == 1, output
    assert 'Traceback' not in output and 'MemoryError' not in output
    assert MARKER not in output
    return output


def test_special_files_at_start_up_stop_the_node_with_the_reason(files):
    for path, reason in (('/dev/zero', 'is a character device'),
                         (files['fifo'], 'is a FIFO')):
        output = start_and_exit(NODE, {'urdf_path': path})
        assert 'cannot start: urdf_path: URDF file %r %s, not a regular ' \
            'file' % (path, reason) in output, output
    output = start_and_exit('simulator_node', {
        'urdf_path': TWO_LINK_PATH, 'actuator_config': '/dev/zero'})
    assert "actuator config '/dev/zero' is a character device" in output
    output = start_and_exit('simulator_node', {
        'urdf_path': TWO_LINK_PATH, 'flexible_config': files['secret']})
    assert 'must be a mapping with a "flexible_links" entry, got text' \
        in output, output
