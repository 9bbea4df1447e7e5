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
simulator_node with flexible links, driven from another process over DDS.

The node simulates the shipped two-link arm with
``config/flexible_two_link_planar.yaml``; effort commands go out on
``/effort_controller/commands``, ``/joint_states`` (joints) and
``/flexible_state`` (modes and tip deflections) come back.  Motions are
checked against the ROS-free Simulator on the same FlexibleModel, started
from the state the node published.  The node runs as fast as it can
(real_time_factor 0) in lockstep with this test (doc/theory/lockstep.md):
it takes no step past a joint state the test has not read, so no state is
lost however loaded the machine, and nothing here depends on timing.
"""

import os

from conftest import assert_close, REPO_ROOT
import dynamics_ros as dr
from dynamics_ros.sim.simulator import Simulator
import numpy as np
import pytest
from ros_harness import answering_collector, finish, NodeProcess, \
    reorder, reserve_domain_id, RosTester, simulator_topics, stamp_of, \
    TESTER_ANSWERS
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger
import yaml

DOMAIN_ID = reserve_domain_id(__name__)
START_DOMAIN_IDS = [reserve_domain_id(__name__) for _ in range(4)]
NODE = 'simulator_node'
ROOT = REPO_ROOT
URDF = os.path.join(ROOT, 'urdf', 'two_link_planar.urdf')
CONFIG = os.path.join(ROOT, 'config', 'flexible_two_link_planar.yaml')
FLEXIBLE = dr.load_flexible(CONFIG, model=URDF)
JOINTS = ['elbow', 'shoulder']           # not the model order, on purpose
INITIAL = {'shoulder': -1.2, 'elbow': 0.3}
# Shortest natural period about 6 ms: 4 kHz keeps the step below 1/20 of it.
RATE = 4000.0
DT = 1.0 / RATE
PUBLISH_EVERY = 10
FLEXIBLE_NAMES = ['upper_link/xz1', 'upper_link/xz2', 'fore_link/xz1',
                  'fore_link/xz2', 'upper_link/tip_y', 'upper_link/tip_z',
                  'fore_link/tip_y', 'fore_link/tip_z']


def in_model_order(values, names):
    """Return ``values`` (ordered as ``names``) in model joint order."""
    return reorder(values, names, FLEXIBLE.joint_names)


@pytest.fixture(scope='module')
def ros():
    """Run the flexible simulator node and a tester in this domain."""
    node = NodeProcess(NODE, DOMAIN_ID, {
        'urdf_path': URDF, 'flexible_config': CONFIG, 'joints': JOINTS,
        'rate': RATE, 'integrator': 'rk4', 'real_time_factor': 0.0,
        'publish_rate': RATE / PUBLISH_EVERY, 'publish_clock': False,
        'initial_positions': [INITIAL[name] for name in JOINTS],
        # As fast as it can: a command held for the test, no timeout.
        'command_timeout': 0.0,
        # Replayed from zero effort, as the ROS-free Simulator starts, and a
        # reset is told by its zero effort: no hold of the pose.
        'hold_mode': 'none',
        # Paced by this test, which may stop spinning for a while.
        'lockstep': True, 'lockstep_peers': [TESTER_ANSWERS],
        'lockstep_timeout': 600.0})
    tester = RosTester(DOMAIN_ID)
    tester.process = node
    simulator_topics(tester, 'effort', namespace='/')
    tester.node.destroy_subscription(tester.states.subscription)
    tester.states = answering_collector(tester, '/joint_states')
    tester.flexible = tester.collector(JointState, '/flexible_state', 1000)
    tester.reset_client = tester.node.create_client(Trigger,
                                                    '/%s/reset' % NODE)
    tester.wait_for(lambda: tester.flexible.messages, timeout=180.0,
                    what='the first flexible_state')
    yield tester
    finish(node, tester)


def command_effort(ros, effort):
    """
    Publish an effort (JOINTS order); return the first state showing it.

    Once, to a matched reliable subscription (delivered): a repeat still
    on its way could arrive after a reset that follows.
    """
    msg = Float64MultiArray(data=[float(v) for v in effort])
    expected = in_model_order(effort, JOINTS)
    after = max((stamp_of(m) for m in ros.states.messages), default=-1.0)

    def applied():
        return [m for m in ros.states.messages if stamp_of(m) > after and
                np.array_equal(in_model_order(m.effort, m.name), expected)]

    ros.wait_for_subscriber(ros.effort)
    ros.effort.publish(msg)
    ros.wait_for(applied, what='effort command applied')
    return min(stamp_of(m) for m in applied())


def state_at(ros, stamp):
    """Return (joint_states, flexible_state) messages stamped ``stamp``."""
    def find(messages):
        return next((m for m in messages if stamp_of(m) == stamp), None)

    ros.wait_for(lambda: find(ros.flexible.messages) is not None,
                 what='flexible_state at %.4f s' % stamp)
    return find(ros.states.messages), find(ros.flexible.messages)


def full_state(joints, flexible):
    """Return (z, zd) in model order from the two messages."""
    modes = FLEXIBLE.nm
    z = np.concatenate((in_model_order(joints.position, joints.name),
                        flexible.position[:modes]))
    zd = np.concatenate((in_model_order(joints.velocity, joints.name),
                         flexible.velocity[:modes]))
    return z, zd


def assert_state(simulator, joints, flexible, what):
    """Assert the ROS-free state equals the published one, to rounding."""
    z, zd = full_state(joints, flexible)
    assert_close(simulator.z, z, what=what + ' z')
    assert_close(simulator.zd, zd, what=what + ' zd')
    names, position, velocity = simulator.flexible_state()
    assert_close(np.asarray(flexible.position), position,
                 what=what + ' flexible_state')
    assert_close(np.asarray(flexible.velocity), velocity,
                 what=what + ' flexible_state rates')


def test_flexible_state_is_published_with_joint_states(ros):
    # The states after the newest one read so far: a ~/reset of another
    # test (before this one in a shuffled order) published its reset state
    # at once, off the publish_rate grid.
    start = max((stamp_of(m) for m in ros.states.messages), default=-1.0)

    def later(messages):
        return [m for m in messages if stamp_of(m) > start]

    # Distinct stamps: while the tester did not spin (the bad-config test,
    # which starts nodes of its own, before this one in a shuffled order),
    # the simulator sent the state it waited on again every 0.5 s, and
    # those copies are not 20 states.
    def later_stamps():
        return set(stamp_of(m) for m in later(ros.flexible.messages))
    ros.wait_for(lambda: len(later_stamps()) > 20, what='flexible states')
    joints = {stamp_of(m): m for m in later(ros.states.messages)}
    flexible = later(ros.flexible.messages)
    for msg in flexible:
        assert list(msg.name) == FLEXIBLE_NAMES
        assert len(msg.position) == len(msg.velocity) == 8
        assert len(msg.effort) == 0
    # Same stamps (while both subscriptions were matched), publish_rate
    # apart (a state the simulator sent again while it waited for this
    # test counts once); joint_states carries only the joints.
    stamps = sorted(set(stamp_of(m) for m in flexible))
    both = [t for t in stamps if min(joints) <= t <= max(joints)]
    assert len(both) > 10 and set(both) <= set(joints)
    assert_close(np.diff(stamps), np.full(len(stamps) - 1,
                                          PUBLISH_EVERY * DT), rtol=1e-6)
    for msg in joints.values():
        assert list(msg.name) == JOINTS and len(msg.position) == 2


def test_reset_starts_at_rest_under_gravity(ros):
    """
    After ~/reset: the initial joints, modes at their static deflection.

    The first state published after a reset comes PUBLISH_EVERY steps
    later; the ROS-free Simulator from the same start gives it exactly.
    """
    moving = command_effort(ros, [2.0, -3.0])
    ros.wait_for(ros.reset_client.service_is_ready, what='~/reset service')
    future = ros.reset_client.call_async(Trigger.Request())
    ros.wait_for(future.done, what='~/reset reply')
    assert future.result().success

    def after_reset():
        return [m for m in ros.states.messages
                if stamp_of(m) > moving and not any(m.effort)]

    ros.wait_for(after_reset, what='a joint state after the reset')
    first = min(after_reset(), key=stamp_of)
    joints, flexible = state_at(ros, stamp_of(first))
    simulator = Simulator(FLEXIBLE, dt=DT,
                          q0=in_model_order(INITIAL.values(), INITIAL))
    start = FLEXIBLE.static_deflection(simulator.q)
    assert np.abs(start).max() > 1e-3            # bent under gravity
    assert_close(simulator.z[2:], start, rtol=0.0)
    for _ in range(PUBLISH_EVERY):
        simulator.step()
    assert_state(simulator, joints, flexible, 'after reset')


def test_effort_commands_move_the_flexible_arm_like_the_ros_free_one(ros):
    effort = [3.0, -6.0]                          # elbow, shoulder
    applied = command_effort(ros, effort)

    def later():
        return [stamp_of(m) for m in ros.flexible.messages
                if stamp_of(m) >= applied + 0.2]

    ros.wait_for(later, timeout=60.0, what='0.2 s of motion')
    first = state_at(ros, applied)
    second = state_at(ros, min(later()))
    z, zd = full_state(*first)
    simulator = Simulator(FLEXIBLE, dt=DT, q0=z, qd0=zd,
                          start_time=applied)
    steps = int(round((stamp_of(second[0]) - applied) / DT))
    assert steps >= 800
    for _ in range(steps):
        simulator.step(in_model_order(effort, JOINTS))
    # Same model, integrator, step and arithmetic: equal to rounding.
    assert_state(simulator, *second, 'after %d steps' % steps)
    assert_close(simulator.applied_effort,
                 in_model_order(second[0].effort, second[0].name))
    # The links really bent while the arm moved.
    tips = np.array([m.position[5] for m in ros.flexible.messages
                     if stamp_of(m) >= applied])
    assert np.ptp(tips) > 1e-4


def test_a_bad_flexible_config_stops_the_node_with_the_reason(tmp_path):
    missing = str(tmp_path / 'missing.yaml')
    wrong_link = str(tmp_path / 'wrong_link.yaml')
    with open(wrong_link, 'w', encoding='utf-8') as stream:
        yaml.safe_dump({'flexible_links': {'forearm': {
            'length': 0.8, 'mass': 1.5, 'EI': 120.0, 'modes': 1}}}, stream)
    for domain, config, reason in (
            (START_DOMAIN_IDS[0], missing, 'no such file'),
            (START_DOMAIN_IDS[1], wrong_link,
             "flexible link 'forearm' is not a link moved by a joint"),
            (START_DOMAIN_IDS[2], CONFIG,
             "payload.mass 0.5 kg is on flexible link 'fore_link'")):
        node = NodeProcess(NODE, domain, {
            'urdf_path': URDF, 'flexible_config': config,
            'payload.mass': 0.5 if config == CONFIG else 0.0})
        status = node.wait_exit()
        output = node.output()
        node.stop()
        assert status == 1, output
        # The parameter named with its file (a long temporary path is cut
        # to a width: its first 60 characters are there).
        assert "flexible_config '%s" % config[:60] in output, output
        assert reason in output, output


def test_a_step_too_long_for_the_modes_is_warned_about():
    """At the default 1 kHz the shipped arm's 6 ms mode gets a warning."""
    node = NodeProcess(NODE, START_DOMAIN_IDS[3], {
        'urdf_path': URDF, 'flexible_config': CONFIG,
        'initial_positions': [INITIAL[name] for name in JOINTS],
        'joints': JOINTS})
    tester = RosTester(START_DOMAIN_IDS[3])
    try:
        tester.wait_for(lambda: 'shortest natural period' in node.output()
                        or not node.alive(), what='the step warning')
        output = node.output()
        assert node.alive(), output
        assert 'time step 1 ms is more than 1/20 of the shortest natural ' \
            'period' in output
        assert 'use a rate of at least 3334 Hz' in output
    finally:
        tester.close()
        assert node.stop() == 0
