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
Generated URDFs for tests: chains and trees with every feature we parse.

Randomised but seeded: rotated joint and inertial frames, arbitrary unit
axes, prismatic and continuous joints, chains of fixed joints carrying
mass, links without <inertial> in the middle of the tree, several branches.
"""

import numpy as np


def _fmt(values):
    return ' '.join('%.17g' % v for v in values)


def random_inertial(rng, indent='    '):
    """Return an <inertial> block of a random box-like (physical) body."""
    mass = rng.uniform(0.2, 5.0)
    size = rng.uniform(0.02, 0.4, 3)
    moments = mass / 12.0 * np.array([size[1] ** 2 + size[2] ** 2,
                                      size[0] ** 2 + size[2] ** 2,
                                      size[0] ** 2 + size[1] ** 2])
    # Express the central inertia in a rotated frame: full tensor.
    angles = rng.uniform(-np.pi, np.pi, 3)
    a, b, c = angles
    Rx = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)],
                   [0, np.sin(a), np.cos(a)]])
    Ry = np.array([[np.cos(b), 0, np.sin(b)], [0, 1, 0],
                   [-np.sin(b), 0, np.cos(b)]])
    Rz = np.array([[np.cos(c), -np.sin(c), 0], [np.sin(c), np.cos(c), 0],
                   [0, 0, 1]])
    R = Rz @ Ry @ Rx
    tensor = R @ np.diag(moments) @ R.T
    return ('%s<inertial>\n%s  <origin xyz="%s" rpy="%s"/>\n'
            '%s  <mass value="%.17g"/>\n'
            '%s  <inertia ixx="%.17g" ixy="%.17g" ixz="%.17g" iyy="%.17g" '
            'iyz="%.17g" izz="%.17g"/>\n%s</inertial>\n') % (
        indent, indent, _fmt(rng.uniform(-0.2, 0.2, 3)),
        _fmt(rng.uniform(-np.pi, np.pi, 3)), indent, mass, indent,
        tensor[0, 0], tensor[0, 1], tensor[0, 2], tensor[1, 1],
        tensor[1, 2], tensor[2, 2], indent)


def random_urdf(seed, n_movable=6, tree=False, prismatic=True,
                continuous=True, fixed_chains=True, aligned_axes=False):
    """
    URDF text of a random robot with ``n_movable`` movable joints.

    ``tree`` attaches each new joint to a random earlier link (else to the
    last one); ``fixed_chains`` inserts chains of fixed joints, some links
    massless.  Returns the XML string.
    """
    rng = np.random.default_rng(seed)
    links = ['base_link']
    parts = ['<?xml version="1.0"?>', '<robot name="random_%d">' % seed,
             '  <link name="base_link">',
             random_inertial(rng).rstrip('\n'), '  </link>']
    count = 0

    def add_joint(kind, parent, child, axis=None, limits=True):
        lines = ['  <joint name="%s_joint" type="%s">' % (child, kind),
                 '    <parent link="%s"/>' % parent,
                 '    <child link="%s"/>' % child,
                 '    <origin xyz="%s" rpy="%s"/>' % (
                     _fmt(rng.uniform(-0.5, 0.5, 3)),
                     _fmt(rng.uniform(-np.pi, np.pi, 3)))]
        if axis is not None:
            lines.append('    <axis xyz="%s"/>' % _fmt(axis))
        if limits:
            lines.append('    <limit lower="-2.5" upper="2.5" effort="100" '
                         'velocity="3"/>')
        lines.append('  </joint>')
        parts.extend(lines)

    for index in range(n_movable):
        parent = links[rng.integers(len(links))] if tree else links[-1]
        if fixed_chains and rng.uniform() < 0.4:
            for _ in range(rng.integers(1, 3)):
                child = 'fixed_%d_%d' % (index, count)
                count += 1
                add_joint('fixed', parent, child, limits=False)
                massless = rng.uniform() < 0.4
                parts.append('  <link name="%s">' % child)
                if not massless:
                    parts.append(random_inertial(rng).rstrip('\n'))
                parts.append('  </link>')
                links.append(child)
                parent = child
        choices = ['revolute']
        if prismatic:
            choices.append('prismatic')
        if continuous:
            choices.append('continuous')
        kind = choices[rng.integers(len(choices))]
        if aligned_axes:
            axis = np.eye(3)[rng.integers(3)]
        else:
            axis = rng.normal(size=3)
            axis /= np.linalg.norm(axis)
        child = 'link_%d' % index
        add_joint(kind, parent, child, axis=axis,
                  limits=kind != 'continuous')
        parts.append('  <link name="%s">' % child)
        parts.append(random_inertial(rng).rstrip('\n'))
        parts.append('  </link>')
        links.append(child)
    parts.append('</robot>')
    return '\n'.join(parts) + '\n'


def serial_chain_urdf(n_links, seed=0):
    """Return a revolute serial chain of ``n_links`` links (for scaling)."""
    return random_urdf(seed, n_movable=n_links, tree=False, prismatic=False,
                       continuous=False, fixed_chains=False)
