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
Find the files the package ships (URDFs, configs, launch files).

In a source checkout they sit beside the package; after a colcon build or a
pip install they are under ``<prefix>/share/dynamics_ros``.
"""

import os
import sys

PACKAGE = 'dynamics_ros'
DEFAULT_ROBOT = 'puma560'


def share_directories():
    """Candidate roots holding urdf/, config/ and launch/, best first."""
    source_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    roots = [source_root]
    prefixes = os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep)
    prefixes.append(sys.prefix)
    for prefix in prefixes:
        if prefix:
            roots.append(os.path.join(prefix, 'share', PACKAGE))
    return roots


def shipped_file(folder, name):
    """Path of ``folder/name`` in the first share directory that has it."""
    for root in share_directories():
        path = os.path.join(root, folder, name)
        if os.path.isfile(path):
            return path
    raise FileNotFoundError('%s/%s is not installed with %s (looked in %s)'
                            % (folder, name, PACKAGE,
                               ', '.join(share_directories())))


def robot_urdf(name=DEFAULT_ROBOT):
    """Path of a shipped robot: ``two_link_planar``, ``puma560``, ...."""
    if name.endswith('.urdf'):
        name = name[:-len('.urdf')]
    return shipped_file('urdf', name + '.urdf')
