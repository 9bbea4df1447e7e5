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
Joints that move no mass: the joint-space inertia M is singular.

A URDF without ``<inertial>`` on the links a joint moves (several
ROS-Industrial arms ship so) gives a zero column of M at every q; forward
dynamics would return NaN.  These helpers name such joints so that loading
warns and forward dynamics refuses with a ModelError instead.
"""

import numpy as np

from ..errors import ModelError
from ..model.mimic_model import MimicModel
from ..model.robot_model import DERIVED_CACHE


def tree_massless_joints(model):
    """
    Tree indices of joints that move neither mass nor inertia.

    Joint i's column of M is zero at every q when the bodies it moves (its
    subtree) have no mass and no rotational inertia and it has no armature.
    Cached on the model until one of its fields is set.
    """
    cached = model.__dict__.get(DERIVED_CACHE)
    if cached is not None:
        return cached
    n = model.nq
    empty = np.array([model.mass[i] <= 0.0 and not np.any(
        model.inertia_com[i]) for i in range(n)], dtype=bool)
    # Children come after parents: one backward pass fills the subtrees.
    for i in range(n - 1, -1, -1):
        p = model.parent[i]
        if p >= 0 and not empty[i]:
            empty[p] = False
    massless = [i for i in range(n) if empty[i] and model.armature[i] <= 0]
    object.__setattr__(model, DERIVED_CACHE, massless)
    return massless


def massless_joints(model):
    """
    Names of coordinates that move no mass: M is singular at every q.

    For a MimicModel an independent joint counts when every joint that
    follows it (and itself) moves no mass.
    """
    if isinstance(model, MimicModel):
        empty = set(tree_massless_joints(model.tree))
        return [name for k, name in enumerate(model.joint_names)
                if all(i in empty for i in np.flatnonzero(model.G[:, k]))]
    return [model.joint_names[i] for i in tree_massless_joints(model)]


def singular_inertia_error(model=None, sample=None):
    """Return the ModelError for an M that is not positive definite."""
    names = massless_joints(model) if model is not None else []
    return ModelError(
        'the joint-space inertia M of model %r is not positive definite%s: '
        '%s; forward dynamics and its derivatives are undefined' % (
            model.name if model is not None else '?',
            '' if sample is None else ' at state %d of the batch' % sample,
            'joints %s move no mass or inertia (no <inertial> on the links '
            'they move, and no armature)' % ', '.join(names) if names else
            'a subtree without mass or inertia and no armature?'))


def refuse_massless(model):
    """Raise the ModelError of a structurally singular M, if it is."""
    if massless_joints(model):
        raise singular_inertia_error(model)
