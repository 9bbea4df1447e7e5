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
Denavit-Hartenberg tables of serial chains: extract from a model, build one.

Two conventions, both with the joint variable added to a constant offset
(``theta = theta_offset + q`` for a revolute joint, ``d = d_offset + q`` for a
prismatic one):

- ``standard`` (distal; Paul, Luh-Walker-Paul, Turney et al. 1980 eq. 1.10,
  Nasser's appendix): frame i sits on joint i+1's axis and
  ``T_{i-1}^i = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i)``;
- ``modified`` (proximal; Craig, and Freeman's Duffy chain, eqs. 2-45 to
  2-50, docs/papers/freeman_1985.md): frame i sits on joint i's axis and
  ``T_{i-1}^i = Rx(alpha_{i-1}) Tx(a_{i-1}) Rz(theta_i) Tz(d_i)``; row i of
  the table holds ``a_{i-1}, alpha_{i-1}, theta_i, d_i``.

DH frames are placed on the joint axes, so what DH cannot say is kept as two
fixed transforms: ``base`` (root link -> DH frame 0) and ``tool`` (last DH
frame -> tip link).  They are identities when the URDF's root and tip frames
already are DH frames; ``extra_transforms()`` lists the ones that are not.
Link inertial parameters are stored in the DH frame of their link.

Mimic joints: a MimicModel's table is its tree's, one row per movable joint
(a mimic joint moves its link like any other), and ``mimic`` records the
coupling: ``q_j = multiplier * q_master + offset`` for each mimic row.
``from_dh`` of such a table returns a MimicModel again.
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import numpy as np

from .mimic_model import MimicModel
from .robot_model import JOINT_DEFAULTS, joint_properties, PRISMATIC, \
    REVOLUTE, RobotModel
from ..errors import ModelError

CONVENTIONS = ('standard', 'modified')
# Lengths below this (m) are zero: axes meet, are parallel or coincide.
LINEAR_TOLERANCE = 1e-9
ANGULAR_TOLERANCE = 1e-9


def rot_x(angle):
    """Return the 4x4 homogeneous rotation about x by ``angle``."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[1.0, 0.0, 0.0, 0.0], [0.0, c, -s, 0.0],
                     [0.0, s, c, 0.0], [0.0, 0.0, 0.0, 1.0]])


def rot_z(angle):
    """Return the 4x4 homogeneous rotation about z by ``angle``."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, -s, 0.0, 0.0], [s, c, 0.0, 0.0],
                     [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])


def translation(x=0.0, y=0.0, z=0.0):
    """Return the 4x4 homogeneous translation by (x, y, z)."""
    T = np.eye(4)
    T[:3, 3] = x, y, z
    return T


def homogeneous(rotation, position):
    """Return the 4x4 transform of a rotation and a position."""
    T = np.eye(4)
    T[:3, :3] = rotation
    T[:3, 3] = position
    return T


def inverse(T):
    """Return the inverse of a 4x4 rigid transform."""
    R = T[:3, :3]
    return homogeneous(R.T, -R.T @ T[:3, 3])


def dh_link_transform(convention, a, alpha, theta, d):
    """Return ``T_{i-1}^i`` of one DH row (joint value already included)."""
    if convention == 'standard':
        return rot_z(theta) @ translation(z=d) @ translation(x=a) @ rot_x(
            alpha)
    return rot_x(alpha) @ translation(x=a) @ rot_z(theta) @ translation(z=d)


def _per_joint(value, n, default, name, dtype=float):
    if value is None:
        return np.full(n, default, dtype=dtype)
    array = np.asarray(value, dtype=dtype)
    if array.shape != (n,):
        raise ModelError('DH table: %s must have %d values (one per joint), '
                         'got shape %s' % (name, n, array.shape))
    return array


