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
Write a RobotModel as URDF text (for robot_state_publisher, Pinocchio, ...).

Each body becomes a link with its inertial block (centre of mass and central
inertia in the body frame) and a joint from its parent body; every other
frame in ``model.frames`` (links welded by fixed joints) becomes a massless
link on a fixed joint.  URDF cannot say three things a RobotModel can, so:

- a revolute joint without limits is written ``continuous``;
- a prismatic joint without limits gets lower/upper of -/+ UNLIMITED_TRAVEL
  metres (URDF reads a missing bound as 0);
- an infinite effort or velocity limit is written 0, which the loader reads
  back as "no limit"; armature and gravity have no URDF element and are
  dropped.
"""

from xml.sax.saxutils import quoteattr

import numpy as np

from .robot_model import PRISMATIC

UNLIMITED_TRAVEL = 1e6


def matrix_to_rpy(rotation):
    """
    Return URDF roll, pitch, yaw with Rz(yaw) Ry(pitch) Rx(roll) = rotation.

    At pitch = +-pi/2 only yaw -+ roll is defined; roll is then set to 0.
    """
    R = np.asarray(rotation, dtype=float)
    pitch = np.arctan2(-R[2, 0], np.hypot(R[0, 0], R[1, 0]))
    if np.hypot(R[0, 0], R[1, 0]) > 1e-10:
        roll = np.arctan2(R[2, 1], R[2, 2])
        yaw = np.arctan2(R[1, 0], R[0, 0])
    else:
        roll = 0.0
        yaw = np.arctan2(-R[0, 1], R[1, 1])
    return np.array([roll, pitch, yaw])


def _numbers(values):
    # repr-exact floats, -0 printed as 0.
    return ' '.join('%.17g' % (float(v) + 0.0) for v in values)


def _origin(rotation, translation, indent):
    return '%s<origin xyz="%s" rpy="%s"/>' % (
        indent, _numbers(translation), _numbers(matrix_to_rpy(rotation)))


def _inertial(mass, com, inertia, indent):
    if mass == 0.0 and not np.any(inertia):
        return []
    i = inertia
    return [
        '%s<inertial>' % indent,
        _origin(np.eye(3), com, indent + '  '),
        '%s  <mass value="%.17g"/>' % (indent, mass),
        '%s  <inertia ixx="%.17g" ixy="%.17g" ixz="%.17g" iyy="%.17g" '
        'iyz="%.17g" izz="%.17g"/>' % (
            indent, i[0, 0], i[0, 1], i[0, 2], i[1, 1], i[1, 2], i[2, 2]),
        '%s</inertial>' % indent]


def _finite_or_zero(value):
    return float(value) if np.isfinite(value) else 0.0


def _joint_kind(model, i):
    if model.joint_type[i] == PRISMATIC:
        return 'prismatic'
    unlimited = not (np.isfinite(model.lower_limit[i])
                     and np.isfinite(model.upper_limit[i]))
    return 'continuous' if model.continuous[i] or unlimited else 'revolute'


def _limit(model, i, kind):
    attributes = 'effort="%.17g" velocity="%.17g"' % (
        _finite_or_zero(model.effort_limit[i]),
        _finite_or_zero(model.velocity_limit[i]))
    if kind == 'revolute':
        attributes = 'lower="%.17g" upper="%.17g" ' % (
            model.lower_limit[i], model.upper_limit[i]) + attributes
    elif kind == 'prismatic':
        lower = max(model.lower_limit[i], -UNLIMITED_TRAVEL)
        upper = min(model.upper_limit[i], UNLIMITED_TRAVEL)
        attributes = 'lower="%.17g" upper="%.17g" ' % (lower, upper) + \
            attributes
    return '    <limit %s/>' % attributes


def _unique(name, taken):
    candidate, count = name, 1
    while candidate in taken:
        count += 1
        candidate = '%s_%d' % (name, count)
    taken.add(candidate)
    return candidate


def to_urdf(model, name=None):
    """
    Return URDF XML text of ``model``.

    Loading the text back with ``load_urdf`` gives the same joint-space
    dynamics (same joint names, order, frames and inertias) as ``model``.
    A MimicModel is written as its tree with a ``<mimic>`` per mimic joint.
    """
    mimic = model.mimic
    model = getattr(model, 'tree', model)
    lines = ['<?xml version="1.0"?>',
             '<robot name=%s>' % quoteattr(name or model.name)]
    links = [model.root_link] + list(model.body_names)
    joint_names = set(model.joint_names)
    lines.append('  <link name=%s/>' % quoteattr(model.root_link))
    for i in range(model.nq):
        lines.append('  <link name=%s>' % quoteattr(model.body_names[i]))
        lines.extend(_inertial(model.mass[i], model.com[i],
                               model.inertia_com[i], '    '))
        lines.append('  </link>')
        kind = _joint_kind(model, i)
        parent = model.parent[i]
        lines.extend([
            '  <joint name=%s type="%s">' % (
                quoteattr(model.joint_names[i]), kind),
            '    <parent link=%s/>' % quoteattr(links[parent + 1]),
            '    <child link=%s/>' % quoteattr(model.body_names[i]),
            _origin(model.origin_rotation[i], model.origin_translation[i],
                    '    '),
            '    <axis xyz="%s"/>' % _numbers(model.axis[i]),
            _limit(model, i, kind),
            '    <dynamics damping="%.17g" friction="%.17g"/>' % (
                model.damping[i], model.friction[i])])
        if model.joint_names[i] in mimic:
            master, multiplier, offset = mimic[model.joint_names[i]]
            lines.append('    <mimic joint=%s multiplier="%.17g" '
                         'offset="%.17g"/>' % (quoteattr(master), multiplier,
                                               offset))
        lines.append('  </joint>')
    for link, (body, rotation, translation) in model.frames.items():
        if link in links:
            continue
        lines.append('  <link name=%s/>' % quoteattr(link))
        lines.extend([
            '  <joint name=%s type="fixed">' % quoteattr(
                _unique(link + '_joint', joint_names)),
            '    <parent link=%s/>' % quoteattr(links[body + 1]),
            '    <child link=%s/>' % quoteattr(link),
            _origin(rotation, translation, '    '),
            '  </joint>'])
    lines.append('</robot>')
    return '\n'.join(lines) + '\n'
