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
A RobotModel packed into one contiguous table for the compiled kernels.

Row ``i < nq`` describes body ``i``; the last row describes the fixed base
(its only entry is gravity).  One float array means one argument per kernel
call, which is what keeps the call overhead near Pinocchio's.

Two rewrites, done once here, make every recursion cheaper:

- each body frame is turned about its origin so that its joint axis is +z
  (the frame "axis frame" Q: columns are the new axes in the URDF body
  frame).  A joint rotation is then Rot_z(q), 12 products instead of a
  general Rodrigues matrix, and S = e_z picks one component.  Joint-space
  results do not depend on the body frames; external wrenches, given in the
  URDF body frames, are turned by Q^T in the kernels;
- the spatial inertia is kept as its ten rigid-body parameters (mass m,
  first moment h = m c, rotational inertia about the body origin),
  Featherstone (2008) eq. 2.63: I v = [Ibar w + h x u; m u - h x w].

The table is built on first use and kept on the model with a scratch
array, as one ``PackedModel`` in ``RobotModel.packed_model``; the model
drops it when a field is assigned (its arrays are read-only, so nothing
else can change it).
"""

from dataclasses import dataclass

import numpy as np

from ..errors import ModelError
from ..model.robot_model import PACKED_MODEL, PRISMATIC

# Columns of a body row.
PARENT = 0               # parent body index (-1: the base), as a float
IS_PRISMATIC = 1         # 1.0 for a prismatic joint, 0.0 for a revolute one
JOINT_SCALE = 2          # |axis| of a prismatic joint (m per unit q), else 1
AXIS_FRAME = 3           # Q (3x3 row-major): axis-frame axes, URDF body frame
ORIGIN_ROTATION = 12     # joint frame in the parent at q = 0 (3x3 row-major)
ORIGIN_TRANSLATION = 21  # (3)
# MASS, FIRST_MOMENT, ROTATIONAL_INERTIA are consecutive: the ten inertia
# parameters [m, h, Ibar] are the slice MASS:MASS + 13.
MASS = 24                # m
FIRST_MOMENT = 25        # h = m c (3)
ROTATIONAL_INERTIA = 28  # about the body origin (3x3 row-major)
ARMATURE = 37            # rotor inertia added to M's diagonal
SUBTREE_END = 38         # one past the body's last descendant (see below)
CONTINUOUS = 39          # 1.0 for a continuous joint (errors wrap at pi)
COLUMNS = 40
# Columns of the base row.
GRAVITY = 0              # (3) in the root frame
IS_CHAIN = 3             # 1.0 if parent[i] = i - 1 for every body
SUBTREES_CONTIGUOUS = 4  # 1.0 if each subtree is bodies i..SUBTREE_END - 1

# The scratch rows: one per body, one for per-call vectors, then one for the
# fixed base (last, so that parent index -1 finds it); each kernel module
# declares the columns it uses with ``work_columns``.
WORK_COLUMNS = 112
# Every declared layout of a work row: {owner: {field: (first, width)}}.
LAYOUTS = {}


def work_columns(owner, **widths):
    """
    Return the first column of each field, the fields laid end to end.

    The one declaration of the columns a kernel module uses in a row of
    the work array: ``FRAME, VELOCITY = work_columns('rnea', FRAME=12,
    VELOCITY=6)``.  Numba does not check bounds, so a kernel that wrote
    past the array's WORK_COLUMNS columns would corrupt memory without a
    word: the fields must end by then, checked here when the module is
    imported.  ``owner`` names the layout (module and row) in the error
    and in ``LAYOUTS``.
    """
    fields = {}
    end = 0
    for name, width in widths.items():
        fields[name] = (end, width)
        end += width
    if end > WORK_COLUMNS:
        raise RuntimeError(
            'work columns of %s end at column %d, past WORK_COLUMNS = %d: '
            'raise WORK_COLUMNS in dynamics_ros/fast/packing.py (fields %s)'
            % (owner, end, WORK_COLUMNS, ', '.join(
                '%s %d' % (name, width) for name, width in widths.items())))
    LAYOUTS[owner] = fields
    return [first for first, _ in fields.values()]


def axis_frame(axis):
    """
    Return a rotation Q whose third column is the unit ``axis``.

    Exactly the identity for +z, and a signed permutation for any other
    coordinate axis, so that the usual URDF axes add no round-off.
    """
    z = axis / np.linalg.norm(axis)
    if np.array_equal(z, [0.0, 0.0, 1.0]):
        return np.eye(3)
    helper = np.array([1.0, 0.0, 0.0] if abs(z[0]) < 0.9 else [0.0, 1.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return np.column_stack((x, np.cross(z, x), z))


def axis_frames(model):
    """Return Q of every body (nq, 3, 3); refuse a non-unit revolute axis."""
    frames = np.zeros((model.nq, 3, 3))
    for i, axis in enumerate(np.asarray(model.axis, dtype=float)):
        norm = np.linalg.norm(axis)
        revolute = model.joint_type[i] != PRISMATIC
        if not np.isfinite(norm) or norm == 0.0 or (
                revolute and abs(norm - 1.0) > 1e-9):
            raise ModelError(
                'joint %r: axis %s must be a unit vector (a revolute joint) '
                'or a nonzero one (a prismatic joint)'
                % (model.joint_names[i], axis.tolist()))
        frames[i] = axis_frame(axis)
    return frames


def pack_table(model):
    """Return the table of ``model`` (nq + 1, COLUMNS), a fresh copy."""
    n = model.nq
    Q = axis_frames(model)
    parent = np.asarray(model.parent, dtype=int)
    # Q of each parent, the identity for the base.
    Q_parent = np.concatenate((Q, np.eye(3)[None]))[parent]
    prismatic = model.joint_type == PRISMATIC
    inertia = np.asarray(model.spatial_inertia, dtype=float).reshape(n, 6, 6)
    # I = [[Ibar, h x], [-h x, m 1]] (eq. 2.63 with h = m c).
    first_moment = np.stack(
        (inertia[:, 2, 4], inertia[:, 0, 5], inertia[:, 1, 3]), axis=1)
    QT = Q.transpose(0, 2, 1)
    table = np.zeros((n + 1, COLUMNS))
    body = table[:n]
    body[:, PARENT] = parent
    body[:, IS_PRISMATIC] = prismatic
    body[:, JOINT_SCALE] = np.where(
        prismatic, np.linalg.norm(model.axis, axis=1), 1.0)
    body[:, AXIS_FRAME:AXIS_FRAME + 9] = Q.reshape(n, 9)
    body[:, ORIGIN_ROTATION:ORIGIN_ROTATION + 9] = (
        Q_parent.transpose(0, 2, 1) @ model.origin_rotation @ Q).reshape(n, 9)
    body[:, ORIGIN_TRANSLATION:ORIGIN_TRANSLATION + 3] = np.einsum(
        'kji,kj->ki', Q_parent, model.origin_translation)
    body[:, MASS] = inertia[:, 3, 3]
    body[:, FIRST_MOMENT:FIRST_MOMENT + 3] = np.einsum(
        'kij,kj->ki', QT, first_moment)
    body[:, ROTATIONAL_INERTIA:ROTATIONAL_INERTIA + 9] = (
        QT @ inertia[:, :3, :3] @ Q).reshape(n, 9)
    body[:, ARMATURE] = model.armature
    end, contiguous = subtree_ends(parent)
    body[:, SUBTREE_END] = end
    body[:, CONTINUOUS] = model.continuous
    table[n, GRAVITY:GRAVITY + 3] = model.gravity
    table[n, IS_CHAIN] = np.array_equal(parent, np.arange(n) - 1)
    table[n, SUBTREES_CONTIGUOUS] = contiguous
    return table


def subtree_ends(parent):
    """
    Return one past the last descendant of each body, and if that is all.

    True when every subtree is the run of bodies i, i + 1, ..., end - 1
    (depth-first numbering): loops over a subtree then need no parent
    look-ups.
    """
    n = len(parent)
    end = np.arange(n) + 1
    for i in range(n - 1, -1, -1):
        if parent[i] >= 0:
            end[parent[i]] = max(end[parent[i]], end[i])
    size = np.ones(n, dtype=int)
    for i in range(n - 1, -1, -1):
        if parent[i] >= 0:
            size[parent[i]] += size[i]
    return end, bool(np.array_equal(end - np.arange(n), size))


@dataclass(frozen=True, slots=True)
class PackedModel:
    """
    A RobotModel as the kernels take it: the model and its workspace.

    - ``table`` (nq + 1, COLUMNS): the rows above (``pack_table``), as
      Pinocchio's Model;
    - ``work`` (nq + 2, WORK_COLUMNS): scratch the kernels reuse instead of
      allocating per call, as Pinocchio's Data (a kernel holds the GIL from
      start to end, so two calls never overlap);
    - ``nq``: the number of coordinates.
    """

    table: np.ndarray
    work: np.ndarray
    nq: int


def packed(model):
    """Return the PackedModel of a RobotModel, packing it on first use."""
    pack = model.packed_model
    if pack is None:
        pack = PackedModel(pack_table(model),
                           np.zeros((model.nq + 2, WORK_COLUMNS)), model.nq)
        setattr(model, PACKED_MODEL, pack)
    return pack