@dataclass
class DHTable:
    """
    A serial chain as a Denavit-Hartenberg table with link inertias.

    Per joint i (arrays of length n): ``a``, ``alpha``, ``d``, ``theta`` (the
    row; for ``modified`` the row is a_{i-1}, alpha_{i-1}, theta_i, d_i),
    ``joint_type`` (REVOLUTE or PRISMATIC; the joint value q_i is added to
    ``theta`` or ``d``), ``mass``, ``com`` (n, 3) and ``inertia_com``
    (n, 3, 3) of link i in DH frame i (inertia about the centre of mass).
    ``base`` and ``tool`` are 4x4 transforms root -> DH frame 0 and DH frame
    n -> tip link.  Limits and names default to unlimited and generic.
    ``mimic`` maps a row's joint name to ``(master, multiplier, offset)``
    when that joint follows another (URDF ``<mimic>``); empty otherwise.
    """

    a: np.ndarray
    alpha: np.ndarray
    d: np.ndarray
    theta: np.ndarray
    joint_type: np.ndarray = None
    convention: str = 'standard'
    mass: np.ndarray = None
    com: np.ndarray = None
    inertia_com: np.ndarray = None
    base: np.ndarray = None
    tool: np.ndarray = None
    joint_names: List[str] = None
    link_names: List[str] = None
    root_link: str = 'base_link'
    tip_link: str = 'tool0'
    gravity: np.ndarray = field(
        default_factory=lambda: np.array([0.0, 0.0, -9.81]))
    # Optional per-joint properties (robot_model.JOINT_DEFAULTS when None).
    continuous: Optional[np.ndarray] = None
    lower_limit: Optional[np.ndarray] = None
    upper_limit: Optional[np.ndarray] = None
    velocity_limit: Optional[np.ndarray] = None
    effort_limit: Optional[np.ndarray] = None
    damping: Optional[np.ndarray] = None
    friction: Optional[np.ndarray] = None
    armature: Optional[np.ndarray] = None
    name: str = 'dh_robot'
    mimic: Dict[str, Tuple[str, float, float]] = field(default_factory=dict)

    def __post_init__(self):
        """Check shapes and fill defaults; raise ModelError when wrong."""
        if self.convention not in CONVENTIONS:
            raise ModelError('DH convention must be one of %s, got %r' % (
                ', '.join(CONVENTIONS), self.convention))
        self.a = np.asarray(self.a, dtype=float).reshape(-1)
        n = len(self.a)
        if n == 0:
            raise ModelError('DH table has no rows')
        self.alpha = _per_joint(self.alpha, n, 0.0, 'alpha')
        self.d = _per_joint(self.d, n, 0.0, 'd')
        self.theta = _per_joint(self.theta, n, 0.0, 'theta')
        self.joint_type = _per_joint(self.joint_type, n, REVOLUTE,
                                     'joint_type', int)
        bad = [i for i, t in enumerate(self.joint_type)
               if t not in (REVOLUTE, PRISMATIC)]
        if bad:
            raise ModelError('DH table: joint_type of rows %s is neither '
                             'REVOLUTE (0) nor PRISMATIC (1)' % bad)
        self.mass = _per_joint(self.mass, n, 0.0, 'mass')
        if np.any(~np.isfinite(self.mass)) or np.any(self.mass < 0.0):
            raise ModelError('DH table: masses must be finite and >= 0, got '
                             '%s' % self.mass)
        self.com = self._array(self.com, (n, 3), 'com')
        self.inertia_com = self._array(self.inertia_com, (n, 3, 3),
                                       'inertia_com')
        self.base = self._transform(self.base, 'base')
        self.tool = self._transform(self.tool, 'tool')
        self.joint_names = list(self.joint_names or [
            'joint%d' % (i + 1) for i in range(n)])
        self.link_names = list(self.link_names or [
            'link%d' % (i + 1) for i in range(n)])
        for label, names in (('joint_names', self.joint_names),
                             ('link_names', self.link_names)):
            if len(names) != n:
                raise ModelError('DH table: %s has %d names for %d rows' % (
                    label, len(names), n))
        self.gravity = np.asarray(self.gravity, dtype=float).reshape(3)
        for name, default, dtype in JOINT_DEFAULTS:
            setattr(self, name, _per_joint(getattr(self, name), n, default,
                                           name, dtype))
        for name in ('a', 'alpha', 'd', 'theta'):
            if not np.all(np.isfinite(getattr(self, name))):
                raise ModelError('DH table: %s has non-finite values %s' % (
                    name, getattr(self, name)))
        self.mimic = {joint: (str(master), float(m), float(o))
                      for joint, (master, m, o) in dict(
                          self.mimic or {}).items()}
        unknown = sorted({name for joint, (master, _, _) in self.mimic.items()
                          for name in (joint, master)
                          if name not in self.joint_names})
        if unknown:
            raise ModelError('DH table: mimic names joints %s that are not '
                             'rows of the table (%s)' % (
                                 ', '.join(unknown),
                                 ', '.join(self.joint_names)))

    @staticmethod
    def _array(value, shape, name):
        if value is None:
            return np.zeros(shape)
        array = np.asarray(value, dtype=float)
        if array.shape != shape:
            raise ModelError('DH table: %s must have shape %s, got %s' % (
                name, shape, array.shape))
        return array

    @staticmethod
    def _transform(value, name):
        if value is None:
            return np.eye(4)
        T = np.asarray(value, dtype=float)
        if T.shape != (4, 4):
            raise ModelError('DH table: %s must be a 4x4 transform, got '
                             'shape %s' % (name, T.shape))
        R = T[:3, :3]
        if (not np.allclose(R @ R.T, np.eye(3), atol=1e-9)
                or np.linalg.det(R) < 0.0
                or not np.allclose(T[3], [0, 0, 0, 1])):
            raise ModelError('DH table: %s is not a rigid transform' % name)
        return T

    @property
    def n(self):
        """Return the number of joints (rows)."""
        return len(self.a)

    def joint_values(self, q):
        """Return the rows' (theta, d) with the joint values ``q`` added."""
        q = np.asarray(q, dtype=float).reshape(self.n)
        revolute = self.joint_type == REVOLUTE
        return (self.theta + np.where(revolute, q, 0.0),
                self.d + np.where(revolute, 0.0, q))

    def link_transform(self, i, q_i):
        """Return ``T_{i-1}^i`` (4x4) of row i (0-based) at joint value q_i."""
        theta, d = self.theta[i], self.d[i]
        if self.joint_type[i] == REVOLUTE:
            theta = theta + q_i
        else:
            d = d + q_i
        return dh_link_transform(self.convention, self.a[i], self.alpha[i],
                                 theta, d)

    def frames(self, q):
        """Return the root-frame poses (4x4) of DH frames 0..n and the tip."""
        q = np.asarray(q, dtype=float).reshape(self.n)
        poses = [self.base.copy()]
        for i in range(self.n):
            poses.append(poses[-1] @ self.link_transform(i, q[i]))
        poses.append(poses[-1] @ self.tool)
        return poses

    def extra_transforms(self):
        """Return ``[(name, 4x4)]`` of the base/tool transforms DH needs."""
        return [(name, T) for name, T in (('base', self.base),
                                          ('tool', self.tool))
                if not np.allclose(T, np.eye(4), atol=1e-12)]

    def rows(self):
        """
        Return the table as dicts (for printing), joint value at q=0.

        ``mimic`` is None, or the (master, multiplier, offset) of a row
        whose joint follows another.
        """
        kinds = {REVOLUTE: 'revolute', PRISMATIC: 'prismatic'}
        return [dict(joint=self.joint_names[i],
                     type=kinds[int(self.joint_type[i])],
                     a=self.a[i], alpha=self.alpha[i], d=self.d[i],
                     theta=self.theta[i], variable='theta' if
                     self.joint_type[i] == REVOLUTE else 'd',
                     mimic=self.mimic.get(self.joint_names[i]))
                for i in range(self.n)]


