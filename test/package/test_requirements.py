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
requirements.txt's ranges tell the truth, and both venvs are reproducible.

- Every lower bound is a version `make test-distro` installs and tests:
  constraints-distro.txt pins each requirement at its lower bound (set at
  what Ubuntu 24.04 ships where PyPI has it: numpy 1.26.4, scipy 1.11.4,
  sympy 1.12; matplotlib 3.7.3 and numba 0.59.0 are the first with Python
  3.12 wheels), but for BELOW_RANGE_IN_DISTRO's.
- constraints.txt (``make constraints``) pins every requirement of the
  development venv inside its range, so a fresh clone installs what CI
  tested.
- The ros-* ranges span ROS 2 Jazzy and Kilted: each constraints file names
  the release whose wheels it pins (distro: Jazzy, development: Kilted), and
  its rclpy pin is that release's.
"""

import os
import re

from conftest import REPO_ROOT, script_module

REQUIREMENT = re.compile(
    r'^(?P<name>[A-Za-z0-9._-]+)(\[[^\]]*\])?(?P<specs>[<>=!~][^;#]*)?')
# Requirements the distro environment installs below their range, and why.
BELOW_RANGE_IN_DISTRO = {
    'pin': 'pin >= 3 has Python 3.12 wheels for numpy >= 2 only '
           '(cmeel-boost); its answers are replayed there '
           '(test/oracle_record.py) and 2.7.0, the newest for numpy 1.26, '
           'computes only the calls of the modules not stored',
}


def canonical(name):
    """Return the PEP 503 normalized ``name``."""
    return re.sub(r'[-_.]+', '-', name).lower()


def version(text):
    """Return a comparable tuple of a release version such as 2024.8.0."""
    return tuple(int(part) for part in text.split('.'))


def read(name):
    """Return {canonical name: [(operator, version), ...]} of a file."""
    found = {}
    with open(os.path.join(REPO_ROOT, name)) as stream:
        for line in stream:
            line = line.split('#')[0].strip()
            if not line:
                continue
            match = REQUIREMENT.match(line)
            assert match, '%s: cannot read %r' % (name, line)
            specs = [re.match(r'(<=|>=|==|<|>)\s*(.+)', spec.strip()).groups()
                     for spec in (match.group('specs') or '').split(',')
                     if spec.strip()]
            found[canonical(match.group('name'))] = specs
    return found


def lower_bound(specs):
    """Return the ``>=`` version of a requirement's specifiers."""
    bounds = [v for op, v in specs if op == '>=']
    assert len(bounds) == 1, specs
    return bounds[0]


def within(pinned, specs):
    """Whether version ``pinned`` satisfies ``>=`` and ``<`` ``specs``."""
    for op, bound in specs:
        if op == '>=' and not version(pinned) >= version(bound):
            return False
        if op == '<' and not version(pinned) < version(bound):
            return False
    return True


def test_every_requirement_has_a_range():
    """A lower bound and an upper bound, for every line."""
    for name, specs in read('requirements.txt').items():
        operators = sorted(op for op, _ in specs)
        assert operators == ['<', '>='], (name, specs)


def test_lower_bounds_are_the_distro_environments_pins():
    """Each lower bound is what `make test-distro` installs, exactly."""
    requirements = read('requirements.txt')
    pins = {name: specs[0][1] for name, specs in
            read('constraints-distro.txt').items()}
    assert {'numpy', 'scipy', 'matplotlib', 'sympy', 'numba'} <= set(pins)
    assert pins['numpy'].startswith('1.26.') and \
        pins['scipy'].startswith('1.11.') and pins['sympy'] == '1.12'
    assert pins['numba'] == '0.59.0'
    unpinned = set(requirements) - set(pins)
    assert not unpinned, 'pin these in constraints-distro.txt: %s' % sorted(
        unpinned)
    # An exception holds while it is needed: below the range, not in it.
    inside = {name for name in BELOW_RANGE_IN_DISTRO
              if version(pins[name]) >= version(
                  lower_bound(requirements[name]))}
    assert not inside, 'no longer below the range: %s' % sorted(inside)
    wrong = {name: (pins[name], lower_bound(requirements[name]))
             for name in requirements if name in pins
             and name not in BELOW_RANGE_IN_DISTRO
             and version(pins[name]) != version(
                 lower_bound(requirements[name]))}
    assert not wrong, 'distro pin != lower bound in requirements.txt: %s' \
        % wrong
    extra = {name for name in pins if name not in requirements}
    assert extra <= {'distributed'}, extra


