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
Safe beside a real robot, over DDS: bounded torques, refused sets.

- inverse_dynamics_node (Panda, ``mode: inverse_dynamics``) given a
  trajectory with a 1e6 rad waypoint 10 ms away publishes efforts within the
  URDF effort limits (87 / 12 N m) on ``effort_commands``, ``feedforward``
  and ``trajectory_out``, and warns naming each clipped joint with the
  unsaturated value and the limit; ``effort_limit_scale``,
  ``effort_limits`` and ``saturate`` take effect.
- linearization_node refuses ``rate: 1e-12`` (and 0, negative, NaN, inf,
  1e12) at start (exit 1 with the reason) and on a runtime set (refused,
  still publishing).
- Every declared parameter of both nodes: a bad set is refused with a
  reason of bounded length, and the value stays.
- A 100k-character joint name in a message gives a short warning.
"""

import math
import re

from builtin_interfaces.msg import Duration, Time
from conftest import assert_close
import numpy as np
import oracle
import pytest
from rcl_interfaces.msg import Parameter as ParameterMsg
from rclpy.parameter import Parameter
from ros_harness import finish, NodeProcess, remote_parameters, \
    reserve_domain_id, RosTester
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

ID_DOMAIN, LIN_DOMAIN, START_DOMAIN = (reserve_domain_id(__name__)
                                       for _ in range(3))
ID_NODE = 'inverse_dynamics_node'
LIN_NODE = 'linearization_node'
XML = oracle.example_arm_xml('panda')
MODEL, _ = oracle.oracle_for(XML)
NAMES = list(MODEL.joint_names)
LIMITS = MODEL.effort_limit.copy()  # 87 x 4, 12 x 3 N m
START = 1000  # trajectory header.stamp, s
NAN, INF = math.nan, math.inf
LONG = 'x' * 100000  # a 100k-character name or value
MAX_REASON = 400  # characters: a reason or warning quoting user input
# panda_joint2 at 1e6 rad 10 ms after the start: halfway, qd = 1e8 rad/s
# and RNEA gives 1e12..1e15 N m on every joint but panda_joint2 itself.
EXTREME_JOINT = 1
NOT_CLIPPED = [EXTREME_JOINT]


def extreme_trajectory():
    """Return the 1e6 rad trajectory (joints in model order)."""
    msg = JointTrajectory(joint_names=NAMES)
    msg.header.stamp = Time(sec=START)
    far = np.zeros(MODEL.nq)
    far[EXTREME_JOINT] = 1e6
    for seconds, q in ((0.0, np.zeros(MODEL.nq)), (0.01, far)):
        msg.points.append(JointTrajectoryPoint(
            positions=q.tolist(), time_from_start=Duration(
                sec=0, nanosec=int(round(seconds * 1e9)))))
    return msg


@pytest.fixture(scope='module')
def idn():
    """inverse_dynamics_node following the extreme trajectory."""
    node = NodeProcess(ID_NODE, ID_DOMAIN, {
        'robot_description': XML, 'mode': 'inverse_dynamics',
        'max_state_age': 0.0})   # stamps are sampling times (1000 s)
    ros = RosTester(ID_DOMAIN)
    ros.states = ros.publisher(JointState, 'joint_states')
    ros.trajectories = ros.publisher(JointTrajectory, 'joint_trajectory')
    ros.annotate = ros.publisher(JointTrajectory, 'trajectory_in')
    ros.efforts = ros.collector(Float64MultiArray, 'effort_commands')
    ros.feedforward = ros.collector(JointState, 'feedforward')
    ros.annotated = ros.collector(JointTrajectory, 'trajectory_out')
    ros.all_efforts = ros.collector(Float64MultiArray, 'effort_commands')
    ros.wait_for_subscriber(ros.trajectories)
    ros.trajectories.publish(extreme_trajectory())
    ros.spin(0.3)
    yield ros
    finish(node, ros)


def halfway_state():
    """Return the state at START + 5 ms, halfway to the 1e6 rad waypoint."""
    msg = JointState(name=NAMES, position=[0.0] * MODEL.nq)
    msg.header.stamp = Time(sec=START, nanosec=5000000)
    return msg


def efforts_when(ros, condition, what):
    """Publish the halfway state until ``condition(efforts)``; return them."""
    msg = halfway_state()
    ros.efforts.clear()
    ros.feedforward.clear()

    def matching():
        return [np.array(m.data) for m in ros.efforts.messages
                if condition(np.array(m.data))]

    ros.wait_for(matching, action=lambda: ros.states.publish(msg),
                 what=what)
    ros.wait_for(lambda: ros.feedforward.messages, what='feedforward')
    return matching()[-1]


def set_ok(ros, **values):
    """Set parameters of inverse_dynamics_node and require success."""
    results = ros.set_parameters(ID_NODE, **values)
    assert all(r.successful for r in results), [r.reason for r in results]


def clipped_at(limits):
    """Return a condition: efforts clipped exactly at +-``limits``."""
    limits = np.asarray(limits, dtype=float)
    clipped = [j for j in range(MODEL.nq)
               if j not in NOT_CLIPPED and np.isfinite(limits[j])]

    def condition(efforts):
        return (np.all(np.abs(efforts) <= limits)
                and np.array_equal(np.abs(efforts[clipped]),
                                   limits[clipped]))
    return condition


def test_extreme_waypoint_gives_efforts_within_the_urdf_limits(idn):
    efforts = efforts_when(idn, clipped_at(LIMITS), 'efforts at the limits')
    assert abs(efforts[EXTREME_JOINT]) < LIMITS[EXTREME_JOINT]
    for msg in idn.feedforward.messages:
        assert np.all(np.abs(msg.effort) <= LIMITS), msg.effort
    # One throttled warning per clipped joint: its name, the unsaturated
    # value (1e12..1e15 N m) and the limit.  Those of this test's states
    # (the limits of a test before may be in earlier ones, and a joint
    # warned of less than its period ago waits for the next state after).
    since = len(idn.logs.messages)

    def new_warnings(text):
        return [m.msg for m in idn.logs.messages[since:]
                if m.name == ID_NODE and text in m.msg]
    for j in range(MODEL.nq):
        if j in NOT_CLIPPED:
            continue
        text = "effort of joint '%s' saturated" % NAMES[j]
        idn.wait_for(lambda: new_warnings(text), action=lambda: idn.states.
                     publish(halfway_state()), every=0.2,
                     what='warning %r' % text)
        warning = new_warnings(text)[0]
        unsaturated = float(re.search(r'saturated: (\S+) clipped',
                                      warning).group(1))
        assert abs(unsaturated) > 1e9, warning
        assert 'limit +-%g' % LIMITS[j] in warning, warning
        assert len(warning) < MAX_REASON


def test_effort_limit_scale_takes_effect(idn):
    set_ok(idn, effort_limit_scale=0.5)
    efforts_when(idn, clipped_at(0.5 * LIMITS), 'efforts at half the limits')
    set_ok(idn, effort_limit_scale=1.0)
    efforts_when(idn, clipped_at(LIMITS), 'efforts at the limits again')


def test_per_joint_limits_and_disabling(idn):
    override = np.array([10.0, 20.0, 30.0, 40.0, 5.0, 6.0, INF])
    set_ok(idn, effort_limits=override.tolist())
    efforts = efforts_when(idn, clipped_at(override),
                           'efforts at the per-joint limits')
    assert abs(efforts[6]) > 1e9  # .inf: no limit for panda_joint7
    # [] (any empty array): the URDF limits again.
    set_ok(idn, effort_limits=Parameter('effort_limits',
                                        Parameter.Type.DOUBLE_ARRAY, []))
    efforts_when(idn, clipped_at(LIMITS), 'URDF limits after []')
    set_ok(idn, saturate=False)
    efforts = efforts_when(idn, lambda e: np.max(np.abs(e)) > 1e9,
                           'unsaturated efforts')
    set_ok(idn, saturate=True)
    efforts_when(idn, clipped_at(LIMITS), 'saturated again')


def test_annotated_trajectory_efforts_are_saturated(idn):
    idn.annotated.clear()
    msg = extreme_trajectory()
    idn.wait_for_subscriber(idn.annotate)
    idn.wait_for(lambda: idn.annotated.messages,
                 action=lambda: idn.annotate.publish(msg), every=1.0,
                 what='trajectory_out')
    for point in idn.annotated.messages[0].points:
        assert len(point.effort) == MODEL.nq
        assert np.all(np.abs(point.effort) <= LIMITS), point.effort
    # The unbounded joint of waypoint 0 (qd = 1e8 rad/s) is clipped.
    assert np.max(np.abs(idn.annotated.messages[0].points[0].effort)) == 87


def test_no_unsaturated_effort_was_ever_published_with_saturate_on(idn):
    # saturate was off for one stretch of test_per_joint_limits_and_
    # disabling; everything else must be within 87 N m (the largest limit
    # in use at any time with saturate on, overrides included).
    efforts_when(idn, clipped_at(LIMITS), 'efforts')   # some, alone too
    idn.wait_for(lambda: any(np.max(np.abs(m.data)) <= 87.0
                             for m in idn.all_efforts.messages),
                 what='them in the second collector too')
    big = [m for m in idn.all_efforts.messages
           if np.max(np.abs(m.data)) > 87.0]
    small = [m for m in idn.all_efforts.messages
             if np.max(np.abs(m.data)) <= 87.0]
    assert small
    assert all(np.max(np.abs(m.data)) > 1e9 for m in big)


def test_long_joint_name_gives_a_short_warning(idn):
    msg = JointState(name=[LONG], position=[0.0])
    idn.wait_for(lambda: idn.warnings(ID_NODE, 'is missing joints'),
                 action=lambda: idn.states.publish(msg),
                 what='missing joints warning')
    for text in idn.warnings(ID_NODE, 'is missing joints'):
        assert len(text) < MAX_REASON, len(text)
    trajectory = extreme_trajectory()
    trajectory.joint_names = NAMES + [LONG]
    idn.wait_for(lambda: idn.warnings(ID_NODE, 'not controlled'),
                 action=lambda: idn.trajectories.publish(trajectory),
                 every=0.5, what='not controlled warning')
    for text in idn.warnings(ID_NODE, 'not controlled'):
        assert len(text) < MAX_REASON, len(text)


# Bad values of every declared parameter (a type other than the declared
# one is refused by rclpy itself).  Model parameters are
# dynamics_ros.nodes.shared.model_source's.
NOT_SET = Parameter.Type.NOT_SET
BAD_SHARED = {
    'use_sim_time': ['yes', 1],
    'start_type_description_service': [False],
    'robot_description': ['<robot name="broken"/>', LONG],
    'root_link': ['no_such_link'],
    'tip_link': ['no_such_link'],
    'joints': [['a', 'b'], NAMES[:3]],
    'gravity': [[NAN] * 3, [1e308] * 3, [0.0]],
    'payload.mass': [-1.0, NAN, INF, 1e308],
    'payload.com': [[0.0], [NAN] * 3],
    'payload.inertia': [[-1.0] * 6, [0.0]],
}
BAD_OWN = {
    ID_NODE: {
        'mode': ['teleport', LONG, ''],
        'kp': [[NAN], [-1.0], [1.0, 2.0], [1.0] * 10000],
        'kd': [[INF], [-1.0], []],
        'saturate': ['no', 0],
        'effort_limit_scale': [0.0, -1.0, NAN, INF, 1e308, -1e-12],
        'effort_limits': [[1.0] * 3, [-1.0] * 7, [NAN] * 7, [0.0] * 7,
                          ['a'] * 7, [True] * 7, NOT_SET],
        'friction_file': ['/nonexistent/friction.yaml', LONG, '/', 1.0],
        'trajectory_mode': ['teleport', LONG, ''],
        'trajectory_margin': [0.0, -0.5, 1.5, NAN, INF],
        'acceleration_limits': [[0.0], [-1.0], [NAN], [1e308], [1.0, 2.0],
                                []],
        'max_state_age': [-0.1, NAN, INF, 61.0, 1e308, 'old'],
        'jump_policy': ['replay', LONG, '', 1.0],
        'missing_velocity': ['zero', LONG, ''],
        'follow_payload': ['yes', 1, 0.5],
        'lockstep': [True, 'yes', 1],   # read-only: no set is taken
    },
    LIN_NODE: {
        'rate': [1e-12, 0.0, -1.0, NAN, INF, -INF, 1e12, 'fast'],
        'discrete_dt': [-0.1, NAN, INF, 1e9],
        'max_state_age': [-1.0, NAN, INF, 1e9],
        'missing_velocity': ['zero', LONG],
        'friction_file': ['/nonexistent/friction.yaml', LONG, '/', 1.0],
        'lockstep': [True, 'yes', 1],
    },
}
# Refused only after shared/model_source.py learns to (being changed beside this):
# an unreadable urdf_path / xacro_args while robot_description is in use
# is acknowledged and not used; a 100k-character joint or link name is
# quoted in full.
MODEL_SOURCE_GAPS = {
    'urdf_path': ['/no/such/file.urdf'],
    'xacro_args': [['no_such_arg:=1']],
    'joints': [[LONG]],
    'root_link': [LONG],
}


def parameter(name, value):
    """Return an rclpy Parameter (NOT_SET: unset it)."""
    if value is NOT_SET:
        return Parameter(name, NOT_SET)
    return Parameter(name, value=value)


def check_bad_sets(ros, node):
    """Every bad set of every parameter of ``node``: refused, value kept."""
    before = remote_parameters(ros, node)
    table = dict(BAD_SHARED, **BAD_OWN[node])
    covered = set(table) | set(MODEL_SOURCE_GAPS)
    assert set(before) == covered, \
        'a parameter without bad cases (or a stale one): %s' % sorted(
            set(before) ^ covered)
    tried = 0
    for name, values in table.items():
        for value in values:
            result = ros.set_parameters(node, **{name.replace('.', '__'):
                                                 parameter(name, value)})[0]
            shown = repr(value)[:60]
            assert not result.successful, (name, shown)
            assert result.reason, (name, shown)
            assert len(result.reason) < MAX_REASON, (name, shown,
                                                     len(result.reason))
            tried += 1
    after = remote_parameters(ros, node, list(before))
    assert after == before
    return tried


@pytest.mark.parametrize('name,value', [
    (name, value) for name, values in MODEL_SOURCE_GAPS.items()
    for value in values], ids=lambda x: repr(x)[:20])
def test_model_source_refuses_with_a_bounded_reason(idn, name, value):
    before = remote_parameters(idn, ID_NODE, [name])[name]
    result = idn.set_parameters(ID_NODE, **{name.replace('.', '__'):
                                            parameter(name, value)})[0]
    if result.successful:  # put it back for the other tests
        back = Parameter.from_parameter_msg(
            ParameterMsg(name=name, value=before)) if before is not None \
            else Parameter(name, Parameter.Type.STRING_ARRAY, [])
        assert idn.set_parameters(ID_NODE, **{name.replace('.', '__'):
                                              back})[0].successful
    assert not result.successful
    assert len(result.reason) < MAX_REASON


def test_inverse_dynamics_bad_sets_are_refused(idn):
    assert check_bad_sets(idn, ID_NODE) >= 40
    # Still answering, within the limits.
    efforts_when(idn, clipped_at(LIMITS), 'efforts after the bad sets')


def test_own_reasons_quote_the_value_cut_short(idn):
    for name, value, quoted in (
            ('mode', LONG, "'%s'..." % ('x' * 80)),
            ('effort_limit_scale', -1.0, '-1.0'),
            ('effort_limit_scale', NAN, 'nan'),
            ('kp', [NAN], '[nan]')):
        result = idn.set_parameters(ID_NODE, **{name: value})[0]
        assert quoted in result.reason, (name, result.reason)


# --- linearization_node ------------------------------------------------


@pytest.fixture(scope='module')
def lin():
    """linearization_node at 20 Hz, and a tester with a joint state."""
    node = NodeProcess(LIN_NODE, LIN_DOMAIN, {
        'robot_description': XML, 'rate': 20.0,
        # One state, sent once, linearized about for the whole module:
        # no age limit (it would stop after 0.1 s, as it should).
        'max_state_age': 0.0})
    ros = RosTester(LIN_DOMAIN)
    ros.states = ros.publisher(JointState, 'joint_states')
    ros.a = ros.collector(Float64MultiArray, 'state_space/A')
    # With velocities: the node takes none as zero (it would estimate them
    # from positions closer together than max_state_age).
    ros.state = JointState(name=NAMES, position=[0.1] * MODEL.nq,
                           velocity=[0.0] * MODEL.nq)
    ros.wait_for(lambda: ros.a.messages,
                 action=lambda: ros.states.publish(ros.state), every=0.2,
                 what='a first A')
    yield ros
    finish(node, ros)


def still_publishing(ros, count=3):
    """Wait for ``count`` new A messages."""
    ros.a.clear()
    ros.wait_for(lambda: len(ros.a.messages) >= count,
                 what='%d more A messages' % count)


@pytest.mark.parametrize('rate', [1e-12, 0.0, -1.0, NAN, INF, 1e12])
def test_runtime_rate_set_is_refused_and_the_node_keeps_publishing(lin,
                                                                   rate):
    result = lin.set_parameters(LIN_NODE, rate=rate)[0]
    assert not result.successful
    assert 'rate' in result.reason and repr(rate) in result.reason
    still_publishing(lin)


def test_valid_rate_takes_effect(lin):
    # Counted over 3 s each: a load only delays a timer (rcl skips the
    # periods it missed, no burst follows), so 1 Hz gives 3 or fewer (5
    # allows for models of the rate before still under way) and 50 Hz
    # gives 150 or fewer; the bounds fail a rate left at 20 Hz (60) or
    # at 1 Hz (3), and 50 Hz passes on a machine 15 times too slow.
    assert lin.set_parameters(LIN_NODE, rate=1.0)[0].successful
    lin.spin(0.5)
    lin.a.clear()
    lin.spin(3.0)
    slow = len(lin.a.messages)
    assert lin.set_parameters(LIN_NODE, rate=50.0)[0].successful
    lin.spin(0.5)
    lin.a.clear()
    lin.spin(3.0)
    assert slow <= 5 and len(lin.a.messages) >= 10, (
        slow, len(lin.a.messages))
    assert lin.set_parameters(LIN_NODE, rate=20.0)[0].successful


def test_linearization_bad_sets_are_refused(lin):
    assert check_bad_sets(lin, LIN_NODE) > 30
    still_publishing(lin)


def test_linearization_long_joint_name_gives_a_short_warning(lin):
    msg = JointState(name=[LONG], position=[0.0])
    lin.wait_for(lambda: lin.warnings(LIN_NODE, 'is missing joints'),
                 action=lambda: lin.states.publish(msg),
                 what='missing joints warning')
    for text in lin.warnings(LIN_NODE, 'is missing joints'):
        assert len(text) < MAX_REASON, len(text)


# --- start-up -----------------------------------------------------------


def start_fails(node, parameters, reason):
    """Start ``node``; require exit status 1 with ``reason``, no traceback."""
    process = NodeProcess(node, START_DOMAIN, dict(
        {'robot_description': XML}, **parameters))
    try:
        status = process.wait_exit()
    finally:
        process.stop()
    output = process.output()
    assert status == 1, output
    assert 'cannot start' in output and reason in output, output
    assert 'Traceback' not in output, output


@pytest.mark.parametrize('rate', [1e-12, 0.0, -1.0, NAN, INF, 1e12])
def test_linearization_node_refuses_a_bad_rate_at_start(rate):
    start_fails(LIN_NODE, {'rate': rate}, 'rate')


@pytest.mark.parametrize('parameters,reason', [
    ({'effort_limit_scale': -1.0}, 'effort_limit_scale must be'),
    ({'effort_limit_scale': NAN}, 'effort_limit_scale must be'),
    ({'effort_limits': [10.0, 20.0]}, 'effort_limits has 2 values'),
    ({'effort_limits': [-1.0] * 7}, 'effort_limits must be > 0'),
], ids=['scale -1', 'scale nan', 'limits size', 'limits negative'])
def test_inverse_dynamics_node_refuses_bad_limits_at_start(parameters,
                                                           reason):
    start_fails(ID_NODE, parameters, reason)


def test_saturation_helpers():
    from dynamics_ros.control.saturation import (check_limits, check_scale,
                                                 effort_limits, saturate)
    limits = effort_limits([87.0, np.inf, 12.0], 0.5)
    tau, mask = saturate([100.0, -1e9, -3.0], limits)
    assert_close(tau, [43.5, -1e9, -3.0])
    assert mask.tolist() == [True, False, False]
    assert effort_limits([87.0, 87.0], 2.0, [1.0, np.inf]).tolist() == [
        2.0, np.inf]
    assert check_scale(1.0) is None and check_scale(0.0)
    assert check_limits([], 3) is None and check_limits([1.0], 3)
    assert check_limits([np.inf, 1.0, 2.0], 3) is None
