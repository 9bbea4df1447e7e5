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
Per-joint vectors and joint transforms of a RobotModel.

The pose of each body in its parent's frame at a joint position: what
every algorithm and the model's own checks (``model.massless``) start from.
"""

import numpy as np

from .robot_model import REVOLUTE
from ..spatial import axis_angle_to_matrix, motion_transform


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
