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
Process start to first answer of each node, kernels cached or not.

Each node (the real console script, Panda) is started as a user would
start it and timed from ``Popen`` to its first answer on DDS
(inverse_dynamics_node: ``feedforward`` for a JointState;
linearization_node: ``state_space/A``; simulator_node: ``joint_states``),
four ways: with the kernel cache ``make venv`` fills (warm), with an
empty cache (``NUMBA_CACHE_DIR`` a new folder: an install that skipped
``python -m dynamics_ros.fast``), once more on that folder (what every
later start costs), and from a ``colcon build`` install (its script in
lib/dynamics_ros, the kernels the build compiled; the build is timed
too).  Goal: 5 s with the cache, and after ``colcon build``.

    .venv/bin/python benchmarks/bench_first_start.py [--domain N]
"""

import argparse
from glob import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'test'))

from oracle import example_arm_xml  # noqa: E402
from results_file import record  # noqa: E402
from ros_harness import add_domain_argument, chosen_domain, NodeProcess, \
    RosTester  # noqa
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float64MultiArray  # noqa: E402

ANSWERS = {
    'inverse_dynamics_node': (JointState, '/feedforward'),
    'linearization_node': (Float64MultiArray, '/state_space/A'),
    'simulator_node': (JointState, '/joint_states'),
}
GOAL = 5.0


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def colcon_install(folder):
    """
    Run ``colcon build`` of this tree into ``folder``; return its install.

    Returns (the package's install base, its site-packages, seconds the
    build took).
    """
    colcon = os.path.join(os.path.dirname(sys.executable), 'colcon')
    if not os.path.exists(colcon):
        colcon = shutil.which('colcon')
    start = time.perf_counter()
    subprocess.run(
        [colcon, 'build', '--base-paths', ROOT,
         '--packages-select', 'dynamics_ros',
         '--build-base', os.path.join(folder, 'build'),
         '--install-base', os.path.join(folder, 'install'),
         '--event-handlers', 'console_direct-'],
        cwd=folder, check=True, stdout=subprocess.DEVNULL,
        env=dict(os.environ, COLCON_LOG_PATH=os.path.join(folder, 'log')))
    seconds = time.perf_counter() - start
    base = os.path.join(folder, 'install', 'dynamics_ros')
    site, = glob(os.path.join(base, 'lib', 'python3*', 'site-packages'))
    return base, site, seconds


def first_answer(name, domain_id, xml, joint_names, tester, program=None):
    """Return (seconds from start to the first answer, said compiling)."""
    msg_type, topic = ANSWERS[name]
    answers = tester.collector(msg_type, topic)
    states = None if name == 'simulator_node' else tester.publisher(
        JointState, '/joint_states')
    state = JointState(name=joint_names, position=[0.1] * len(joint_names))
    start = time.perf_counter()
    node = NodeProcess(name, domain_id, {'robot_description': xml},
                       program=program)
    try:
        tester.wait_for(lambda: answers.messages, timeout=600.0,
                        action=None if states is None
                        else lambda: states.publish(state),
                        every=0.02, what='the first answer of ' + name)
        seconds = time.perf_counter() - start
    finally:
        node.stop()
        tester.node.destroy_subscription(answers.subscription)
        if states is not None:
            tester.node.destroy_publisher(states)
    return seconds, 'compiling kernels' in node.output()


def main(argv=None):
    """Time every node warm, cold and warm again; print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    add_domain_argument(parser)
    args = parser.parse_args(argv)
    domain_id = chosen_domain(args, 'bench_first_start')
    xml = example_arm_xml('panda')
    joint_names = ['panda_joint%d' % k for k in range(1, 8)]
    tester = RosTester(domain_id, 'bench_first_start')
    original = dict(os.environ)
    cold = tempfile.TemporaryDirectory(prefix='dr_numba_cache_')
    built = tempfile.TemporaryDirectory(prefix='dr_colcon_')
    sys.stderr.write('colcon build ...\n')   # progress, not a result
    base, site, build_seconds = colcon_install(built.name)
    print('process start to first answer, s (Panda); goal %g s with the '
          'kernel cache' % GOAL)
    print('  %-22s %16s %22s %16s %19s' % (
        'node', 'cache of make venv', 'empty cache (first)', 'then',
        'after colcon build'))
    try:
        for name in ANSWERS:
            times = []
            for cache in (None, cold.name, cold.name, 'colcon'):
                os.environ.clear()
                os.environ.update(original)
                program = None
                if cache == 'colcon':   # as after sourcing the install
                    os.environ['PYTHONPATH'] = os.pathsep.join(
                        [site] + original.get('PYTHONPATH', '').split(
                            os.pathsep)).rstrip(os.pathsep)
                    program = [os.path.join(base, 'lib', 'dynamics_ros',
                                            name)]
                elif cache is not None:
                    os.environ['NUMBA_CACHE_DIR'] = cache
                seconds, compiling = first_answer(name, domain_id, xml,
                                                  joint_names, tester,
                                                  program)
                times.append('%.1f%s' % (seconds, ' (said "compiling")'
                                         if compiling else ''))
                sys.stderr.write('.')   # progress, not a result
                sys.stderr.flush()
            sys.stderr.write('\n')
            print('  %-22s %16s %22s %16s %19s' % (name, *times))
            # Each node compiles only the kernels it uses: start the next
            # one from an empty cache again.
            cold.cleanup()
            cold = tempfile.TemporaryDirectory(prefix='dr_numba_cache_')
        print('colcon build (kernels compiled in it): %.0f s' % build_seconds)
    finally:
        os.environ.clear()
        os.environ.update(original)
        tester.close()
        cold.cleanup()
        built.cleanup()


if __name__ == '__main__':
    sys.exit(record('bench_first_start', 'First start of the nodes: '
                    'process start to first answer', main))