# --- extraction: URDF model -> DH table -------------------------------------

def _serial_order(model):
    """Check that ``model`` is one chain from the root; raise otherwise."""
    for i, p in enumerate(model.parent):
        if p != i - 1:
            raise ModelError(
                'model %r is not a serial chain: joint %r hangs from %s, not '
                'from the previous joint; load it with tip_link=... (and '
                'root_link=...) to keep one chain' % (
                    model.name, model.joint_names[i],
                    'the base' if p < 0 else repr(model.joint_names[p])))


def _joint_lines(model):
    """Root-frame body poses and joint axis lines (point, unit direction)."""
    n = model.nq
    rotations, positions = np.zeros((n, 3, 3)), np.zeros((n, 3))
    for i in range(n):
        R, p = model.origin_rotation[i], model.origin_translation[i]
        if i > 0:
            R, p = rotations[i - 1] @ R, rotations[i - 1] @ p + positions[i - 1]
        rotations[i], positions[i] = R, p
    directions = np.einsum('nij,nj->ni', rotations, model.axis)
    directions /= np.linalg.norm(directions, axis=1)[:, None]
    return rotations, positions, directions


def _project_on_line(point, line_point, direction):
    """Return the point of a line closest to ``point``."""
    return line_point + direction * np.dot(point - line_point, direction)


def _perpendicular(vector, direction):
    """Return ``vector`` without its component along unit ``direction``."""
    return vector - direction * np.dot(vector, direction)


