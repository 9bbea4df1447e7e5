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
RobotModel: a kinematic tree as plain arrays indexed by body.

Body ``i`` is the rigid body moved by joint ``i`` (coordinate ``i`` of q, qd,
qdd and tau).  ``parent[i] < i`` is the body it hangs from, -1 for the fixed
base.  This is the model of Featherstone's spatial_v2 (parent, jtype, Xtree,
I): nothing else is needed to run any algorithm on any tree.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Tuple

import numpy as np

from ..spatial import spatial_inertia

REVOLUTE = 0
PRISMATIC = 1
# Attribute where the compiled path (dynamics_ros.fast) keeps its packed copy
# (fast.packing.PackedModel; None until first used).
PACKED_MODEL = 'packed_model'
# Attribute where model.massless keeps the joints that move no mass (None
# until looked for).
DERIVED_CACHE = 'massless_joints_found'
# What is derived from the fields and dropped when one is assigned.
DERIVED = (PACKED_MODEL, DERIVED_CACHE)
# The array fields: dtype and shape after the leading nq (None: gravity,
# (3,) with no nq).
ARRAY_FIELDS = {
    'parent': (int, ()), 'joint_type': (int, ()), 'axis': (float, (3,)),
    'origin_rotation': (float, (3, 3)), 'origin_translation': (float, (3,)),
    'mass': (float, ()), 'com': (float, (3,)),
    'inertia_com': (float, (3, 3)), 'gravity': (float, None)}
# Fields the spatial quantities are computed from (update_inertias).
INERTIA_FIELDS = ('parent', 'joint_type', 'axis', 'mass', 'com',
                  'inertia_com')
# The optional per-joint properties of a model description (RobotModel,
# DHTable): name, value when not given, type.
JOINT_DEFAULTS = (
    ('continuous', False, bool), ('lower_limit', -np.inf, float),
    ('upper_limit', np.inf, float), ('velocity_limit', np.inf, float),
    ('effort_limit', np.inf, float), ('damping', 0.0, float),
    ('friction', 0.0, float), ('armature', 0.0, float))


for _name, _, _dtype in JOINT_DEFAULTS:
    ARRAY_FIELDS[_name] = (_dtype, ())


def frozen(array):
    """Return ``array`` made read-only (writing into it raises)."""
    array.flags.writeable = False
    return array


def field_array(name, value, nq):
    """Return ``value`` as field ``name`` holds it: a read-only copy."""
    dtype, shape = ARRAY_FIELDS[name]
    shape = (3,) if shape is None else (nq,) + shape
    return frozen(np.array(value, dtype=dtype).reshape(shape))


def joint_properties(source):
    """Return copies of the optional per-joint properties of ``source``."""
    return {name: getattr(source, name).copy()
            for name, _, _ in JOINT_DEFAULTS}


class Coordinates:
    """Sizes of a model whose coordinates are named by ``joint_names``."""

    @property
    def nq(self):
        """Return the number of coordinates (one per joint it names)."""
        return len(self.joint_names)

    @property
    def nv(self):
        """Return the number of velocities, equal to nq (no quaternions)."""
        return len(self.joint_names)


