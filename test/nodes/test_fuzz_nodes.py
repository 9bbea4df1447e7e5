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
Nodes fed what an attacker or a careless user gives them, alive after it.

One inverse_dynamics_node (starting nodes costs seconds each) gets: a
friction_file of 200,000 nested ``[``, a 4 MiB one and one over the node
bound (refused with the file, line and bound, the set answered); a
trajectory_in 2147483647 s long and malformed ones (each reported on
trajectory_feasibility, refused); then every parameter of its table fed
hostile values (hostile.hostile_value) and its topics hostile messages.
Throughout, joint_states keep being answered, nothing published is
non-finite and its memory stays bounded.  Each node answers ``--help``
and ``--ros-args --help`` with its parameter table, exit 0.
``DYNAMICS_ROS_FUZZ_SECONDS`` lengthens the fuzz (doc/development.md).
"""

import os
import subprocess
import time

from builtin_interfaces.msg import Duration
from dynamics_ros.control.feasibility import MAX_SAMPLES
from dynamics_ros.nodes import NODE_MODULES
from dynamics_ros.nodes.shared.parameter_reference import MODEL_TABLE, table, \
    TABLES
from hostile import FUZZ_SECONDS, hostile_text, hostile_value, SEED
import numpy as np
import pytest
from rcl_interfaces.msg import Parameter as ParameterMessage
from rcl_interfaces.srv import SetParameters
from rclpy.parameter import Parameter
from ros_harness import all_finite, executable, finish, \
    inverse_dynamics_topics, node_environment, NodeProcess, \
    remote_parameters, reserve_domain_id, RosTester, TIMEOUT
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
import yaml

DOMAIN_ID = reserve_domain_id(__name__)
NODE = 'inverse_dynamics_node'
URDF = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'urdf', 'two_link_planar.urdf')
with open(URDF, encoding='utf-8') as _stream:
    XML = _stream.read()
JOINTS = ['shoulder', 'elbow']
# Resident memory the node may reach (it starts near 200 MiB): a hostile
# input that made it allocate per value would pass it.
RSS_LIMIT_MIB = 1024
STATE_PERIOD = 0.01   # joint_states at 100 Hz while a hostile input lands
READ_ONLY = {spec.name for spec in table(NODE) if spec.read_only}
# The value a parameter unset at the start is restored to: its
# description's "unset or []" (parameters.py).
UNSET_EQUIVALENT = {'effort_limits': Parameter(
    'effort_limits', Parameter.Type.DOUBLE_ARRAY, [])}


@pytest.fixture(scope='module')
def ros():
    """Start an inverse_dynamics_node on the two-link arm; yield a tester."""
    node = NodeProcess(NODE, DOMAIN_ID, {
        'robot_description': XML, 'mode': 'gravity', 'max_state_age': 0.0})
    tester = inverse_dynamics_topics(RosTester(DOMAIN_ID))
    tester.reports = tester.collector(String, 'trajectory_feasibility')
    tester.node_process = node
    tester.stamp = 0
    # One set_parameters client for the module.  A client per set (as this
    # test had) left thousands of clients in the tester within the hour,
    # each a new pair of endpoints for the node to discover while it is
    # fuzzed; a reply the node sends before it has matched the new client's
    # reader is lost, the likely cause of the set left unanswered for 60 s
    # after 8 minutes of a loaded run.
    tester.set_client = tester.node.create_client(
        SetParameters, '/%s/set_parameters' % NODE)
    tester.wait_for_subscriber(tester.states)
    tester.wait_for_subscriber(tester.annotate)
    yield tester
    finish(node, tester)


def state(ros, position=(0.3, -0.2)):
    """Return a JointState of the two joints with a fresh stamp."""
    ros.stamp += 1
    msg = JointState(name=JOINTS, position=list(position),
                     velocity=[0.0, 0.0])
    msg.header.stamp.sec = 1
    msg.header.stamp.nanosec = ros.stamp
    return msg


def answering(ros, call):
    """
    Run ``call()`` (returns a future) while publishing joint_states.

    Returns (future result, seconds it took, feed-forward replies per
    second meanwhile).  The rate is measured, not asserted (no timing
    assertions in tests); benchmarks/bench_hostile_inputs.py reports it.
    """
    ros.feedforward.clear()
    started = time.monotonic()
    future = call()
    ros.wait_for(future.done, action=lambda: ros.states.publish(state(ros)),
                 every=STATE_PERIOD, what='the answer')
    seconds = time.monotonic() - started
    return future.result(), seconds, len(ros.feedforward.messages) / max(
        seconds, 1e-9)


def set_async(ros, **values):
    """Return the future of a set_parameters call to the node."""
    ros.wait_for(ros.set_client.service_is_ready,
                 what='set_parameters service')
    request = SetParameters.Request()
    request.parameters = [
        (value if isinstance(value, Parameter) else Parameter(
            name, value=value)).to_parameter_msg()
        for name, value in values.items()]
    return ros.set_client.call_async(request)


def parameter_values(ros, names):
    """
    Return {name: rclpy Parameter} of the parameters ``names`` the node has.

    One request per name (remote_parameters): asked in one batch with the
    model table's joints and xacro_args, which this node does not declare,
    the values came back empty, and the "restore every parameter" at the
    end of the fuzz restored none (the hour-long run then failed on a
    max_state_age the fuzz had left).  A declared parameter without a
    value comes back with type NOT_SET.
    """
    return {name: Parameter.from_parameter_msg(
        ParameterMessage(name=name, value=value))
        for name, value in remote_parameters(ros, NODE, names).items()
        if value is not None}


def restore(ros, started):
    """
    Set every parameter back to ``started``; assert the node reads so.

    A parameter unset at the start (effort_limits) cannot be unset again
    over the service (a NOT_SET value would undeclare it), so it is set to
    the value its description gives as the same as unset (UNSET_EQUIVALENT).
    A read-only one (lockstep) the fuzz could not change.
    """
    values = {name: UNSET_EQUIVALENT[name] if (
        parameter.type_ == Parameter.Type.NOT_SET) else parameter
        for name, parameter in started.items() if name not in READ_ONLY}
    results = ros.set_parameters(NODE, **values)
    assert len(results) == len(values)
    refused = {name: result.reason for name, result in zip(values, results)
               if not result.successful}
    assert not refused, refused
    now = parameter_values(ros, list(values))
    for name, parameter in values.items():
        assert np.array_equal(np.asarray(now[name].value, dtype=object),
                              np.asarray(parameter.value, dtype=object)), name


def still_answers(ros):
    """Assert one valid state gets a finite feed-forward."""
    msg = state(ros)
    ros.feedforward.clear()
    ros.wait_for(lambda: any(m.header.stamp == msg.header.stamp
                             for m in ros.feedforward.messages),
                 action=lambda: ros.states.publish(msg),
                 what='a feed-forward after the hostile input')
    assert all_finite(ros.feedforward.messages, 'effort')


def rss_mib(node):
    """Return the resident memory of a node process, MiB."""
    with open('/proc/%d/status' % node.process.pid) as stream:
        for line in stream:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024.0
    return 0.0


def friction_files(folder):
    """Write the hostile friction files; return them with their reasons."""
    nested = folder / 'nested.yaml'
    nested.write_text('[' * 200000, encoding='utf-8')
    line = '  j%d: {viscous: 0.1, coulomb: 0.2, offset: 0.0}\n'
    big = folder / 'big.yaml'
    big.write_text('joints:\n' + ''.join(
        line % k for k in range(90000)), encoding='utf-8')   # 4.3 MiB
    many = folder / 'many.yaml'
    many.write_text('joints:\n' + ''.join(
        line % k for k in range(15000)), encoding='utf-8')   # 0.7 MiB
    return [(nested, 'nested deeper than 32 levels (the bound)'),
            (big, 'over the 1 MiB limit'),
            (many, 'more than 10000 YAML nodes (the bound)')]


def test_hostile_friction_files_are_refused_and_answered(ros, tmp_path):
    for path, reason in friction_files(tmp_path):
        results, seconds, rate = answering(
            ros, lambda: set_async(ros, friction_file=str(path)))
        print('%s: answered in %.3f s, %.0f feed-forwards/s meanwhile'
              % (path.name, seconds, rate))
        assert not results.results[0].successful
        text = results.results[0].reason
        assert reason in text and path.name in text, text
        assert 'j1' not in text   # no file contents
        if 'nested' in path.name:
            assert 'line 1, column' in text
        still_answers(ros)
    assert ros.node_process.alive()


def trajectory(names, points):
    """Return a JointTrajectory of (seconds, positions) points."""
    msg = JointTrajectory(joint_names=names)
    for seconds, positions in points:
        point = JointTrajectoryPoint(positions=positions)
        point.time_from_start = Duration(sec=int(seconds), nanosec=0)
        msg.points.append(point)
    return msg


MALFORMED = {
    'absurd duration': (trajectory(JOINTS, [(0, [0.0, 0.0]),
                                            (2147483647, [0.1, 0.1])]),
                        'over the bound of %d (MAX_SAMPLES' % MAX_SAMPLES),
    'empty names': (trajectory([], [(1, [])]), 'joint'),
    'lengths differ': (trajectory(JOINTS, [(1, [0.0])]),
                       'has 1 values for 2 names'),
    'no points': (trajectory(JOINTS, []), 'no points'),
    'times go back': (trajectory(JOINTS, [(2, [0.0, 0.0]), (1, [0.1, 0.1])]),
                      'strictly increasing'),
    'unknown joint': (trajectory(['shoulder', 'wrist'], [(1, [0.0, 0.0])]),
                      'wrist'),
}


@pytest.mark.parametrize('case', sorted(MALFORMED))
def test_every_trajectory_in_gets_a_report(ros, case):
    msg, reason = MALFORMED[case]
    ros.reports.clear()

    def reports():
        # This case's: one of an earlier test's trajectories may still come.
        return [report for report in (
            yaml.safe_load(m.data) for m in ros.reports.messages)
            if reason in str(report.get('refused'))]
    ros.wait_for(reports, action=lambda: (
        ros.annotate.publish(msg), ros.states.publish(state(ros))),
        every=0.5, what='a trajectory_feasibility report with %r' % reason)
    report = reports()[-1]
    assert report['published'] is False and report['feasible'] is False
    still_answers(ros)


def hostile_state(rng):
    """Return a JointState with hostile names, lengths or values."""
    size = int(rng.choice([0, 1, 2, 3, 1000]))
    names = JOINTS if rng.random() < 0.5 else [
        hostile_text(rng)[:1000] for _ in range(size)]
    values = [float(x) for x in rng.choice(
        [np.nan, np.inf, -np.inf, 1e308, -1e308, 1e-320, 0.0, 1.0],
        int(rng.choice([0, 1, 2, 3])))]
    msg = JointState(name=names, position=values, velocity=values[::-1],
                     effort=values)
    msg.header.stamp.sec = int(rng.integers(0, 2 ** 31))
    return msg


def test_hostile_parameters_and_topics_leave_it_answering(ros):
    rng = np.random.default_rng(SEED)
    names = [spec.name for spec in table(NODE)] + [
        spec.name for spec in table(MODEL_TABLE)]
    started = parameter_values(ros, names)
    # Every parameter of the tables the node declares came back (two of
    # the model table's, joints and xacro_args, it does not declare).
    assert set(started) == set(names) - {'joints', 'xacro_args'}, started
    assert started['max_state_age'].value == 0.0
    assert set(name for name, parameter in started.items() if (
        parameter.type_ == Parameter.Type.NOT_SET)) <= set(UNSET_EQUIVALENT)
    end = time.monotonic() + FUZZ_SECONDS
    sets = 0
    while True:
        for name in names:
            for _ in range(3):
                value = hostile_value(rng)
                try:
                    parameter = Parameter(name, value=value)
                except TypeError:   # rclpy refuses the value locally
                    continue
                try:
                    results, _, _ = answering(
                        ros, lambda: set_async(ros, **{name: parameter}))
                except AssertionError as error:   # which set, and why
                    raise AssertionError('set %d, %s = %s: %s\n%s' % (
                        sets, name, repr(value)[:200], error,
                        ros.node_process.output()[-3000:])) from error
                sets += 1
                for result in results.results:
                    assert result.successful or result.reason
                ros.states.publish(hostile_state(rng))
                ros.annotate.publish(trajectory(
                    JOINTS, [(int(rng.integers(0, 2 ** 31)), [
                        float(x) for x in rng.choice(
                            [np.nan, 1e308, 0.0, -np.inf], 2)])]))
        assert ros.node_process.alive(), ros.node_process.output()[-2000:]
        assert rss_mib(ros.node_process) < RSS_LIMIT_MIB
        if time.monotonic() > end:
            break
    assert sets > len(names)
    # The fuzz may have left any accepted value (a max_state_age that
    # makes these stamps stale, say): every parameter back as it started.
    restore(ros, started)
    still_answers(ros)
    assert all_finite(ros.efforts.messages)
    assert all_finite(ros.feedforward.messages, 'effort')
    for msg in ros.annotated.messages:
        for point in msg.points:
            assert np.all(np.isfinite(point.effort))


@pytest.mark.parametrize('node', sorted(TABLES))
def test_nodes_answer_help_without_ros(node, capsys):
    """-h, --help, --ros-args --help: usage and the table, 0, no rclpy."""
    import importlib
    import rclpy
    main = importlib.import_module(NODE_MODULES[node]).main
    first = next(iter(table(node))).name
    for flags in (['-h'], ['--help'], ['--ros-args', '--help']):
        assert main(flags) == 0
        out = capsys.readouterr().out
        assert out.startswith('usage: ros2 run dynamics_ros %s' % node)
        assert '| `%s` |' % first in out
        assert '| `robot_description` |' in out
        assert not rclpy.ok()   # no context was initialized: no graph


def test_the_console_script_answers_help_and_exits():
    # The installed script, as ros2 run starts it (rcl used to refuse
    # --help after --ros-args with UnknownROSArgsError).
    done = subprocess.run(
        executable(NODE) + ['--ros-args', '--help'],
        env=node_environment(DOMAIN_ID), capture_output=True, text=True,
        timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith('usage: ros2 run dynamics_ros %s' % NODE)
    assert '| `trajectory_mode` |' in done.stdout
    assert 'Traceback' not in done.stderr
