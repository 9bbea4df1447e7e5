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

``benchmarks/bench_quick_start.py`` measures the kernels' compilation and
the demo into benchmarks/results.md and rewrites the pages' phrases
``kernels: <CPU time> of CPU time`` and ``demo: <wall time>`` from it
(``--quote``); here each such phrase must carry results.md's figure, the
README and the quick start must quote both, and every other duration in
minutes they quote ('2 min 5 s') must be a figure of results.md (no
'about a minute' from another machine).
"""

import importlib.util
import os
import re

from conftest import REPO_ROOT
import pytest

DURATION = re.compile(r'\b\d+ min(?: \d+ s)?\b')


def read(path):
    """Return the text of ``path`` under the repository."""
    with open(os.path.join(REPO_ROOT, path), encoding='utf-8') as stream:
        return stream.read()


@pytest.fixture
def bench(monkeypatch):
    """Return benchmarks/bench_quick_start.py as a module."""
    folder = os.path.join(REPO_ROOT, 'benchmarks')
    monkeypatch.syspath_prepend(folder)
    spec = importlib.util.spec_from_file_location(
        'bench_quick_start', os.path.join(folder, 'bench_quick_start.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pages():
    """Return the pages that quote the quick start's times."""
    return ['README.md', 'doc/quick_start.md',
            'doc/workflows/ros_workspace.md']


@pytest.mark.parametrize('page', pages())
def test_every_quoted_duration_is_measured(page):
    text = read(page)
    results = read('benchmarks/results.md')
    assert 'about a minute' not in text
    for duration in DURATION.findall(text):
        assert duration in results, '%s quotes %s, which results.md does ' \
            'not have' % (page, duration)


def test_the_pages_quote_the_last_measurement(bench):
    assert sorted(bench.QUOTING) == sorted(
        os.path.normpath(page) for page in pages())
    figures = bench.measured()
    quoted = {}
    for page in pages():
        text = read(page)
        for key, phrase in bench.PHRASES.items():
            for match in phrase.finditer(text):
                figure = match.group(0)[len(match.group(1)):len(
                    match.group(0)) - len(match.group(2))]
                quoted.setdefault((page, key), set()).add(
                    ' '.join(figure.split()))
    for (page, key), values in quoted.items():
        assert values == {figures[key]}, (page, key, values, figures)
    for page in ('README.md', 'doc/quick_start.md'):
        assert (page, 'kernels') in quoted and (page, 'demo') in quoted, page


def test_quote_rewrites_the_phrases(bench, tmp_path):
    """--quote puts results.md's figures into the phrases, nothing else."""
    figures = bench.measured()
    for page in bench.QUOTING:
        target = tmp_path / page
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text('(kernels: 9 min 9 s of CPU time) and (demo: 1 s)'
                          ' but 3 s stays\n', encoding='utf-8')
    bench.quote(str(tmp_path))
    text = (tmp_path / 'README.md').read_text(encoding='utf-8')
    assert text == '(kernels: %s of CPU time) and (demo: %s) but 3 s ' \
        'stays\n' % (figures['kernels'], figures['demo'])
