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
Forward kinematics of a RobotModel (joint transforms: ``model.joints``).

A MimicModel's kinematics are those of its tree at q_tree = G q + offset:
``body_poses`` and ``link_pose`` take independent coordinates and return
the poses of every tree body (mimic joints' bodies included).
"""

import numpy as np

from ..model.joints import as_vector, joint_pose
from ..model.mimic_model import MimicModel


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
