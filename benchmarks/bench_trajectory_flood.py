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
simulator_node's parameter service while 10,000-point trajectories arrive.

simulator_node (the real console script, Panda) runs in its own process;
this script calls its ``get_parameters`` service back to back, first with
nothing else going on, then while publishing a 10,000-point
JointTrajectory at 20 Hz, and prints the round-trip p50 / p99 / max of
both.  A trajectory read on the executor thread holds the service up for
as long as reading it takes.

    .venv/bin/python benchmarks/bench_trajectory_flood.py [--seconds 5]
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'test'))

from builtin_interfaces.msg import Duration  # noqa: E402
import numpy as np  # noqa: E402
from oracle import example_arm_xml  # noqa: E402
from rcl_interfaces.srv import GetParameters  # noqa: E402
from results_file import record  # noqa: E402
from ros_harness import add_domain_argument, chosen_domain, NodeProcess, \
    RosTester  # noqa
from sensor_msgs.msg import JointState  # noqa: E402
from trajectory_msgs.msg import (JointTrajectory,  # noqa: E402
                                 JointTrajectoryPoint)

POINTS = 10000
RATE = 20.0


def long_trajectory(names, start):
    """Return a 10,000-point JointTrajectory of 1 s around ``start``."""
    msg = JointTrajectory(joint_names=list(names))
    for k in range(POINTS):
        nanoseconds = (k + 1) * 100000
        msg.points.append(JointTrajectoryPoint(
            positions=(start + 0.1 * np.sin(k * 1e-3)).tolist(),
            time_from_start=Duration(sec=nanoseconds // 1000000000,
                                     nanosec=nanoseconds % 1000000000)))
    return msg


def round_trips(tester, client, seconds, publish=None):
    """Call get_parameters for ``seconds``; return the round trips (s)."""
    times = []
    end = time.monotonic() + seconds
    next_publish = 0.0
    while time.monotonic() < end:
        now = time.monotonic()
        if publish is not None and now >= next_publish:
            publish()
            next_publish = now + 1.0 / RATE
        sent = time.perf_counter()
        future = client.call_async(GetParameters.Request(names=['rate']))
        while not future.done():
            tester.executor.spin_once(timeout_sec=0.001)
        times.append(time.perf_counter() - sent)
    return np.array(times)


def describe(title, times):
    """Print p50 / p99 / max of ``times`` in ms."""
    print('  %-38s %6d calls  p50 %7.2f ms  p99 %7.2f ms  max %7.2f ms' % (
        title, times.size, 1e3 * np.percentile(times, 50),
        1e3 * np.percentile(times, 99), 1e3 * times.max()))


def main(argv=None):
    """Run the node, measure idle and flooded, print both."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--seconds', type=float, default=5.0,
                        help='seconds of each measurement (default 5)')
    add_domain_argument(parser)
    args = parser.parse_args(argv)
    domain_id = chosen_domain(args, 'bench_trajectory_flood')
    xml = example_arm_xml('panda')
    node = NodeProcess('simulator_node', domain_id, {
        'robot_description': xml, 'publish_rate': 100.0})
    tester = RosTester(domain_id, 'bench_trajectory_flood')
    try:
        states = tester.collector(JointState, '/joint_states')
        tester.wait_for(lambda: states.messages, timeout=180.0,
                        what='the first joint_states')
        last = states.messages[-1]
        table = dict(zip(last.name, last.position))
        names = [name for name in last.name]
        start = np.array([table[name] for name in names])
        msg = long_trajectory(names, start)
        publisher = tester.publisher(
            JointTrajectory, '/joint_trajectory_controller/joint_trajectory')
        client = tester.node.create_client(
            GetParameters, '/simulator_node/get_parameters')
        tester.wait_for_subscriber(publisher)
        tester.wait_for(client.service_is_ready, what='get_parameters')
        print('simulator_node get_parameters round trip (Panda, %d-point '
              'trajectories at %g Hz):' % (POINTS, RATE))
        describe('idle', round_trips(tester, client, args.seconds))
        describe('during the flood', round_trips(
            tester, client, args.seconds, lambda: publisher.publish(msg)))
    finally:
        node.stop()
        tester.close()


if __name__ == '__main__':
    sys.exit(record('bench_trajectory_flood', "simulator_node's services "
                    'under a flood of long trajectories', main))
