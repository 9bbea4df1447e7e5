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
simulator_node with geared DC motors, driven from another process over DDS.

The node simulates the shipped two-link arm with
``config/actuators_two_link_planar.yaml``; voltages go out on
``/voltage_controller/commands``, efforts on
``/effort_controller/commands``; ``/joint_states`` and
``/motor_currents`` come back.  Motions are checked against the ROS-free
Simulator with the same motors, started from the state the node published
(joints and currents), and the published effort against n k_t i.  The
node runs as fast as it can (real_time_factor 0) in lockstep with this
test (doc/theory/lockstep.md): it takes no step past a joint state the
test has not read, so no state is lost however loaded the machine, and
nothing here depends on timing.
"""

import os

from conftest import assert_close, REPO_ROOT
import dynamics_ros as dr
from dynamics_ros.sim.controllers import default_gains
from dynamics_ros.sim.simulator import Simulator
import numpy as np
import pytest
from rclpy.parameter import Parameter
from ros_harness import all_finite, answering_collector, finish, \
    NodeProcess, reorder, reserve_domain_id, RosTester, simulator_topics, \
    stamp_of, TESTER_ANSWERS
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

DOMAIN_ID = reserve_domain_id(__name__)
START_DOMAIN_IDS = [reserve_domain_id(__name__) for _ in range(4)]
NODE = 'simulator_node'
ROOT = REPO_ROOT
URDF = os.path.join(ROOT, 'urdf', 'two_link_planar.urdf')
CONFIG = os.path.join(ROOT, 'config', 'actuators_two_link_planar.yaml')
FLEXIBLE = os.path.join(ROOT, 'config', 'flexible_two_link_planar.yaml')
MODEL = dr.load_urdf(URDF)
MOTORS = dr.load_actuators(CONFIG, MODEL)
GAIN = MOTORS.gear_ratio * MOTORS.torque_constant    # N m / A, model order
JOINTS = ['elbow', 'shoulder']           # not the model order, on purpose
RATE = 1000.0
DT = 1.0 / RATE
PUBLISH_EVERY = 10


def in_model_order(values, names):
    """Return ``values`` (ordered as ``names``) in model joint order."""
    return reorder(values, names, MODEL.joint_names)


@pytest.fixture(scope='module')
def ros():
    """Run the simulator node with motors and a tester in this domain."""
    node = NodeProcess(NODE, DOMAIN_ID, {
        'urdf_path': URDF, 'actuator_config': CONFIG, 'joints': JOINTS,
        'rate': RATE, 'integrator': 'rk4', 'real_time_factor': 0.0,
        'publish_rate': RATE / PUBLISH_EVERY, 'publish_clock': False,
        # As fast as it can: a command held for the test, no timeout.
        'command_timeout': 0.0,
        # Paced by this test, which may stop spinning for a while.
        'lockstep': True, 'lockstep_peers': [TESTER_ANSWERS],
        'lockstep_timeout': 600.0})
    tester = RosTester(DOMAIN_ID)
    tester.process = node
    simulator_topics(tester, 'voltage', 'effort', 'position', namespace='/')
    tester.node.destroy_subscription(tester.states.subscription)
    tester.states = answering_collector(tester, '/joint_states')
    tester.currents = tester.collector(JointState, '/motor_currents')
    tester.wait_for(lambda: tester.currents.messages, timeout=180.0,
                    what='the first motor_currents')
    yield tester
    finish(node, tester)


def pairs(ros):
    """Return {stamp: (joint_states, motor_currents)} received so far."""
    currents = {stamp_of(m): m for m in ros.currents.messages}
    return {stamp_of(m): (m, currents[stamp_of(m)])
            for m in ros.states.messages if stamp_of(m) in currents}


def state_at(ros, stamp):
    """Return (q, qd, i) in model order published at ``stamp``."""
    ros.wait_for(lambda: stamp in pairs(ros), what='state at %.3f s' % stamp)
    joints, currents = pairs(ros)[stamp]
    return (in_model_order(joints.position, joints.name),
            in_model_order(joints.velocity, joints.name),
            in_model_order(currents.effort, currents.name))


def command_until(ros, publisher, values, applied, what):
    """
    Publish ``values`` once; return the first state satisfying ``applied``.

    Once, to a matched reliable subscription (delivered): a repeat still
    on its way when the test moves on would switch the node back to this
    command in the middle of the next one.
    """
    msg = Float64MultiArray(data=[float(v) for v in values])
    after = max(pairs(ros), default=0.0)

    def seen():
        return [t for t, (joints, currents) in pairs(ros).items()
                if t > after and applied(in_model_order(
                    currents.effort, currents.name))]

    ros.wait_for_subscriber(publisher)
    publisher.publish(msg)
    ros.wait_for(seen, what=what)
    return min(seen())


def follow(ros, start, seconds, step):
    """
    Return the ROS-free state and the node's ``seconds`` after ``start``.

    The Simulator with the same motors starts from the state published at
    ``start`` (joints and currents); ``step(simulator)`` takes one step.
    """
    def later():
        return [t for t in pairs(ros) if t >= start + seconds]

    ros.wait_for(later, timeout=60.0, what='%.1f s of motion' % seconds)
    end = min(later())
    q, qd, i = state_at(ros, start)
    simulator = Simulator(MODEL, dt=DT, q0=q, qd0=qd, actuators=MOTORS,
                          start_time=start)
    simulator.current = i
    steps = int(round((end - start) / DT))
    for _ in range(steps):
        step(simulator)
    return simulator, state_at(ros, end), steps


def test_motor_currents_come_with_joint_states_and_effort_is_n_kt_i(ros):
    ros.wait_for(lambda: len(pairs(ros)) > 20, what='states')
    for joints, currents in pairs(ros).values():
        assert list(currents.name) == JOINTS
        assert len(currents.position) == len(currents.velocity) == 0
        assert_close(in_model_order(joints.effort, joints.name),
                     GAIN * in_model_order(currents.effort, currents.name),
                     1e-15, scale=1.0)
    assert all_finite(ros.states.messages, 'effort')
    assert all_finite(ros.currents.messages, 'effort')


def test_a_voltage_command_moves_the_joint_its_way(ros):
    """
    +20 V on the shoulder, -2 V on the elbow (``joints`` order: elbow first).

    The shoulder's stall torque 5 N m/A x 40 A = 200 N m is far above
    gravity's 30 N m: from its lower limit it turns positive; 0.2 s of it
    equals the ROS-free simulator at those voltages from the published
    state, to rounding.
    """
    # A known start, also when this test runs alone: both joints stalled
    # on their lower limits.
    stall = -MOTORS.voltage_limit / MOTORS.resistance
    command_until(ros, ros.voltage, [-100.0, -100.0],
                  lambda i: np.allclose(i, stall, rtol=1e-9, atol=0.0),
                  'the stall current on the lower limits')
    volts = [-2.0, 20.0]
    shoulder = MODEL.joint_names.index('shoulder')
    start = command_until(ros, ros.voltage, volts,
                          lambda i: i[shoulder] > 5.0,
                          'the voltage command applied')
    simulator, (q, qd, i), steps = follow(
        ros, start, 0.2, lambda sim: sim.step_voltage(
            in_model_order(volts, JOINTS)))
    assert steps >= 200
    assert_close(simulator.q, q, what='q')
    assert_close(simulator.qd, qd, what='qd')
    assert_close(simulator.current, i, what='currents')
    q0 = state_at(ros, start)[0]
    assert q[shoulder] > q0[shoulder] + 0.1      # it went the way of +V
    assert qd[shoulder] > 0.0


def test_effort_commands_reach_the_joints_through_the_drive(ros):
    """
    Effort [elbow 4, shoulder 25] N m through V = R tau / (n k_t) + k_e n qd.

    From both joints stalled on their upper limits (a known state, also
    when this test runs alone), 0.3 s of the effort command equals the
    ROS-free simulator's step(effort) from the published state, to
    rounding: the drive law, the windings and the limits alike.
    """
    stall = MOTORS.voltage_limit / MOTORS.resistance
    command_until(ros, ros.voltage, [100.0, 100.0],
                  lambda i: np.allclose(i, stall, rtol=1e-9, atol=0.0),
                  'the stall current')
    effort = [4.0, 25.0]
    ordered = in_model_order(effort, JOINTS)
    start = command_until(ros, ros.effort, effort,
                          lambda i: np.abs(i - stall).max() > 1.0,
                          'the effort command applied')
    simulator, (q, qd, i), steps = follow(
        ros, start, 0.3, lambda sim: sim.step(ordered))
    assert steps >= 300
    assert_close(simulator.q, q, what='q')
    assert_close(simulator.qd, qd, what='qd')
    assert_close(simulator.current, i, what='currents')
    assert np.abs(q - state_at(ros, start)[0]).max() > 0.01   # it moved


def test_bad_voltage_commands_are_dropped_with_a_warning(ros):
    """Wrong sizes and NaN are dropped; a huge voltage is clipped."""
    before = len(ros.states.messages)
    ros.wait_for_subscriber(ros.voltage)
    for data in ([1.0], [1.0, 2.0, 3.0], [float('nan'), 1.0]):
        ros.voltage.publish(Float64MultiArray(data=data))
    ros.wait_for(lambda: ros.warnings(NODE, 'voltage command has '
                                      'non-finite') and ros.warnings(
        NODE, 'voltage command size (1) does not match number of joints '
        '(2)'), what='the warnings')
    ros.wait_for(lambda: len(ros.states.messages) > before + 5,
                 what='states after the bad commands')
    assert ros.process.alive()
    # Finite but absurd: clipped to the drives' 48 V.  Both joints run
    # to their upper limits and stall there: i = 48 V / 0.5 ohm.
    stall = MOTORS.voltage_limit / MOTORS.resistance
    command_until(ros, ros.voltage, [1e308, 1e308],
                  lambda i: np.allclose(i, stall, rtol=1e-9, atol=0.0),
                  'the stall current at the voltage limit')
    assert ros.process.alive()
    for field in ('position', 'velocity', 'effort'):
        assert all_finite(ros.states.messages[before:], field)
    assert all_finite(ros.currents.messages, 'effort')


def test_a_parameter_set_carries_the_voltage_and_currents_over(ros):
    """
    pid_bandwidth set while stalled at 96 A: the rebuilt simulation goes on.

    The voltage command stays in force (the drive law with the zero
    effort it leaves would let the currents fall to 0 within ms) and the
    currents go on from where they were: every state after the set still
    shows the stall current.
    """
    stall = MOTORS.voltage_limit / MOTORS.resistance
    command_until(ros, ros.voltage, [100.0, 100.0],
                  lambda i: np.allclose(i, stall, rtol=1e-9, atol=0.0),
                  'the stall current')
    result, = ros.set_parameters(NODE, pid_bandwidth=12.0)
    assert result.successful, result.reason
    after = max(pairs(ros))
    ros.wait_for(lambda: len([t for t in pairs(ros) if t > after]) > 20,
                 what='states after the set')
    for t, (joints, currents) in pairs(ros).items():
        if t > after:
            assert_close(currents.effort, stall, 1e-9)


def test_a_position_command_settles_where_the_pd_balances_gravity(ros):
    """
    A position command through the motors settles at kp (q* - q) = g(q).

    From both joints stalled on their upper limits (a 100 V command,
    clipped to 48 V) to shoulder 2.9, elbow 2.5 rad.  At rest the drive's
    current is exactly tau / (n k_t), so the motors pass the PD's torque
    unchanged and the arm stops where the PD (no integral: default gains
    at pid_bandwidth 12 Hz, set here, from the joints' inertia with the
    rotors at the initial positions) balances gravity; that equation,
    solved here by Newton's method, gives q to 1e-6 (what is left of the
    settling after 4 s of a 12 Hz critically damped loop).
    """
    target = in_model_order([2.5, 2.9], JOINTS)         # elbow, shoulder
    arm = Simulator(MODEL, actuators=MOTORS)
    kp = default_gains(arm.model, np.zeros(2), 12.0)[0].p
    q = target.copy()
    for _ in range(50):
        residual = kp * (target - q) - dr.gravity_torques(MODEL, q)
        step = 1e-7
        jacobian = np.array([
            (kp * (target - q - step * e) - dr.gravity_torques(
                MODEL, q + step * e) - residual) / step for e in np.eye(2)]).T
        q = q - np.linalg.solve(jacobian, residual)
    assert np.abs(q - target).max() > 5e-4        # gravity leaves an offset
    # Set here too, not only in the test of the parameter set: the gains
    # must not depend on which test ran before (a shuffled order ran this
    # one first, at the fixture's bandwidth).
    result, = ros.set_parameters(NODE, pid_bandwidth=12.0)
    assert result.successful, result.reason
    stall = MOTORS.voltage_limit / MOTORS.resistance
    command_until(ros, ros.voltage, [100.0, 100.0],
                  lambda i: np.allclose(i, stall, rtol=1e-9, atol=0.0),
                  'the stall current')
    # Applied once the stall current ends.
    start = command_until(ros, ros.position, [2.5, 2.9],
                          lambda i: np.abs(i - stall).max() > 1.0,
                          'the position command applied')
    ros.wait_for(lambda: any(t > start + 4.0 for t in pairs(ros)),
                 what='4 s after the position command')
    last = max(pairs(ros))
    settled, rates, currents = state_at(ros, last)
    assert_close(settled, q, 1e-6)
    assert np.abs(rates).max() < 1e-6
    assert_close(GAIN * currents, dr.gravity_torques(MODEL, settled), 1e-6)


def test_actuator_config_is_read_only(ros):
    result, = ros.set_parameters(NODE, actuator_config=Parameter(
        'actuator_config', value='/tmp/other.yaml'))
    assert not result.successful
    assert 'read-only' in result.reason


def test_a_bad_actuator_config_stops_the_node_with_the_reason(tmp_path):
    missing = str(tmp_path / 'missing.yaml')
    broken = str(tmp_path / 'broken.yaml')
    with open(broken, 'w', encoding='utf-8') as stream:
        stream.write('actuators:\n  shoulder: {gear_ratio: [secret_token\n')
    wrong_joint = str(tmp_path / 'wrong_joint.yaml')
    with open(CONFIG, encoding='utf-8') as stream:
        text = stream.read().replace('elbow:', 'wrist:')
    with open(wrong_joint, 'w', encoding='utf-8') as stream:
        stream.write(text)
    for domain, config, flexible, reason in (
            (START_DOMAIN_IDS[0], missing, '', 'no such file'),
            (START_DOMAIN_IDS[1], broken, '', 'is not valid YAML'),
            (START_DOMAIN_IDS[2], wrong_joint, '',
             "no movable joint named 'wrist'"),
            (START_DOMAIN_IDS[3], CONFIG, FLEXIBLE,
             'motors need rigid links')):
        node = NodeProcess(NODE, domain, {'urdf_path': URDF,
                                          'actuator_config': config,
                                          'flexible_config': flexible})
        status = node.wait_exit()
        output = node.output()
        node.stop()
        assert status == 1, output
        assert 'actuator_config ' in output and reason in output, output
        assert 'secret_token' not in output       # never the file's text
