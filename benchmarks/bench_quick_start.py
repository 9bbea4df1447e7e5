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

Three figures, each a fresh process: the kernels' compilation
(``python -m dynamics_ros.fast --first-use`` into an empty
``NUMBA_CACHE_DIR``: what ``make venv`` and ``colcon build`` spend on
them), ``python -m dynamics_ros demo`` with the kernels cached (what
``make demo`` takes once the venv exists), and ``make demo`` in a fresh
clone of the last commit (the quick start: venv, packages, kernels,
demo).  The README and the getting-started pages quote these figures,
rewritten from results.md by ``--quote`` (which a measurement runs too)
in the phrases ``kernels: 2 min 5 s of CPU time``, ``demo: 1 min 10 s``
and ``fresh clone: 4 min 0 s``; test/package/test_doc_times.py checks
them.

    .venv/bin/python benchmarks/bench_quick_start.py           # measure
    .venv/bin/python benchmarks/bench_quick_start.py --quote   # requote
"""

import os
import re
import resource
import subprocess
import sys
import tempfile
import time

from results_file import RESULTS, section_pattern, write_section

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The pages that quote the figures, and the phrases they quote them in.
QUOTING = ['README.md', os.path.join('doc', 'quick_start.md'),
           os.path.join('doc', 'workflows', 'ros_workspace.md')]
DURATION = r'(?:\d+ min \d+ s|\d+ s)'
# A phrase may be wrapped across lines anywhere it has a space.
WRAPPED = r'(?:\d+\s+min\s+\d+\s+s|\d+\s+s)'
PHRASES = {
    'kernels': re.compile(r'(kernels:\s+)%s(\s+of\s+CPU\s+time)' % WRAPPED),
    'demo': re.compile(r'(demo:\s+)%s()' % WRAPPED),
    'fresh': re.compile(r'(fresh clone:\s+)%s()' % WRAPPED),
}


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


def measured(path=RESULTS):
    """Return {'kernels': CPU time, 'demo': wall time} of results.md."""
    with open(path, encoding='utf-8') as stream:
        match = section_pattern('bench_quick_start').search(stream.read())
    if match is None:
        raise SystemExit('results.md has no bench_quick_start section: '
                         'run benchmarks/bench_quick_start.py')
    figures = {}
    for key, label in (('kernels', r'make venv, colcon build\)'),
                       ('demo', r'make demo \(kernels cached\)'),
                       ('fresh', r'packages, kernels, demo\)')):
        wall, cpu = re.findall(DURATION, re.search(
            label + r'.*', match.group(0)).group(0))
        figures[key] = cpu if key == 'kernels' else wall
    return figures


def quote(root=ROOT):
    """Rewrite the quoted figures of the QUOTING pages from results.md."""
    figures = measured()
    for page in QUOTING:
        path = os.path.join(root, page)
        with open(path, encoding='utf-8') as stream:
            text = stream.read()
        new = text
        for key, phrase in PHRASES.items():
            new = phrase.sub(lambda match, key=key: match.group(1) +
                             figures[key] + match.group(2), new)
        if new != text:
            with open(path, 'w', encoding='utf-8') as stream:
                stream.write(new)
            print('quoted in %s' % page)


def main():
    """Time the compilation and the demo; write the results.md section."""
    if sys.argv[1:] == ['--quote']:
        quote()
        return
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
            [sys.executable, '-m', 'dynamics_ros.fast', '--first-use'],
            cold)
        demo_wall, demo_cpu = timed(
            [sys.executable, '-m', 'dynamics_ros', 'demo', '--output',
             output], cold)
    # The quick start itself: a clone of the last commit, nothing
    # installed, `make demo` (venv, packages, kernels, demo).
    with tempfile.TemporaryDirectory() as folder:
        clone = os.path.join(folder, 'dynamics_ros')
        subprocess.run(['git', 'clone', '--quiet', ROOT, clone], check=True)
        fresh = {key: value for key, value in os.environ.items()
                 if key not in ('PYTHONPATH', 'NUMBA_CACHE_DIR',
                                'VIRTUAL_ENV')}
        fresh_wall, fresh_cpu = timed(['make', '-C', clone, 'demo'], fresh)
    end_load = os.getloadavg()[0]
    body = '\n'.join([
        '```',
        'step                                    wall time     CPU time',
        'kernels compiled (python -m dynamics_ros.fast --first-use, empty',
        '  cache: make venv, colcon build)       %-13s %s' % (
            minutes(compile_wall), minutes(compile_cpu)),
        'make demo (kernels cached)              %-13s %s' % (
            minutes(demo_wall), minutes(demo_cpu)),
        'make demo from a fresh clone (venv,',
        '  packages, kernels, demo)              %-13s %s' % (
            minutes(fresh_wall), minutes(fresh_cpu)),
        '```',
        '',
        'Load average %.2f at the start, %.2f at the end (other jobs share '
        'the cores: the wall time grows with them, the CPU time is what an '
        "idle machine spends).  The motor plant's and the regressor's "
        'kernels are not in the first two rows: they compile on first use '
        '(make test compiles them before the tests).' % (load, end_load)])
    write_section('bench_quick_start', 'Quick start: compiling the kernels '
                  'and the demo', body)
    print(body)
    quote()


if __name__ == '__main__':
    main()
