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
A Panda with its hand (mimic fingers) through the three nodes, over DDS.

The URDF is example-robot-data's, unchanged: ``panda_finger_joint2``
mimics ``panda_finger_joint1``, so the model has 8 independent joints and
9 movable ones.  As a driver does, the tester publishes ``joint_states``
naming all 9, the mimic finger with a value that contradicts the coupling:
the nodes read the independent joints and ignore it.  Efforts, A and B are
for the 8 independent joints and equal the library's on the MimicModel;
the simulator publishes all 9 joints, the fingers together, and an effort
on finger_joint1 moves both.  A command or trajectory addressing the mimic
joint is dropped with a warning that names it.  Each node runs in its own
domain, reserved for the run (``ros_harness.reserve_domain_id``).
"""

import os

from builtin_interfaces.msg import Duration, Time
from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.model.mimic_model import MimicModel
from dynamics_ros.nodes.shared.conversions import to_seconds
from dynamics_ros.nodes.shared.model_source import resolve_joints
from dynamics_ros.sim.simulator import Simulator
import numpy as np
from oracle import robots_directory
import pytest
from ros_harness import all_finite, finish, inverse_dynamics_topics, \
    linearization_topics, NodeProcess, reserve_domain_id, RosTester
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

ID_DOMAIN, LIN_DOMAIN, SIM_DOMAIN = (reserve_domain_id(__name__)
                                     for _ in range(3))
PATH = os.path.join(robots_directory(), 'panda_description', 'urdf',
                    'panda.urdf')
with open(PATH, encoding='utf-8') as stream:
    XML = stream.read()
MODEL = dr.load_urdf(XML)
FINGER, MIMIC = 'panda_finger_joint1', 'panda_finger_joint2'
ALL = list(MODEL.full_joint_names)               # the 9 movable joints
DRIVER_ORDER = [ALL[i] for i in (8, 3, 0, 7, 6, 2, 5, 1, 4)]
JOINTS = list(reversed(MODEL.joint_names))        # independent, reordered
INDEX = np.array([MODEL.joint_index(name) for name in JOINTS])
ARM_POSE = [0.1, -0.6, 0.2, -2.1, 0.3, 1.6, 0.7]  # inside the limits


def test_the_loader_gives_a_mimic_model():
    assert isinstance(MODEL, MimicModel)
    assert MODEL.nq == 8 and len(ALL) == 9
    assert MODEL.mimic == {MIMIC: (FINGER, 1.0, 0.0)}


def by_name(values, names, order):
    """Return ``values`` (ordered as ``names``) in ``order``."""
    table = dict(zip(names, values))
    return np.array([table[name] for name in order])


def random_state(rng):
    """Return independent (q, qd) inside the limits, model order."""
    q = rng.uniform(MODEL.lower_limit, MODEL.upper_limit)
    return q, rng.uniform(-1.0, 1.0, MODEL.nq)


def driver_message(q, qd, stamp):
    """Return a driver's JointState of every joint, the mimic one wrong."""
    position = dict(zip(ALL, MODEL.full_positions(q)))
    velocity = dict(zip(ALL, MODEL.full_velocities(qd)))
    # Contradicts the coupling: the nodes must not read it.
    position[MIMIC] += 0.5
    velocity[MIMIC] -= 3.0
    msg = JointState(name=DRIVER_ORDER,
                     position=[position[name] for name in DRIVER_ORDER],
                     velocity=[velocity[name] for name in DRIVER_ORDER])
    msg.header.stamp = stamp
    return msg


def warned(ros, node, *parts, send=None):
    """
    Wait for a /rosout warning of ``node`` containing every part.

    ``send()`` publishes the message warned of, again every 0.5 s: the
    first may go before the node's subscription is matched.
    """
    ros.wait_for(lambda: any(all(part in text for part in parts)
                             for text in ros.warnings(node)),
                 action=send, every=0.5,
                 what='a warning of %s with %s' % (node, parts))


def point(seconds, positions, velocities=None, accelerations=None):
    """Return a JointTrajectoryPoint at ``seconds`` from start."""
    whole = int(seconds)
    msg = JointTrajectoryPoint(positions=[float(x) for x in positions])
    msg.time_from_start = Duration(
        sec=whole, nanosec=int(round((seconds - whole) * 1e9)))
    if velocities is not None:
        msg.velocities = [float(x) for x in velocities]
    if accelerations is not None:
        msg.accelerations = [float(x) for x in accelerations]
    return msg


# --- inverse_dynamics_node -------------------------------------------------

