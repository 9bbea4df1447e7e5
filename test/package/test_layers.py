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
Imports: layers go strictly downward, rclpy stays in nodes/, tests stand alone.

No test module imports another (shared test code is in helper modules).

From the bottom: shared pieces (errors, the reasons a setting is refused
and the quoting of user values in them, spatial algebra, resources), the
model (RobotModel, MimicModel, URDF, joint transforms), the compiled
kernels, the dynamics functions and their dispatch, what is built on them
(control, flexible links, the papers' formulations, the simulator), the ROS
2 nodes, the command line.  A module may import its own layer and the
ones below; an import upward would let a change below depend on one above.
Every import statement counts, those inside functions too.
"""

import ast
import glob
import os

from conftest import REPO_ROOT
import pytest

PACKAGE = os.path.join(REPO_ROOT, 'dynamics_ros')
LAYERS = [
    ('bounded_yaml', 'checks', 'errors', 'optional', 'reasons',
     'resources', 'spatial', 'streams'),
    ('model',),
    ('fast',),
    ('dynamics',),
    ('control', 'estimation', 'flexible', 'formulations', 'identification',
     'sim'),
    ('nodes',),
    ('cli', '__init__', '__main__'),
]
RANK = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}


def modules():
    """(dotted name, path) of every module of the package."""
    found = []
    for folder, _, files in os.walk(PACKAGE):
        for name in sorted(files):
            if name.endswith('.py'):
                path = os.path.join(folder, name)
                relative = os.path.relpath(path, os.path.dirname(PACKAGE))
                found.append((relative[:-3].replace(os.sep, '.'), path))
    return found


def imported(module, path):
    """Dotted names of the package modules ``module`` imports."""
    package = module.split('.')
    if not path.endswith('__init__.py'):
        package = package[:-1]
    targets = []
    for node in ast.walk(ast.parse(open(path, encoding='utf-8').read())):
        if isinstance(node, ast.Import):
            targets += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level \
                else []
            stem = '.'.join(base + ([node.module] if node.module else []))
            # `from .. import fast` imports the module dynamics_ros.fast.
            targets += [stem + '.' + alias.name for alias in node.names]
    return [t for t in targets if t.split('.')[0] == 'dynamics_ros']


def absolute_imports(path):
    """Names of the modules a file imports absolutely (import x, from x)."""
    names = []
    for node in ast.walk(ast.parse(open(path, encoding='utf-8').read())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names.append(node.module or '')
    return names


def layer(dotted):
    """Return the layer of a dotted name: its first part below the package."""
    parts = dotted.split('.')
    return parts[1] if len(parts) > 1 else '__init__'


def rank(dotted):
    """Layer number of a module; names imported from the package root."""
    part = layer(dotted)
    if part not in RANK:  # e.g. `from dynamics_ros import load_urdf`
        return RANK['__init__']
    return RANK[part]


@pytest.mark.parametrize('module, path', modules(),
                         ids=[name for name, _ in modules()])
def test_imports_go_down(module, path):
    """No module imports a layer above its own."""
    assert layer(module) in RANK, 'put %s in a layer of LAYERS' % module
    upward = [target for target in imported(module, path)
              if rank(target) > rank(module)]
    assert not upward, '%s (layer %r) imports upward: %s' % (
        module, layer(module), ', '.join(upward))


def test_only_nodes_import_rclpy():
    """The core runs without ROS: rclpy and messages stay in nodes/."""
    ros = ('rclpy', 'sensor_msgs', 'std_msgs', 'trajectory_msgs',
           'rosgraph_msgs', 'std_srvs', 'builtin_interfaces',
           'rcl_interfaces')
    offenders = []
    for module, path in modules():
        if layer(module) == 'nodes':
            continue
        offenders += ['%s: %s' % (module, name)
                      for name in absolute_imports(path)
                      if name.split('.')[0] in ros]
    assert not offenders, offenders


def test_no_test_module_imports_another():
    """Shared test code lives in helper modules, not in test_*.py."""
    folder = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    offenders = []
    for path in sorted(glob.glob(os.path.join(folder, '**', '*.py'),
                                 recursive=True)):
        name = os.path.relpath(path, folder)
        offenders += ['%s: %s' % (name, target) for target in
                      absolute_imports(path)
                      if target.split('.')[0].startswith('test_')]
    assert not offenders, offenders
