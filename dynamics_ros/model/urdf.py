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
Build a RobotModel (or MimicModel) from a URDF, a URDF string or a .xacro.

Movable joints (revolute, continuous, prismatic) become coordinates in
depth-first order from the root, children in document order (the order
Pinocchio and KDL use).  Fixed joints are merged: the child link's inertia is
added to the body it is welded to and its frame is kept in ``model.frames``.
Mimic joints keep their body and become dependent coordinates
(``MimicModel``).  The XML is read by ``urdf_xml`` (only what dynamics
needs); a .xacro file is expanded by ``xacro_source`` first.

What is refused (ModelError) and what only warns (ModelWarning) is in
doc/workflows/xacro_descriptions.md ("Robot descriptions").
"""

import os
import warnings

import numpy as np

from .mimic_model import MimicModel
from .ranges import LIMITS, within
from .robot_model import PRISMATIC, REVOLUTE, RobotModel
from .urdf_xml import all_finite, parse_document, read_robot, \
    xacro_elements
from .xacro_source import expand_xacro, is_xacro_path
from ..errors import ModelError, ModelWarning
from ..resources import MIB, quote_path, read_user_file, URDF_SIZE_LIMIT
from ..spatial import rpy_to_matrix

MOVABLE = {'revolute': REVOLUTE, 'continuous': REVOLUTE,
           'prismatic': PRISMATIC}
UNSUPPORTED = {
    'floating': 'a floating joint (6 DoF) is not supported: the model is a '
                'fixed-base tree; pick root_link below it',
    'planar': 'a planar joint (3 DoF) is not supported: the model is a '
              'fixed-base tree of 1-DoF joints; pick root_link below it',
}
# An inertia's violation of positive semi-definiteness or of the triangle
# inequality smaller than this fraction of a reference moment is rounding
# in the data (CAD exports, 6-digit URDFs) and passes silently.  The
# reference is the largest principal moment of the link or of any link of
# the model, whichever is larger: -3.5e-8 kg m^2 on a 1 mg placeholder link
# is nothing next to a 1 kg m^2 base.
INERTIA_TOLERANCE = 1e-6


def _read_text(source, xacro_args):
    """Return URDF XML text from a path, a .xacro path or an XML string."""
    if not isinstance(source, (str, os.PathLike)):
        raise ModelError('URDF source must be a file path or an XML string, '
                         'got %s' % type(source).__name__)
    source = os.fspath(source)
    # A byte-order mark or blank lines before the XML are still XML.
    xml = source.lstrip('\ufeff \t\r\n')
    if xml.startswith('<'):
        return xml, None
    if '<' in source or '\n' in source:
        # Text that is neither: never echo it (it may be a whole document).
        raise ModelError('URDF source is neither XML (it does not start '
                         'with "<") nor a file path')
    if is_xacro_path(source):
        return expand_xacro(source, xacro_args), source
    shown = quote_path(source)
    # Only stat calls before the safe read: nothing is opened here.
    if os.path.isdir(source):
        raise ModelError('URDF path %s is a directory, not a file' % shown)
    if not os.path.lexists(source):
        raise ModelError('URDF file %s does not exist' % shown)
    text = read_user_file(source, 'URDF file', URDF_SIZE_LIMIT,
                          encoding='utf-8-sig')
    if not text.lstrip(' \t\r\n').startswith('<'):
        raise ModelError('URDF file %s is not XML (it does not start '
                         'with "<")' % shown)
    return text, source


def urdf_text(source, xacro_args=None):
    """
    Return the URDF XML text of a path, a .xacro path or an XML string.

    A .xacro file, and a file of another name that uses xacro elements, is
    expanded with ``xacro_args``; an XML string is returned as it is (never
    expanded: xacro runs only on a file the caller named).  A file is read
    with ``read_user_file``: a regular file of at most URDF_SIZE_LIMIT.
    """
    text, path = _read_text(source, xacro_args)
    if path is not None and not is_xacro_path(path) and 'xacro' in text \
            and xacro_elements(parse_document(text)):
        # A xacro file under another name (robot.urdf with macros): the
        # text already read is expanded, the file is not read again.
        text = expand_xacro(path, xacro_args, text=text)
    return text


def description_text(text):
    """
    Return ``text`` if it is URDF XML; ModelError with a short reason if not.

    The entry for descriptions that come from elsewhere (the
    robot_description topic and parameter): text only, never read as a
    path and never given to xacro, whatever it looks like.  Files are named
    only by parameters (urdf_path) or by a Python caller (``load_urdf``).
    """
    if not isinstance(text, str):
        raise ModelError('a robot description must be URDF XML text, got %s'
                         % type(text).__name__)
    if len(text) > URDF_SIZE_LIMIT:
        raise ModelError('robot description is %d characters, over the %d '
                         'MiB limit' % (len(text), URDF_SIZE_LIMIT // MIB))
    xml = text.lstrip('\ufeff \t\r\n')
    if not xml.startswith('<'):
        if not xml:
            reason = 'it is empty'
        elif '\n' not in xml.rstrip() and (
                is_xacro_path(xml) or '/' in xml or xml.endswith('.urdf')):
            reason = 'it looks like a file path; paths are not read from ' \
                     'here, give the XML (or set urdf_path)'
        else:
            reason = 'it does not start with "<"'
        raise ModelError('robot description is not URDF XML (%s)' % reason)
    return xml


def _pose(origin, what):
    """Return rotation and translation of an <origin> (finite)."""
    values = tuple(origin.xyz) + tuple(origin.rpy)
    if not all_finite(values):
        raise ModelError('%s: origin has non-finite values %s' % (
            what, list(values)))
    within(np.array(origin.xyz), 'length', what + ' origin')
    return rpy_to_matrix(np.array(origin.rpy)), np.array(origin.xyz)


def _central_inertia(link):
    """
    Return mass, centre of mass and inertia about it, in the link frame.

    None for a link without <inertial>.  Refuses what makes dynamics
    meaningless: a negative or non-finite mass, non-finite inertia.
    """
    inertial = link.inertial
    if inertial is None:
        return None
    if not np.isfinite(inertial.mass) or inertial.mass < 0.0:
        raise ModelError('link %r: mass %r is not a finite non-negative '
                         'number' % (link.name, inertial.mass))
    within(inertial.mass, 'mass', 'link %r' % link.name)
    rotation, com = _pose(inertial.origin, 'link %r: inertial' % link.name)
    ixx, ixy, ixz, iyy, iyz, izz = inertial.inertia
    if not all_finite(inertial.inertia):
        raise ModelError('link %r: inertia has non-finite entries %s' % (
            link.name, list(inertial.inertia)))
    within(np.array(inertial.inertia), 'inertia', 'link %r' % link.name)
    tensor = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    return inertial.mass, com, rotation @ tensor @ rotation.T


def inertia_violation(principal, reference):
    """
    Return how far principal moments are from a physical body, or None.

    ``principal`` ascending; returns (kind, amount) for the larger of a
    negative moment or a triangle-inequality violation when it exceeds
    INERTIA_TOLERANCE times max(largest moment, ``reference``).
    """
    tolerance = INERTIA_TOLERANCE * max(float(principal[-1]), reference)
    negative = -float(principal[0])
    triangle = float(principal[2] - principal[0] - principal[1])
    if negative > tolerance and negative >= triangle:
        return 'negative', negative
    if triangle > tolerance:
        return 'triangle', triangle
    return None


def _warn_unphysical(name, principal, kind, amount):
    """Warn about an inertia that no rigid body has."""
    largest = max(float(np.max(np.abs(principal))), 1e-300)
    moments = ', '.join('%.4g' % value for value in principal)
    if kind == 'negative':
        what = 'a negative principal moment %.3g kg m^2' % -amount
    else:
        what = 'principal moments violating the triangle inequality ' \
               '(%.4g + %.4g < %.4g) by %.3g kg m^2' % (
                   principal[0], principal[1], principal[2], amount)
    warnings.warn(
        'link %r: inertia is not that of a rigid body: %s (%.2g%% of the '
        'largest moment; principal moments %s); used as given, as '
        'Pinocchio does' % (name, what, 100.0 * amount / largest, moments),
        ModelWarning, stacklevel=4)


def _tree(robot):
    """Map link -> parent joint and link -> child joints."""
    links = {link.name: link for link in robot.links}
    parent_joint = {}
    child_joints = {name: [] for name in links}
    for joint in robot.joints:
        for role, name in (('parent', joint.parent), ('child', joint.child)):
            if name not in links:
                raise ModelError('joint %r: %s link %r is not defined' % (
                    joint.name, role, name))
        if joint.parent == joint.child:
            raise ModelError('joint %r: link %r is its own parent' % (
                joint.name, joint.child))
        if joint.child in parent_joint:
            raise ModelError(
                'link %r has two parent joints (%r and %r): a URDF must be a '
                'tree' % (joint.child, parent_joint[joint.child].name,
                          joint.name))
        parent_joint[joint.child] = joint
        child_joints[joint.parent].append(joint)
    return links, parent_joint, child_joints


def _cycle(start, parent_joint):
    """Names of the joints of the cycle reached going up from ``start``."""
    path, link = [], start
    while link not in path:
        path.append(link)
        link = parent_joint[link].parent
    cycle = path[path.index(link):]
    return [parent_joint[name].name for name in cycle]


def _short(name, limit=80):
    """Return the repr of a user-given name, cut to ``limit`` characters."""
    text = str(name)
    return repr(text) if len(text) <= limit else repr(text[:limit]) + '...'


def _some(names, count=12):
    """Return up to ``count`` names for a message, saying how many more."""
    names = sorted(names)
    more = len(names) - count
    return ', '.join(name if len(name) <= 80 else name[:80] + '...'
                     for name in names[:count]) + (
        ' and %d more' % more if more > 0 else '')


def _find_root(root_link, links, parent_joint, child_joints):
    """Return the base link: ``root_link``, else the URDF's unique root."""
    if root_link is not None:
        if root_link not in links:
            raise ModelError('root_link %s is not a link of the URDF (links: '
                             '%s)' % (_short(root_link), _some(links)))
        return root_link
    roots = [name for name in links if name not in parent_joint]
    if not links:
        raise ModelError('URDF has no links')
    if not roots:
        raise ModelError('URDF has no root link: joints %s form a cycle '
                         '(every link has a parent)' % ', '.join(
                             _cycle(next(iter(links)), parent_joint)))
    if len(roots) > 1:
        raise ModelError(
            'URDF has several root links (%s): its links are not connected '
            'into one tree; pick one with root_link (only its subtree is '
            'kept)' % _some(roots))
    reached, stack = set(), [roots[0]]
    while stack:
        name = stack.pop()
        reached.add(name)
        stack.extend(j.child for j in child_joints[name])
    cyclic = sorted(set(links) - reached)
    if cyclic:
        raise ModelError('joints %s form a cycle: links %s are not reachable '
                         'from root %r' % (', '.join(_cycle(
                             cyclic[0], parent_joint)), _some(cyclic),
                             roots[0]))
    return roots[0]


