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
``header.stamp`` = its CLOCK_REALTIME send time (the node's ROS clock, so
its ``max_state_age`` check accepts the states), and this script receiving
``feedforward`` (which echoes the stamp: exact per-message latency and
drops) and ``effort_commands`` (unstamped: the k-th command is matched to
the k-th answered state).  Prints p50 / p90 / p99 / max latency, dropped
messages, and, for scale, the node's per-message dynamics cost against
Pinocchio's in this run.  Goal: p99 < 2 ms, no drops.

In the same run, the same measurement against an echo node that does no
dynamics (it answers each JointState with the same two messages, of the
same sizes), spun by rclpy's EventsExecutor (what inverse_dynamics_node's
joint_states thread uses, ``DedicatedSubscription``) and by the stock
SingleThreadedExecutor: what the middleware and the executor cost
alone, and the node's latency over the echo's (goal: p99 <= 1.2x).  The
echo on the EventsExecutor runs twice: taking and publishing Python
messages ('events', as every rclpy node does), and taking and publishing
serialized bytes ('raw', as inverse_dynamics_node does: its stamp patched
into prebuilt outputs, nothing else read), the floor of this path.
Each variant runs ``--rounds`` times (default 3), the rounds interleaved
(node, echoes, node, ...) so that a change of load on a shared machine
falls on all of them alike; percentiles are pooled over the rounds, and
the p99 ratio of each round is printed too.

``--baseline DIR`` adds inverse_dynamics_node of another checkout (a git
worktree of an earlier commit, its kernels compiled) to the same
interleaved rounds, and prints this node's latency over it: the check
that a change made the node no slower, free of the load of the day.

``--profile`` measures in one process instead, without DDS delivery:
microseconds per message through the node's own joint_states callback
(serialized JointStates, as it receives them) and through each echo's,
then cProfile's top entries of the node's.

    .venv/bin/python benchmarks/bench_latency.py [--messages 10000] [--rounds 3]
    .venv/bin/python benchmarks/bench_latency.py --baseline ../baseline
    .venv/bin/python benchmarks/bench_latency.py --profile [--messages 20000]
