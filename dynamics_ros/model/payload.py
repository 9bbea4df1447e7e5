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
A payload rigidly attached to a link: a RobotModel copy with it merged.

The payload is a rigid body given in the frame of the link it is attached to
(usually the tool flange, ``tip_link``): ``mass`` (kg), centre of mass
``com`` (m) and rotational inertia about that centre ``inertia`` (kg m^2,
either 3x3 or the URDF six ``ixx ixy ixz iyy iyz izz``).  Merging it into the
link's body is the parallel-axis sum of two rigid bodies, the same thing the
URDF loader does for a link welded by a fixed joint.

On a MimicModel the payload goes to a body of its tree (every movable
joint's body, mimic ones included) and the result is a MimicModel with the
same coupling.
"""

import numpy as np

from .mimic_model import MimicModel
from .ranges import within
from ..errors import ModelError


def inertia_matrix(values):
    """Return the symmetric 3x3 inertia of ``ixx ixy ixz iyy iyz izz`` or 3x3."""
    values = np.asarray(values, dtype=float)
    if values.shape == (3, 3):
        return values
    if values.shape != (6,):
        raise ModelError('payload inertia must have 6 values (ixx ixy ixz '
                         'iyy iyz izz) or be 3x3, got shape %s'
                         % (values.shape,))
    ixx, ixy, ixz, iyy, iyz, izz = values
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])


def check_payload(mass, com, inertia):
    """
    Validate a payload; return it as (mass, com (3,), inertia (3, 3)).

    Raises ModelError saying which value is wrong: a mass that is negative or
    not finite, a com that is not 3 finite numbers, or an inertia that no
    rigid body can have (not symmetric, a negative principal moment, or
    principal moments that break the triangle inequality I1 + I2 >= I3).
    """
    mass = float(mass)
    if not np.isfinite(mass) or mass < 0.0:
        raise ModelError('payload mass must be finite and >= 0, got %r'
                         % mass)
    com = np.asarray(com, dtype=float)
    if com.shape != (3,) or not np.all(np.isfinite(com)):
        raise ModelError('payload com must be 3 finite numbers, got %r'
                         % (com.tolist(),))
    inertia = inertia_matrix(inertia)
    if not np.all(np.isfinite(inertia)):
        raise ModelError('payload inertia must be finite, got %r'
                         % (inertia.tolist(),))
    # The same ranges as a URDF's links: 1e308 kg overflows later.
    within(mass, 'mass', 'payload')
    within(com, 'length', 'payload com')
    within(inertia, 'inertia', 'payload')
    scale = max(float(np.max(np.abs(inertia))), 1e-300)
    tolerance = 1e-12 * scale
    if np.max(np.abs(inertia - inertia.T)) > tolerance:
        raise ModelError('payload inertia must be symmetric, got %r'
                         % (inertia.tolist(),))
    moments = np.linalg.eigvalsh(inertia)
    if moments[0] < -tolerance:
        raise ModelError(
            'payload inertia has a negative principal moment %.6g (principal '
            'moments %s): not a rigid body' % (moments[0], moments))
    if moments[0] + moments[1] < moments[2] - tolerance:
        raise ModelError(
            'payload inertia principal moments %s break the triangle '
            'inequality I1 + I2 >= I3: no rigid body has them' % moments)
    return mass, com, inertia


def payload_body(model, link=None):
    """
    Return (body, rotation, translation) of the link carrying the payload.

    ``link`` is a link name of the model (its merged body and where the link
    frame sits in that body); None means the last body of the model, in its
    own frame.  Body -1 is the fixed base: a payload there moves nothing.
    A MimicModel's bodies are those of its tree.
    """
    if isinstance(model, MimicModel):
        model = model.tree
    if link:
        if link not in model.frames:
            raise ModelError('payload link %r is not a link of model %r '
                             '(links: %s)' % (link, model.name,
                                              ', '.join(sorted(model.frames))))
        body, rotation, translation = model.frames[link]
        return body, np.asarray(rotation), np.asarray(translation)
    if model.nq == 0:
        raise ModelError('model %r has no moving body to carry a payload'
                         % model.name)
    return model.nq - 1, np.eye(3), np.zeros(3)


def combine_bodies(mass_a, com_a, inertia_a, mass_b, com_b, inertia_b):
    """
    Return (mass, com, inertia about com) of two rigid bodies welded together.

    Both are given in one frame; each inertia is about its own centre of mass.
    Parallel-axis theorem: I = sum_k I_k + m_k (|d_k|^2 1 - d_k d_k^T) with
    d_k the offset of body k's centre of mass from the combined one.
    """
    mass = mass_a + mass_b
    if mass == 0.0:
        return 0.0, np.zeros(3), inertia_a + inertia_b
    com = (mass_a * com_a + mass_b * com_b) / mass
    inertia = inertia_a + inertia_b
    for m, c in ((mass_a, com_a), (mass_b, com_b)):
        d = c - com
        inertia = inertia + m * (d.dot(d) * np.eye(3) - np.outer(d, d))
    return mass, com, inertia


def add_payload(model, mass, com, inertia, link=None):
    """
    Return a copy of ``model`` with a payload welded to ``link``.

    ``com`` and ``inertia`` are expressed in the frame of ``link`` (default:
    the last body of the model, in its own frame).  The model itself is not
    changed.  A zero payload returns an unchanged copy.  A MimicModel gets
    the payload on its tree and keeps its mimic joints.
    """
    if isinstance(model, MimicModel):
        return MimicModel(add_payload(model.tree, mass, com, inertia, link),
                          model.mimic)
    mass, com, inertia = check_payload(mass, com, inertia)
    body, rotation, translation = payload_body(model, link)
    if body < 0 or (mass == 0.0 and not np.any(inertia)):
        return model.copy()
    new_mass, new_com, new_inertia = combine_bodies(
        model.mass[body], model.com[body], model.inertia_com[body],
        mass, translation + rotation.dot(com),
        rotation.dot(inertia).dot(rotation.T))
    masses, coms, inertias = (model.mass.copy(), model.com.copy(),
                              model.inertia_com.copy())
    masses[body], coms[body], inertias[body] = new_mass, new_com, new_inertia
    return model.copy(mass=masses, com=coms, inertia_com=inertias)


# Everything of a model but its bodies' mass, centre of mass and inertia:
# what a payload picked up or put down leaves as it was.
KINEMATIC_FIELDS = (
    'parent', 'joint_type', 'continuous', 'axis', 'origin_rotation',
    'origin_translation', 'gravity', 'lower_limit', 'upper_limit',
    'velocity_limit', 'effort_limit', 'damping', 'friction', 'armature')


def only_inertias_differ(a, b):
    """
    Return True when models ``a`` and ``b`` differ in body inertias only.

    The same robot - names, tree, joints, origins, limits, joint effects,
    gravity, link frames, mimic coupling - with masses, centres of mass
    and inertias that may differ: what ``add_payload`` changes.  A
    simulation of ``a`` can go on from its state with ``b`` (a payload
    picked up or put down at run time).  Compared exactly: both come from
    one URDF text.
    """
    if isinstance(a, MimicModel) or isinstance(b, MimicModel):
        return isinstance(a, MimicModel) and isinstance(b, MimicModel) \
            and a.mimic == b.mimic and only_inertias_differ(a.tree, b.tree)
    if (a.name, a.root_link, list(a.joint_names), list(a.body_names)) != \
            (b.name, b.root_link, list(b.joint_names), list(b.body_names)):
        return False
    if not all(np.array_equal(getattr(a, field), getattr(b, field))
               for field in KINEMATIC_FIELDS):
        return False
    if a.frames.keys() != b.frames.keys():
        return False
    return all(a.frames[link][0] == b.frames[link][0]
               and np.array_equal(a.frames[link][1], b.frames[link][1])
               and np.array_equal(a.frames[link][2], b.frames[link][2])
               for link in a.frames)