def _chain_links(root, tip, links, parent_joint, child_joints):
    """Links kept for root -> tip (the path and what is welded to it)."""
    if tip is None:
        return None
    if tip not in links:
        raise ModelError('tip_link %s is not a link of the URDF' % _short(tip))
    path = [tip]
    while path[-1] != root:
        joint = parent_joint.get(path[-1])
        if joint is None or joint.parent in path:
            raise ModelError('tip_link %r is not below root_link %r' % (
                tip, root))
        path.append(joint.parent)
    keep = set(path)
    # Links welded (fixed joints only) to a chain link other than the tip
    # move with the arm's bodies - a Kinova's fingers beside its end
    # effector, a sensor on a link: they stay, merged into their body.
    stack = [j for link in path if link != tip for j in child_joints[link]]
    while stack:
        joint = stack.pop()
        if joint.type == 'fixed' and joint.child not in keep:
            keep.add(joint.child)
            stack.extend(child_joints[joint.child])
    return keep


def _warn_dropped(tip, keep, frames, links, child_joints):
    """
    Warn, with their mass, about links that hang from a moving kept link.

    What tip_link cuts off below the tip (a hand below a flange) or off
    the chain by a movable joint (fingers) would move with the arm: a
    payload estimate then counts their mass as payload.
    """
    dropped = []
    for link in keep:
        if link not in frames or frames[link][0] < 0:
            continue          # welded to the base: moves nothing
        stack = [j.child for j in child_joints[link] if j.child not in keep]
        while stack:
            name = stack.pop()
            dropped.append(name)
            stack.extend(j.child for j in child_joints[name])
    mass = sum(links[name].inertial.mass for name in dropped
               if links[name].inertial is not None)
    if mass > 0.0:
        warnings.warn(
            'tip_link %r leaves out links %s (%.4g kg) that hang from the '
            'arm below or beside the tip: they are not part of the arm '
            'model, so a payload estimate counts their mass as payload '
            '(load without tip_link to keep them)' % (
                tip, _some(sorted(dropped)), mass), ModelWarning,
            stacklevel=3)


