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
Check that package.xml can be released: every dependency resolves on Ubuntu.

The ROS buildfarm (bloom) turns each dependency of package.xml into a
Debian package name: a ROS package released in the distribution
(``<distro>/distribution.yaml``) becomes ``ros-<distro>-<name>``, anything
else must be a rosdep key (``rosdep/*.yaml``) with an apt rule for the
platform.  A key whose rule is pip (``*-pip`` keys) cannot be released.
ROS 2 Jazzy and Kilted are both built for Ubuntu 24.04 (noble).

Usage, given a checkout of https://github.com/ros/rosdistro::

    python3 scripts/check_rosdep_keys.py /path/to/rosdistro [package.xml]

Prints one line per dependency and distribution and exits 1 if any does
not resolve.  Only PyYAML and the standard library are needed.
"""

import argparse
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import yaml

DISTRIBUTIONS = ('jazzy', 'kilted')
# Both distributions are released for Ubuntu 24.04.
CODENAME = 'noble'
ROSDEP_FILES = ('base.yaml', 'python.yaml')
DEPENDENCY_TAGS = (
    'depend', 'build_depend', 'build_export_depend', 'buildtool_depend',
    'buildtool_export_depend', 'exec_depend', 'test_depend', 'doc_depend')
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PACKAGE_XML = os.path.join(os.path.dirname(HERE), 'package.xml')


def package_dependencies(package_xml=DEFAULT_PACKAGE_XML):
    """Return the sorted names of every dependency in ``package_xml``."""
    root = ElementTree.parse(package_xml).getroot()
    return sorted({element.text.strip() for tag in DEPENDENCY_TAGS
                   for element in root.iter(tag)})


def is_pip_key(key):
    """Whether ``key`` names a pip rule by rosdep's naming convention."""
    return key.endswith('-pip')


def load_rosdep_rules(rosdistro):
    """Return {key: rules} of rosdep's base and python files."""
    rules = {}
    for name in ROSDEP_FILES:
        with open(os.path.join(rosdistro, 'rosdep', name)) as stream:
            rules.update(yaml.safe_load(stream))
    return rules


def load_distribution(rosdistro, distro):
    """Return (released package names, Ubuntu codenames) of ``distro``."""
    path = os.path.join(rosdistro, distro, 'distribution.yaml')
    with open(path) as stream:
        data = yaml.safe_load(stream)
    packages = {}
    for repository, entry in data.get('repositories', {}).items():
        release = entry.get('release')
        if not release or not release.get('version'):
            continue
        for name in release.get('packages', [repository]):
            packages[name] = release['version']
    codenames = data.get('release_platforms', {}).get('ubuntu', [])
    return packages, codenames


def ubuntu_rule(rules, codename=CODENAME):
    """
    Return ('apt', [packages]), ('pip', [packages]) or (None, reason).

    ``rules`` is one rosdep key's entry.  Its ``ubuntu`` rule may be a list
    of apt packages, or a mapping by codename (``'*'`` for any), or an
    installer mapping (``apt:``/``pip:`` with ``packages``); ``null`` means
    no package on that codename.
    """
    if not isinstance(rules, dict) or 'ubuntu' not in rules:
        return None, 'no ubuntu rule'
    rule = rules['ubuntu']
    if isinstance(rule, dict) and not {'apt', 'pip', 'source'} & set(rule):
        if codename in rule:
            rule = rule[codename]
        elif '*' in rule:
            rule = rule['*']
        else:
            return None, 'no rule for ubuntu %s' % codename
    if rule is None:
        return None, 'null rule on ubuntu %s' % codename
    if isinstance(rule, list):
        return 'apt', rule
    if isinstance(rule, dict):
        for installer in ('apt', 'pip', 'source'):
            if installer in rule:
                entry = rule[installer] or {}
                return installer, entry.get('packages', [])
    return None, 'unreadable rule %r' % (rule,)


def resolve(key, rules, packages, distro):
    """
    Return (ok, how) for one dependency ``key`` in ``distro``.

    ``rules``: rosdep's keys; ``packages``: the distribution's packages.
    """
    if is_pip_key(key):
        return False, 'pip key (cannot be released)'
    if key in packages:
        return True, 'ros-%s-%s %s' % (
            distro, key.replace('_', '-'), packages[key])
    if key not in rules:
        return False, 'neither a rosdep key nor a %s package' % distro
    installer, found = ubuntu_rule(rules[key])
    if installer == 'apt':
        return True, 'apt %s' % ' '.join(found)
    if installer is None:
        return False, found
    return False, '%s rule (cannot be released)' % installer


def rosdistro_commit(rosdistro):
    """Return the checkout's commit (or the path when it is not git)."""
    try:
        return subprocess.run(
            ['git', '-C', rosdistro, 'rev-parse', 'HEAD'],
            capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return rosdistro


def check(rosdistro, package_xml=DEFAULT_PACKAGE_XML, out=sys.stdout):
    """Print each dependency's resolution; return the failures."""
    rules = load_rosdep_rules(rosdistro)
    failures = []
    out.write('rosdistro %s\n' % rosdistro_commit(rosdistro))
    for distro in DISTRIBUTIONS:
        packages, codenames = load_distribution(rosdistro, distro)
        if CODENAME not in codenames:
            failures.append((distro, '-', 'not released for ubuntu %s (%s)'
                             % (CODENAME, codenames)))
        for key in package_dependencies(package_xml):
            ok, how = resolve(key, rules, packages, distro)
            out.write('%-6s %-7s %-26s %s\n' % (
                'ok' if ok else 'FAIL', distro, key, how))
            if not ok:
                failures.append((distro, key, how))
    out.write('%d dependencies, %d failures\n' % (
        len(package_dependencies(package_xml)), len(failures)))
    return failures


def main(argv=None):
    """Run the check from the command line; exit 1 on any failure."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('rosdistro', help='checkout of ros/rosdistro')
    parser.add_argument('package_xml', nargs='?', default=DEFAULT_PACKAGE_XML)
    arguments = parser.parse_args(argv)
    return 1 if check(arguments.rosdistro, arguments.package_xml) else 0


if __name__ == '__main__':
    sys.exit(main())