@dataclass
class RobotModel(Coordinates):
    """
    Constant description of a fixed-base kinematic tree.

    Per body ``i`` (all arrays have length ``nq`` along their first axis):

    - ``joint_names[i]``, ``body_names[i]``: the URDF joint and its child link;
    - ``parent[i]``: parent body index (-1 = fixed base), ``parent[i] < i``;
    - ``joint_type[i]``: ``REVOLUTE`` or ``PRISMATIC``; ``continuous[i]``
      marks revolute joints without limits (one angle, wraps);
    - ``axis[i]``: unit joint axis in the joint (= body) frame;
    - ``origin_rotation[i]``, ``origin_translation[i]``: pose of the joint
      frame in the parent body's frame at q = 0;
    - ``mass[i]``, ``com[i]``, ``inertia_com[i]``: rigid-body parameters in
      the body frame (fixed-joint children already merged in).

    ``frames`` maps every kept link name to ``(body, rotation, translation)``:
    where the link frame sits in its body's frame (body -1 is the base).

    The arrays are read-only: writing into one raises ValueError, where it
    once left the compiled path's packed copy (``packed_model``) stale.
    Assign a field instead (``model.damping = new``, or ``model.copy(
    damping=new)``): that stores a read-only copy, recomputes the spatial
    inertias when a mass property, axis or the tree changed, and drops what
    was derived (``DERIVED``), so that the next call packs the model anew.
    """

    joint_names: List[str]
    body_names: List[str]
    parent: np.ndarray
    joint_type: np.ndarray
    axis: np.ndarray
    origin_rotation: np.ndarray
    origin_translation: np.ndarray
    mass: np.ndarray
    com: np.ndarray
    inertia_com: np.ndarray
    gravity: np.ndarray = field(
        default_factory=lambda: np.array([0.0, 0.0, -9.81]))
    continuous: np.ndarray = None
    lower_limit: np.ndarray = None
    upper_limit: np.ndarray = None
    velocity_limit: np.ndarray = None
    effort_limit: np.ndarray = None
    damping: np.ndarray = None
    friction: np.ndarray = None
    armature: np.ndarray = None
    root_link: str = 'base'
    name: str = 'robot'
    frames: Dict[str, Tuple[int, np.ndarray, np.ndarray]] = field(
        default_factory=dict)
    # Derived, dropped on every assignment (DERIVED): the compiled path's
    # packed copy (fast.packing.PackedModel) and the joints found to move
    # no mass (model.massless).
    packed_model: Any = field(default=None, init=False, repr=False,
                              compare=False)
    massless_joints_found: Any = field(default=None, init=False, repr=False,
                                       compare=False)

    def __post_init__(self):
        """Fill optional per-joint arrays and derive the spatial quantities."""
        n = len(self.joint_names)
        for name, default, dtype in JOINT_DEFAULTS:
            if getattr(self, name) is None:
                object.__setattr__(self, name, np.full(n, default,
                                                       dtype=dtype))
        for name in ARRAY_FIELDS:
            object.__setattr__(self, name, field_array(
                name, getattr(self, name), n))
        for i, p in enumerate(self.parent):
            if not -1 <= p < i:
                raise ValueError(
                    'body %d (%s): parent index %d must be in [-1, %d)'
                    % (i, self.body_names[i], p, i))
        self.update_inertias()

    def __setattr__(self, name, value):
        """
        Set an attribute; drop what was derived from the old value.

        An array field (once the model is built) is stored as a read-only
        copy, and assigning one the spatial inertias depend on recomputes
        them.
        """
        built = 'spatial_inertia' in self.__dict__
        if built and name in ARRAY_FIELDS:
            value = field_array(name, value, self.nq)
        object.__setattr__(self, name, value)
        if name not in DERIVED:
            object.__setattr__(self, PACKED_MODEL, None)
            object.__setattr__(self, DERIVED_CACHE, None)
            if built and name in INERTIA_FIELDS:
                self.update_inertias()

    def __setstate__(self, state):
        """
        Restore a pickled or deep-copied model, its arrays read-only again.

        Pickle and ``copy.deepcopy`` build new arrays, writeable by
        default: without this, a copy could be written into in place and
        run on a stale packed model.
        """
        self.__dict__.update(state)
        for name in (*ARRAY_FIELDS, 'spatial_inertia', 'motion_subspace'):
            value = self.__dict__.get(name)
            if isinstance(value, np.ndarray):
                frozen(value)

    def update_inertias(self):
        """
        Recompute ``spatial_inertia`` and ``motion_subspace``.

        Assigning ``mass``, ``com``, ``inertia_com``, ``axis``,
        ``joint_type`` or ``parent`` calls it; the arrays are read-only,
        so nothing changes them unnoticed.
        """
        n = self.nq
        spatial = np.array([
            spatial_inertia(self.mass[i], self.com[i], self.inertia_com[i])
            for i in range(n)]).reshape(n, 6, 6)
        S = np.zeros((n, 6))
        revolute = self.joint_type == REVOLUTE
        S[revolute, :3] = self.axis[revolute]
        S[~revolute, 3:] = self.axis[~revolute]
        # Through object.__setattr__: these derive from the fields.
        object.__setattr__(self, 'spatial_inertia', frozen(spatial))
        object.__setattr__(self, 'motion_subspace', frozen(S))
        object.__setattr__(self, PACKED_MODEL, None)
        object.__setattr__(self, DERIVED_CACHE, None)
        children = [[] for _ in range(n)]
        for i, p in enumerate(self.parent):
            if p >= 0:
                children[p].append(i)
        object.__setattr__(self, 'children', children)

    @property
    def mimic(self):
        """Return the mimic joints, none here (see ``MimicModel``)."""
        return {}

    @property
    def full_joint_names(self):
        """Return every movable joint's name (here ``joint_names``)."""
        return self.joint_names

    def full_positions(self, q):
        """Positions of every movable joint (here: ``q`` itself)."""
        return np.asarray(q, dtype=float)

    def full_velocities(self, qd):
        """Velocities of every movable joint (here: ``qd`` itself)."""
        return np.asarray(qd, dtype=float)

    @property
    def total_mass(self):
        """Return the mass of all moving bodies (the fixed base excluded)."""
        return float(np.sum(self.mass))

    def joint_index(self, name):
        """Coordinate index of joint ``name``."""
        try:
            return self.joint_names.index(name)
        except ValueError:
            raise KeyError('no movable joint named %r in model %r (joints: %s)'
                           % (name, self.name, ', '.join(self.joint_names)))

    def copy(self, **changes):
        """Return a deep copy, optionally with some fields replaced."""
        fields = dict(
            joint_names=list(self.joint_names),
            body_names=list(self.body_names),
            parent=self.parent.copy(), joint_type=self.joint_type.copy(),
            axis=self.axis.copy(),
            origin_rotation=self.origin_rotation.copy(),
            origin_translation=self.origin_translation.copy(),
            mass=self.mass.copy(), com=self.com.copy(),
            inertia_com=self.inertia_com.copy(),
            gravity=self.gravity.copy(), **joint_properties(self),
            root_link=self.root_link, name=self.name,
            frames={k: (b, R.copy(), p.copy())
                    for k, (b, R, p) in self.frames.items()})
        fields.update(changes)
        return RobotModel(**fields)

    def summary(self):
        """Human-readable multi-line description of the model."""
        kinds = {REVOLUTE: 'revolute', PRISMATIC: 'prismatic'}
        lines = ['model %r: %d joints, root link %r, total mass %.4f kg, '
                 'gravity %s' % (self.name, self.nq, self.root_link,
                                 self.total_mass, np.array2string(
                                     self.gravity, precision=3))]
        width = max([len(j) for j in self.joint_names] + [5])
        lines.append('  %-3s %-*s %-10s %-7s %s' % (
            '#', width, 'joint', 'type', 'parent', 'child link (mass kg)'))
        for i in range(self.nq):
            kind = 'continuous' if self.continuous[i] else kinds[
                self.joint_type[i]]
            parent = self.parent[i]
            lines.append('  %-3d %-*s %-10s %-7s %s (%.4f)' % (
                i, width, self.joint_names[i], kind,
                'base' if parent < 0 else str(parent), self.body_names[i],
                self.mass[i]))
        return '\n'.join(lines)