def load_urdf(source, root_link=None, tip_link=None,
              gravity=(0.0, 0.0, -9.81), xacro_args=None, text_only=False):
    """
    Build a RobotModel from a URDF file path, XML string or .xacro path.

    With ``text_only`` the source must be URDF XML text (``description_text``):
    never a path, never xacro - for descriptions from a topic or parameter.

    ``root_link`` makes that link the fixed base (only its subtree is kept;
    it also picks one of several root links); ``tip_link`` keeps only the
    serial chain from the root to it, as KDL's ``Tree.getChain`` does,
    with the links welded to that chain beside the tip (fixed joints
    only: a gripper's fixed fingers beside the end effector, merged into
    their body); links with mass left out below the tip or by a movable
    joint are named with their mass in a ModelWarning (a payload
    estimate would count them as payload).
    ``gravity`` is in the root link's frame.  ``xacro_args`` (a dict or a
    list of ``'name:=value'``) are passed to xacro for a .xacro file.
    Returns a MimicModel when kept movable joints mimic others.  Raises
    ModelError naming the link or joint when the model cannot be built;
    warns (ModelWarning) about joints that move no mass and inertias no
    rigid body has.
    """
    given = gravity
    try:
        gravity = np.asarray(gravity, dtype=float)
    except (TypeError, ValueError):
        gravity = None
    if gravity is None or gravity.shape != (3,) or not np.all(
            np.isfinite(gravity)):
        text = repr(given if gravity is None else gravity.tolist())
        raise ModelError('gravity must be 3 finite numbers, got %s' % (
            text if len(text) <= 40 else text[:40] + '...'))
    within(gravity, 'gravity', 'load_urdf')
    if text_only:
        text = description_text(source)
    else:
        text = urdf_text(source, xacro_args)
    robot = read_robot(parse_document(text))
    links, parent_joint, child_joints = _tree(robot)
    root = _find_root(root_link, links, parent_joint, child_joints)
    keep = _chain_links(root, tip_link, links, parent_joint, child_joints)

    bodies = []  # per body: dict of joint data and merged inertia sums
    frames = {root: (-1, np.eye(3), np.zeros(3))}
    mimic = {}

    def kept_children(link_name):
        # Reversed so that popping visits children in document order.
        return [j for j in reversed(child_joints[link_name])
                if keep is None or j.child in keep]

    stack = kept_children(root)
    while stack:
        joint = stack.pop()
        if joint.child == root:
            raise ModelError('joint %r closes a cycle through root_link %r'
                             % (joint.name, root))
        _add_joint(joint, *frames[joint.parent], bodies, frames)
        if joint.mimic is not None and joint.type in MOVABLE:
            what = 'joint %r: mimic' % joint.name
            within(joint.mimic.multiplier, 'mimic multiplier', what)
            within(joint.mimic.offset, 'mimic offset', what)
            mimic[joint.name] = (joint.mimic.joint, joint.mimic.multiplier,
                                 joint.mimic.offset)
        stack.extend(kept_children(joint.child))
    _add_inertias(bodies, frames, links, root)
    if keep is not None:
        _warn_dropped(tip_link, keep, frames, links, child_joints)

    tree = _robot_model(robot.name, root, bodies, frames, gravity)
    mimic = _drop_broken_mimic(mimic, robot)
    model = MimicModel(tree, mimic) if mimic else tree
    _warn_if_garbage(model, root)
    return model


