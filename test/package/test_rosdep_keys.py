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
package.xml can be released: no pip keys, every key one we verified.

The full check (scripts/check_rosdep_keys.py) needs a checkout of
ros/rosdistro; it runs here when ROSDISTRO_PATH names one, e.g.::

    git clone https://github.com/ros/rosdistro /tmp/rosdistro
    ROSDISTRO_PATH=/tmp/rosdistro python -m pytest test/package/test_rosdep_keys.py

Without it, every dependency must be one of VERIFIED: the keys and ROS
packages the script resolved on Ubuntu 24.04 (noble) for Jazzy and Kilted
at ros/rosdistro 8468e88ccd523427f9131e39d2af0938f1c298b2 (2026-08-22);
"25 dependencies, 0 failures".  A new dependency is added to VERIFIED
only after the script passes with it.  The resolver itself is tested on
small rule tables below.
"""

import io
import os

from conftest import REPO_ROOT, script_module
import pytest

SCRIPT = os.path.join(REPO_ROOT, 'scripts', 'check_rosdep_keys.py')
VERIFIED_AT = '8468e88ccd523427f9131e39d2af0938f1c298b2'
# Released ROS packages (ros-jazzy-*, ros-kilted-*) at VERIFIED_AT.
VERIFIED_ROS_PACKAGES = {
    'ament_copyright', 'ament_flake8', 'ament_index_python', 'ament_pep257',
    'builtin_interfaces', 'geometry_msgs', 'launch', 'launch_ros',
    'rcl_interfaces', 'rclpy', 'robot_state_publisher', 'rosbag2_py',
    'rosgraph_msgs', 'sensor_msgs', 'std_msgs', 'std_srvs',
    'trajectory_msgs', 'xacro',
}
# rosdep keys with an apt rule on ubuntu noble (rosdep/python.yaml).
VERIFIED_KEYS = {
    'python3-matplotlib', 'python3-numba', 'python3-numpy', 'python3-pytest',
    'python3-scipy', 'python3-sympy', 'python3-yaml',
}
VERIFIED = VERIFIED_ROS_PACKAGES | VERIFIED_KEYS


def check_module():
    """Import scripts/check_rosdep_keys.py (it is not a package module)."""
    return script_module(SCRIPT)


def test_no_dependency_is_a_pip_key():
    """A released package cannot depend on a pip key."""
    check = check_module()
    dependencies = check.package_dependencies()
    assert 'python3-numpy' in dependencies and 'rclpy' in dependencies
    pip = [key for key in dependencies if check.is_pip_key(key)]
    assert not pip, pip


def test_every_dependency_was_verified_against_rosdistro():
    """Each dependency is one the full check resolved (see the docstring)."""
    unverified = sorted(set(check_module().package_dependencies())
                        - VERIFIED)
    assert not unverified, (
        'run scripts/check_rosdep_keys.py against ros/rosdistro, then add '
        'to VERIFIED: %s' % unverified)


def test_resolver_on_small_rule_tables():
    """Lists, codename maps, pip rules, null rules and unknown keys."""
    check = check_module()
    rules = {
        'python3-apt-list': {'ubuntu': ['python3-a']},
        'python3-by-codename': {'ubuntu': {'jammy': ['old'],
                                           'noble': ['python3-b']}},
        'python3-wildcard': {'ubuntu': {'*': ['python3-c'],
                                        'focal': None}},
        'python3-null-on-noble': {'ubuntu': {'noble': None, '*': ['d']}},
        'python3-pip-rule': {'ubuntu': {'pip': {'packages': ['e']}}},
        'python3-apt-installer': {'ubuntu': {'apt': {'packages': ['f']}}},
        'python3-debian-only': {'debian': ['g']},
        'python3-other-codenames': {'ubuntu': {'jammy': ['h']}},
        'python3-x-pip': {'ubuntu': ['i']},
    }
    packages = {'rclpy': '9.1.6-1'}
    resolved = {key: check.resolve(key, rules, packages, 'kilted')
                for key in list(rules) + ['rclpy', 'python3-unknown']}
    assert resolved['rclpy'] == (True, 'ros-kilted-rclpy 9.1.6-1')
    assert resolved['python3-apt-list'] == (True, 'apt python3-a')
    assert resolved['python3-by-codename'] == (True, 'apt python3-b')
    assert resolved['python3-wildcard'] == (True, 'apt python3-c')
    assert resolved['python3-apt-installer'] == (True, 'apt f')
    failed = {key: how for key, (ok, how) in resolved.items() if not ok}
    assert failed == {
        'python3-null-on-noble': 'null rule on ubuntu noble',
        'python3-pip-rule': 'pip rule (cannot be released)',
        'python3-debian-only': 'no ubuntu rule',
        'python3-other-codenames': 'no rule for ubuntu noble',
        'python3-x-pip': 'pip key (cannot be released)',
        'python3-unknown': 'neither a rosdep key nor a kilted package',
    }


def test_every_dependency_resolves_in_rosdistro():
    """The full check against the checkout at $ROSDISTRO_PATH."""
    rosdistro = os.environ.get('ROSDISTRO_PATH')
    if not rosdistro:
        pytest.skip('ROSDISTRO_PATH is not set (a checkout of ros/rosdistro; '
                    'the offline tests above hold package.xml to the keys '
                    'verified at %s)' % VERIFIED_AT)
    out = io.StringIO()
    failures = check_module().check(rosdistro, out=out)
    assert not failures, out.getvalue()
    assert '0 failures' in out.getvalue()