def _unit(vector):
    return vector / np.linalg.norm(vector)


def common_normal(p1, z1, p2, z2, x_hint, point_hint):
    """
    Return the common normal of two lines: feet on each line and direction.

    For skew lines the normal is unique up to its sign; for parallel or
    coincident lines it is chosen through ``point_hint`` (the previous DH
    origin, so that d = 0 there, the usual table convention) and, for
    coincident or intersecting lines, along ``x_hint``'s side.  The sign is
    picked so that x points like ``x_hint`` (zero angle offsets when the
    URDF's zero pose is the DH zero pose; lengths may then be negative).
    """
    cross = np.cross(z1, z2)
    sin = np.linalg.norm(cross)
    if sin < ANGULAR_TOLERANCE:
        foot1 = _project_on_line(point_hint, p1, z1)
        foot2 = _project_on_line(foot1, p2, z2)
        offset = foot2 - foot1
        if np.linalg.norm(offset) > LINEAR_TOLERANCE:
            x = _unit(offset)
        else:
            x = _perpendicular(x_hint, z1)
            if np.linalg.norm(x) < ANGULAR_TOLERANCE:
                x = _perpendicular(np.eye(3)[np.argmin(np.abs(z1))], z1)
            x = _unit(x)
    else:
        # Closest points of two skew lines.
        w = p1 - p2
        b = np.dot(z1, z2)
        denominator = 1.0 - b * b
        t1 = (b * np.dot(z2, w) - np.dot(z1, w)) / denominator
        t2 = (np.dot(z2, w) - b * np.dot(z1, w)) / denominator
        foot1, foot2 = p1 + t1 * z1, p2 + t2 * z2
        x = cross / sin
    if np.dot(x, x_hint) < -ANGULAR_TOLERANCE:
        x = -x
    return foot1, foot2, x


def _frame(origin, z, x):
    """Return the 4x4 frame with axes x, z (y = z cross x) at ``origin``."""
    x = _unit(_perpendicular(x, z))
    return homogeneous(np.column_stack((x, np.cross(z, x), z)), origin)


def _root_axis_hint(z):
    """Return the root x axis, or y when x is along ``z``."""
    for candidate in np.eye(3)[:2]:
        if np.linalg.norm(_perpendicular(candidate, z)) > 1e-6:
            return candidate
    return np.eye(3)[2]


def _standard_frames(positions, directions):
    """DH frames 0..n (root coordinates) of the distal convention."""
    n = len(directions)
    frames = []
    # Frame 0 on joint 1's axis; it is the root frame when that is allowed.
    z0 = directions[0]
    origin = _project_on_line(np.zeros(3), positions[0], z0)
    frames.append(_frame(origin, z0, _root_axis_hint(z0)))
    for i in range(n - 1):
        previous = frames[-1]
        _, foot, x = common_normal(
            positions[i], directions[i], positions[i + 1], directions[i + 1],
            previous[:3, 0], previous[:3, 3])
        frames.append(_frame(foot, directions[i + 1], x))
    return frames


def _modified_frames(positions, directions):
    """DH frames 1..n (root coordinates) of the proximal convention."""
    n = len(directions)
    frames = []
    origin_hint = _project_on_line(np.zeros(3), positions[0], directions[0])
    x_hint = _root_axis_hint(directions[0])
    for i in range(n - 1):
        foot, next_foot, x = common_normal(
            positions[i], directions[i], positions[i + 1], directions[i + 1],
            x_hint, origin_hint)
        frames.append(_frame(foot, directions[i], x))
        origin_hint, x_hint = next_foot, x
    # Last frame: where the previous normal meets the last axis (d_n = 0).
    origin = _project_on_line(origin_hint, positions[-1], directions[-1])
    frames.append(_frame(origin, directions[-1], x_hint))
    return frames


def _standard_row(T):
    """Return a, alpha, theta, d of T = Rz(theta) Tz(d) Tx(a) Rx(alpha)."""
    theta = np.arctan2(T[1, 0], T[0, 0])
    alpha = np.arctan2(T[2, 1], T[2, 2])
    a = T[0, 3] * np.cos(theta) + T[1, 3] * np.sin(theta)
    return a, alpha, theta, T[2, 3]


