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
Start dynamics_ros nodes as processes and talk to them over DDS.

Every process and the test's own rclpy context use one ``ROS_DOMAIN_ID``
(one per test module, reserved for this run by ``reserve_domain_id``) with
``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``, so no traffic leaves the
loopback interface, modules do not hear each other, and two test runs on
one machine (two checkouts, a developer and CI) do not either.  Waits poll for a
condition (discovery, a matching message) up to a generous timeout; no test
depends on how fast anything is.
"""

import fcntl
import os
import signal
import subprocess
import sys
import tempfile
import time

from dynamics_ros.nodes import NODE_MODULES
from dynamics_ros.nodes.shared.conversions import to_seconds
from geometry_msgs.msg import InertiaStamped
import numpy as np
from rcl_interfaces.msg import Log
from rcl_interfaces.srv import GetParameters, ListParameters, \
    SetParameters
import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
import yaml

TIMEOUT = 60.0  # an upper bound for slow, loaded machines; waits end early
# Ctrl-C to exit: about 0.5 s quiet; a lockstep simulator beside two busy
# test runs was seen needing more than 10 s.  A node that hangs fails its
# test, with its threads' stacks in its output (stop()).
STOP_TIMEOUT = 30.0
WARN = 30

os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'


# Domain ids 1-101 and 215-232 map to ports that DDS can use on any Linux
# host (ROS 2 "About Domain ID": 0-101 and 215-232 are clear of the default
# ephemeral range 32768-60999); 0 is every untouched ROS 2 install's
# default, so it is left alone.
DOMAIN_IDS = tuple(range(1, 102)) + tuple(range(215, 233))
LOCK_FOLDER = os.path.join(tempfile.gettempdir(), 'dynamics_ros_domains')
_held = {}   # domain id: (lock file stream, purpose)


def lock_path(domain_id):
    """Return the lock file of ``domain_id``."""
    return os.path.join(LOCK_FOLDER, '%d.lock' % domain_id)


def last_used(domain_id):
    """Return when ``domain_id`` was last taken or given back (0: never)."""
    try:
        return os.stat(lock_path(domain_id)).st_mtime
    except OSError:
        return 0.0


def reserve_domain_id(purpose='test'):
    """
    Return a ROS_DOMAIN_ID no other process of any run holds; keep it.

    Each id is an exclusive lock on a file, held until this process ends
    (the kernel drops the lock then, even after a crash) or the suite gives
    it back after the module that took it (``release_domain_ids``), so
    concurrent runs, pytest-xdist workers and modules get different ids
    without a shared constant.  The id unused longest is taken, so one
    given back is taken again last: DDS forgets a stopped node after a few
    seconds, and no test should meet another's.  ``purpose`` names the
    holder in the file.
    """
    os.makedirs(LOCK_FOLDER, exist_ok=True)
    for domain_id in sorted(DOMAIN_IDS, key=last_used):
        if domain_id in _held:
            continue
        stream = open(lock_path(domain_id), 'a')
        try:
            fcntl.flock(stream, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            stream.close()
            continue
        stream.truncate(0)
        stream.write('%d %s\n' % (os.getpid(), purpose))
        stream.flush()
        _held[domain_id] = (stream, purpose)
        return domain_id
    raise RuntimeError('every ROS_DOMAIN_ID (1-101, 215-232) is held by '
                       'another test run (locks in %s)' % LOCK_FOLDER)


def held_domain_ids():
    """Return the ids this process holds."""
    return set(_held)


def release_domain_ids(purpose, taken_since=()):
    """
    Give back the ids held for ``purpose`` and those not in ``taken_since``.

    The suite's conftest calls it after each test module, once its nodes
    are stopped, with the module's name (a module reserves its id at
    import, so every module of a run holds one from collection on) and the
    ids held when the module started: without it two pytest-xdist workers,
    each importing every module, would hold more ids than there are.
    """
    for domain_id, (stream, holder) in list(_held.items()):
        if holder == purpose or domain_id not in taken_since:
            del _held[domain_id]
            os.utime(stream.name)   # given back now: taken again last
            stream.close()


def add_domain_argument(parser):
    """Give a benchmark's argument parser ``--domain``."""
    parser.add_argument('--domain', type=int, default=None,
                        help='ROS_DOMAIN_ID (default: a free one, reserved '
                        'for this run)')


