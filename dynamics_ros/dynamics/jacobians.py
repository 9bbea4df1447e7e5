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
Geometric Jacobians of link frames and points fixed in links.

Rows are ordered [angular; linear] like the project's spatial vectors
(Featherstone): ``J[:3] @ qd`` is the link's angular velocity and
``J[3:] @ qd`` the velocity of the point.  (MoveIt and KDL order their
Jacobians [linear; angular]; swap the row blocks for them.)

Column j is nonzero only when joint j moves the link (it is an ancestor in
the tree).  With s_j the joint axis and p_j the joint origin in the root
frame (Freeman 1985, Table 2-3, first-order influence coefficients):

- revolute: angular s_j, linear s_j x (P - p_j);
- prismatic: angular 0, linear s_j.

A MimicModel's Jacobian is its tree's times G (qd_tree = G qd): the column
of an independent joint sums the motion of every joint that follows it.
"""

import numpy as np

from .kinematics import as_vector, body_poses
from ..model.mimic_model import MimicModel
from ..model.robot_model import REVOLUTE


def ancestors(model, body):
    """Boolean (nq,): ``True`` for the joints that move ``body``."""
    mask = np.zeros(model.nq, dtype=bool)
    while body >= 0:
        mask[body] = True
        body = model.parent[body]
    return mask


def joint_screws(model, rotations, translations):
    """
    Joint axes as spatial motion vectors at the root origin, (nq, 6).

    Row j is [s_j; p_j x s_j] for a revolute joint (a unit rotation about
    the line through p_j along s_j) and [0; s_j] for a prismatic one: the
    spatial velocity of body j's subtree per unit qd_j, root coordinates.
    """
    axes = np.einsum('nij,nj->ni', rotations, model.axis)
    screws = np.zeros((model.nq, 6))
    revolute = model.joint_type == REVOLUTE
    screws[revolute, :3] = axes[revolute]
    screws[revolute, 3:] = np.cross(translations[revolute], axes[revolute])
    screws[~revolute, 3:] = axes[~revolute]
    return screws


def resolve_link(model, link):
    """
    Body index and pose in that body of a link name or body index.

    Returns ``(body, rotation, translation)``; a body index stands for the
    body (joint) frame itself.
    """
    if isinstance(link, (int, np.integer)):
        if not 0 <= link < model.nq:
            raise ValueError('body index %d is outside [0, %d) of model %r'
                             % (link, model.nq, model.name))
        return int(link), np.eye(3), np.zeros(3)
    if link not in model.frames:
        raise KeyError('link %r is not in model %r (links: %s)' % (
            link, model.name, ', '.join(sorted(model.frames))))
    return model.frames[link]


def point_in_root(model, q, link, point=None):
    """
    Root-frame rotation of ``link`` and position of ``point`` in it.

    Also returns the body index and the body poses.  ``point`` is given in
    the link frame (default: its origin).
    """
    q = as_vector(model, q, 'q')
    body, rotation, translation = resolve_link(model, link)
    offset = np.zeros(3) if point is None else np.asarray(point, dtype=float)
    if offset.shape != (3,):
        raise ValueError('point must be 3 coordinates in the frame of link '
                         '%r, got shape %s' % (link, offset.shape))
    rotations, translations = body_poses(model, q)
    local = translation + rotation @ offset
    if body < 0:
        return body, rotation, local, rotations, translations
    frame_rotation = rotations[body] @ rotation
    position = translations[body] + rotations[body] @ local
    return body, frame_rotation, position, rotations, translations


def screw_jacobian(screws, mask, position):
    """Jacobian [angular; linear at position] from root-frame screws."""
    J = np.zeros((6, screws.shape[0]))
    J[:3] = screws[:, :3].T
    J[3:] = (screws[:, 3:] + np.cross(screws[:, :3], position)).T
    return J * mask


def link_jacobian(model, q, link, point=None, frame='world'):
    """
    Geometric Jacobian (6, nq) of a link frame or of a point fixed in it.

    ``link``: a URDF link name of the model (``model.frames``) or a body
    index (of ``model.tree`` for a MimicModel).  ``point``: coordinates in
    the link frame (default the frame origin).  Rows [angular; linear].
    ``frame='world'`` expresses both in the root frame; ``'local'`` in the
    link frame's own axes (the point's velocity, not a different point).
    """
    if frame not in ('world', 'local'):
        raise ValueError("frame must be 'world' or 'local', got %r" % frame)
    if isinstance(model, MimicModel):
        q = as_vector(model, q, 'q')
        return link_jacobian(model.tree, model.full_positions(q), link,
                             point, frame) @ model.G
    body, rotation, position, rotations, translations = point_in_root(
        model, q, link, point)
    if body < 0:
        return np.zeros((6, model.nq))
    screws = joint_screws(model, rotations, translations)
    J = screw_jacobian(screws, ancestors(model, body), position)
    if frame == 'local':
        J = np.vstack((rotation.T @ J[:3], rotation.T @ J[3:]))
    return J
