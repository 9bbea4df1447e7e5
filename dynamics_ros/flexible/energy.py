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
Energy of a flexible tree: Mackay (1988) eqs. 2.24, 2.44 and 2.52.

    T   = sum_i Tr[Wd G Wd^T + 2 Wd B2 W^T + W B1 W^T]
          B2 = sum_k deltad_k D_k,  B1 = sum_kj deltad_k deltad_j C_kj
    V_g = -sum_i g^T W_i r_i,   r_i = int h dm = 2 G_i[:, 3]
    V_e = 1/2 sum_k K_k delta_k^2

Armature adds 1/2 armature qd^2, as it adds to the joint inertia.  The
total is conserved by the unforced, undamped model: Mackay's test of FLX.
"""

import numpy as np

from .inverse_dynamics import body_inertia
from .kinematics import forward_pass


def energy(fm, z, zd):
    """Return (kinetic, gravitational, elastic) energy in J at (z, zd)."""
    z, zd = fm.check(z, 'z'), fm.check(zd, 'zd')
    fwd = forward_pass(fm, z, zd, np.zeros_like(z), gravity=False)
    gravity = np.append(fm.model.gravity, 0.0)
    kinetic = 0.5 * fm.model.armature @ zd[:fm.nq] ** 2
    potential = 0.0
    for i in range(fm.model.nq):
        G, D = body_inertia(fm, i, z)
        W, Wd = fwd.W[i], fwd.Wd[i]
        kinetic += np.einsum('ab,ab->', G, Wd.T @ Wd)
        if len(D):
            s = fm.mode_slices[i]
            B2 = np.einsum('k,kab->ab', zd[s], D)
            B1 = np.einsum('k,j,kjab->ab', zd[s], zd[s], fm.Ckj[i])
            kinetic += 2.0 * np.einsum('ab,ab->', B2, Wd.T @ W)
            kinetic += np.einsum('ab,ab->', B1, W.T @ W)
        potential -= gravity @ W @ (2.0 * G[:, 3])
    elastic = 0.5 * fm.stiffness @ z ** 2
    return kinetic, potential, elastic


def total_energy(fm, z, zd):
    """Kinetic plus gravitational plus elastic energy (J)."""
    return float(sum(energy(fm, z, zd)))
