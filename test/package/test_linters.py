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
Style and license checks, run the way ament packages run them.

ament_copyright is not installable here, so the license-header check is a
small test of our own: every Python source and shell script must start with
the project's Apache-2.0 header.
"""

import os
import subprocess

from conftest import REPO_ROOT
import pytest

ROOT = REPO_ROOT
CHECKED = ['dynamics_ros', 'test', 'benchmarks', 'launch', 'doc', 'scripts',
           'setup.py']
HEADER_LINES = [
    '# Copyright 20',
    '#',
    '# Licensed under the Apache License, Version 2.0 (the "License");',
]


def source_files():
    """Python files and shell scripts tracked or to be tracked by git."""
    listing = subprocess.run(
        ['git', 'ls-files', '--cached', '--others', '--exclude-standard'],
        cwd=ROOT, capture_output=True, text=True, check=True).stdout
    files = []
    for path in listing.splitlines():
        if not os.path.isfile(os.path.join(ROOT, path)):
            continue
        if path.endswith(('.py', '.sh')) or path == '.ci/run':
            files.append(path)
    return files


def existing(paths):
    """Keep the ``paths`` present in the tree."""
    return [p for p in paths if os.path.exists(os.path.join(ROOT, p))]


@pytest.mark.linter
def test_flake8(monkeypatch):
    """ament_flake8 with its default (ROS 2) configuration finds nothing."""
    from ament_flake8.main import main_with_errors
    monkeypatch.chdir(ROOT)
    rc, errors = main_with_errors(argv=existing(CHECKED))
    assert rc == 0, 'Found %d code style errors / warnings:\n' % len(
        errors) + '\n'.join(errors)


@pytest.mark.linter
def test_pep257(monkeypatch):
    """ament_pep257 (docstring conventions of ROS 2) finds nothing."""
    from ament_pep257.main import main
    monkeypatch.chdir(ROOT)
    rc = main(argv=existing(CHECKED))
    assert rc == 0, 'Found docstring style errors (see the output above)'


@pytest.mark.linter
def test_license_headers():
    """Every Python source and shell script carries the Apache-2.0 header."""
    files = source_files()
    assert 'setup.py' in files and 'dynamics_ros/__init__.py' in files
    missing = []
    for path in files:
        with open(os.path.join(ROOT, path), encoding='utf-8') as stream:
            lines = stream.read().splitlines()
        if lines and lines[0].startswith('#!'):
            lines = lines[1:]
        head = lines[:len(HEADER_LINES)]
        if len(head) < len(HEADER_LINES) or not all(
                line.startswith(expected)
                for line, expected in zip(head, HEADER_LINES)):
            missing.append(path)
    assert not missing, 'files without the license header: %s' % missing
