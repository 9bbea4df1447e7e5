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
The hostile inputs of the third attack round: refusal and service rate.

Starts inverse_dynamics_node, external_torque_node and
payload_estimation_node (two-link arm, localhost, a private domain) and,
for each input, prints the refusal (parameter reason, trajectory_feasibility
report, command-line stderr and exit status), how long the answer took
and the feed-forward replies per second of inverse_dynamics_node to
joint_states published at 100 Hz during a window of ``--window`` s from
the input, next to the same window with nothing hostile.  The timing is
reported here, not asserted in tests (test/nodes/test_fuzz_nodes.py checks
the refusals).

    .venv/bin/python benchmarks/bench_hostile_inputs.py [--window 2]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, '..', 'test'),
                os.path.join(HERE, '..', 'test', 'nodes'),
                os.path.join(HERE, '..', 'test', 'identification')]

from hostile import SEED  # noqa: E402
from ros_harness import NodeProcess, RosTester  # noqa: E402
import test_fuzz_nodes as fuzz  # noqa: E402
from test_scheduler_check import JUNK, Peer  # noqa: E402
import yaml  # noqa: E402

NODES = ('inverse_dynamics_node', 'external_torque_node',
         'payload_estimation_node')


def window_rate(ros, seconds, start=None):
    """Return (answer, s to answer, replies/s) over ``seconds`` s."""
    ros.feedforward.clear()
    began = time.monotonic()
    future = start() if start is not None else None
    answered = None
    end = began + seconds
    while time.monotonic() < end or (future is not None and
                                     not future.done()):
        ros.states.publish(fuzz.state(ros))
        stop = time.monotonic() + fuzz.STATE_PERIOD
        while time.monotonic() < stop:
            ros.executor.spin_once(timeout_sec=0.002)
        if future is not None and answered is None and future.done():
            answered = time.monotonic() - began
    replies = len(ros.feedforward.messages) / (time.monotonic() - began)
    return (future.result() if future is not None else None), answered, \
        replies


def set_on(ros, node, **values):
    """Return a function that starts a parameter set on ``node``."""
    return lambda: fuzz.set_async(ros, node, **values)


def cli(argv):
    """Return (exit status, stderr, s) of ``python -m dynamics_ros argv``."""
    began = time.monotonic()
    done = subprocess.run([sys.executable, '-m', 'dynamics_ros'] + argv,
                          capture_output=True, text=True, timeout=300)
    return done.returncode, done.stderr.strip(), time.monotonic() - began


def main():
    """Run every input; print what each got."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--window', type=float, default=2.0,
                        help='seconds of joint_states per measurement')
    args = parser.parse_args()
    folder = tempfile.TemporaryDirectory()
    files = dict((path.name, (path, reason)) for path, reason in
                 fuzz.friction_files(__import__('pathlib').Path(
                     folder.name)))
    processes = [NodeProcess(name, fuzz.DOMAIN_ID, {
        'robot_description': fuzz.XML, 'mode': 'gravity',
        'max_state_age': 0.0} if name == 'inverse_dynamics_node' else {
        'robot_description': fuzz.XML}) for name in NODES]
    ros = fuzz.inverse_dynamics_topics(RosTester(fuzz.DOMAIN_ID))
    ros.reports = ros.collector(fuzz.String, 'trajectory_feasibility')
    ros.stamp = 0
    ros.wait_for_subscriber(ros.states)
    ros.wait_for_subscriber(ros.annotate)
    fuzz.still_answers(ros)
    print('seed %d; joint_states at %g Hz, windows of %g s'
          % (SEED, 1.0 / fuzz.STATE_PERIOD, args.window))
    _, _, rate = window_rate(ros, args.window)
    print('baseline: %.1f feed-forwards/s' % rate)
    for name in ('nested.yaml', 'big.yaml', 'many.yaml'):
        path, _ = files[name]
        for node in NODES:
            result, seconds, rate = window_rate(ros, args.window, set_on(
                ros, node, friction_file=str(path)))
            outcome = result.results[0]
            print('[1/6] friction_file %s (%d bytes) on %s: answered in '
                  '%.3f s, successful %s, %.1f feed-forwards/s; reason: %s'
                  % (name, os.path.getsize(path), node, seconds,
                     outcome.successful, rate, outcome.reason))
    for case in sorted(fuzz.MALFORMED):
        msg = fuzz.MALFORMED[case][0]
        ros.reports.clear()
        _, _, rate = window_rate(
            ros, args.window, lambda msg=msg: ros.annotate.publish(msg))
        ros.wait_for(lambda: ros.reports.messages, what='a report')
        report = yaml.safe_load(ros.reports.messages[-1].data)
        print('[%s] trajectory_in %s: report published=%s feasible=%s '
              'refused=%r; %.1f feed-forwards/s' % (
                  '2' if case == 'absurd duration' else '5', case,
                  report['published'], report['feasible'],
                  report.get('refused'), rate))
    alive = [(name, process.alive()) for name, process in
             zip(NODES, processes)]
    print('nodes alive: %s' % ', '.join('%s %s' % pair for pair in alive))
    for process in processes:
        process.stop()
    ros.close()
    peer = Peer(JUNK)
    silent = Peer(b'')
    threading.Event().wait(0.1)
    missing = os.path.join(folder.name, 'missing')
    base = ['identify', missing + '.bag', '--urdf', missing + '.urdf',
            '--out', missing + '.out.urdf']
    for flag, value, point in (
            ('--scheduler', 'not an address', 3),
            ('--scheduler', 'http://localhost:8786', 3),
            ('--scheduler', 'tcp://127.0.0.1:%d' % peer.port, 3),
            ('--scheduler', 'tcp://127.0.0.1:%d' % silent.port, 3),
            ('--chunk-seconds', '0', 4), ('--chunk-seconds', '1e-9', 4)):
        status, error, seconds = cli(base + [flag, value])
        print('[%d] identify %s %r: exit %d in %.1f s; stderr (%d line): %s'
              % (point, flag, value, status, seconds,
                 error.count('\n') + 1, error))
    peer.close()
    silent.close()
    for node in NODES:
        for flags in (['--help'], ['--ros-args', '--help']):
            began = time.monotonic()
            done = subprocess.run(fuzz.executable(node) + flags,
                                  capture_output=True, text=True,
                                  timeout=300, env=fuzz.node_environment(
                                      fuzz.DOMAIN_ID))
            print('[8] %s %s: exit %d in %.1f s, %d lines, first: %s' % (
                node, ' '.join(flags), done.returncode,
                time.monotonic() - began, done.stdout.count('\n'),
                done.stdout.split('\n')[0]))
    folder.cleanup()


if __name__ == '__main__':
    main()