ID_NODE = 'inverse_dynamics_node'


@pytest.fixture(scope='module')
def inverse():
    """Run the inverse dynamics node on the whole Panda with hand."""
    node = NodeProcess(ID_NODE, ID_DOMAIN, {
        'robot_description': XML, 'joints': JOINTS, 'mode': 'gravity',
        'max_state_age': 0.0})   # made-up stamps: no age check
    tester = RosTester(ID_DOMAIN)
    inverse_dynamics_topics(tester)
    yield tester
    finish(node, tester)


def test_gravity_torques_of_the_independent_joints(inverse):
    rng = np.random.default_rng(14)
    for k in range(3):
        q, qd = random_state(rng)
        stamp = Time(sec=3, nanosec=k + 1)
        msg = driver_message(q, qd, stamp)
        inverse.feedforward.clear()
        inverse.efforts.clear()

        def answered():
            return [m for m in inverse.feedforward.messages
                    if m.header.stamp == stamp]

        inverse.wait_for(answered, action=lambda: inverse.states.publish(msg),
                         what='feedforward for stamp %s' % stamp)
        reply = answered()[0]
        assert list(reply.name) == JOINTS   # no mimic joint among them
        expected = dr.gravity_torques(MODEL, q)[INDEX]
        assert_close(reply.effort, expected, 1e-9, 'feedforward g(q)')
        inverse.wait_for(lambda: any(np.array_equal(m.data, reply.effort)
                                     for m in inverse.efforts.messages),
                         what='effort_commands equal to feedforward')
        assert all(len(m.data) == 8 for m in inverse.efforts.messages)
        assert all_finite(inverse.efforts.messages)


def test_trajectory_efforts_are_inverse_dynamics(inverse):
    rng = np.random.default_rng(15)
    states = [random_state(rng) for _ in range(3)]
    accelerations = rng.uniform(-2.0, 2.0, (3, MODEL.nq))
    msg = JointTrajectory(joint_names=JOINTS)
    msg.points = [point(0.5 * k, q[INDEX], qd[INDEX], qdd[INDEX])
                  for k, ((q, qd), qdd) in enumerate(zip(states,
                                                         accelerations))]
    inverse.annotated.clear()
    inverse.wait_for(lambda: inverse.annotated.messages,
                     action=lambda: inverse.annotate.publish(msg), every=0.5,
                     what='trajectory_out')
    reply = inverse.annotated.messages[0]
    assert list(reply.joint_names) == JOINTS
    for (q, qd), qdd, annotated in zip(states, accelerations, reply.points):
        assert_close(annotated.effort,
                     dr.inverse_dynamics(MODEL, q, qd, qdd)[INDEX], 1e-9,
                     'inverse dynamics at a waypoint')


def test_a_trajectory_naming_the_mimic_finger_is_dropped(inverse):
    names = JOINTS + [MIMIC]
    msg = JointTrajectory(joint_names=names)
    msg.points = [point(1.0, np.zeros(len(names)))]
    warned(inverse, ID_NODE, 'joint_trajectory ignored',
           'mimic joint %s (follows %s)' % (MIMIC, FINGER),
           send=lambda: inverse.trajectories.publish(msg))
    warned(inverse, ID_NODE, 'trajectory_in ignored', MIMIC,
           send=lambda: inverse.annotate.publish(msg))
    # Still answering joint states.
    stamp = Time(sec=4, nanosec=1)
    q, qd = random_state(np.random.default_rng(16))
    state = driver_message(q, qd, stamp)
    inverse.wait_for(lambda: any(m.header.stamp == stamp
                                 for m in inverse.feedforward.messages),
                     action=lambda: inverse.states.publish(state),
                     what='feedforward after the dropped trajectory')


# --- linearization_node ------------------------------------------------------

LIN_NODE = 'linearization_node'


@pytest.fixture(scope='module')
def linear():
    """Run the linearization node on the whole Panda with hand."""
    node = NodeProcess(LIN_NODE, LIN_DOMAIN, {
        'urdf_path': PATH, 'joints': JOINTS, 'rate': 20.0,
        'max_state_age': 0.0})   # made-up stamps: no age check
    tester = RosTester(LIN_DOMAIN)
    linearization_topics(tester)
    yield tester
    finish(node, tester)


def decode(msg):
    """Return the row-major matrix of a 2-D Float64MultiArray."""
    rows, cols = msg.layout.dim
    return np.array(msg.data).reshape(rows.size, cols.size)