def _modified_row(T):
    """Return a, alpha, theta, d of T = Rx(alpha) Tx(a) Rz(theta) Tz(d)."""
    theta = np.arctan2(-T[0, 1], T[0, 0])
    alpha = np.arctan2(-T[1, 2], T[2, 2])
    d = -T[1, 3] * np.sin(alpha) + T[2, 3] * np.cos(alpha)
    return T[0, 3], alpha, theta, d


def _rows(convention, frames):
    """DH rows between consecutive frames; checks each reproduces exactly."""
    rows = []
    split = _standard_row if convention == 'standard' else _modified_row
    for i in range(len(frames) - 1):
        T = inverse(frames[i]) @ frames[i + 1]
        a, alpha, theta, d = split(T)
        rebuilt = dh_link_transform(convention, a, alpha, theta, d)
        if not np.allclose(rebuilt, T, atol=1e-9):
            raise ModelError('internal error: DH row %d does not reproduce '
                             'its frames (%s convention)' % (i + 1,
                                                             convention))
        rows.append((a, alpha, theta, d))
    return np.array(rows).reshape(-1, 4)


def _clean(values, tolerance=1e-12):
    """Round values within ``tolerance`` of zero to exactly zero."""
    values = np.array(values, dtype=float)
    values[np.abs(values) < tolerance] = 0.0
    return values


def _modified_base(first, point, direction):
    """
    Return DH frame 0 of the proximal convention.

    The root frame when it is a valid frame 0 (its x axis meets joint 1's
    axis at a right angle: then a_0, alpha_0 say where joint 1 is), else
    frame 1 at q = 0, and the base transform carries the rest.
    """
    root_x = np.array([1.0, 0.0, 0.0])
    if abs(np.dot(root_x, direction)) < ANGULAR_TOLERANCE:
        normal = np.cross(root_x, direction)
        distance = abs(np.dot(point, normal)) / np.linalg.norm(normal)
        if distance < LINEAR_TOLERANCE:
            return np.eye(4)
    return first.copy()


def _tip_pose(model, tip_link):
    """Pose of the tip link in the last body's frame."""
    if tip_link is None:
        return model.body_names[-1], np.eye(4)
    if tip_link not in model.frames:
        raise ModelError('tip_link %r is not a link of model %r' % (
            tip_link, model.name))
    body, rotation, position = model.frames[tip_link]
    if body != model.nq - 1:
        raise ModelError('tip_link %r is not on the last body (%r) of model '
                         '%r' % (tip_link, model.body_names[-1], model.name))
    return tip_link, homogeneous(rotation, position)


def dh_table(model, convention='standard', tip_link=None):
    """
    Extract the DH table of a serial-chain RobotModel.

    Works on any chain of revolute and prismatic joints (axes in any
    direction, joint frames anywhere): the DH frames are built from the joint
    axis lines at q = 0, so the table's zero is the model's zero and
    ``theta``/``d`` hold the offsets.  Where the axes leave a choice
    (parallel or coincident axes, the last frame) the common normal passes
    through the previous DH origin.  ``tip_link`` (a link fixed to the last
    body; default the last body's link) sets the ``tool`` transform.
    Inertial parameters are re-expressed in each link's DH frame.
    A MimicModel's table is its tree's with the coupling in ``mimic`` (a
    row per movable joint, mimic ones included).
    Raises ModelError for a tree or an unknown convention.
    """
    if isinstance(model, MimicModel):
        table = dh_table(model.tree, convention, tip_link)
        table.mimic = dict(model.mimic)
        return table
    if convention not in CONVENTIONS:
        raise ModelError('DH convention must be one of %s, got %r' % (
            ', '.join(CONVENTIONS), convention))
    if model.nq == 0:
        raise ModelError('model %r has no movable joints' % model.name)
    _serial_order(model)
    rotations, positions, directions = _joint_lines(model)
    tip_link, tool_in_body = _tip_pose(model, tip_link)
    body_last = homogeneous(rotations[-1], positions[-1])
    tip = body_last @ tool_in_body
    if convention == 'standard':
        frames = _standard_frames(positions, directions)
        # The last frame rides on the last axis with the previous frame's x
        # (a_n = alpha_n = theta_n = 0), level with the tip (the flange).
        origin = _project_on_line(tip[:3, 3], positions[-1], directions[-1])
        frames.append(_frame(origin, directions[-1], frames[-1][:3, 0]))
        base = frames[0]
        link_frames = frames[1:]
    else:
        link_frames = _modified_frames(positions, directions)
        base = _modified_base(link_frames[0], positions[0], directions[0])
        frames = [base] + link_frames
    rows = _rows(convention, frames)
    n = model.nq
    com = np.zeros((n, 3))
    inertia = np.zeros((n, 3, 3))
    for i in range(n):
        # Body i's URDF frame in its DH frame (both fixed in link i).
        E = inverse(link_frames[i]) @ homogeneous(rotations[i], positions[i])
        com[i] = E[:3, :3] @ model.com[i] + E[:3, 3]
        inertia[i] = E[:3, :3] @ model.inertia_com[i] @ E[:3, :3].T
    tool = inverse(link_frames[-1]) @ tip
    return DHTable(
        convention=convention, a=_clean(rows[:, 0]),
        alpha=_clean(rows[:, 1]), theta=_clean(rows[:, 2]),
        d=_clean(rows[:, 3]), joint_type=model.joint_type.copy(),
        mass=model.mass.copy(), com=_clean(com), inertia_com=inertia,
        base=_clean(base), tool=_clean(tool),
        joint_names=list(model.joint_names),
        link_names=list(model.body_names), root_link=model.root_link,
        tip_link=tip_link, gravity=model.gravity.copy(),
        **joint_properties(model), name=model.name)


