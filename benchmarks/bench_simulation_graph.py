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
What bounds simulation.launch.py's unpaced speed (Panda with its hand).

Runs, interleaved on one machine, the launch the ros2 tier measures and
three graphs cut down from it:

1. ``launch``: ``ros2 launch dynamics_ros simulation.launch.py
   urdf:=panda.urdf real_time_factor:=0`` (example-robot-data's Panda, hand
   and fingers included): simulator_node, inverse_dynamics_node,
   linearization_node, external_torque_node and robot_state_publisher;
2. ``do-nothing peers``: simulator_node and robot_state_publisher as the
   launch starts them, and three do-nothing rclpy nodes in place of ours,
   each on use_sim_time with a ``joint_states`` subscription (serialized
   messages, rclpy's C++ events executor): the least an rclpy node that
   hears the states costs.  Nobody commands, so the simulator holds its
   pose by itself;
3. ``simulator + robot_state_publisher``;
4. ``simulator alone``.

For each run: the real-time factor (simulated seconds of ``/clock`` per
wall second, from a probe in this process) and the CPU per simulated
second of each process (/proc).  The speeds are also given as ratios to
the simulator alone in the same round: the machine's speed cancels out
of them, the graph's cost does not.

Needs the real ros2 tools (``../shared/ros2-tools``, installed into this
venv) and colcon; builds the package into a temporary
workspace.  DDS stays on loopback in ROS_DOMAIN_IDs reserved for the run.

Run: ``.venv/bin/python benchmarks/bench_simulation_graph.py [--rounds N]
[--warm S] [--seconds S]``; the results go to a section of
benchmarks/results.md.
"""

import argparse
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'test'))

GRAPHS = ('launch', 'do-nothing peers', 'simulator + robot_state_publisher',
          'simulator alone')
GOAL = 10.0  # issue 41: the launch at 10x real time or more


def peer(name):
    """Be a do-nothing peer: hear joint_states and /clock, do nothing."""
    import rclpy
    from rclpy.experimental import EventsExecutor
    from rclpy.parameter import Parameter
    from rclpy.qos import qos_profile_sensor_data
    from sensor_msgs.msg import JointState
    rclpy.init()
    node = rclpy.create_node(name, parameter_overrides=[
        Parameter('use_sim_time', Parameter.Type.BOOL, True)])
    node.create_subscription(JointState, 'joint_states', lambda data: None,
                             qos_profile_sensor_data, raw=True)
    executor = EventsExecutor()
    executor.add_node(node)
    try:
        while rclpy.ok():
            executor.spin_once(timeout_sec=0.1)
    except (KeyboardInterrupt, Exception):  # noqa: B902 (stopped)
        pass
    return 0


def commands(graph, urdf, share):
    """Return the bash command lines of ``graph``'s processes."""
    simulator = (
        'ros2 run dynamics_ros simulator_node --ros-args --params-file %s '
        '-p urdf_path:=%s -p real_time_factor:=0.0 -p use_sim_time:=false'
        % (shlex.quote(os.path.join(share, 'config', 'simulator.yaml')),
           shlex.quote(urdf)))
    # As the launch starts it: the description, on the simulated clock.
    publisher = ('ros2 run robot_state_publisher robot_state_publisher '
                 '--ros-args -p use_sim_time:=true -p '
                 'robot_description:="$(cat %s)"' % shlex.quote(urdf))
    peers = ['%s %s --peer do_nothing_%d' % (
        shlex.quote(sys.executable), shlex.quote(os.path.abspath(__file__)),
        k) for k in range(3)]
    return {
        'launch': ['ros2 launch dynamics_ros simulation.launch.py urdf:=%s '
                   'real_time_factor:=0' % shlex.quote(urdf)],
        'do-nothing peers': [simulator, publisher] + peers,
        'simulator + robot_state_publisher': [simulator, publisher],
        'simulator alone': [simulator],
    }[graph]


def process_name(pid):
    """Return the graph process ``pid`` is (None: not one of ours)."""
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as stream:
            words = stream.read().decode(errors='replace').split('\0')
    except OSError:
        return None
    if '--peer' in words:
        return 'do-nothing peer'
    for word in words:
        if '/lib/dynamics_ros/' in word or word.endswith(
                '/robot_state_publisher'):
            return os.path.basename(word)
    return None


def cpu_by_process(sessions):
    """Return {pid: (name, CPU s)} of the graph's processes (``sessions``)."""
    ticks_per_second = os.sysconf('SC_CLK_TCK')
    found = {}
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            with open('/proc/%d/stat' % pid) as stream:
                fields = stream.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        # fields[3]: the session, one per started command line.
        name = process_name(pid) if int(fields[3]) in sessions else None
        if name is not None:
            found[pid] = (name, (int(fields[11]) + int(fields[12]))
                          / ticks_per_second)
    return found


def cpu_used(before, after):
    """Return {name: CPU s} used between two ``cpu_by_process`` readings."""
    used = {}
    for pid, (name, seconds) in after.items():
        used[name] = used.get(name, 0.0) + seconds - before.get(
            pid, (name, 0.0))[1]
    return used


def clock_probe(domain_id):
    """Return (context, executor, latest) of a /clock probe in ``domain``."""
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.qos import qos_profile_sensor_data
    from rosgraph_msgs.msg import Clock
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=domain_id)
    node = rclpy.create_node('graph_speed_probe', context=context)
    latest = [None]

    def heard(msg):
        latest[0] = msg.clock.sec + 1e-9 * msg.clock.nanosec
    node.create_subscription(Clock, '/clock', heard, qos_profile_sensor_data)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    return context, executor, latest


