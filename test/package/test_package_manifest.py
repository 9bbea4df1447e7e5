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
package.xml names everything the package imports or starts.

rosdep installs a ROS user's dependencies from package.xml alone, so every
ROS package imported anywhere in dynamics_ros/ or launch/ (read from the
source: every ``import``, also those inside functions) must be an
``exec_depend``, as must every package a launch file starts a node of.
Python libraries that are not ROS packages are named by their rosdep key.
"""

import ast
from glob import glob
import os
import sys
import xml.etree.ElementTree as ElementTree

from conftest import REPO_ROOT

ROOT = REPO_ROOT
SOURCES = sorted(
    glob(os.path.join(ROOT, 'dynamics_ros', '**', '*.py'), recursive=True)
    + glob(os.path.join(ROOT, 'launch', '*.py')))

# Python libraries that are not ROS packages: import name -> rosdep key.
# An import that is neither stdlib, ours, nor listed here is taken to be a
# ROS package of that name (rclpy, *_msgs, launch_ros, xacro, ...).
PYTHON_KEYS = {
    'numpy': 'python3-numpy',
    'scipy': 'python3-scipy',
    'yaml': 'python3-yaml',
    'matplotlib': 'python3-matplotlib',
    'numba': 'python3-numba',
    'sympy': 'python3-sympy',
}

# Python libraries with no releasable rosdep key (only a pip key, or none:
# ros/rosdistro 8468e88c, scripts/check_rosdep_keys.py): not in package.xml,
# imported only inside the functions that use them (a clear ImportError or
# a fallback there), installed by requirements.txt.  import name -> why.
OPTIONAL = {
    'rosbags': 'only python3-rosbags-pip; rosbag2_py reads bags on ROS',
    'toppra': 'only python3-toppra-pip (retiming)',
    'cvxpy': 'only python3-cvxpy-pip (semidefinite fits)',
    'distributed': 'no key (identification on Dask workers)',
    'threadpoolctl': 'no key (excite: BLAS on one thread, else a no-op)',
}

# Known gaps, each with its reason; the test fails when one is closed so
# the entry is removed here.
KNOWN_MISSING = {}


def exec_depends():
    """Return the exec_depend (and depend) names of package.xml."""
    root = ElementTree.parse(os.path.join(ROOT, 'package.xml')).getroot()
    return {e.text.strip() for tag in ('exec_depend', 'depend')
            for e in root.iter(tag)}


def imported_modules():
    """Map each top-level module imported by our sources to its files."""
    modules = {}
    for path in SOURCES:
        with open(path) as stream:
            tree = ast.parse(stream.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                modules.setdefault(name.split('.')[0], set()).add(
                    os.path.relpath(path, ROOT))
    return modules


def third_party_imports():
    """Return imported modules that are neither the stdlib nor ours."""
    return {name: files for name, files in imported_modules().items()
            if name not in sys.stdlib_module_names and name != 'dynamics_ros'}


def launched_packages():
    """Return the packages a launch file starts a node of (``package=``)."""
    packages = {}
    for path in glob(os.path.join(ROOT, 'launch', '*.py')):
        with open(path) as stream:
            tree = ast.parse(stream.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                for keyword in node.keywords:
                    if keyword.arg == 'package' and isinstance(
                            keyword.value, ast.Constant):
                        packages.setdefault(keyword.value.value, set()).add(
                            os.path.relpath(path, ROOT))
    return packages


def test_every_imported_ros_package_is_an_exec_depend():
    """rclpy, the message packages, launch_ros, xacro, ... are declared."""
    declared = exec_depends()
    ros = {name: files for name, files in third_party_imports().items()
           if name not in PYTHON_KEYS and name not in OPTIONAL}
    assert {'rclpy', 'sensor_msgs', 'builtin_interfaces'} <= set(ros)
    missing = {name: sorted(files) for name, files in ros.items()
               if name not in declared}
    assert not missing, (
        'imported but not an exec_depend in package.xml (if one is a Python '
        'library, not a ROS package, add its rosdep key to PYTHON_KEYS): %s'
        % missing)


def test_every_imported_python_library_has_its_rosdep_key():
    """numpy, scipy, yaml, ... are declared by rosdep key."""
    declared = exec_depends()
    used = {PYTHON_KEYS[name] for name in third_party_imports()
            if name in PYTHON_KEYS}
    assert 'python3-numpy' in used
    missing = used - declared
    assert not missing - set(KNOWN_MISSING), (
        'imported but missing from package.xml: %s' % sorted(
            missing - set(KNOWN_MISSING)))
    assert not set(KNOWN_MISSING) - missing, (
        'declared now: remove from KNOWN_MISSING: %s' % sorted(
            set(KNOWN_MISSING) - missing))


def test_every_launched_package_is_an_exec_depend():
    """Packages whose nodes the launch files start are declared."""
    declared = exec_depends() | {'dynamics_ros'}
    launched = launched_packages()
    assert 'robot_state_publisher' in launched
    missing = {name: sorted(files) for name, files in launched.items()
               if name not in declared}
    assert not missing, 'started but not an exec_depend: %s' % missing


def test_builtin_interfaces_is_declared():
    """builtin_interfaces, imported by the node modules, is declared."""
    # It was missing from package.xml while three modules imported it; the
    # walk must still see those imports (an empty walk would pass below).
    files = third_party_imports()['builtin_interfaces']
    assert {'dynamics_ros/nodes/shared/conversions.py',
            'dynamics_ros/nodes/shared/serialized_message.py'} <= set(files), \
        sorted(files)
    assert all(name.startswith('dynamics_ros/nodes/') for name in files)
    assert 'builtin_interfaces' in exec_depends()


def top_level_imports(path):
    """Return the modules ``path`` imports at module level (not lazily)."""
    with open(path) as stream:
        tree = ast.parse(stream.read(), path)
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(alias.name.split('.')[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split('.')[0])
    return names


def test_optional_libraries_are_not_dependencies_and_imported_lazily():
    """rosbags, toppra, cvxpy, ... stay out of package.xml and import late."""
    declared = exec_depends()
    imported = third_party_imports()
    assert {'rosbags', 'toppra', 'cvxpy'} <= set(imported)
    for name in OPTIONAL:
        assert not any(key.startswith('python3-' + name) or key == name
                       for key in declared), (name, sorted(declared))
    eager = {os.path.relpath(path, ROOT): sorted(
        top_level_imports(path) & set(OPTIONAL)) for path in SOURCES}
    assert not {k: v for k, v in eager.items() if v}, (
        'optional libraries imported at module level: %s' % eager)