"""

import argparse
import gc
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'test'))

import numpy as np  # noqa: E402
from oracle import example_arm_xml, oracle_for  # noqa: E402
from results_file import record  # noqa: E402
from ros_harness import add_domain_argument, chosen_domain, \
    die_with_parent, node_environment  # noqa: E402
import yaml  # noqa: E402


def node_command(params_path):
    """Return the command running inverse_dynamics_node."""
    script = os.path.join(os.path.dirname(sys.executable),
                          'inverse_dynamics_node')
    command = [script] if os.path.isfile(script) else [
        sys.executable, '-m', 'dynamics_ros.nodes.inverse_dynamics.node']
    return command + ['--ros-args', '--params-file', params_path]


def baseline_command(directory, params_path):
    """Return the command running inverse_dynamics_node of ``directory``."""
    # PYTHONPATH comes before the venv's editable install of this checkout.
    # A checkout from before nodes/ had a folder per node kept the node in
    # nodes/inverse_dynamics_node.py.
    module = 'dynamics_ros.nodes.inverse_dynamics.node'
    if not os.path.isdir(os.path.join(directory, 'dynamics_ros', 'nodes',
                                      'inverse_dynamics')):
        module = 'dynamics_ros.nodes.inverse_dynamics_node'
    # Run from that checkout: ``-m`` puts the working folder first on
    # sys.path, so from this one it would import this checkout's node.
    return ['env', '--chdir=' + os.path.abspath(directory),
            'PYTHONPATH=' + os.path.abspath(directory),
            sys.executable, '-m', module, '--ros-args', '--params-file',
            os.path.abspath(params_path)]


def echo_command(executor, names):
    """Return the command running the echo node on ``executor``."""
    return [sys.executable, __file__, '--echo', executor, '--names',
            ','.join(names)]


def echo_callbacks(commands, feedforward, names):
    """
    Return the echo's joint_states callbacks: (from messages, from bytes).

    Both answer with an effort_commands of len(names) zeros and a
    feedforward with the names, the state's stamp and zero efforts (the
    sizes inverse_dynamics_node publishes).  The first takes and builds
    Python messages; the second takes the serialized state, reads its stamp
    only and publishes prebuilt serialized outputs with it patched in.
    """
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray
    from dynamics_ros.nodes.shared.serialized_message import (
        serialized_effort_state, serialized_vector)
    stamp = struct.Struct('<iI')
    zeros = np.zeros(len(names))
    vector = serialized_vector(len(names))
    state = serialized_effort_state(names)

    def on_state(msg):
        values = [0.0] * len(msg.name)
        commands.publish(Float64MultiArray(data=values))
        feedforward.publish(JointState(header=msg.header, name=msg.name,
                                       effort=values))

    def on_data(data):
        sec, nanosec = stamp.unpack_from(data, 4)
        commands.publish(vector.serialized(0, (zeros,)))
        feedforward.publish(state.serialized(sec * 1000000000 + nanosec,
                                             (zeros,)))
    return on_state, on_data


def echo(executor_name, names):
    """
    Answer each JointState as the node does, without any dynamics.

    'events': joint_states on a DedicatedSubscription (EventsExecutor on
    its own thread), as inverse_dynamics_node takes them; 'raw': the same,
    serialized in and out; 'stock': a plain subscription spun by the
    SingleThreadedExecutor.  Same QoS as the node.
    """
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray
    from dynamics_ros.nodes.shared.dedicated_subscription import \
        DedicatedSubscription
    from dynamics_ros.nodes.shared.qos import PUBLISH_QOS, STATE_QOS
    rclpy.init()
    # Ended by the benchmark (SIGINT) or by its death (SIGTERM): either way
    # at once, so that no echo outlives the run and loads the machine.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    node = rclpy.create_node('latency_echo')
    feedforward = node.create_publisher(JointState, 'feedforward',
                                        PUBLISH_QOS)
    commands = node.create_publisher(Float64MultiArray, 'effort_commands',
                                     PUBLISH_QOS)
    on_state, on_data = echo_callbacks(commands, feedforward, names)
    dedicated = None
    if executor_name in ('events', 'raw'):
        raw = executor_name == 'raw'
        dedicated = DedicatedSubscription(
            node, JointState, 'joint_states', on_data if raw else on_state,
            STATE_QOS, raw=raw)
    else:
        node.create_subscription(JointState, 'joint_states', on_state,
                                 STATE_QOS)
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    try:
        executor.spin()
    except (KeyboardInterrupt, rclpy.executors.ExternalShutdownException):
        pass
    finally:
        if dedicated is not None:
            dedicated.destroy()
        node.destroy_node()
        rclpy.try_shutdown()


def realtime_stamp(Time):
    """Return the current CLOCK_REALTIME time as a Time message."""
    # The system clock, which the node's clock is: a stamp the node sees
    # as fresh (max_state_age), unlike the monotonic clock's.
    now = time.time_ns()
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
    gc.disable()   # see receive: no collector pause in the measurement
    for k in range(total):
        delay = start + k * period - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        msg = JointState(name=names,
                         position=rng.uniform(-1, 1, len(names)).tolist(),
                         velocity=rng.uniform(-1, 1, len(names)).tolist())
        msg.header.stamp = realtime_stamp(Time)
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


def receive(args, command, model, messages):
    """
    Run ``command``, send it ``messages`` joint states; return the record.

    {'sent': send stamps after the warm-up, 'feedforward': [(arrival,
    stamp)], 'commands': [arrival], 'cpu': the process's CPU seconds,
    'total': messages sent, warm-up included}.
    """
    import rclpy
    from rclpy.event_handler import SubscriptionEventCallbacks
    from rclpy.executors import SingleThreadedExecutor
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray
    env = node_environment(args.domain)
    os.environ.update(env)
    work = tempfile.TemporaryDirectory(prefix='dr_latency_')
    sent_path = os.path.join(work.name, 'sent.npy')
    node = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
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
        feedforward.append((time.time_ns(), msg.header.stamp.sec
                            * 1000000000 + msg.header.stamp.nanosec))

    def on_command(msg):
        commands.append(time.time_ns())

    receiver.create_subscription(JointState, 'feedforward', on_feedforward,
                                 1000, event_callbacks=lean)
    receiver.create_subscription(Float64MultiArray, 'effort_commands',
                                 on_command, 1000, event_callbacks=lean)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(receiver)
    warm_up(receiver, executor, model, (feedforward, commands))
    # This process keeps a tuple per answer: a full collection of its heap
    # (Pinocchio and the oracle loaded: 15 ms or more) would stall its
    # receiving on whichever variant happens to be running, and the node's
    # reliable depth-10 outputs would lose answers meanwhile.  Collected
    # between runs instead.
    gc.collect()
    gc.disable()
    node_cpu = cpu_seconds(node.pid)
    publisher = subprocess.Popen(
        [sys.executable, __file__, '--publisher', '--sent', sent_path,
         '--names', ','.join(model.joint_names), '--rate', str(args.rate),
         '--messages', str(messages), '--warmup', str(args.warmup)],
        env=env, preexec_fn=die_with_parent)
    try:
        while publisher.poll() is None:
            executor.spin_once(timeout_sec=0.01)
        end = time.monotonic() + 2.0
        while time.monotonic() < end:
            executor.spin_once(timeout_sec=0.01)
        node_cpu = cpu_seconds(node.pid) - node_cpu
    finally:
        gc.enable()
        node.send_signal(signal.SIGINT)
        try:
            node.wait(10)
        except subprocess.TimeoutExpired:
            # Its answers are all in.  A process that hangs in its DDS
            # teardown (seen with the stock echo, 2 runs in 3) is named and
            # killed rather than ending the benchmark.
            print('%s did not end 10 s after SIGINT: killed'
                  % ' '.join(command[1:4]), file=sys.stderr)
            node.kill()
            node.wait()
        executor.shutdown()
        receiver.destroy_node()
        rclpy.try_shutdown(context=context)
    sent = np.load(sent_path)
    return {'sent': sent[args.warmup:], 'feedforward': feedforward,
            'commands': commands, 'cpu': node_cpu, 'total': len(sent)}


def latencies(run):
    """
    Return a run's latency in ns, and its drops.

    (feedforward latencies, effort_commands latencies or None when they
    cannot be matched, numbers of the messages not answered).
    """
    sent, feedforward, commands = run['sent'], run['feedforward'], \
        run['commands']
    arrival = {stamp: received for received, stamp in feedforward}
    answered = np.array([stamp for stamp in sent if stamp in arrival])
    latency = np.array([arrival[stamp] - stamp for stamp in answered])
    command_latency = None
    first = len(feedforward) - len(commands)
    command_arrival = np.array(commands[max(0, -first):])
    all_sent_answered = np.array([stamp for _, stamp in feedforward])
    if len(command_arrival) == len(all_sent_answered):
        keep = np.isin(all_sent_answered, sent)
        command_latency = command_arrival[keep] - all_sent_answered[keep]
    missing = [k for k, stamp in enumerate(sent) if stamp not in arrival]
    return latency, command_latency, missing


def report(title, model, args, runs):
    """Print one variant's figures pooled over its runs; return latencies."""
    measured = [latencies(run) for run in runs]
    latency = np.concatenate([m[0] for m in measured])
    sent = sum(len(run['sent']) for run in runs)
    print('%s, Panda (%d joints), %g Hz, %d messages in %d runs (each '
          'after %d warm-up)' % (title, model.nq, args.rate, sent,
                                 len(runs), args.warmup))
    print('  CPU: %.0f us per message received' % (
        1e6 * sum(run['cpu'] for run in runs)
        / sum(run['total'] for run in runs)))
    print('  JointState -> feedforward      %s' % percentiles(latency))
    if all(m[1] is not None for m in measured):
        print('  JointState -> effort_commands  %s' % percentiles(
            np.concatenate([m[1] for m in measured])))
    else:
        print('  effort_commands: not matched to feedforward in every run')
    dropped = sum(len(m[2]) for m in measured)
    print('  dropped: %d of %d (%.3f %%)%s' % (
        dropped, sent, 100.0 * dropped / sent,
        ', message numbers by run %s' % [m[2][:5] for m in measured]
        if dropped else ''))
    return latency, dropped, [m[0] for m in measured]