def _drop_broken_mimic(mimic, robot):
    """
    Return the mimic tags whose master is a movable joint of the URDF.

    A tag naming a joint the URDF does not have (or a fixed one) is a
    broken description that Pinocchio and KDL load with the joint free:
    so do we, with a warning.  A master that exists but was cut off by
    root_link/tip_link stays, and MimicModel refuses it.
    """
    movable = {joint.name for joint in robot.joints if joint.type in MOVABLE}
    kept = {}
    for name, (master, multiplier, offset) in mimic.items():
        if master in movable:
            kept[name] = (master, multiplier, offset)
            continue
        warnings.warn(
            'joint %r mimics joint %r, which is not a movable joint of the '
            'URDF: the mimic tag is ignored and %r is an independent joint'
            % (name, master, name), ModelWarning, stacklevel=3)
    return kept


def _add_inertias(bodies, frames, links, root):
    """Sum each moving link's inertia into its body; warn if unphysical."""
    moving = []
    for link_name, (body, rotation, translation) in frames.items():
        if body < 0 or link_name == root:
            continue  # welded to the fixed base: never moves
        params = _central_inertia(links[link_name])
        if params is not None:
            moving.append((link_name, body, rotation, translation, params))
    principal = {entry[0]: np.linalg.eigvalsh(entry[4][2])
                 for entry in moving}
    reference = max([float(p[-1]) for p in principal.values()] + [0.0])
    for link_name, body, rotation, translation, params in moving:
        violation = inertia_violation(principal[link_name], reference)
        if violation is not None:
            _warn_unphysical(link_name, principal[link_name], *violation)
        mass, com, inertia = params
        # Accumulate mass, first moment and inertia about the body origin.
        c = rotation @ com + translation
        data = bodies[body]
        data['mass'] += mass
        data['moment'] += mass * c
        data['inertia_origin'] += rotation @ inertia @ rotation.T + mass * (
            np.dot(c, c) * np.eye(3) - np.outer(c, c))