# --- construction: DH table -> RobotModel -----------------------------------

def from_dh(table, mass=None, com=None, inertia_com=None, gravity=None,
            name=None):
    """
    Build a RobotModel from a DH table.

    ``mass`` (n,), ``com`` (n, 3) and ``inertia_com`` (n, 3, 3), in each
    link's DH frame, replace the table's own when given; ``gravity`` is in
    the root frame.  Body i's frame is the frame fixed in link i where joint
    i's motion starts: DH frame i-1 turned by the angle offset (standard;
    Rz(theta_i) Tz(d_i), the frames of the shipped PUMA URDF) or DH frame i
    itself (modified).  Its joint axis is z.  The tool transform becomes the
    frame of ``table.tip_link``.  A table with ``mimic`` rows gives a
    MimicModel (its tree: one body per row).
    """
    if not isinstance(table, DHTable):
        raise ModelError('from_dh needs a DHTable, got %s' % type(
            table).__name__)
    n = table.n
    changes = dict(mass=mass, com=com, inertia_com=inertia_com)
    table = DHTable(**{**table.__dict__, **{
        k: v for k, v in changes.items() if v is not None}})
    origins = []
    inertia_frames = []  # DH frame i in body i's frame
    for i in range(n):
        if table.convention == 'standard':
            joint_start = rot_z(table.theta[i]) @ translation(z=table.d[i])
            if i == 0:
                origin = table.base @ joint_start
            else:
                origin = (translation(x=table.a[i - 1])
                          @ rot_x(table.alpha[i - 1]) @ joint_start)
            inertia_frames.append(translation(x=table.a[i]) @ rot_x(
                table.alpha[i]))
        else:
            origin = table.link_transform(i, 0.0)
            if i == 0:
                origin = table.base @ origin
            inertia_frames.append(np.eye(4))
        origins.append(origin)
    com = np.array([E[:3, :3] @ c + E[:3, 3]
                    for E, c in zip(inertia_frames, table.com)])
    inertia = np.array([E[:3, :3] @ I @ E[:3, :3].T
                        for E, I in zip(inertia_frames, table.inertia_com)])
    frames = {table.root_link: (-1, np.eye(3), np.zeros(3))}
    for i, link in enumerate(table.link_names):
        frames[link] = (i, np.eye(3), np.zeros(3))
    if table.tip_link not in frames:
        tip = inertia_frames[-1] @ table.tool
        frames[table.tip_link] = (n - 1, tip[:3, :3], tip[:3, 3])
    model = RobotModel(
        joint_names=list(table.joint_names),
        body_names=list(table.link_names), parent=np.arange(n) - 1,
        joint_type=table.joint_type.copy(),
        axis=np.tile([0.0, 0.0, 1.0], (n, 1)),
        origin_rotation=np.array([T[:3, :3] for T in origins]),
        origin_translation=np.array([T[:3, 3] for T in origins]),
        mass=table.mass.copy(), com=com, inertia_com=inertia,
        gravity=table.gravity if gravity is None else gravity,
        **joint_properties(table), root_link=table.root_link,
        name=name or table.name, frames=frames)
    return MimicModel(model, table.mimic) if table.mimic else model
