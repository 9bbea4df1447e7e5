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
The times the README and the getting-started pages quote are measured ones.

Each duration in minutes they quote ('2 min 5 s', '3 min') must be a
figure of benchmarks/results.md, and the quick start must quote the
kernels' compilation and the demo as ``benchmarks/bench_quick_start.py``
last measured them (no 'about a minute' from another machine).  Rerun
that script and copy its figures when they change.
"""

import os
import re

from conftest import REPO_ROOT
import pytest

PAGES = ['README.md', 'doc/quick_start.md', 'doc/workflows/ros_workspace.md']
DURATION = re.compile(r'\b\d+ min(?: \d+ s)?\b')


def read(path):
    """Return the text of ``path`` under the repository."""
    with open(os.path.join(REPO_ROOT, path), encoding='utf-8') as stream:
        return stream.read()


def quick_start_figures():
    """Return {'kernels': (wall, cpu), 'demo': (wall, cpu)} of results.md."""
    text = read('benchmarks/results.md')
    section = re.search(r'<!-- begin bench_quick_start -->(.*?)'
                        r'<!-- end bench_quick_start -->', text, re.S)
    assert section, 'results.md has no bench_quick_start section'
    figures = {}
    for key, pattern in (('kernels', r'make venv, colcon build\)'),
                         ('demo', r'make demo \(kernels cached\)')):
        line = re.search(pattern + r'\s+(.*)', section.group(1))
        times = re.findall(r'\d+ min \d+ s|\d+ s', line.group(1))
        assert len(times) == 2, line.group(0)
        figures[key] = tuple(times)
    return figures


@pytest.mark.parametrize('page', PAGES)
def test_every_quoted_duration_is_measured(page):
    text = read(page)
    results = read('benchmarks/results.md')
    assert 'about a minute' not in text
    for duration in DURATION.findall(text):
        assert duration in results, '%s quotes %s, which results.md does ' \
            'not have' % (page, duration)


@pytest.mark.parametrize('page', ['README.md', 'doc/quick_start.md'])
def test_the_quick_start_quotes_the_last_measurement(page):
    text = read(page)
    figures = quick_start_figures()
    kernels_wall, kernels_cpu = figures['kernels']
    demo_wall, demo_cpu = figures['demo']
    assert kernels_cpu in text, (page, kernels_cpu)
    assert demo_wall in text, (page, demo_wall)
    assert 'bench_quick_start' in text
