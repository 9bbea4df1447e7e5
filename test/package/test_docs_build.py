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
The documentation builds as ``make docs`` builds it: warnings are errors.

Sphinx with myst-parser over doc/ (what rosdoc2 finds as doc/conf.py), into
a temporary folder; a broken link between pages, a page in no toctree, a
docstring autodoc cannot import or a bad directive fails here.  The README
must stay short: the pages hold the reference.
"""

import os
import subprocess
import sys

from conftest import REPO_ROOT
import pytest

README_LINES = 250


def test_readme_is_short_and_points_to_the_docs():
    with open(os.path.join(REPO_ROOT, 'README.md'), encoding='utf-8') as f:
        text = f.read()
    assert len(text.splitlines()) <= README_LINES
    assert 'make docs' in text
    for node in ('inverse_dynamics_node', 'linearization_node',
                 'simulator_node', 'external_torque_node',
                 'payload_estimation_node'):
        page = 'doc/nodes/%s.md' % node
        assert page in text, page
        assert os.path.isfile(os.path.join(REPO_ROOT, page)), page


def test_rosdoc2_finds_the_sphinx_project():
    """rosdoc2 looks for doc/conf.py; rosdoc2.yaml points there too."""
    import yaml
    assert os.path.isfile(os.path.join(REPO_ROOT, 'doc', 'conf.py'))
    assert os.path.isfile(os.path.join(REPO_ROOT, 'doc', 'index.md'))
    with open(os.path.join(REPO_ROOT, 'rosdoc2.yaml'),
              encoding='utf-8') as stream:
        header, config = yaml.safe_load_all(stream)
    assert header == {'type': 'rosdoc2 config', 'version': 1}
    builder = config['builders'][0]['sphinx']
    assert builder['sphinx_sourcedir'] == 'doc'
    assert config['settings']['python_source'] == 'dynamics_ros'


def test_docs_build_without_warnings(tmp_path):
    pytest.importorskip('sphinx')
    pytest.importorskip('myst_parser')
    environment = dict(os.environ)
    environment['PYTHONPATH'] = REPO_ROOT + os.pathsep + environment.get(
        'PYTHONPATH', '')
    result = subprocess.run(
        [sys.executable, '-m', 'sphinx', '-W', '--keep-going', '-q', '-b',
         'html', '-d', str(tmp_path / 'doctrees'),
         os.path.join(REPO_ROOT, 'doc'), str(tmp_path / 'html')],
        cwd=REPO_ROOT, env=environment, capture_output=True, text=True,
        timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    assert result.stderr.strip() == '', result.stderr[-4000:]
    for page in ('index', 'api', 'nodes/simulator_node',
                 'theory/papers/kane_1983'):
        assert (tmp_path / 'html' / (page + '.html')).is_file(), page
    api = (tmp_path / 'html' / 'api.html').read_text(encoding='utf-8')
    # autodoc found the docstrings, not only the names.
    assert 'inverse_dynamics' in api and 'Simulator' in api
