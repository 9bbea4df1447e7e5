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
Joint-space mass matrix by the composite-rigid-body algorithm (CRBA).

Featherstone (2008) Table 6.2.  Turney et al. (1980) obtain the same matrix by
"strobing" Newton-Euler with unit accelerations; the CRBA does it in one
inward pass of composite inertias.
"""

import numpy as np

from .dispatch import dispatch, MATRIX, Operation
from ..model.joints import as_vector, parent_transforms


def reference_mass_matrix(model, q):
    """Mass matrix of one state in numpy: the reference path."""
    q = as_vector(model, q, 'q')
    n = model.nq
    S, parent = model.motion_subspace, model.parent
    Xup = parent_transforms(model, q)
    composite = model.spatial_inertia.copy()
    for i in range(n - 1, -1, -1):
        if parent[i] >= 0:
            composite[parent[i]] += Xup[i].T @ composite[i] @ Xup[i]
    M = np.diag(model.armature.astype(float))
    for i in range(n):
        force = composite[i] @ S[i]
        M[i, i] += S[i] @ force
        j = i
        while parent[j] >= 0:
            force = Xup[j].T @ force
            j = parent[j]
            M[i, j] = M[j, i] = S[j] @ force
    return M


MASS_MATRIX = Operation(
    reference=reference_mass_matrix, kernel='crba.mass_matrix',
    arguments=('q',), results=(MATRIX,))


@MASS_MATRIX.public
def mass_matrix(model, q, *, out=None):
    """
    Symmetric positive-definite joint-space inertia M(q), (nq, nq).

    (N, nq, nq) for a batch of q; ``out`` takes an array of that shape.
    """
    return dispatch(MASS_MATRIX, model, (q,), out=out)