def test_state_space_of_the_independent_joints(linear):
    q, qd = random_state(np.random.default_rng(17))
    stamp = Time(sec=5, nanosec=1)
    msg = driver_message(q, qd, stamp)

    def about_this_point():
        return [m for m in linear.point.messages if m.header.stamp == stamp]

    linear.wait_for(lambda: len(about_this_point()) >= 2,
                    action=lambda: linear.states.publish(msg), every=0.2,
                    what='operating point')
    linear.a.clear()
    linear.b.clear()
    linear.point.clear()
    linear.wait_for(lambda: linear.a.messages and linear.b.messages and
                    about_this_point(), what='A and B')
    A, B = decode(linear.a.messages[-1]), decode(linear.b.messages[-1])
    assert A.shape == (16, 16) and B.shape == (16, 8)
    operating = about_this_point()[-1]
    assert list(operating.name) == JOINTS
    assert_close(operating.position, q[INDEX])
    gravity = dr.gravity_torques(MODEL, q)
    A_model, B_model = dr.linearize(MODEL, q, qd, gravity)
    rows = np.concatenate([INDEX, MODEL.nq + INDEX])
    assert_close(A, A_model[np.ix_(rows, rows)], 1e-9, 'A')
    assert_close(B, B_model[np.ix_(rows, INDEX)], 1e-9, 'B')
    # B's lower block is the inverse of the reduced mass matrix.
    M = dr.mass_matrix(MODEL, q)[np.ix_(INDEX, INDEX)]
    assert_close(B[8:] @ M, np.eye(8), 1e-8, 'M^-1 M')


def test_an_effort_command_for_every_joint_names_the_mimic_joint(linear):
    warned(linear, LIN_NODE, 'size (9) does not match number of joints (8)',
           'mimic joints %s' % MIMIC, send=lambda: linear.commands.publish(
               Float64MultiArray(data=[0.0] * 9)))


# --- simulator_node ----------------------------------------------------------

SIM_NODE = 'simulator_node'
DT = 1e-3


@pytest.fixture(scope='module')
def simulated():
    """Run the simulator without gravity: the arm rests, the hand moves."""
    initial = dict(zip(MODEL.joint_names, ARM_POSE + [0.02]))
    node = NodeProcess(SIM_NODE, SIM_DOMAIN, {
        'robot_description': XML, 'joints': JOINTS, 'rate': 1.0 / DT,
        'gravity': [0.0, 0.0, 0.0], 'real_time_factor': 2.0,
        'publish_rate': 200.0, 'command_timeout': 0.0,   # held efforts
        'initial_positions': [initial[name] for name in JOINTS]})
    tester = RosTester(SIM_DOMAIN)
    tester.efforts = tester.publisher(Float64MultiArray,
                                      '/effort_controller/commands')
    tester.trajectories = tester.publisher(
        JointTrajectory, '/joint_trajectory_controller/joint_trajectory')
    tester.states = tester.collector(JointState, '/joint_states')
    tester.wait_for(lambda: tester.states.messages, timeout=180.0,
                    what='the first joint_states')
    tester.model = dr.load_urdf(XML, gravity=(0.0, 0.0, 0.0))
    yield tester
    finish(node, tester)


def latest(ros):
    """Return the newest joint state as {name: (position, velocity, effort)}."""
    msg = max(ros.states.messages, key=lambda m: to_seconds(m.header.stamp))
    return dict(zip(msg.name, zip(msg.position, msg.velocity, msg.effort)))


def test_joint_states_name_every_joint_and_the_fingers_agree(simulated):
    simulated.wait_for(lambda: simulated.states.messages, what='a state')
    msg = simulated.states.messages[-1]
    assert list(msg.name) == JOINTS + [MIMIC]
    assert len(msg.position) == len(msg.velocity) == len(msg.effort) == 9
    for msg in simulated.states.messages:
        state = dict(zip(msg.name, zip(msg.position, msg.velocity)))
        assert state[MIMIC] == state[FINGER]


def effort_on_the_finger(force):
    """Return an effort command in JOINTS order: the finger only."""
    return [force if name == FINGER else 0.0 for name in JOINTS]