def profile(args, xml, model):
    """Time the node's and the echoes' callbacks in-process; profile it."""
    import cProfile
    import pstats
    import rclpy
    from rclpy.parameter import Parameter
    from rclpy.serialization import deserialize_message, serialize_message
    from sensor_msgs.msg import JointState
    from dynamics_ros.nodes.inverse_dynamics.node import InverseDynamicsNode
    os.environ.update(node_environment(args.domain))
    rclpy.init()
    node = InverseDynamicsNode(parameter_overrides=[
        Parameter('robot_description', value=xml),
        Parameter('mode', value=args.mode)])
    rng = np.random.default_rng(0)
    messages = []
    for k in range(args.messages):
        msg = JointState(name=model.joint_names,
                         position=rng.uniform(-1, 1, model.nq).tolist(),
                         velocity=rng.uniform(-1, 1, model.nq).tolist())
        messages.append(bytearray(serialize_message(msg)))
    node_callback = node.state_subscription.callback
    on_state, on_data = echo_callbacks(node.effort_publisher,
                                       node.feedforward_publisher,
                                       model.joint_names)

    stamp = struct.Struct('<iI')

    def each(callback, deserialize=False):
        # Seconds per message through ``callback``.  Each message is
        # stamped now (CLOCK_REALTIME, the node's clock) as it goes in, as
        # a driver's would be: the node's freshness check passes, its
        # reference watch sees a steady stream.
        start = time.perf_counter()
        if deserialize:   # what rclpy does before a message callback
            for data in messages:
                stamp.pack_into(data, 4, *divmod(time.time_ns(), 10 ** 9))
                callback(deserialize_message(bytes(data), JointState))
        else:
            for data in messages:
                stamp.pack_into(data, 4, *divmod(time.time_ns(), 10 ** 9))
                callback(bytes(data))
        return (time.perf_counter() - start) / len(messages)

    print('in one process, %d serialized JointStates (Panda, mode %s), no '
          'subscriber: us per message, best of 3' % (len(messages),
                                                     args.mode))
    for title, callback, deserialize in (
            ('inverse_dynamics_node callback (bytes in)', node_callback,
             False),
            ('echo callback, messages (deserialized first)', on_state, True),
            ('echo callback, serialized in and out', on_data, False)):
        best = min(each(callback, deserialize) for _ in range(3))
        print('  %-46s %7.1f' % (title, 1e6 * best))
    profiler = cProfile.Profile()
    profiler.enable()
    each(node_callback)
    profiler.disable()
    pstats.Stats(profiler, stream=sys.stdout).sort_stats('tottime') \
        .print_stats(15)
    node.destroy_node()
    rclpy.try_shutdown()


