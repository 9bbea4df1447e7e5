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
Build a RobotModel from a URDF (file path or XML string) with urdfdom-py.

Movable joints (revolute, continuous, prismatic) become coordinates in
depth-first order from the root, children in document order (the order
Pinocchio and KDL use).  Fixed joints are merged: the child link's inertia is
added to the body it is welded to and its frame is kept in ``model.frames``.
"""

from contextlib import redirect_stderr
import io
import os
import warnings

import numpy as np

from .robot_model import PRISMATIC, REVOLUTE, RobotModel
from ..dynamics.spatial import rpy_to_matrix
from ..errors import ModelError, ModelWarning

MOVABLE = {'revolute': REVOLUTE, 'continuous': REVOLUTE,
           'prismatic': PRISMATIC}
UNSUPPORTED = {
    'floating': 'a floating joint (6 DoF) is not supported: the model is a '
                'fixed-base tree; pick root_link below it',
    'planar': 'a planar joint is not supported',
    'unknown': 'the joint type is unknown',
}


def _read_source(source):
    """Return URDF XML text from a path or an XML string."""
    if not isinstance(source, str):
        raise ModelError('URDF source must be a file path or an XML string, '
                         'got %s' % type(source).__name__)
    if source.lstrip().startswith('<'):
        return source
    if not os.path.isfile(source):
        raise ModelError('URDF file %r does not exist' % source)
    with open(source, encoding='utf-8') as stream:
        return stream.read()


def _parse(xml):
    """Parse XML with urdfdom-py, turning its failures into ModelError."""
    from urdf_parser_py.urdf import URDF
    messages = io.StringIO()
    try:
        with redirect_stderr(messages):
            # Bytes: lxml refuses str input that has an encoding declaration.
            return URDF.from_xml_string(xml.encode('utf-8'))
    except Exception as error:  # urdfdom-py raises many types on bad XML
        detail = messages.getvalue().strip().splitlines()
        raise ModelError('URDF could not be parsed: %s%s' % (
            error, (' (%s)' % detail[-1]) if detail else ''))


def _pose(origin):
    """Rotation and translation of a urdfdom-py Pose (None = identity)."""
    if origin is None:
        return np.eye(3), np.zeros(3)
    xyz = origin.xyz if origin.xyz is not None else [0.0, 0.0, 0.0]
    rpy = origin.rpy if origin.rpy is not None else [0.0, 0.0, 0.0]
    values = np.array(list(xyz) + list(rpy), dtype=float)
    if not np.all(np.isfinite(values)):
        raise ValueError('origin has non-finite values %s' % values)
    return rpy_to_matrix(values[3:]), values[:3]


def _link_inertia(link):
    """
    Mass, centre of mass and central inertia of a link, validated.

    Returns None for a link without <inertial> (massless).
    """
    inertial = link.inertial
    if inertial is None:
        return None
    mass = float(inertial.mass if inertial.mass is not None else 0.0)
    if not np.isfinite(mass) or mass < 0.0:
        raise ModelError('link %r: mass %r is not a finite non-negative '
                         'number' % (link.name, inertial.mass))
    try:
        rotation, com = _pose(inertial.origin)
    except ValueError as error:
        raise ModelError('link %r: inertial %s' % (link.name, error))
    tensor = np.zeros((3, 3))
    if inertial.inertia is not None:
        i = inertial.inertia
        tensor = np.array([[i.ixx, i.ixy, i.ixz],
                           [i.ixy, i.iyy, i.iyz],
                           [i.ixz, i.iyz, i.izz]], dtype=float)
    if not np.all(np.isfinite(tensor)):
        raise ModelError('link %r: inertia has non-finite entries' % link.name)
    principal = np.linalg.eigvalsh(tensor)
    tolerance = 1e-9 * max(1.0, float(np.max(np.abs(principal))))
    if principal[0] < -tolerance:
        raise ModelError(
            'link %r: inertia tensor is not positive semi-definite '
            '(principal moments %s)' % (link.name, np.round(principal, 9)))
    # A physical body's principal moments obey the triangle inequality.
    if principal[0] + principal[1] < principal[2] - tolerance:
        raise ModelError(
            'link %r: inertia violates the triangle inequality '
            '(principal moments %s: %.6g + %.6g < %.6g)' % (
                link.name, np.round(principal, 9), principal[0],
                principal[1], principal[2]))
    return mass, com, rotation @ tensor @ rotation.T


def _tree(robot):
    """Map link -> parent joint and link -> child joints; find the root."""
    links = {link.name: link for link in robot.links}
    parent_joint = {}
    child_joints = {name: [] for name in links}
    for joint in robot.joints:
        for role, name in (('parent', joint.parent), ('child', joint.child)):
            if name not in links:
                raise ModelError('joint %r: %s link %r is not defined' % (
                    joint.name, role, name))
        if joint.child in parent_joint:
            raise ModelError(
                'link %r has two parent joints (%r and %r): a URDF must be a '
                'tree' % (joint.child, parent_joint[joint.child].name,
                          joint.name))
        parent_joint[joint.child] = joint
        child_joints[joint.parent].append(joint)
    return links, parent_joint, child_joints


def _find_root(links, parent_joint, child_joints):
    """Return the unique link without a parent joint; detect cycles."""
    roots = [name for name in links if name not in parent_joint]
    if not roots:
        raise ModelError('URDF has no root link: the joints form a cycle '
                         '(every link has a parent)')
    if len(roots) > 1:
        raise ModelError('URDF has several root links %s: links are not '
                         'connected into one tree' % sorted(roots))
    reached, stack = set(), [roots[0]]
    while stack:
        name = stack.pop()
        reached.add(name)
        stack.extend(j.child for j in child_joints[name])
    cyclic = sorted(set(links) - reached)
    if cyclic:
        raise ModelError('links %s are not reachable from root %r: their '
                         'joints form a cycle' % (cyclic, roots[0]))
    return roots[0]


def _chain_links(root, tip, links, parent_joint):
    """Links on the path root -> tip, or None when no tip is given."""
    if tip is None:
        return None
    if tip not in links:
        raise ModelError('tip_link %r is not a link of the URDF' % tip)
    path = [tip]
    while path[-1] != root:
        joint = parent_joint.get(path[-1])
        if joint is None:
            raise ModelError('tip_link %r is not below root_link %r' % (
                tip, root))
        path.append(joint.parent)
    return set(path)


def load_urdf(source, root_link=None, tip_link=None,
              gravity=(0.0, 0.0, -9.81)):
    """
    Build a RobotModel from a URDF file path or XML string.

    ``root_link`` makes that link the fixed base (only its subtree is kept);
    ``tip_link`` keeps only the serial chain from the root to it, as KDL's
    ``Tree.getChain`` does.  ``gravity`` is in the root link's frame.
    Raises ModelError naming the link or joint when the model cannot be built.
    """
    gravity = np.asarray(gravity, dtype=float)
    if gravity.shape != (3,) or not np.all(np.isfinite(gravity)):
        raise ModelError('gravity must be 3 finite numbers, got %r' % (
            gravity.tolist(),))
    robot = _parse(_read_source(source))
    links, parent_joint, child_joints = _tree(robot)
    root = _find_root(links, parent_joint, child_joints)
    if root_link is not None:
        if root_link not in links:
            raise ModelError('root_link %r is not a link of the URDF (links: '
                             '%s)' % (root_link, ', '.join(sorted(links))))
        root = root_link
    keep = _chain_links(root, tip_link, links, parent_joint)

    bodies = []  # per body: dict of joint data and merged inertia sums
    frames = {root: (-1, np.eye(3), np.zeros(3))}
    massless_leaves = []

    def add_inertia(body, link, rotation, translation):
        # Accumulate mass, first moment and inertia about the body origin.
        params = _link_inertia(link)
        if body < 0 or params is None:
            return params is not None
        mass, com, inertia = params
        c = rotation @ com + translation
        data = bodies[body]
        data['mass'] += mass
        data['moment'] += mass * c
        data['inertia_origin'] += rotation @ inertia @ rotation.T + mass * (
            np.dot(c, c) * np.eye(3) - np.outer(c, c))
        return True

    def kept_children(link_name):
        # Reversed so that popping visits children in document order.
        return [j for j in reversed(child_joints[link_name])
                if keep is None or j.child in keep]

    stack = kept_children(root)
    while stack:
        joint = stack.pop()
        _add_joint(joint, *frames[joint.parent], bodies, frames)
        stack.extend(kept_children(joint.child))
    # Inertias in a second pass, after every body is numbered.
    for link_name, (body, rotation, translation) in frames.items():
        if link_name == root:
            continue
        has_inertial = add_inertia(body, links[link_name], rotation,
                                   translation)
        if (body >= 0 and not has_inertial
                and bodies[body]['link'] == link_name
                and not child_joints[link_name]):
            massless_leaves.append((bodies[body]['joint'], link_name))
    for joint_name, link_name in massless_leaves:
        warnings.warn(
            'joint %r moves link %r, a leaf without <inertial>: it is '
            'massless, so the mass matrix may be singular' % (
                joint_name, link_name), ModelWarning, stacklevel=2)

    n = len(bodies)
    mass = np.array([b['mass'] for b in bodies])
    com = np.zeros((n, 3))
    inertia_com = np.zeros((n, 3, 3))
    for i, b in enumerate(bodies):
        if mass[i] > 0.0:
            com[i] = b['moment'] / mass[i]
        c = com[i]
        inertia_com[i] = b['inertia_origin'] - mass[i] * (
            np.dot(c, c) * np.eye(3) - np.outer(c, c))
    return RobotModel(
        joint_names=[b['joint'] for b in bodies],
        body_names=[b['link'] for b in bodies],
        parent=[b['parent'] for b in bodies],
        joint_type=[b['type'] for b in bodies],
        axis=[b['axis'] for b in bodies],
        origin_rotation=[b['rotation'] for b in bodies],
        origin_translation=[b['translation'] for b in bodies],
        mass=mass, com=com, inertia_com=inertia_com, gravity=gravity,
        continuous=[b['continuous'] for b in bodies],
        lower_limit=[b['lower'] for b in bodies],
        upper_limit=[b['upper'] for b in bodies],
        velocity_limit=[b['velocity'] for b in bodies],
        effort_limit=[b['effort'] for b in bodies],
        damping=[b['damping'] for b in bodies],
        friction=[b['friction'] for b in bodies],
        root_link=root, name=robot.name or 'robot', frames=frames)


def _limit(value, default):
    return default if value is None else float(value)


def _add_joint(joint, body, link_rotation, link_translation, bodies, frames):
    """Add a movable joint's child as a new body, or weld a fixed one."""
    try:
        origin_rotation, origin_translation = _pose(joint.origin)
    except ValueError as error:
        raise ModelError('joint %r: %s' % (joint.name, error))
    rotation = link_rotation @ origin_rotation
    translation = link_rotation @ origin_translation + link_translation
    if joint.type == 'fixed':
        frames[joint.child] = (body, rotation, translation)
        return
    if joint.type not in MOVABLE:
        raise ModelError('joint %r (%s): %s' % (
            joint.name, joint.type, UNSUPPORTED.get(
                joint.type, 'unsupported joint type')))
    if joint.mimic is not None:
        raise ModelError(
            'joint %r mimics joint %r: mimic joints are not supported; cut '
            'them off with tip_link' % (joint.name, joint.mimic.joint))
    axis = np.array(joint.axis if joint.axis is not None else [1, 0, 0],
                    dtype=float)
    norm = np.linalg.norm(axis)
    if not np.isfinite(norm) or norm < 1e-12:
        raise ModelError('joint %r: axis %s is not a usable direction' % (
            joint.name, axis.tolist()))
    limit, dynamics = joint.limit, joint.dynamics
    continuous = joint.type == 'continuous'
    lower = -np.inf if continuous or limit is None else _limit(
        limit.lower, -np.inf)
    upper = np.inf if continuous or limit is None else _limit(
        limit.upper, np.inf)
    if lower > upper:
        raise ModelError('joint %r: lower limit %g is above upper limit %g'
                         % (joint.name, lower, upper))
    effort = np.inf if limit is None else _limit(limit.effort, np.inf)
    velocity = np.inf if limit is None else _limit(limit.velocity, np.inf)
    bodies.append(dict(
        joint=joint.name, link=joint.child, parent=body,
        type=MOVABLE[joint.type], axis=axis / norm, rotation=rotation,
        translation=translation, continuous=continuous, lower=lower,
        upper=upper, effort=effort if effort > 0 else np.inf,
        velocity=velocity if velocity > 0 else np.inf,
        damping=0.0 if dynamics is None else _limit(dynamics.damping, 0.0),
        friction=0.0 if dynamics is None else _limit(dynamics.friction, 0.0),
        mass=0.0, moment=np.zeros(3), inertia_origin=np.zeros((3, 3))))
    frames[joint.child] = (len(bodies) - 1, np.eye(3), np.zeros(3))
