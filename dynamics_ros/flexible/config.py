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
Flexible-link declarations in YAML, beside an unchanged URDF.

::

    urdf: two_link_planar          # optional: shipped robot or path
    flexible_links:
      fore_link:                   # a URDF link moved by a joint
        length: 0.8                # m, along `axis` from `origin`
        mass: 1.5                  # kg (or mass_per_length, kg/m)
        EI: 200.0                  # N m^2 (or EI_xy and EI_xz)
        modes_xz: 2                # or `modes` for both planes
        modes_xy: 0
        damping_ratio: 0.005       # optional, per mode
        tip_mass: {mass: 0.2}      # optional; also joint_mass

See doc/theory/flexible_links.md for every key.
"""

import os

from .link import FlexibleLink, RigidPart
from .model import FlexibleModel
from ..errors import ModelError
from ..model.mimic_model import MimicModel
from ..model.robot_model import RobotModel
from ..model.urdf import load_urdf
from ..resources import read_user_yaml, robot_urdf

LINK_KEYS = {
    'length', 'mass', 'mass_per_length', 'EI', 'EI_xy', 'EI_xz', 'modes',
    'modes_xy', 'modes_xz', 'axis', 'y_axis', 'origin', 'normalization',
    'damping_ratio', 'joint_mass', 'tip_mass', 'quadrature_points'}
PART_KEYS = {'mass', 'com', 'inertia'}
TOP_KEYS = {'urdf', 'flexible_links'}


def _kind(value):
    """Name the YAML type of ``value`` without quoting it (a file's text)."""
    if value is None:
        return 'nothing'
    names = {str: 'text', list: 'a list', dict: 'a mapping',
             bool: 'a boolean', int: 'a number', float: 'a number'}
    return names.get(type(value), type(value).__name__)


def _unknown(keys, allowed, where):
    extra = sorted(set(keys) - allowed)
    if extra:
        raise ModelError('%s: unknown key(s) %s (allowed: %s)' % (
            where, ', '.join(extra), ', '.join(sorted(allowed))))


def rigid_part(spec, where):
    """Build a RigidPart from a mapping {mass, com, inertia}."""
    if not isinstance(spec, dict) or 'mass' not in spec:
        raise ModelError('%s must be a mapping with at least a mass, got %s'
                         % (where, _kind(spec)))
    _unknown(spec, PART_KEYS, where)
    return RigidPart(spec['mass'], spec.get('com', (0.0, 0.0, 0.0)),
                     spec.get('inertia', (0.0, 0.0, 0.0)))


def flexible_link(name, spec):
    """Build a FlexibleLink from one entry of ``flexible_links``."""
    where = 'flexible link %r' % name
    if not isinstance(spec, dict):
        raise ModelError('%s: expected a mapping of settings, got %s'
                         % (where, _kind(spec)))
    _unknown(spec, LINK_KEYS, where)
    if 'length' not in spec:
        raise ModelError('%s: length (m) is required' % where)
    settings = dict(spec)
    for part in ('joint_mass', 'tip_mass'):
        if part in settings:
            settings[part] = rigid_part(settings[part],
                                        '%s %s' % (where, part))
    return FlexibleLink(**settings)


def read_config(config):
    """
    Return (mapping, directory) of a YAML path, YAML text or mapping.

    A path is read with ``read_user_file`` (a regular file of at most
    CONFIG_SIZE_LIMIT bytes, read once); a reason never quotes its text.
    """
    data, directory, what = read_user_yaml(config, 'flexible config')
    # Checked before any key is named: a file that is not a flexible config
    # (a key file, /etc/passwd) is refused by its shape, never quoted.
    if not isinstance(data, dict) or 'flexible_links' not in data:
        raise ModelError('%s must be a mapping with a "flexible_links" '
                         'entry, got %s' % (what, 'a mapping without it'
                                            if isinstance(data, dict)
                                            else _kind(data)))
    return data, directory


def _robot(data, directory, model, load_options):
    if isinstance(model, (MimicModel, RobotModel)):
        return model
    if model is not None:
        return load_urdf(model, **load_options)
    if 'urdf' not in data:
        raise ModelError('flexible config has no "urdf" entry: pass the '
                         'robot model (RobotModel, URDF path or XML)')
    source = str(data['urdf'])
    path = os.path.join(directory, source)
    return load_urdf(path if os.path.isfile(path) else robot_urdf(source),
                     **load_options)


def load_flexible(config, model=None, **load_options):
    """
    Build a FlexibleModel from a YAML declaration (path, text or mapping).

    ``model`` is a RobotModel, or a URDF path or XML string given to
    dr.load_urdf with ``load_options``; by default the config's ``urdf``
    entry (a path relative to the YAML file, or a shipped robot's name).
    """
    data, directory = read_config(config)
    _unknown(data, TOP_KEYS, 'flexible config')
    links = data.get('flexible_links')
    if not isinstance(links, dict) or not links:
        raise ModelError('flexible config: "flexible_links" must map link '
                         'names to their settings, got %s' % _kind(links))
    robot = _robot(data, directory, model, load_options)
    return FlexibleModel(robot, {name: flexible_link(name, spec)
                                 for name, spec in links.items()})
