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
The package can be released: one version, a changelog bloom reads.

bloom and ``catkin_prepare_release`` read CHANGELOG.rst with catkin_pkg:
a ``^^^`` title, then sections ``X.Y.Z (YYYY-MM-DD)`` underlined with
``-``, newest first, the unreleased one titled ``Forthcoming`` (which
catkin_prepare_release renames to the new version and date).  package.xml
and setup.py carry the same version.
"""

import ast
import datetime
import os
import re
import xml.etree.ElementTree as ElementTree

from conftest import REPO_ROOT
import pytest

CHANGELOG = os.path.join(REPO_ROOT, 'CHANGELOG.rst')
TITLE = 'Changelog for package dynamics_ros'
RELEASED = re.compile(r'^(\d+)\.(\d+)\.(\d+) \((\d{4}-\d{2}-\d{2})\)$')


def package_version():
    """Return package.xml's <version>."""
    root = ElementTree.parse(os.path.join(REPO_ROOT, 'package.xml')).getroot()
    return root.find('version').text.strip()


def setup_version():
    """Return the ``version=`` argument of setup() in setup.py."""
    with open(os.path.join(REPO_ROOT, 'setup.py')) as stream:
        tree = ast.parse(stream.read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(
                node.func, 'id', None) == 'setup':
            for keyword in node.keywords:
                if keyword.arg == 'version':
                    return ast.literal_eval(keyword.value)
    raise AssertionError('setup.py has no setup(version=...)')


def sections():
    """Return the changelog's section titles with their underlines."""
    with open(CHANGELOG) as stream:
        lines = stream.read().splitlines()
    assert lines[:3] == ['^' * len(TITLE), TITLE, '^' * len(TITLE)], \
        lines[:3]
    found = []
    for above, below in zip(lines[3:], lines[4:]):
        if below and set(below) == {'-'}:
            assert len(below) == len(above), 'underline of %r' % above
            found.append(above)
    return found


def version_tuple(text):
    """Return (major, minor, patch) of 'X.Y.Z'."""
    return tuple(int(part) for part in text.split('.'))


def test_package_xml_and_setup_py_carry_one_version():
    """Both setup.py (colcon) and package.xml (bloom) say one version."""
    assert re.fullmatch(r'\d+\.\d+\.\d+', package_version())
    assert setup_version() == package_version()


def test_changelog_sections_are_what_catkin_prepare_release_expects():
    """Forthcoming first (or the current version), then dated versions."""
    titles = sections()
    assert titles, 'CHANGELOG.rst has no section'
    released = titles[1:] if titles[0] == 'Forthcoming' else titles
    assert 'Forthcoming' not in released
    versions = []
    for title in released:
        match = RELEASED.match(title)
        assert match, 'section %r is not "X.Y.Z (YYYY-MM-DD)"' % title
        datetime.date.fromisoformat(match.group(4))
        versions.append(tuple(int(g) for g in match.groups()[:3]))
    assert versions == sorted(versions, reverse=True), versions
    assert len(set(versions)) == len(versions), versions
    current = version_tuple(package_version())
    if titles[0] == 'Forthcoming':
        # Not released yet: the next release bumps past package.xml's.
        assert all(v <= current for v in versions), (versions, current)
    else:
        assert versions[0] == current, (titles[0], package_version())


def test_catkin_pkg_reads_the_changelog_once_released():
    """What catkin_prepare_release writes parses, version and date."""
    changelog = pytest.importorskip('catkin_pkg.changelog')
    with open(CHANGELOG) as stream:
        text = stream.read()
    if 'Forthcoming\n-----------\n' in text:
        # catkin_prepare_release --bump patch renames the section.
        major, minor, patch = version_tuple(package_version())
        title = '%d.%d.%d (2026-11-27)' % (major, minor, patch + 1)
        text = text.replace('Forthcoming\n-----------\n',
                            '%s\n%s\n' % (title, '-' * len(title)))
    parsed = changelog.Changelog('dynamics_ros')
    changelog.populate_changelog_from_rst(parsed, text)
    versions = list(parsed.foreach_version())
    assert versions, 'catkin_pkg found no version in CHANGELOG.rst'
    version, date, content = versions[0]
    assert version_tuple(version) >= version_tuple(package_version())
    assert date is not None
    assert 'rosdep' in ''.join(item.as_txt() for item in content)


def test_catkin_prepare_release_finds_the_version_in_setup_py():
    """It rewrites setup.py's one ``version='X.Y.Z',`` with package.xml's."""
    package_version_module = pytest.importorskip('catkin_pkg.package_version')
    with open(os.path.join(REPO_ROOT, 'setup.py')) as stream:
        text = stream.read()
    bumped = package_version_module._replace_setup_py_version(text, '9.8.7')
    assert bumped.count("version='9.8.7',") == 1
    assert bumped.replace("version='9.8.7',",
                          "version='%s'," % package_version()) == text
