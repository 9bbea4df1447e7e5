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
MimicModel: a kinematic tree whose mimic joints follow other joints.

A URDF ``<mimic joint="j" multiplier="m" offset="o"/>`` makes a joint's
position ``m * q_j + o`` (MoveIt's semantics).  The coordinates of the model
are the independent joints; every movable joint, mimic ones included, keeps
a body of ``tree`` (a plain RobotModel) on which the algorithms run.  With
the constant map

    q_tree = G q + offset,    qd_tree = G qd,    qdd_tree = G qdd,

the principle of virtual work gives the dynamics in independent
coordinates: tau = G^T tau_tree, M = G^T M_tree G (``dynamics/dispatch.py``
applies the map).  Every row of G has one non-zero entry (a joint follows
exactly one independent joint), so G^T diag(d) G is diagonal: viscous
damping, armature and Coulomb friction of the tree stay per coordinate.
"""

import warnings

import numpy as np

from .robot_model import Coordinates
from ..errors import ModelError, ModelWarning


def resolve_mimic(tree, mimic):
    """
    Follow mimic chains to independent joints.

    ``mimic`` maps a mimic joint's name to ``(master, multiplier, offset)``
    as the URDF states it; the master may itself be a mimic joint, declared
    before or after it.  Returns ``(independent, G, offset)``: tree indices
    of the independent joints, the (tree.nq, len(independent)) map and the
    (tree.nq,) offsets.  Raises ModelError for a master that is not a movable
    joint of the tree and for a cycle of mimic joints.
    """
    names = tree.joint_names
    index = {name: i for i, name in enumerate(names)}
    for joint, (master, multiplier, offset) in mimic.items():
        if master not in index:
            raise ModelError(
                'joint %r mimics joint %r, which is not a movable joint of '
                'the model (a fixed joint, a missing one, or cut off by '
                'root_link/tip_link)' % (joint, master))
        if not np.isfinite(multiplier) or not np.isfinite(offset):
            raise ModelError(
                'joint %r: mimic multiplier %r and offset %r must be finite '
                'numbers' % (joint, multiplier, offset))
        if multiplier == 0.0:
            raise ModelError('joint %r: mimic multiplier 0 pins the joint; '
                             'make it a fixed joint instead' % joint)
    independent = [i for i, name in enumerate(names) if name not in mimic]
    column = {i: k for k, i in enumerate(independent)}
    G = np.zeros((len(names), len(independent)))
    offset = np.zeros(len(names))
    for i, name in enumerate(names):
        # Compose q_i = m1 (m2 (... q_k + o_n) ...) + o1 up to a free joint.
        multiplier, shift, seen, current = 1.0, 0.0, [name], name
        while current in mimic:
            master, m, o = mimic[current]
            shift += multiplier * o
            multiplier *= m
            if master in seen:
                raise ModelError('mimic joints %s follow each other in a '
                                 'cycle' % ' -> '.join(seen + [master]))
            seen.append(master)
            current = master
        G[i, column[index[current]]] = multiplier
        offset[i] = shift
    return independent, G, offset


def tree_attribute(name, doc):
    """Return a read-only property: the tree's attribute ``name``."""
    return property(lambda model: getattr(model.tree, name), doc=doc)


class MimicModel(Coordinates):
    """
    A RobotModel in independent coordinates: mimic joints are dependent.

    - ``tree``: the RobotModel with a coordinate for every movable joint;
    - ``joint_names``, ``nq``: the independent joints, in tree order;
    - ``mimic``: mimic joint -> (master, multiplier, offset) as declared;
    - ``G``, ``offset``: q_tree = G q + offset;
    - ``full_joint_names`` and ``full_positions``/``full_velocities``: the
      vectors of every movable joint, for ``joint_states``;
    - per-coordinate ``lower_limit``, ``upper_limit``, ``velocity_limit``,
      ``effort_limit``, ``damping``, ``friction``, ``armature``,
      ``continuous``, ``joint_type``: what the tree's joints impose on the
      independent coordinate (limits intersected through the map, damping
      and armature summed as G^T diag(.) G, effort of the master joint).
    """

    def __init__(self, tree, mimic):
        """Couple ``tree``'s joints named in ``mimic`` to their masters."""
        self.tree = tree
        self.mimic = {name: (str(master), float(m), float(o))
                      for name, (master, m, o) in mimic.items()}
        self.independent, self.G, self.offset = resolve_mimic(
            tree, self.mimic)
        self.joint_names = [tree.joint_names[i] for i in self.independent]
        self._reduce_joint_data()

    def _reduce_joint_data(self):
        """Per independent coordinate: limits, friction, effort."""
        tree, G = self.tree, self.G
        own = np.array(self.independent, dtype=int)
        self.joint_type = tree.joint_type[own].copy()
        self.continuous = tree.continuous[own].copy()
        self.effort_limit = tree.effort_limit[own].copy()
        self.damping = (G ** 2).T @ tree.damping
        self.armature = (G ** 2).T @ tree.armature
        self.friction = np.abs(G).T @ tree.friction
        lower = tree.lower_limit[own].copy()
        upper = tree.upper_limit[own].copy()
        velocity = tree.velocity_limit[own].copy()
        for i, k in zip(*np.nonzero(G)):
            if i in self.independent:
                continue
            m, o = G[i, k], self.offset[i]
            with np.errstate(invalid='ignore'):
                bounds = sorted(((tree.lower_limit[i] - o) / m,
                                 (tree.upper_limit[i] - o) / m))
            narrowed = (max(lower[k], bounds[0]), min(upper[k], bounds[1]))
            if narrowed[1] - narrowed[0] <= 0.0 < upper[k] - lower[k]:
                # Limits that meet in a point (PR2's gripper: [0, 0.548]
                # mirrored by multiplier -1) would freeze the master; MoveIt
                # does not enforce a mimic joint's own limits either.
                warnings.warn(
                    'mimic joint %r: its limits [%g, %g] leave no motion to '
                    '%r within [%g, %g]; only the latter are kept' % (
                        tree.joint_names[i], tree.lower_limit[i],
                        tree.upper_limit[i], self.joint_names[k], lower[k],
                        upper[k]), ModelWarning, stacklevel=3)
                continue
            lower[k], upper[k] = narrowed
            velocity[k] = min(velocity[k], tree.velocity_limit[i] / abs(m))
        self.lower_limit, self.upper_limit = lower, upper
        self.velocity_limit = velocity

    @property
    def gravity(self):
        """Return gravity in the root frame (the tree's)."""
        return self.tree.gravity

    @gravity.setter
    def gravity(self, value):
        self.tree.gravity = np.asarray(value, dtype=float).reshape(3)

    # Read from the tree as they are.
    name = tree_attribute('name', "The robot's name.")
    root_link = tree_attribute('root_link', 'The link that is the fixed base.')
    frames = tree_attribute('frames',
                            'Link -> (tree body, rotation, translation).')
    total_mass = tree_attribute('total_mass',
                                'The mass of all moving bodies.')
    full_joint_names = tree_attribute(
        'joint_names', "Every movable joint's name, mimic joints included.")

    def full_positions(self, q):
        """Positions of every movable joint: G q + offset ((N, nq) too)."""
        return np.asarray(q, dtype=float) @ self.G.T + self.offset

    def full_velocities(self, qd):
        """Velocities (or accelerations) of every movable joint: G qd."""
        return np.asarray(qd, dtype=float) @ self.G.T

    def joint_index(self, name):
        """Coordinate index of independent joint ``name``."""
        try:
            return self.joint_names.index(name)
        except ValueError:
            detail = ''
            if name in self.mimic:
                detail = ' (%r is a mimic joint of %r: command that one)' % (
                    name, self.mimic[name][0])
            raise KeyError('no independent joint named %r in model %r%s '
                           '(joints: %s)' % (name, self.name, detail,
                                             ', '.join(self.joint_names)))

    def copy(self, **changes):
        """Return a deep copy; ``changes`` apply to the tree's fields."""
        return MimicModel(self.tree.copy(**changes), dict(self.mimic))

    def summary(self):
        """Human-readable description: the tree, then the coupling."""
        lines = [self.tree.summary(), '  mimic joints (q = multiplier * '
                 'q_master + offset), %d independent coordinates:' % self.nq]
        for name, (master, m, o) in self.mimic.items():
            lines.append('    %s = %.6g * %s %+.6g' % (name, m, master, o))
        return '\n'.join(lines)

    def __repr__(self):
        """Short description naming the coupled joints."""
        return 'MimicModel(%r, %d independent joints, mimic: %s)' % (
            self.name, self.nq, ', '.join(self.mimic))