def _robot_model(name, root, bodies, frames, gravity):
    """Return the RobotModel of the numbered bodies."""
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
        axis=np.array([b['axis'] for b in bodies]).reshape(n, 3),
        origin_rotation=np.array(
            [b['rotation'] for b in bodies]).reshape(n, 3, 3),
        origin_translation=np.array(
            [b['translation'] for b in bodies]).reshape(n, 3),
        mass=mass, com=com, inertia_com=inertia_com, gravity=gravity,
        continuous=[b['continuous'] for b in bodies],
        lower_limit=[b['lower'] for b in bodies],
        upper_limit=[b['upper'] for b in bodies],
        velocity_limit=[b['velocity'] for b in bodies],
        effort_limit=[b['effort'] for b in bodies],
        damping=[b['damping'] for b in bodies],
        friction=[b['friction'] for b in bodies],
        root_link=root, name=name, frames=frames)


def _warn_if_garbage(model, root):
    """Warn about a model without joints or with joints moving no mass."""
    # Imported here: the dynamics package imports the model package.
    from .massless import massless_joints
    if model.nq == 0:
        warnings.warn(
            'model %r has no movable joint below root link %r (0 '
            'coordinates): nothing to compute' % (model.name, root),
            ModelWarning, stacklevel=3)
        return
    empty = massless_joints(model)
    if empty:
        warnings.warn(
            'joints %s move no mass or inertia about their axes: the mass '
            'matrix is singular, so forward dynamics and the simulator '
            'refuse this model; add <inertial> to the links they move, '
            'armature to the joints, or cut them off with tip_link'
            % ', '.join(repr(name) for name in empty),
            ModelWarning, stacklevel=3)