def chosen_domain(args, purpose):
    """Return ``--domain``, else a free ROS_DOMAIN_ID reserved for it."""
    return args.domain if args.domain is not None else \
        reserve_domain_id(purpose)


def node_environment(domain_id):
    """Return the environment of a node process in ``domain_id``."""
    env = dict(os.environ)
    env.update(ROS_DOMAIN_ID=str(domain_id),
               ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST',
               PYTHONUNBUFFERED='1', RCUTILS_COLORIZED_OUTPUT='0',
               PYTHONFAULTHANDLER='1')
    env.pop('ROS_LOCALHOST_ONLY', None)
    return env


def die_with_parent():
    """
    Ask Linux to send SIGTERM to this child when its parent dies.

    And give it back the default SIGINT: a test run started in the
    background of a script (``make test &``) has SIGINT ignored, which
    every child would inherit, and a node stopped as Ctrl-C stops it
    would never hear it (``ros2 launch`` does not).
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        import ctypes
        ctypes.CDLL('libc.so.6').prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: a crashed test may leave a node running


def executable(name):
    """Return the command of console script ``name`` (else ``-m`` module)."""
    script = os.path.join(os.path.dirname(sys.executable), name)
    if os.path.isfile(script):
        return [script]
    return [sys.executable, '-m', NODE_MODULES[name]]


# The node processes started and not stopped yet (stop_leftover_nodes).
RUNNING = []


def stop_leftover_nodes():
    """
    Stop the node processes a test module left running; return their names.

    A module fixture that fails half way (a node that never answered) stops
    nothing it started: its nodes would run, and load the machine, until
    the whole run ends.  The suite's conftest calls this after each module.
    """
    names = []
    while RUNNING:
        node = RUNNING[-1]
        names.append(node.node_name)
        node.stop()
    return names


class NodeProcess:
    """A dynamics_ros node running in its own process."""

    def __init__(self, name, domain_id, parameters=None, remaps=None,
                 node_name=None, namespace=None, program=None):
        """
        Start console script ``name`` with a parameter file.

        ``program``: the command to run instead of this environment's
        script (e.g. the one a colcon install put in lib/dynamics_ros).
        """
        self.node_name = node_name or name
        self.directory = tempfile.TemporaryDirectory(prefix='dr_node_')
        params_path = os.path.join(self.directory.name, 'params.yaml')
        with open(params_path, 'w', encoding='utf-8') as stream:
            yaml.safe_dump({'/**': {'ros__parameters': dict(
                parameters or {})}}, stream)
        command = (program or executable(name)) + [
            '--ros-args', '--params-file', params_path]
        if node_name:
            command += ['-r', '__node:=' + node_name]
        if namespace:
            command += ['-r', '__ns:=' + namespace]
        for old, new in (remaps or {}).items():
            command += ['-r', '%s:=%s' % (old, new)]
        self.log_path = os.path.join(self.directory.name, 'output.log')
        self.final_output = None
        self.log = open(self.log_path, 'w', encoding='utf-8')
        self.process = subprocess.Popen(
            command, env=node_environment(domain_id), stdout=self.log,
            stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
        RUNNING.append(self)

    def alive(self):
        """Return True while the process runs."""
        return self.process.poll() is None

    def output(self):
        """Return everything the process printed so far."""
        if self.final_output is not None:
            return self.final_output
        with open(self.log_path, encoding='utf-8', errors='replace') as f:
            return f.read()

    def wait_for_output(self, text, timeout=TIMEOUT):
        """Wait until the process printed ``text``; return its output."""
        end = time.monotonic() + timeout
        while text not in self.output() and time.monotonic() < end:
            time.sleep(0.1)
        return self.output()

    def wait_exit(self, timeout=TIMEOUT):
        """Wait for the process to end by itself; return its status."""
        return self.process.wait(timeout)

    def stop(self):
        """Stop with SIGINT (then SIGKILL); return the exit status."""
        if self.alive():
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                # PYTHONFAULTHANDLER: SIGABRT prints every thread's stack
                # into the output, which the failing test shows: where it
                # hung.  Then the kill (status -6: still a failure).
                self.process.send_signal(signal.SIGABRT)
                try:
                    self.process.wait(5.0)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
        self.log.close()
        if self in RUNNING:
            RUNNING.remove(self)
        status = self.process.returncode
        self.final_output = self.output()
        self.directory.cleanup()
        return status


class Collector:
    """Every message received on one topic, in arrival order."""

    def __init__(self, node, msg_type, topic, qos=10):
        """Subscribe to ``topic``."""
        self.messages = []
        self.subscription = node.create_subscription(
            msg_type, topic, self.messages.append, qos)

    def clear(self):
        """Forget the messages received so far."""
        del self.messages[:]


class RosTester:
    """The test side: an rclpy context, a node and an executor."""

    def __init__(self, domain_id, name='dynamics_ros_tester'):
        """Join ``domain_id`` (localhost discovery only)."""
        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=domain_id)
        self.node = rclpy.create_node(name, context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.logs = Collector(self.node, Log, '/rosout', QoSProfile(
            depth=1000, reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL))

    def close(self):
        """Leave the domain."""
        self.executor.shutdown()
        self.node.destroy_node()
        rclpy.try_shutdown(context=self.context)

    def spin(self, seconds):
        """Process callbacks for ``seconds``."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.executor.spin_once(timeout_sec=0.01)

    def wait_for(self, condition, timeout=TIMEOUT, action=None, every=0.05,
                 what='condition'):
        """
        Spin until ``condition()`` is true; fail after ``timeout`` s.

        ``action()`` (e.g. publishing a request) runs first and then every
        ``every`` seconds, so a message lost before discovery is repeated.
        """
        end = time.monotonic() + timeout
        next_action = 0.0
        while True:
            if condition():
                return
            now = time.monotonic()
            if now > end:
                raise AssertionError('timed out waiting for %s' % what)
            if action is not None and now >= next_action:
                action()
                next_action = now + every
            self.executor.spin_once(timeout_sec=0.01)

    def wait_for_subscriber(self, publisher, timeout=TIMEOUT):
        """Wait until ``publisher`` has a matched subscription."""
        self.wait_for(lambda: publisher.get_subscription_count() > 0,
                      timeout, what='a subscriber of %s' % publisher.topic)

    def wait_for_publisher(self, collector, timeout=TIMEOUT):
        """Wait until ``collector``'s subscription has a matched publisher."""
        subscription = collector.subscription
        self.wait_for(lambda: subscription.get_publisher_count() > 0,
                      timeout, what='a publisher of %s' % subscription.topic)

    def publisher(self, msg_type, topic, qos=10):
        """Return a publisher on ``topic``."""
        return self.node.create_publisher(msg_type, topic, qos)

    def collector(self, msg_type, topic, qos=10):
        """Return a Collector of ``topic``."""
        return Collector(self.node, msg_type, topic, qos)

    def set_parameters(self, node_name, **values):
        """
        Set parameters of a remote node; return the SetParametersResults.

        Keyword ``a__b=value`` sets parameter ``a.b``; pass an rclpy
        Parameter to give the type explicitly (an empty list, say).
        """
        client = self.node.create_client(
            SetParameters, '/%s/set_parameters' % node_name)
        try:
            self.wait_for(lambda: client.service_is_ready(),
                          what='service of %s' % node_name)
            request = SetParameters.Request()
            request.parameters = [
                (value if isinstance(value, Parameter) else Parameter(
                    name.replace('__', '.'), value=value)).to_parameter_msg()
                for name, value in values.items()]
            future = client.call_async(request)
            self.wait_for(future.done, what='set_parameters reply')
            return future.result().results
        finally:
            self.node.destroy_client(client)

    def warnings(self, node_name, containing='', level=WARN):
        """Return texts of /rosout logs of ``node_name`` at ``level`` or up."""
        return [m.msg for m in self.logs.messages
                if m.name == node_name and m.level >= level
                and containing in m.msg]


