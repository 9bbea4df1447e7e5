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
Sphinx configuration of the dynamics_ros documentation.

``make docs`` builds it (``sphinx-build -W --keep-going doc build/docs``);
rosdoc2 finds it as ``doc/conf.py`` (``rosdoc2.yaml`` at the package root)
and runs it inside its own wrapping configuration, which adds autodoc,
intersphinx, its theme and myst_parser again (Sphinx loads an extension
once).  Pages are Markdown (MyST).
"""

import os
import sys
import xml.etree.ElementTree as ElementTree

# rosdoc2 exec()s this file from its own build folder, where __file__ is
# its wrapping conf.py: only where this folder holds the index is the
# package root ours to put on the path (rosdoc2 puts it there itself).
DOC = os.path.dirname(os.path.abspath(__file__))
if os.path.isfile(os.path.join(DOC, 'index.md')):
    ROOT = os.path.dirname(DOC)
    sys.path.insert(0, ROOT)
    MANIFEST = os.path.join(ROOT, 'package.xml')
else:
    MANIFEST = None


def package_version():
    """Return the version of package.xml ('' where it cannot be read)."""
    if MANIFEST is None or not os.path.isfile(MANIFEST):
        return ''
    return ElementTree.parse(MANIFEST).getroot().findtext('version', '')


project = 'dynamics_ros'
author = 'The dynamics_ros Authors'
copyright = '2026, The dynamics_ros Authors (Apache-2.0)'
release = package_version()
version = '.'.join(release.split('.')[:2])

extensions = [
    'myst_parser',
    'sphinx.ext.autodoc',
    'sphinx.ext.napoleon',
]
source_suffix = {'.md': 'markdown', '.rst': 'restructuredtext'}
master_doc = 'index'
root_doc = 'index'
exclude_patterns = ['_build', 'Thumbs.db', '.DS_Store']

# Headings of the pages get anchors, so pages can link to their sections.
myst_heading_anchors = 3
# Code blocks in the pages are run by test/package/test_doc_examples.py,
# not highlighted as a check: an unknown lexer is no error.
highlight_language = 'none'
suppress_warnings = ['misc.highlighting_failure']

# The API reference imports the core only (no ROS); the nodes' modules
# import rclpy, which autodoc then does not need.
autodoc_mock_imports = ['rclpy', 'sensor_msgs', 'std_msgs', 'geometry_msgs',
                        'trajectory_msgs', 'rosgraph_msgs', 'std_srvs']
# Every documented member of a class or module on the API page, and every
# cross-reference resolved (nitpicky): a name that moved or was misspelled
# fails the build instead of rendering as plain text.
autodoc_default_options = {'members': True}
nitpicky = True
nitpick_ignore = [
    # numpy's inventory is not fetched (the build runs offline, and rosdoc2
    # adds intersphinx only where it can reach the sites): the annotations
    # of the result dataclasses stay plain text.
    ('py:class', 'numpy.ndarray'),
]
napoleon_google_docstring = False
napoleon_numpy_docstring = True

html_theme = 'alabaster'
html_title = 'dynamics_ros'
html_static_path = []

rosdoc2_settings = {
    # rosdoc2's own theme; the pages carry no theme-specific markup.
    'override_theme': True,
}
