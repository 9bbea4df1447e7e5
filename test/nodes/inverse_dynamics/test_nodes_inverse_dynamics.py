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
inverse_dynamics_node as a process, over DDS, against Pinocchio.

One node (Panda, ``joints`` in reverse model order) serves every test; the
mode, gains and payload are changed at run time through its parameter
service, as ``ros2 param set`` does.  Joint states are published in a
shuffled name order, so the node must map by name.  Effort saturation is
off here (random references need more than Panda's effort limits): the
values are checked against Pinocchio; saturation is ``test_node_safety``'s.
Each test sets the mode it checks.  The node reads states and trajectories
on threads of their own, in no order between them: a new reference is
known to be in force once a state is answered with it.
"""

import time

from builtin_interfaces.msg import Duration, Time
from conftest import assert_close
import numpy as np
import oracle
import pytest
from ros_harness import all_finite, finish, inverse_dynamics_topics, \
    NodeProcess, reserve_domain_id, RosTester, TIMEOUT
from scipy.interpolate import BPoly
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

DOMAIN_ID = reserve_domain_id(__name__)
NODE = 'inverse_dynamics_node'
XML = oracle.example_arm_xml('panda')
MODEL, ORACLE = oracle.oracle_for(XML)
JOINTS = list(reversed(MODEL.joint_names))
SHUFFLED = [MODEL.joint_names[i] for i in (3, 0, 6, 2, 5, 1, 4)]
START = 1000  # trajectory header.stamp, s


@pytest.fixture(scope='module')
def ros():
    """Run the node and a tester in this module's domain."""
    node = NodeProcess(NODE, DOMAIN_ID, {
        'robot_description': XML, 'joints': JOINTS, 'tip_link': 'panda_hand',
        'mode': 'gravity', 'saturate': False,
        # The stamps are the sampling times asked for (1 s, 1000 s + t),
        # not a clock: no age check, no watch for gaps and jumps.
        'max_state_age': 0.0})
    tester = RosTester(DOMAIN_ID)
    inverse_dynamics_topics(tester)
    tester.stamp = 0
    yield tester
    finish(node, tester)


def by_name(values, names, order):
    """Return ``values`` (ordered as ``names``) in ``order``."""
    table = dict(zip(names, values))
    return np.array([table[name] for name in order])


def torques(ros, q, qd=None, stamp=None):
    """Publish one state (model order); return the node's tau, model order."""
    qd = np.zeros(MODEL.nq) if qd is None else qd
    if stamp is None:
        ros.stamp += 1
        stamp = Time(sec=1, nanosec=ros.stamp)
    msg = JointState(name=SHUFFLED)
    msg.header.stamp = stamp
    msg.position = by_name(q, MODEL.joint_names, SHUFFLED).tolist()
    msg.velocity = by_name(qd, MODEL.joint_names, SHUFFLED).tolist()
    ros.feedforward.clear()
    ros.efforts.clear()

    def answered():
        return any(m.header.stamp == stamp for m in ros.feedforward.messages)

    ros.wait_for(answered, action=lambda: ros.states.publish(msg),
                 what='feedforward for stamp %s' % stamp)
    reply = [m for m in ros.feedforward.messages if m.header.stamp == stamp][0]
    assert list(reply.name) == JOINTS
    # effort_commands carries the same torques, in joints order.
    ros.wait_for(lambda: any(np.array_equal(m.data, reply.effort)
                             for m in ros.efforts.messages),
                 what='effort_commands equal to feedforward')
    assert all_finite(ros.efforts.messages)
    assert all_finite(ros.feedforward.messages, 'effort')
    return by_name(reply.effort, reply.name, MODEL.joint_names)


def set_ok(ros, **values):
    """Set node parameters and require success."""
    results = ros.set_parameters(NODE, **values)
    assert all(r.successful for r in results), [r.reason for r in results]


def test_gravity_mode_matches_pinocchio(ros):
    set_ok(ros, mode='gravity')
    rng = np.random.default_rng(1)
    for _ in range(3):
        q, qd, _, _ = oracle.random_state(MODEL, rng)
        assert_close(torques(ros, q, qd), ORACLE.gravity(q), what='g(q)')


WAYPOINTS = np.array([0.0, 0.5, 1.25])


def reference_trajectory(rng):
    """Positions, velocities and accelerations (3, n) at WAYPOINTS."""
    q = np.array([oracle.random_state(MODEL, rng)[0] for _ in WAYPOINTS])
    return (q, rng.uniform(-1.0, 1.0, q.shape),
            rng.uniform(-2.0, 2.0, q.shape))


def trajectory_message(q, qd, qdd, names, stamp=None):
    """Return a JointTrajectory (joints ``names``) of model-order waypoints."""
    msg = JointTrajectory(joint_names=names)
    if stamp is not None:
        msg.header.stamp = stamp
    for k, t in enumerate(WAYPOINTS):
        point = JointTrajectoryPoint()
        seconds = int(t)
        point.time_from_start = Duration(
            sec=seconds, nanosec=int(round((t - seconds) * 1e9)))
        point.positions = by_name(q[k], MODEL.joint_names, names).tolist()
        if qd is not None:
            point.velocities = by_name(qd[k], MODEL.joint_names,
                                       names).tolist()
        if qdd is not None:
            point.accelerations = by_name(qdd[k], MODEL.joint_names,
                                          names).tolist()
        msg.points.append(point)
    return msg


def quintic_reference(q, qd, qdd, t):
    """Independent quintic Hermite interpolation (scipy BPoly) at t."""
    splines = [BPoly.from_derivatives(
        WAYPOINTS, [[q[k, j], qd[k, j], qdd[k, j]] for k in range(3)])
        for j in range(MODEL.nq)]
    return [np.array([spline(t, nu) for spline in splines])
            for nu in range(3)]


# Between waypoints the node samples at float(stamp) - START, about 1e-13 s
# off t, and evaluates its own polynomial form: 1e-8 relative, not 1e-9.
BETWEEN_RTOL = 1e-8


def send_trajectory(ros, msg):
    """Publish a reference (reliable, once matched: delivered)."""
    ros.wait_for_subscriber(ros.trajectories)
    ros.trajectories.publish(msg)


def torques_once_in_force(ros, q, qd, stamp, expected, rtol=1e-9,
                          what=''):
    """
    Return ``torques`` at ``stamp`` once they are ``expected``.

    A reference just sent is in force once a state is answered with it;
    the answers before may still use the one before.  A node that never
    answers ``expected`` fails with its last answer, after TIMEOUT.
    """
    end = time.monotonic() + TIMEOUT
    while True:
        tau = torques(ros, q, qd, stamp)
        try:
            assert_close(tau, expected, rtol=rtol, what=what)
            return tau
        except AssertionError:
            if time.monotonic() > end:
                raise
        ros.spin(0.05)


def stamp_at(t):
    """Absolute stamp START + t."""
    nanoseconds = int(round(t * 1e9))
    return Time(sec=START + nanoseconds // 1000000000,
                nanosec=nanoseconds % 1000000000)


def test_inverse_dynamics_mode_follows_the_trajectory(ros):
    rng = np.random.default_rng(2)
    q, qd, qdd = reference_trajectory(rng)
    send_trajectory(ros, trajectory_message(q, qd, qdd, SHUFFLED,
                                            Time(sec=START)))
    set_ok(ros, mode='inverse_dynamics')
    state = oracle.random_state(MODEL, rng)[0]
    # At a waypoint the reference is the waypoint itself.
    torques_once_in_force(ros, state, None, stamp_at(WAYPOINTS[1]),
                          ORACLE.rnea(q[1], qd[1], qdd[1]), what='waypoint 1')
    # Between waypoints: a quintic (both points have qd and qdd).
    for t in (0.2, 0.9):
        expected = ORACLE.rnea(*quintic_reference(q, qd, qdd, t))
        assert_close(torques(ros, state, stamp=stamp_at(t)), expected,
                     rtol=BETWEEN_RTOL, what='t = %g' % t)
    # After the end: hold the last positions.
    assert_close(torques(ros, state, stamp=stamp_at(5.0)),
                 ORACLE.gravity(q[-1]), what='after the end')


def test_computed_torque_mode(ros):
    rng = np.random.default_rng(3)
    q_ref, qd_ref, qdd_ref = reference_trajectory(rng)
    send_trajectory(ros, trajectory_message(q_ref, qd_ref, qdd_ref, JOINTS,
                                            Time(sec=START)))
    kp = np.arange(10.0, 80.0, 10.0)  # joints order
    kd = np.array([3.0])
    set_ok(ros, mode='computed_torque', kp=kp.tolist(), kd=kd.tolist())
    kp_model = by_name(kp, JOINTS, MODEL.joint_names)
    for t in (0.5, 0.7):
        q, qd, _, _ = oracle.random_state(MODEL, rng)
        q_d, qd_d, qdd_d = (quintic_reference(q_ref, qd_ref, qdd_ref, t)
                            if t != 0.5 else (q_ref[1], qd_ref[1],
                                              qdd_ref[1]))
        v = qdd_d + kp_model * (q_d - q) + kd * (qd_d - qd)
        expected = ORACLE.crba(q).dot(v) + ORACLE.bias(q, qd)
        torques_once_in_force(ros, q, qd, stamp_at(t), expected,
                              BETWEEN_RTOL, 'computed torque t = %g' % t)
    # Saturated (the law and the clipping in one kernel): limits given in
    # joints order, half of them below the torque; the state arrives in yet
    # another order.
    limits = np.abs(expected) * np.tile([0.5, 2.0], MODEL.nq)[:MODEL.nq]
    set_ok(ros, saturate=True, effort_limit_scale=1.0,
           effort_limits=by_name(limits, MODEL.joint_names, JOINTS).tolist())
    try:
        assert_close(torques(ros, q, qd, stamp_at(0.7)),
                     np.clip(expected, -limits, limits), rtol=BETWEEN_RTOL,
                     what='saturated computed torque')
    finally:
        set_ok(ros, saturate=False)


def test_invalid_mode_and_gains_are_rejected(ros):
    for values in ({'mode': 'teleport'}, {'kp': [1.0, 2.0]},
                   {'kd': [-1.0]}, {'kp': [float('nan')]}):
        results = ros.set_parameters(NODE, **values)
        assert not results[0].successful and results[0].reason, values


def payload_oracle(mass, com, inertia):
    """Pinocchio oracle of Panda with the payload welded to panda_hand."""
    ixx, ixy, ixz, iyy, iyz, izz = inertia
    payload = (
        '<joint name="payload_joint" type="fixed"><parent link="panda_hand"/>'
        '<child link="payload"/></joint><link name="payload"><inertial>'
        '<origin xyz="%r %r %r"/><mass value="%r"/><inertia ixx="%r" '
        'ixy="%r" ixz="%r" iyy="%r" iyz="%r" izz="%r"/></inertial></link>'
        % (*com, mass, ixx, ixy, ixz, iyy, iyz, izz))
    xml = XML.replace('</robot>', payload + '</robot>')
    return oracle.PinocchioOracle(MODEL, xml)


def test_payload_changes_take_effect(ros):
    set_ok(ros, mode='gravity')
    rng = np.random.default_rng(4)
    q = oracle.random_state(MODEL, rng)[0]
    without = torques(ros, q)
    assert_close(without, ORACLE.gravity(q), what='no payload')
    mass, com = 2.5, [0.02, -0.01, 0.12]
    inertia = [0.02, 0.001, -0.002, 0.03, 0.0015, 0.025]
    set_ok(ros, payload__mass=mass, payload__com=com,
           payload__inertia=inertia)
    heavy = payload_oracle(mass, com, inertia)
    assert_close(torques(ros, q), heavy.gravity(q), what='with payload')
    # Invalid payloads are refused with the reason; the last one stays.
    for values in ({'payload__mass': -1.0},
                   {'payload__com': [0.0, 0.1]},
                   {'payload__inertia': [1.0, 0.0, 0.0, 0.1, 0.0, 0.1]}):
        results = ros.set_parameters(NODE, **values)
        assert not results[0].successful and results[0].reason, values
    qd = oracle.random_state(MODEL, rng)[1]
    set_ok(ros, mode='computed_torque', kp=[0.0], kd=[0.0])
    send_trajectory(ros, trajectory_message(
        np.array([q] * 3), None, None, JOINTS, Time(sec=START)))
    torques_once_in_force(ros, q, qd, stamp_at(2.0), heavy.bias(q, qd),
                          what='payload in computed torque')
    set_ok(ros, payload__mass=0.0, payload__inertia=[0.0] * 6,
           mode='gravity')
    assert_close(torques(ros, q), ORACLE.gravity(q), what='payload removed')


def annotation_of(ros, msg):
    """Publish ``msg`` on trajectory_in until annotated; return the answer."""
    def answers():
        # Only this trajectory's: an earlier test's may still come.
        return [out for out in ros.annotated.messages
                if list(out.joint_names) == list(msg.joint_names)
                and len(out.points) == len(msg.points)
                and all(np.allclose(a.positions, b.positions)
                        for a, b in zip(out.points, msg.points))]
    ros.wait_for_subscriber(ros.annotate)
    ros.wait_for(answers, action=lambda: ros.annotate.publish(msg),
                 every=1.0, what='trajectory_out')
    return answers()[0]


def test_trajectory_annotator_fills_efforts(ros):
    rng = np.random.default_rng(5)
    q, qd, qdd = reference_trajectory(rng)
    msg = trajectory_message(q, qd, qdd, SHUFFLED)
    out = annotation_of(ros, msg)
    assert list(out.joint_names) == SHUFFLED
    for k, point in enumerate(out.points):
        assert_close(point.positions, msg.points[k].positions)
        tau = by_name(point.effort, SHUFFLED, MODEL.joint_names)
        assert_close(tau, ORACLE.rnea(q[k], qd[k], qdd[k]),
                     what='point %d' % k)


def test_annotator_derives_missing_derivatives_like_jtc(ros):
    rng = np.random.default_rng(6)
    q = reference_trajectory(rng)[0]
    msg = trajectory_message(q, None, None, JOINTS)
    out = annotation_of(ros, msg)
    # Positions only: JTC interpolates linearly, so the velocity at a
    # waypoint is the slope of the segment it starts, zero at the end.
    slopes = np.diff(q, axis=0) / np.diff(WAYPOINTS)[:, None]
    velocities = np.vstack([slopes, np.zeros(MODEL.nq)])
    for k, point in enumerate(out.points):
        tau = by_name(point.effort, JOINTS, MODEL.joint_names)
        assert_close(tau, ORACLE.rnea(q[k], velocities[k],
                                      np.zeros(MODEL.nq)),
                     what='point %d' % k)
