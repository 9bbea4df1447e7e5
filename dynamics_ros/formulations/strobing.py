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
Mass matrix, Coriolis terms and gravity by "strobing" inverse dynamics.

Turney, Mudge and Lee (1980), end of section 3: run an inverse-dynamics
routine tau(q, qd, qdd, gravity) with chosen inputs and read the terms of
tau = M qdd + C(q, qd) + G off its outputs:

- column j of M: qd = 0, qdd = e_j, no gravity;
- G: qd = qdd = 0 with gravity; C + G: qdd = 0;
- C^i_jk (C_i = qd^t C^i qd): the paper sets qd_j = qd_k = 1 and everything
  else to zero, which returns C^i_jj + C^i_kk + 2 C^i_jk, not C^i_jk.  The
  corrected strobe (docs/papers/turney_1980.md, misprint 4) is
  C^i_jk = [tau(e_j + e_k) - tau(e_j) - tau(e_k)] / 2, C^i_jj = tau(e_j).

C^i_jk is the Christoffel symbol of the first kind (symmetric in j, k), so
sum_k C^i_jk qd_k is the Christoffel Coriolis matrix of the core API.
``inverse`` defaults to the link-frame Newton-Euler of newton_euler_links.
"""

import numpy as np

from .chain import dh_chain
from .newton_euler_links import newton_euler_inverse_dynamics


def _inverse_of(model, inverse):
    if inverse is not None:
        return inverse
    chain = dh_chain(model)
    return lambda q, qd, qdd, gravity: newton_euler_inverse_dynamics(
        chain, q, qd, qdd, gravity=gravity)


def _size(model):
    return len(model.joint_names)


def strobe_mass_matrix(model, q, inverse=None):
    """Return M(q): column j is tau(q, 0, e_j) without gravity."""
    inverse = _inverse_of(model, inverse)
    n = _size(model)
    zero = np.zeros(n)
    return np.column_stack([inverse(q, zero, unit, False)
                            for unit in np.eye(n)])


def strobe_gravity(model, q, inverse=None):
    """Return G(q) = tau(q, 0, 0) with gravity."""
    zero = np.zeros(_size(model))
    return _inverse_of(model, inverse)(q, zero, zero, True)


def strobe_bias(model, q, qd, inverse=None):
    """Return C(q, qd) + G(q) = tau(q, qd, 0) with gravity."""
    zero = np.zeros(_size(model))
    return _inverse_of(model, inverse)(q, qd, zero, True)


def strobe_coriolis_tensor(model, q, inverse=None):
    """Return C[i, j, k] = C^i_jk by the corrected three-run strobe."""
    inverse = _inverse_of(model, inverse)
    n = _size(model)
    zero = np.zeros(n)
    units = np.eye(n)
    single = [inverse(q, units[j], zero, False) for j in range(n)]
    C = np.zeros((n, n, n))
    for j in range(n):
        C[:, j, j] = single[j]
        for k in range(j + 1, n):
            pair = inverse(q, units[j] + units[k], zero, False)
            C[:, j, k] = C[:, k, j] = 0.5 * (pair - single[j] - single[k])
    return C


def paper_coriolis_strobe(model, q, j, k, inverse=None):
    """
    Return the strobe as printed (qd_j = qd_k = 1): NOT C^i_jk for j != k.

    Kept to show the misprint: it equals C^i_jj + C^i_kk + 2 C^i_jk.
    """
    inverse = _inverse_of(model, inverse)
    n = _size(model)
    qd = np.zeros(n)
    qd[[j, k]] = 1.0
    return inverse(q, qd, np.zeros(n), False)


def strobe_coriolis_matrix(model, q, qd, inverse=None):
    """Return the Christoffel Coriolis matrix sum_k C^i_jk qd_k."""
    return np.einsum('ijk,k->ij', strobe_coriolis_tensor(model, q, inverse),
                     np.asarray(qd, dtype=float))