def main():
    """Parse arguments; run as the benchmark or as its publisher."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--messages', type=int, default=10000,
                        help='joint states per variant, over all rounds')
    parser.add_argument('--rounds', type=int, default=3,
                        help='runs of each variant, interleaved')
    parser.add_argument('--warmup', type=int, default=500)
    parser.add_argument('--rate', type=float, default=1000.0)
    parser.add_argument('--mode', default='computed_torque')
    add_domain_argument(parser)
    parser.add_argument('--publisher', action='store_true',
                        help=argparse.SUPPRESS)
    parser.add_argument('--baseline', metavar='DIR',
                        help='also run the node of checkout DIR in the same '
                        'rounds and print the ratio')
    parser.add_argument('--profile', action='store_true',
                        help='measure the callbacks in this process (no '
                        'DDS delivery) and profile the node callback')
    parser.add_argument('--echo', choices=('events', 'raw', 'stock'),
                        help=argparse.SUPPRESS)
    parser.add_argument('--sent', help=argparse.SUPPRESS)
    parser.add_argument('--names', help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.publisher:
        publish(args)
        return
    if args.echo:
        echo(args.echo, args.names.split(','))
        return
    args.domain = chosen_domain(args, 'bench_latency')
    xml = example_arm_xml('panda')
    model = oracle_for(xml)[0]
    if args.profile:
        profile(args, xml, model)
        return
    work = tempfile.TemporaryDirectory(prefix='dr_latency_')
    params = os.path.join(work.name, 'params.yaml')
    with open(params, 'w', encoding='utf-8') as stream:
        yaml.safe_dump({'/**': {'ros__parameters': {
            'robot_description': xml, 'mode': args.mode}}}, stream)
    variants = (
        ('node', 'inverse_dynamics_node, mode %s' % args.mode,
         node_command(params)),
        ('events', 'echo node (no dynamics), DedicatedSubscription '
         '(EventsExecutor)', echo_command('events', model.joint_names)),
        ('raw', 'echo node (no dynamics), DedicatedSubscription '
         '(EventsExecutor), serialized in and out',
         echo_command('raw', model.joint_names)),
        ('stock', 'echo node (no dynamics), SingleThreadedExecutor',
         echo_command('stock', model.joint_names)))
    if args.baseline:
        variants += (('baseline', 'inverse_dynamics_node of %s, mode %s' % (
            args.baseline, args.mode), baseline_command(args.baseline,
                                                        params)),)
    # Interleaved rounds: a change of load on a shared machine falls on
    # every variant alike, not on whichever ran then.
    runs = {name: [] for name, _, _ in variants}
    for round_number in range(args.rounds):
        for name, _, command in variants:
            sys.stderr.write('round %d of %d: %s (load %.2f)\n' % (
                round_number + 1, args.rounds, name, os.getloadavg()[0]))
            runs[name].append(receive(args, command, model,
                                      args.messages // args.rounds))
    results = {name: report(title, model, args, runs[name])
               for name, title, _ in variants}
    ours, pinocchio = compute_cost()
    print('computed torque per message: ours %.1f us, Pinocchio rnea %.1f '
          'us, ratio %.1f' % (ours * 1e6, pinocchio * 1e6, ours / pinocchio))
    latency, dropped, node_rounds = results['node']
    p50, p99 = (np.percentile(latency, [50, 99]) if len(latency)
                else (float('inf'),) * 2)
    print('goal p99 < 2 ms and no drops: %s' % (
        'met' if p99 / 1e6 < 2.0 and dropped == 0 else 'NOT met'))
    if args.baseline:
        before, _, before_rounds = results['baseline']
        b50, b99 = np.percentile(before, [50, 99])
        print('node / baseline node: p50 %.2fx, p99 %.2fx (rounds: p99 %s)'
              % (p50 / b50, p99 / b99, ' '.join(
                  '%.2fx' % (np.percentile(a, 99) / np.percentile(b, 99))
                  for a, b in zip(node_rounds, before_rounds))))
        cpu = {name: sum(run['cpu'] for run in runs[name]) / sum(
            run['total'] for run in runs[name]) for name in ('node',
                                                             'baseline')}
        print('node / baseline node: CPU per message %.2fx (%.0f us / %.0f '
              'us)' % (cpu['node'] / cpu['baseline'], 1e6 * cpu['node'],
                       1e6 * cpu['baseline']))
    for echo_name in ('events', 'raw', 'stock'):
        echoed, _, echo_rounds = results[echo_name]
        e50, e99 = np.percentile(echoed, [50, 99])
        print('node / echo node (%s): p50 %.2fx, p99 %.2fx (rounds: p99 '
              '%s)' % (echo_name, p50 / e50, p99 / e99, ' '.join(
                  '%.2fx' % (np.percentile(a, 99) / np.percentile(b, 99))
                  for a, b in zip(node_rounds, echo_rounds))))
    for echo_name, what in (('events', 'taking Python messages'),
                            ('raw', 'serialized in and out, as the node')):
        e99 = np.percentile(results[echo_name][0], 99)
        print('goal p99 <= 1.2x the echo node on the same executor (%s): '
              '%s' % (what, 'met' if p99 <= 1.2 * e99 else 'NOT met'))


if __name__ == '__main__':
    if {'--publisher', '--echo', '--profile'}.intersection(sys.argv):
        sys.exit(main())   # a helper process, or not measured through DDS
    sys.exit(record('bench_latency', 'Latency of inverse_dynamics_node '
                    'through DDS, against an echo node', main))
