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
Joint transforms and forward kinematics of a RobotModel.

A MimicModel's kinematics are those of its tree at q_tree = G q + offset:
``body_poses`` and ``link_pose`` take independent coordinates and return
the poses of every tree body (mimic joints' bodies included).
"""

import numpy as np

from .spatial import axis_angle_to_matrix, motion_transform
from ..model.mimic_model import MimicModel
from ..model.robot_model import REVOLUTE


def as_vector(model, value, name):
    """Check a per-joint vector's size and return it as a float array."""
    array = np.asarray(value, dtype=float)
    if array.shape != (model.nq,):
        raise ValueError('%s must have %d values (one per joint of %r, in '
                         'model.joint_names order), got shape %s' % (
                             name, model.nq, model.name, array.shape))
    return array


def joint_pose(model, i, qi):
    """Pose (rotation, translation) of body ``i`` in its parent's frame."""
    rotation = model.origin_rotation[i]
    translation = model.origin_translation[i]
    if model.joint_type[i] == REVOLUTE:
        return rotation @ axis_angle_to_matrix(model.axis[i], qi), translation
    return rotation, translation + rotation @ (model.axis[i] * qi)


def parent_transforms(model, q):
    """Motion transforms ``Xup[i]`` from each body's parent frame to it."""
    return [motion_transform(*joint_pose(model, i, q[i]))
            for i in range(model.nq)]


def tree_positions(model, q):
    """
    Return (tree, q_tree): the RobotModel the poses are computed on.

    A MimicModel's independent ``q`` (checked against its coordinates, so
    errors name the joints the caller gives) maps to every tree joint.
    """
    q = as_vector(model, q, 'q')
    if isinstance(model, MimicModel):
        return model.tree, model.full_positions(q)
    return model, q


def body_poses(model, q):
    """
    World (root-frame) rotation and translation of every body frame.

    For a MimicModel: of every body of its tree, ``model.tree.body_names``.
    """
    model, q = tree_positions(model, q)
    rotations = np.zeros((model.nq, 3, 3))
    translations = np.zeros((model.nq, 3))
    for i in range(model.nq):
        rotation, translation = joint_pose(model, i, q[i])
        p = model.parent[i]
        if p < 0:
            rotations[i], translations[i] = rotation, translation
        else:
            rotations[i] = rotations[p] @ rotation
            translations[i] = rotations[p] @ translation + translations[p]
    return rotations, translations


def link_pose(model, q, link):
    """World rotation and translation of any kept URDF link frame."""
    if link not in model.frames:
        raise KeyError('link %r is not in model %r' % (link, model.name))
    body, rotation, translation = model.frames[link]
    if body < 0:
        return rotation.copy(), translation.copy()
    rotations, translations = body_poses(model, q)
    return (rotations[body] @ rotation,
            rotations[body] @ translation + translations[body])
