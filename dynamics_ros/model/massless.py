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
ROS-Industrial arms ship so), or with all their mass on the joint's axis,
gives a zero column of M; forward dynamics would return NaN.  These helpers
name such joints so that loading warns and forward dynamics refuses with a
ModelError instead.
"""

import numpy as np

from .joints import parent_transforms
from .mimic_model import MimicModel
from .robot_model import DERIVED_CACHE, RobotModel
from ..errors import ModelError


def mass_matrix_diagonal(model, q):
    """
    Diagonal of M(q): S_i^T Ic_i S_i + armature_i, Ic the subtree inertia.

    The composite-inertia pass of CRBA (Featherstone 2008, Table 6.2)
    without the off-diagonal walk.
    """
    Xup = parent_transforms(model, q)
    composite = model.spatial_inertia.copy()
    for i in range(model.nq - 1, -1, -1):
        p = model.parent[i]
        if p >= 0:
            composite[p] += Xup[i].T @ composite[i] @ Xup[i]
    S = model.motion_subspace
    return np.einsum('ij,ijk,ik->i', S, composite, S) + model.armature


def probe_positions(model):
    """
    Two generic configurations to look at M in.

    Not q = 0: a column that vanishes only there (a mass that lines up with
    an axis when the arm is stretched) is an isolated singularity, for the
    factorization to report, not a joint without mass.
    """
    k = np.arange(model.nq) / max(model.nq, 1)
    return [np.clip(q, model.lower_limit, model.upper_limit)
            for q in (0.3 + 0.7 * k, -0.4 - 0.5 * k)]


def tree_massless_joints(model):
    """
    Tree indices of joints whose column of M is zero: M is singular.

    A joint moves no mass when the bodies it moves have no mass and no
    inertia (links without ``<inertial>``), or only mass on its own axis,
    and it has no armature.  Tested where such a column shows, on the
    diagonal M_ii (M is positive semi-definite, so M_ii = 0 zeroes the
    column), at two configurations.  Cached on the model until one of its
    fields is set.
    """
    cached = model.__dict__.get(DERIVED_CACHE)
    if cached is not None:
        return cached
    zero = np.ones(model.nq, dtype=bool)
    for q in probe_positions(model):
        diagonal = mass_matrix_diagonal(model, q)
        scale = max(float(np.max(np.abs(diagonal), initial=0.0)), 1e-300)
        zero &= diagonal <= 1e-12 * scale
    massless = [int(i) for i in np.flatnonzero(zero)]
    object.__setattr__(model, DERIVED_CACHE, massless)
    return massless


def massless_joints(model):
    """
    Names of coordinates that move no mass: M is singular at every q.

    For a MimicModel an independent joint counts when every joint that
    follows it (and itself) moves no mass.
    """
    if isinstance(model, MimicModel):
        empty = tree_massless_joints(model.tree)
        # Cached with the tree's list: a new list means the tree changed.
        cached = model.__dict__.get(DERIVED_CACHE)
        if cached is not None and cached[0] is empty:
            return cached[1]
        names = [name for k, name in enumerate(model.joint_names)
                 if all(i in empty for i in np.flatnonzero(model.G[:, k]))]
        model.__dict__[DERIVED_CACHE] = (empty, names)
        return names
    return [model.joint_names[i] for i in tree_massless_joints(model)]


def non_rigid_links(model):
    """
    Names of links whose inertia no rigid body has (loaded with a warning).

    Principal moments a <= b <= c of a rigid body are >= 0 with a + b >= c;
    such a link can make M indefinite where no joint is massless.
    """
    tree = model.tree if isinstance(model, MimicModel) else model
    names = []
    for name, inertia in zip(tree.body_names, tree.inertia_com):
        inertia = np.asarray(inertia, dtype=float)
        moments = np.linalg.eigvalsh(0.5 * (inertia + inertia.T))
        slack = 1e-9 * max(float(np.max(np.abs(moments))), 1e-300)
        if moments[0] < -slack or moments[0] + moments[1] < moments[2] - slack:
            names.append(name)
    return names


def singular_inertia_error(model=None, sample=None):
    """Return the ModelError for an M that is not positive definite."""
    names = massless_joints(model) if model is not None else []
    links = non_rigid_links(model) if model is not None and not names \
        and isinstance(model, (RobotModel, MimicModel)) else []
    if names:
        reason = ('joints %s move no mass or inertia (links without '
                  '<inertial>, mass only on the joint axis, or an <inertia> '
                  'no rigid body has; and no armature)' % ', '.join(names))
    elif links:
        reason = ('links %s have an <inertia> no rigid body has (principal '
                  'moments negative or violating the triangle inequality)'
                  % ', '.join(links))
    else:
        reason = 'a subtree without mass or inertia and no armature?'
    return ModelError(
        'the joint-space inertia M of model %r is not positive definite%s: '
        '%s; forward dynamics and its derivatives are undefined' % (
            model.name if model is not None else '?',
            '' if sample is None else ' at state %d of the batch' % sample,
            reason))


def refuse_massless(model):
    """
    Raise the ModelError of a structurally singular M, if it is.

    Only a RobotModel or MimicModel is looked at: other models (a flexible
    one, whose declarations carry mass of their own) pass, so that a
    simulator can call this on whatever it is given.
    """
    if isinstance(model, (RobotModel, MimicModel)) and massless_joints(model):
        raise singular_inertia_error(model)
