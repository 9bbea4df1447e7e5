#!/usr/bin/env python3
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
JointState -> effort_commands latency of inverse_dynamics_node through DDS.

Three processes on one machine, localhost discovery, a private domain:
the node (the real console script, Panda, ``computed_torque`` mode), a
publisher sending JointState at ``--rate`` Hz (default 1 kHz) with
``header.stamp`` = its CLOCK_MONOTONIC send time, and this script receiving
``feedforward`` (which echoes the stamp: exact per-message latency and
drops) and ``effort_commands`` (unstamped: the k-th command is matched to
the k-th answered state).  Prints p50 / p90 / p99 / max latency, dropped
messages, and, for scale, the node's per-message dynamics cost against
Pinocchio's in this run.  Goal: p99 < 2 ms, no drops.

    .venv/bin/python benchmarks/bench_latency.py [--messages 10000]
"""

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'test'))

import numpy as np  # noqa: E402
from oracle import example_arm_xml, oracle_for  # noqa: E402

DOMAIN_ID = 120


def environment(domain_id):
    """Return the environment of every benchmark process."""
    env = dict(os.environ, ROS_DOMAIN_ID=str(domain_id),
               ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST',
               PYTHONUNBUFFERED='1')
    env.pop('ROS_LOCALHOST_ONLY', None)
    return env


def die_with_parent():
    """Ask Linux to send SIGTERM to this child when its parent dies."""
    try:
        import ctypes
        ctypes.CDLL('libc.so.6').prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def node_command(params_path):
    """Return the command running inverse_dynamics_node."""
    script = os.path.join(os.path.dirname(sys.executable),
                          'inverse_dynamics_node')
    command = [script] if os.path.isfile(script) else [
        sys.executable, '-m', 'dynamics_ros.nodes.inverse_dynamics_node']
    return command + ['--ros-args', '--params-file', params_path]


def monotonic_stamp(Time):
    """Return the current CLOCK_MONOTONIC time as a Time message."""
    now = time.monotonic_ns()
    return Time(sec=now // 1000000000, nanosec=now % 1000000000)


def publish(args):
    """Wait for the node, then send joint states at a fixed rate."""
    import rclpy
    from builtin_interfaces.msg import Time
    from sensor_msgs.msg import JointState
    rclpy.init()
    node = rclpy.create_node('latency_publisher')
    publisher = node.create_publisher(JointState, 'joint_states', 10)
    while publisher.get_subscription_count() < 1:
        time.sleep(0.01)
    time.sleep(1.0)  # let every endpoint finish matching
    rng = np.random.default_rng(0)
    names = args.names.split(',')
    period = 1.0 / args.rate
    total = args.warmup + args.messages
    sent = np.zeros(total, dtype=np.int64)
    start = time.monotonic() + 0.1
    for k in range(total):
        delay = start + k * period - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        msg = JointState(name=names,
                         position=rng.uniform(-1, 1, len(names)).tolist(),
                         velocity=rng.uniform(-1, 1, len(names)).tolist())
        msg.header.stamp = monotonic_stamp(Time)
        sent[k] = msg.header.stamp.sec * 1000000000 + msg.header.stamp.nanosec
        publisher.publish(msg)
    np.save(args.sent, sent)
    time.sleep(0.5)
    node.destroy_node()
    rclpy.shutdown()


def compute_cost(calls=2000):
    """Return (ours, Pinocchio) seconds per computed-torque evaluation."""
    import pinocchio as pin
    from dynamics_ros.control.computed_torque import computed_torque
    model, oracle = oracle_for(example_arm_xml('panda'))
    rng = np.random.default_rng(1)
    q, qd, q_d = (rng.uniform(-1, 1, model.nq) for _ in range(3))
    zero, kp, kd = np.zeros(model.nq), np.full(model.nq, 100.0), np.full(
        model.nq, 20.0)
    computed_torque(model, q, qd, q_d, zero, zero, kp, kd)  # compile, if JIT
    start = time.perf_counter()
    for _ in range(calls):
        computed_torque(model, q, qd, q_d, zero, zero, kp, kd)
    ours = (time.perf_counter() - start) / calls
    pm, data = oracle.pin_model, oracle.data
    pq, pv = oracle.q(q), oracle.v(qd)
    start = time.perf_counter()
    for _ in range(calls):
        v = kp * (q_d - q) - kd * qd
        pin.rnea(pm, data, pq, pv, oracle.v(v))
    return ours, (time.perf_counter() - start) / calls


def cpu_seconds(pid):
    """Return user + system CPU seconds of process ``pid`` (Linux)."""
    try:
        with open('/proc/%d/stat' % pid) as stream:
            fields = stream.read().rsplit(')', 1)[1].split()
    except OSError:
        return float('nan')
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def warm_up(receiver, executor, model, answers, timeout=120.0):
    """Wait until the node answers (first calls may compile kernels)."""
    from sensor_msgs.msg import JointState
    publisher = receiver.create_publisher(JointState, 'joint_states', 10)
    msg = JointState(name=model.joint_names, position=[0.1] * model.nq)
    end = time.monotonic() + timeout
    while len(answers[0]) < 20:
        if time.monotonic() > end:
            raise SystemExit('the node did not answer within %g s' % timeout)
        publisher.publish(msg)
        executor.spin_once(timeout_sec=0.05)
    receiver.destroy_publisher(publisher)
    end = time.monotonic() + 0.5  # let answers in flight arrive, then forget
    while time.monotonic() < end:
        executor.spin_once(timeout_sec=0.05)
    for received in answers:
        del received[:]


def percentiles(latencies_ns):
    """Return 'p50 / p90 / p99 / max' in ms."""
    values = np.percentile(latencies_ns, [50, 90, 99, 100]) / 1e6
    return 'p50 %.3f  p90 %.3f  p99 %.3f  max %.3f ms' % tuple(values)


def receive(args, xml, model):
    """Run node + publisher, collect the answers, print the figures."""
    import rclpy
    from rclpy.event_handler import SubscriptionEventCallbacks
    from rclpy.executors import SingleThreadedExecutor
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray
    import yaml
    env = environment(args.domain)
    os.environ.update(env)
    work = tempfile.TemporaryDirectory(prefix='dr_latency_')
    params = os.path.join(work.name, 'params.yaml')
    with open(params, 'w', encoding='utf-8') as stream:
        yaml.safe_dump({'/**': {'ros__parameters': {
            'robot_description': xml, 'mode': args.mode}}}, stream)
    sent_path = os.path.join(work.name, 'sent.npy')
    node = subprocess.Popen(node_command(params), env=env,
                            stdout=subprocess.DEVNULL,
                            preexec_fn=die_with_parent)
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=args.domain)
    # A lean receiver (no services, no rosout, no QoS event handlers), so
    # its own dispatch adds as little as possible to the measurement.
    receiver = rclpy.create_node('latency_receiver', context=context,
                                 start_parameter_services=False,
                                 enable_rosout=False)
    lean = SubscriptionEventCallbacks(use_default_callbacks=False)
    feedforward, commands = [], []

    def on_feedforward(msg):
        feedforward.append((time.monotonic_ns(), msg.header.stamp.sec
                            * 1000000000 + msg.header.stamp.nanosec))

    def on_command(msg):
        commands.append(time.monotonic_ns())

    receiver.create_subscription(JointState, 'feedforward', on_feedforward,
                                 1000, event_callbacks=lean)
    receiver.create_subscription(Float64MultiArray, 'effort_commands',
                                 on_command, 1000, event_callbacks=lean)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(receiver)
    warm_up(receiver, executor, model, (feedforward, commands))
    node_cpu = cpu_seconds(node.pid)
    publisher = subprocess.Popen(
        [sys.executable, __file__, '--publisher', '--sent', sent_path,
         '--names', ','.join(model.joint_names), '--rate', str(args.rate),
         '--messages', str(args.messages), '--warmup', str(args.warmup)],
        env=env, preexec_fn=die_with_parent)
    try:
        while publisher.poll() is None:
            executor.spin_once(timeout_sec=0.01)
        end = time.monotonic() + 2.0
        while time.monotonic() < end:
            executor.spin_once(timeout_sec=0.01)
        node_cpu = cpu_seconds(node.pid) - node_cpu
    finally:
        node.send_signal(signal.SIGINT)
        node.wait(10)
        executor.shutdown()
        receiver.destroy_node()
        rclpy.try_shutdown(context=context)
    sent = np.load(sent_path)
    print('node CPU: %.0f us per message received' % (
        1e6 * node_cpu / len(sent)))
    report(args, sent[args.warmup:], feedforward, commands, model)


def report(args, sent, feedforward, commands, model):
    """Print latency percentiles, drops and the compute cost."""
    arrival = {stamp: received for received, stamp in feedforward}
    answered = np.array([stamp for stamp in sent if stamp in arrival])
    latency = np.array([arrival[stamp] - stamp for stamp in answered])
    print('inverse_dynamics_node, mode %s, Panda (%d joints), %g Hz, %d '
          'messages (after %d warm-up)' % (args.mode, model.nq, args.rate,
                                           len(sent), args.warmup))
    print('JointState -> feedforward      %s' % percentiles(latency))
    first = len(feedforward) - len(commands)
    command_arrival = np.array(commands[max(0, -first):])
    all_sent_answered = np.array([stamp for _, stamp in feedforward])
    if len(command_arrival) == len(all_sent_answered):
        keep = np.isin(all_sent_answered, sent)
        command_latency = command_arrival[keep] - all_sent_answered[keep]
        print('JointState -> effort_commands  %s' %
              percentiles(command_latency))
    else:
        print('effort_commands: %d received for %d feedforward; not '
              'matched' % (len(commands), len(feedforward)))
    dropped = len(sent) - len(answered)
    missing = [k for k, stamp in enumerate(sent) if stamp not in arrival]
    print('dropped: %d of %d (%.3f %%)%s' % (
        dropped, len(sent), 100.0 * dropped / len(sent),
        ', message numbers %s' % missing[:10] if missing else ''))
    ours, pinocchio = compute_cost()
    print('computed torque per message: ours %.1f us, Pinocchio rnea %.1f '
          'us, ratio %.1f' % (ours * 1e6, pinocchio * 1e6, ours / pinocchio))
    p99 = np.percentile(latency, 99) / 1e6 if len(latency) else float('inf')
    print('goal p99 < 2 ms and no drops: %s' % (
        'met' if p99 < 2.0 and dropped == 0 else 'NOT met'))


def main():
    """Parse arguments; run as the benchmark or as its publisher."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--messages', type=int, default=10000)
    parser.add_argument('--warmup', type=int, default=500)
    parser.add_argument('--rate', type=float, default=1000.0)
    parser.add_argument('--mode', default='computed_torque')
    parser.add_argument('--domain', type=int, default=DOMAIN_ID)
    parser.add_argument('--publisher', action='store_true',
                        help=argparse.SUPPRESS)
    parser.add_argument('--sent', help=argparse.SUPPRESS)
    parser.add_argument('--names', help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.publisher:
        publish(args)
        return
    xml = example_arm_xml('panda')
    model = oracle_for(xml)[0]
    receive(args, xml, model)


if __name__ == '__main__':
    main()