def run_graph(graph, setup, folder, urdf, share, domain_id, warm, seconds):
    """Run ``graph``; return (factor, {process: CPU s per simulated s})."""
    import rclpy
    from ros_harness import die_with_parent
    env = dict(os.environ, ROS_DOMAIN_ID=str(domain_id),
               ROS_AUTOMATIC_DISCOVERY_RANGE='LOCALHOST')
    env.pop('ROS_LOCALHOST_ONLY', None)
    processes = [subprocess.Popen(
        ['bash', '-c', '%s && exec %s' % (setup, line)], cwd=folder, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, preexec_fn=die_with_parent)
        for line in commands(graph, urdf, share)]
    sessions = {process.pid for process in processes}
    context, executor, latest = clock_probe(domain_id)

    def spin(duration):
        end = time.monotonic() + duration
        while time.monotonic() < end:
            executor.spin_once(timeout_sec=0.05)
    try:
        spin(warm)
        cpu0, simulated0, wall0 = cpu_by_process(sessions), latest[0], \
            time.monotonic()
        spin(seconds)
        cpu1, simulated1, wall1 = cpu_by_process(sessions), latest[0], \
            time.monotonic()
    finally:
        rclpy.try_shutdown(context=context)
        for process in processes:
            try:
                os.killpg(process.pid, signal.SIGINT)
            except ProcessLookupError:
                pass
        for process in processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
    if simulated0 is None or simulated1 is None or simulated1 <= simulated0:
        return None, {}
    simulated = simulated1 - simulated0
    cpu = {name: seconds / simulated
           for name, seconds in cpu_used(cpu0, cpu1).items()}
    return simulated / (wall1 - wall0), cpu


def main(argv):
    """Run the graphs, interleaved, and print speeds, ratios and CPU."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--rounds', type=int, default=2,
                        help='rounds of the four graphs (default 2)')
    parser.add_argument('--warm', type=float, default=15.0,
                        help='wall seconds before measuring (default 15)')
    parser.add_argument('--seconds', type=float, default=20.0,
                        help='wall seconds measured per run (default 20)')
    args = parser.parse_args(argv[1:])
    from oracle import robots_directory
    from ros_harness import reserve_domain_id
    folder = tempfile.mkdtemp(prefix='bench_simulation_graph_')
    from ros2_workspace import build_workspace, TOOLS
    if not os.path.isfile(os.path.join(TOOLS, 'install.sh')):
        sys.exit('%s is missing: the benchmark runs the real ros2 tools'
                 % TOOLS)
    print('building dynamics_ros with colcon ...', flush=True)
    setup = build_workspace(folder)
    share = os.path.join(folder, 'install', 'dynamics_ros', 'share',
                         'dynamics_ros')
    urdf = os.path.join(folder, 'panda.urdf')
    with open(os.path.join(robots_directory(), 'panda_description', 'urdf',
                           'panda.urdf'), encoding='utf-8') as source, \
            open(urdf, 'w', encoding='utf-8') as target:
        target.write(source.read())
    print('Panda with its hand (example-robot-data), config/simulator.yaml '
          '(1 kHz rk4, joint_states and /clock at 100 Hz), real_time_factor '
          '0; %g s warm-up, %g s measured per run; %d rounds; %d cores'
          % (args.warm, args.seconds, args.rounds, os.cpu_count()))
    factors = {graph: [] for graph in GRAPHS}
    for round_number in range(args.rounds):
        alone = None
        for graph in reversed(GRAPHS):   # the simulator alone first
            domain_id = reserve_domain_id('bench_simulation_graph')
            factor, cpu = run_graph(graph, setup, folder, urdf, share,
                                    domain_id, args.warm, args.seconds)
            if factor is None:
                print('  round %d, %s: no /clock heard' % (
                    round_number + 1, graph))
                continue
            alone = factor if graph == 'simulator alone' else alone
            factors[graph].append((factor, factor / alone if alone else
                                   float('nan')))
            print('  round %d, %-34s %6.2fx real time (%.2f of the simulator'
                  ' alone); CPU s per simulated s: %s, total %.3f' % (
                      round_number + 1, graph + ':', factor,
                      factors[graph][-1][1], ', '.join(
                          '%s %.3f' % item for item in sorted(cpu.items())),
                      sum(cpu.values())), flush=True)
    print('Summary (mean of the rounds):')
    for graph in GRAPHS:
        runs = factors[graph]
        if runs:
            print('  %-34s %6.2fx real time, %.2f of the simulator alone' % (
                graph + ':', sum(f for f, _ in runs) / len(runs),
                sum(r for _, r in runs) / len(runs)))
    launch = factors['launch']
    if launch:
        best = max(f for f, _ in launch)
        print('Goal (issue 41): the launch at >= %gx: %s (best run %.2fx)' % (
            GOAL, 'met' if best >= GOAL else 'NOT met', best))
    return 0


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == '--peer':
        sys.exit(peer(sys.argv[2]))
    from results_file import record
    sys.exit(record('bench_simulation_graph', 'What bounds the simulation '
                    "launch's unpaced speed (Panda with its hand)",
                    lambda: main(sys.argv)))