def all_finite(messages, field='data'):
    """Return True when every number of every message's field is finite."""
    return all(np.all(np.isfinite(np.asarray(getattr(m, field), dtype=float)))
               for m in messages)


def finish(node, tester):
    """Stop a fixture's node and tester; the node must have lived on."""
    alive = node.alive()
    status = node.stop()
    tester.close()
    assert alive, 'node died:\n' + node.output()
    assert status == 0, node.output()


def remote_parameters(ros, node, names=None):
    """
    Return {name: ParameterValue msg, None if not declared} of ``node``.

    All its parameters when ``names`` is None.  One request per name: a
    GetParameters request naming one parameter the node does not declare
    is answered with no values at all (rclpy's parameter service), so one
    such name would hide the others.
    """
    if names is None:
        client = ros.node.create_client(ListParameters,
                                        '/%s/list_parameters' % node)
        ros.wait_for(client.service_is_ready, what='list_parameters')
        future = client.call_async(ListParameters.Request())
        ros.wait_for(future.done, what='list_parameters reply')
        names = list(future.result().result.names)
        ros.node.destroy_client(client)
    client = ros.node.create_client(GetParameters,
                                    '/%s/get_parameters' % node)
    ros.wait_for(client.service_is_ready, what='get_parameters')
    values = {}
    for name in names:
        future = client.call_async(GetParameters.Request(names=[name]))
        ros.wait_for(future.done, what='get_parameters reply')
        answer = future.result().values
        values[name] = answer[0] if answer else None
    ros.node.destroy_client(client)
    return values