def test_constraints_pin_every_requirement_within_its_range():
    """constraints.txt covers requirements.txt (run `make constraints`)."""
    requirements = read('requirements.txt')
    pins = {name: specs[0][1] for name, specs in
            read('constraints.txt').items()}
    missing = sorted(set(requirements) - set(pins))
    assert not missing, (
        'not in constraints.txt: %s (run `make constraints` and commit it)'
        % missing)
    outside = {name: pins[name] for name in requirements
               if not within(pins[name], requirements[name])}
    assert not outside, 'constraints.txt outside requirements.txt: %s' % (
        outside)


def ros_releases():
    """Return scripts/write_constraints.py's {rclpy X.Y: ROS 2 release}."""
    return script_module('scripts/write_constraints.py').ROS_RELEASES


def test_each_constraints_file_names_its_ros_release():
    """Distro run: Jazzy's wheels; development venv: Kilted's."""
    releases = ros_releases()
    for name, release in [('constraints-distro.txt', 'Jazzy'),
                          ('constraints.txt', 'Kilted')]:
        rclpy = read(name)['ros-rclpy'][0][1]
        assert releases['.'.join(rclpy.split('.')[:2])] == release, (
            name, rclpy)
        with open(os.path.join(REPO_ROOT, name)) as stream:
            header = ''.join(line for line in stream
                             if line.startswith('#'))
        assert 'ROS 2 %s' % release in header, name
    # The range admits both releases' rclpy (Jazzy 7.1.6, Kilted 9.1.2).
    specs = read('requirements.txt')['ros-rclpy']
    assert within('7.1.6', specs) and within('9.1.2', specs), specs


# The modules of the requirements after "# Tests:" (make demo leaves them
# out): none of them may be imported by the package.
TEST_ONLY_MODULES = {
    'pytest', 'hypothesis', 'xdist', 'random_order', 'ament_flake8',
    'ament_pep257', 'flake8', 'flake8_quotes', 'flake8_import_order',
    'flake8_docstrings', 'pydocstyle', 'pinocchio', 'example_robot_data',
    'colcon_core', 'sphinx', 'myst_parser'}


def runtime_part():
    """Return requirements.txt's names before its "# Tests:" section."""
    with open(os.path.join(REPO_ROOT, 'requirements.txt')) as stream:
        text = stream.read()
    assert '\n# Tests:' in text   # the line the Makefile cuts at
    names = set()
    for line in text.split('\n# Tests:')[0].splitlines():
        line = line.split('#')[0].strip()
        if line:
            names.add(canonical(REQUIREMENT.match(line).group('name')))
    return names


def test_make_demo_installs_what_the_package_imports_and_no_test_tool():
    runtime = runtime_part()
    everything = set(read('requirements.txt'))
    assert {'numpy', 'scipy', 'numba', 'xacro', 'ros-rclpy', 'cvxpy',
            'dask', 'matplotlib'} <= runtime
    assert {'pytest', 'pin', 'sphinx', 'colcon-common-extensions'} <= \
        everything - runtime
    imported = set()
    for folder, _, files in os.walk(os.path.join(REPO_ROOT, 'dynamics_ros')):
        for name in files:
            if name.endswith('.py'):
                with open(os.path.join(folder, name)) as stream:
                    imported |= set(re.findall(
                        r'^\s*(?:from|import)\s+([A-Za-z_][A-Za-z0-9_]*)',
                        stream.read(), re.MULTILINE))
    assert not imported & TEST_ONLY_MODULES, imported & TEST_ONLY_MODULES
