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
Python started beside the clone imports the package, not the clone folder.

A clone named ``dynamics_ros`` has no ``__init__.py`` at its root, so from
its parent folder ``import dynamics_ros`` could find the clone as an empty
namespace package ("module 'dynamics_ros' has no attribute 'load_urdf'").
A regular package anywhere on sys.path wins over a namespace portion, so
the installed package must be on sys.path as a folder: colcon's install
space is, and ``make venv`` installs in editable compat mode (a .pth with
the clone) rather than with setuptools' import hook, which is asked only
after the namespace package is already made.
"""

import os
import subprocess
import sys

from conftest import REPO_ROOT


def test_import_from_the_clones_parent_folder(tmp_path):
    """From a folder holding a ``dynamics_ros`` clone, load_urdf is there."""
    (tmp_path / 'dynamics_ros').symlink_to(REPO_ROOT)
    # The venv's own install, as a user has it: no PYTHONPATH.
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    result = subprocess.run(
        [sys.executable, '-c', 'import dynamics_ros; '
         'print(dynamics_ros.load_urdf.__module__)'],
        cwd=str(tmp_path), env=env, capture_output=True, text=True,
        timeout=300)
    assert result.returncode == 0, (
        'import dynamics_ros from the parent of a clone (reinstall with '
        '`make venv`: editable_mode=compat): ' + result.stderr[-800:])
    assert result.stdout.strip().startswith('dynamics_ros'), result.stdout