def test_an_effort_on_the_finger_moves_both_fingers(simulated):
    # Away from the limit the fingers are nearer first (a test before may
    # have left them at one), so that both moves travel.
    simulated.wait_for(lambda: simulated.states.messages, what='a state')
    moves = ((-2.0, 0.0), (2.0, 0.04))
    if latest(simulated)[FINGER][0] < 0.02:
        moves = moves[::-1]
    for force, limit in moves:
        command = Float64MultiArray(data=effort_on_the_finger(force))
        simulated.states.clear()

        def at_the_limit():
            if not simulated.states.messages:
                return False
            state = latest(simulated)
            return state[FINGER][0] == limit and state[FINGER][2] == force

        simulated.wait_for(at_the_limit,
                           action=lambda: simulated.efforts.publish(command),
                           every=0.5, what='fingers at %g' % limit)
        moving = [m for m in simulated.states.messages
                  if dict(zip(m.name, m.effort))[FINGER] == force]
        positions = [dict(zip(m.name, m.position)) for m in moving]
        for state in positions:
            assert state[MIMIC] == state[FINGER]
            # The arm rests (no gravity, no effort) while the hand moves.
            assert_close([state[name] for name in MODEL.joint_names[:7]],
                         ARM_POSE, 1e-12, scale=1.0)
        travelled = [state[FINGER] for state in positions]
        assert np.ptp(travelled) > 0.01   # it moved, not just arrived
        for msg in moving:
            assert dict(zip(msg.name, msg.effort))[MIMIC] == 0.0


def test_the_motion_is_the_ros_free_simulators(simulated):
    command = Float64MultiArray(data=effort_on_the_finger(-0.5))
    simulated.efforts.publish(command)
    simulated.wait_for(lambda: latest(simulated)[FINGER][2] == -0.5,
                       action=lambda: simulated.efforts.publish(command),
                       every=0.5, what='the closing effort applied')
    simulated.states.clear()
    simulated.wait_for(lambda: len(simulated.states.messages) > 30,
                       what='joint states while closing')
    messages = sorted(simulated.states.messages,
                      key=lambda m: to_seconds(m.header.stamp))
    first, second = messages[0], messages[-1]
    order = MODEL.joint_names
    simulator = Simulator(
        simulated.model, dt=DT,
        q0=by_name(first.position, first.name, order),
        qd0=by_name(first.velocity, first.name, order),
        start_time=to_seconds(first.header.stamp))
    effort = np.zeros(MODEL.nq)
    effort[MODEL.joint_index(FINGER)] = -0.5
    steps = int(round((to_seconds(second.header.stamp)
                       - to_seconds(first.header.stamp)) / DT))
    for _ in range(steps):
        simulator.step(effort)
    positions, velocities, _ = simulator.full_state()
    assert_close(by_name(second.position, second.name, ALL), positions,
                 1e-9, 'positions', scale=1.0)
    assert_close(by_name(second.velocity, second.name, ALL), velocities,
                 1e-9, 'velocities', scale=1.0)


def test_commands_for_the_mimic_finger_are_dropped(simulated):
    warned(simulated, SIM_NODE, 'effort_controller/commands ignored',
           'size (9) does not match number of joints (8)',
           'mimic joints %s' % MIMIC, send=lambda: simulated.efforts.publish(
               Float64MultiArray(data=[1.0] * 9)))
    names = JOINTS + [MIMIC]
    msg = JointTrajectory(joint_names=names)
    msg.points = [point(0.5, np.zeros(len(names)))]
    warned(simulated, SIM_NODE, 'joint_trajectory ignored',
           'mimic joint %s (follows %s)' % (MIMIC, FINGER),
           send=lambda: simulated.trajectories.publish(msg))


def test_a_trajectory_of_the_independent_joints_moves_both_fingers(
        simulated):
    target = dict(zip(MODEL.joint_names, ARM_POSE + [0.03]))
    msg = JointTrajectory(joint_names=JOINTS)
    msg.points = [point(0.3, [target[name] for name in JOINTS])]

    def settled():
        if not simulated.states.messages:
            return False
        state = latest(simulated)
        return abs(state[FINGER][0] - 0.03) < 1e-4 and \
            abs(state[FINGER][1]) < 1e-3

    simulated.trajectories.publish(msg)
    simulated.wait_for(settled, action=lambda: simulated.trajectories.publish(
        msg), every=2.0, what='the fingers at 0.03')
    state = latest(simulated)
    assert state[MIMIC][:2] == state[FINGER][:2]


def test_a_joints_parameter_naming_the_mimic_finger_says_why():
    with pytest.raises(dr.ModelError, match=r'mimic joints \(they follow '
                       r'their masters; leave them out\): %s' % MIMIC):
        resolve_joints(MODEL, ALL)
    assert resolve_joints(MODEL, JOINTS) == JOINTS
    assert resolve_joints(MODEL, []) == MODEL.joint_names