def _add_joint(joint, body, link_rotation, link_translation, bodies, frames):
    """Add a movable joint's child as a new body, or weld a fixed one."""
    what = 'joint %r' % joint.name
    origin_rotation, origin_translation = _pose(joint.origin, what)
    rotation = link_rotation @ origin_rotation
    translation = link_rotation @ origin_translation + link_translation
    if joint.type == 'fixed':
        frames[joint.child] = (body, rotation, translation)
        return
    if joint.type not in MOVABLE:
        raise ModelError('joint %r (%s): %s' % (
            joint.name, joint.type, UNSUPPORTED.get(
                joint.type, 'unknown joint type (URDF types: revolute, '
                            'continuous, prismatic, fixed, floating, '
                            'planar)')) + (
            ' (e.g. root_link=%r)' % joint.child if joint.type in UNSUPPORTED
            else ''))
    axis = np.array(joint.axis, dtype=float)
    norm = np.linalg.norm(axis)
    if not np.isfinite(norm) or norm < 1e-12:
        raise ModelError('joint %r: axis %s is not a usable direction' % (
            joint.name, axis.tolist()))
    limit = joint.limit
    continuous = joint.type == 'continuous'
    if limit is not None and (np.isnan(limit.lower) or
                              np.isnan(limit.upper)):
        raise ModelError('joint %r: limit lower/upper is NaN' % joint.name)
    lower = -np.inf if continuous or limit is None else limit.lower
    upper = np.inf if continuous or limit is None else limit.upper
    if lower > upper:
        raise ModelError('joint %r: lower limit %g is above upper limit %g'
                         % (joint.name, lower, upper))
    if limit is not None:
        what = 'joint %r' % joint.name
        # 0 means "not given" (below); negative or NaN is a mistake.
        within(limit.effort, 'effort limit', what, lowest=0.0)
        within(limit.velocity, 'velocity limit', what, lowest=0.0)
    unlimited = LIMITS['no limit']
    lower = -np.inf if lower <= -unlimited else lower
    upper = np.inf if upper >= unlimited else upper
    # URDF effort/velocity 0 (or absent) means "not given": no limit.
    effort = np.inf if limit is None or not 0 < limit.effort < unlimited \
        else limit.effort
    velocity = np.inf if limit is None or not 0 < limit.velocity < \
        unlimited else limit.velocity
    for label, value in (('damping', joint.damping),
                         ('friction', joint.friction)):
        if not np.isfinite(value):
            raise ModelError('joint %r: dynamics %s %r is not a finite '
                             'number' % (joint.name, label, value))
        # Negative damping or friction would feed energy into the arm.
        within(value, label, 'joint %r: <dynamics>' % joint.name,
               lowest=0.0)
    bodies.append(dict(
        joint=joint.name, link=joint.child, parent=body,
        type=MOVABLE[joint.type], axis=axis / norm, rotation=rotation,
        translation=translation, continuous=continuous, lower=lower,
        upper=upper, effort=effort, velocity=velocity,
        damping=joint.damping, friction=joint.friction,
        mass=0.0, moment=np.zeros(3), inertia_origin=np.zeros((3, 3))))
    frames[joint.child] = (len(bodies) - 1, np.eye(3), np.zeros(3))
