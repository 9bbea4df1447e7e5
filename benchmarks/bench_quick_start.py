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
Wall time of the quick start's steps, as the README quotes them.

Two figures, each a fresh process: the kernels' compilation
(``python -m dynamics_ros.fast`` into an empty ``NUMBA_CACHE_DIR``: what
``make venv`` and ``colcon build`` spend on them) and ``python -m
dynamics_ros demo`` with the kernels cached (what ``make demo`` takes
once the venv exists).  The README and the docs quote these figures as
written here (test/package/test_doc_times.py checks that every time
they quote is in results.md).

    .venv/bin/python benchmarks/bench_quick_start.py
"""

import os
import resource
import subprocess
import sys
import tempfile
import time

from results_file import write_section

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def minutes(seconds):
    """Return ``seconds`` as the README writes a time ('2 min 5 s')."""
    seconds = int(round(seconds))
    if seconds < 60:
        return '%d s' % seconds
    return '%d min %d s' % divmod(seconds, 60)


def timed(command, environment):
    """
    Return (wall, CPU) time of ``command`` run from the repository, s.

    CPU time: user + system of the command and the processes it waited
    for (the demo's nodes), what it costs on an otherwise idle machine
    when it runs on one core at a time.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(command, cwd=ROOT, env=environment, check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (
        after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    """Time the compilation and the demo; write the results.md section."""
    environment = dict(os.environ)
    environment['PYTHONPATH'] = ROOT + os.pathsep + environment.get(
        'PYTHONPATH', '')
    environment.setdefault('ROS_AUTOMATIC_DISCOVERY_RANGE', 'LOCALHOST')
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as cache, \
            tempfile.TemporaryDirectory() as output:
        # An empty kernel cache, as make venv and colcon build start with;
        # the demo then runs on what it compiled, as make demo does.
        cold = dict(environment, NUMBA_CACHE_DIR=cache)
        compile_wall, compile_cpu = timed(
            [sys.executable, '-m', 'dynamics_ros.fast'], cold)
        demo_wall, demo_cpu = timed(
            [sys.executable, '-m', 'dynamics_ros', 'demo', '--output',
             output], cold)
    end_load = os.getloadavg()[0]
    body = '\n'.join([
        '```',
        'step                                    wall time     CPU time',
        'kernels compiled (python -m dynamics_ros.fast, empty cache:',
        '  make venv, colcon build)              %-13s %s' % (
            minutes(compile_wall), minutes(compile_cpu)),
        'make demo (kernels cached)              %-13s %s' % (
            minutes(demo_wall), minutes(demo_cpu)),
        '```',
        '',
        'Load average %.2f at the start, %.2f at the end (other jobs share '
        'the cores: the wall time grows with them, the CPU time is what an '
        "idle machine spends).  A fresh clone's `make demo` adds the venv "
        'install and the kernels to the demo.' % (load, end_load)])
    write_section('bench_quick_start', 'Quick start: compiling the kernels '
                  'and the demo', body)
    print(body)


if __name__ == '__main__':
    main()
