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
Mechanical energy of a model's state: the conserved quantity of a free arm.

Mackay (1988, sec. 3.3) checks his simulator by the total energy T + V of
unforced, undamped runs; the same check holds for any tree here, and for
a MimicModel (its tree's energy at q_tree = G q + offset: the coupling does
no work).
"""

import numpy as np

from ..dynamics.crba import mass_matrix
from ..dynamics.kinematics import as_vector, body_poses, tree_positions


def kinetic_energy(model, q, qd):
    """T = 1/2 qd^T M(q) qd (armature included, as in M)."""
    qd = as_vector(model, qd, 'qd')
    return 0.5 * float(qd @ mass_matrix(model, q) @ qd)


def potential_energy(model, q):
    """V = -sum_i m_i g . c_i, zero with every mass centre at the root."""
    tree, q_tree = tree_positions(model, q)
    rotations, translations = body_poses(tree, q_tree)
    centres = np.einsum('ijk,ik->ij', rotations, tree.com) + translations
    return -float(tree.mass @ (centres @ tree.gravity))


def total_energy(model, q, qd):
    """Kinetic plus gravitational potential energy."""
    return kinetic_energy(model, q, qd) + potential_energy(model, q)