def inverse_dynamics_topics(tester):
    """Give ``tester`` the topics of an inverse_dynamics_node; return it."""
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray
    from trajectory_msgs.msg import JointTrajectory
    tester.states = tester.publisher(JointState, 'joint_states')
    tester.trajectories = tester.publisher(JointTrajectory,
                                           'joint_trajectory')
    tester.annotate = tester.publisher(JointTrajectory, 'trajectory_in')
    tester.feedforward = tester.collector(JointState, 'feedforward')
    tester.efforts = tester.collector(Float64MultiArray, 'effort_commands')
    tester.annotated = tester.collector(JointTrajectory, 'trajectory_out')
    return tester


def linearization_topics(tester):
    """Give ``tester`` the topics of a linearization_node; return it."""
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray
    tester.states = tester.publisher(JointState, 'joint_states')
    tester.commands = tester.publisher(Float64MultiArray, 'effort_commands')
    tester.a = tester.collector(Float64MultiArray, 'state_space/A')
    tester.b = tester.collector(Float64MultiArray, 'state_space/B')
    tester.point = tester.collector(JointState,
                                    'state_space/operating_point')
    return tester


def simulator_topics(tester, *modes, namespace=''):
    """
    Give ``tester`` simulator_node's command publishers and joint_states.

    ``tester.<mode>`` publishes on ``<mode>_controller/commands`` for each
    of ``modes`` (effort, position, velocity, voltage); ``tester.states``
    collects ``joint_states``; the names are relative to ``namespace``.
    """
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray
    for mode in modes:
        setattr(tester, mode, tester.publisher(
            Float64MultiArray, '%s%s_controller/commands' % (namespace, mode)))
    tester.states = tester.collector(JointState, namespace + 'joint_states')
    return tester


def stamp_of(msg):
    """Return a message's header stamp in seconds."""
    return to_seconds(msg.header.stamp)


def reorder(values, names, order):
    """Return ``values`` (given in the order of ``names``) in ``order``."""
    table = dict(zip(names, values))
    return np.array([table[name] for name in order])


def inertia_stamped(frame, mass, com, inertia):
    """Return an InertiaStamped: ``inertia`` (3x3) about ``com``."""
    msg = InertiaStamped()
    msg.header.frame_id = frame
    msg.inertia.m = float(mass)
    msg.inertia.com.x, msg.inertia.com.y, msg.inertia.com.z = (
        float(x) for x in com)
    (msg.inertia.ixx, msg.inertia.ixy, msg.inertia.ixz, msg.inertia.iyy,
     msg.inertia.iyz, msg.inertia.izz) = (
        float(inertia[i, j]) for i, j in
        ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)))
    return msg


TESTER_ANSWERS = 'ros_harness/answers'


def answering_collector(tester, topic='joint_states',
                        answers=TESTER_ANSWERS):
    """
    Collect every joint state of a lockstep simulator and answer each.

    Name ``answers`` in the simulator's ``lockstep_peers``: it then takes
    no step past a state the test has not read (doc/theory/lockstep.md),
    so none is lost however slow the test runs, and simulated time stands
    still while the test does not spin.  States published again while the
    simulator waits come twice.  Returns a Collector.
    """
    from dynamics_ros.nodes.shared.qos import LOCKSTEP_QOS
    from sensor_msgs.msg import JointState
    publisher = tester.publisher(JointState, answers, LOCKSTEP_QOS)
    states = Collector.__new__(Collector)
    states.messages = []

    def on_state(msg):
        states.messages.append(msg)
        answer = JointState()
        answer.header.stamp = msg.header.stamp
        publisher.publish(answer)

    states.subscription = tester.node.create_subscription(
        JointState, topic, on_state, LOCKSTEP_QOS)
    return states
