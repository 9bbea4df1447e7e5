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
Forward dynamics by the articulated-body algorithm (ABA), O(n).

Featherstone (2008) Table 7.1.  Nasser's 6x6 inbound/outbound recursion is the
same method: his closed form theta_dd_i = -Z^T F_i / (J^a + Z^T A*_i Z)
(from eqs. 2.1.11 and 2.1.20; docs/papers/nasser_1990.md) is the
articulated-inertia division ``(u - U.a) / d`` below, and his A* update
gamma G A* is ``Ia``.
"""

import numpy as np

from . import mimic_dynamics
from .dispatch import dispatch, Operation, TORQUE
from .rnea import base_acceleration, force_cross, motion_cross, one_state
from ..model.joints import parent_transforms


def reference_forward_dynamics(model, q, qd, tau, f_ext=None):
    """Forward dynamics of one state in numpy: the reference path."""
    q, qd, tau, f_ext = one_state(model, q, qd, tau, 'tau', f_ext)
    n = model.nq
    S, parent = model.motion_subspace, model.parent
    Xup = parent_transforms(model, q)
    v = np.zeros((n, 6))
    c = np.zeros((n, 6))
    IA = model.spatial_inertia.copy()
    pA = np.zeros((n, 6))
    for i in range(n):
        vJ = S[i] * qd[i]
        p = parent[i]
        v[i] = vJ if p < 0 else Xup[i] @ v[p] + vJ
        c[i] = motion_cross(v[i], vJ)
        pA[i] = force_cross(v[i], IA[i] @ v[i])
        if f_ext is not None:
            pA[i] -= f_ext[i]
    U = np.zeros((n, 6))
    d = np.zeros(n)
    u = np.zeros(n)
    for i in range(n - 1, -1, -1):
        U[i] = IA[i] @ S[i]
        d[i] = S[i] @ U[i] + model.armature[i]
        u[i] = tau[i] - S[i] @ pA[i]
        p = parent[i]
        if p >= 0:
            Ia = IA[i] - np.outer(U[i], U[i]) / d[i]
            pa = pA[i] + Ia @ c[i] + U[i] * (u[i] / d[i])
            IA[p] += Xup[i].T @ Ia @ Xup[i]
            pA[p] += Xup[i].T @ pa
    a = np.zeros((n, 6))
    qdd = np.zeros(n)
    a_base = base_acceleration(model)
    for i in range(n):
        p = parent[i]
        a[i] = Xup[i] @ (a_base if p < 0 else a[p]) + c[i]
        qdd[i] = (u[i] - U[i] @ a[i]) / d[i]
        a[i] += S[i] * qdd[i]
    return qdd


FORWARD_DYNAMICS = Operation(
    reference=reference_forward_dynamics, kernel='aba.forward_dynamics',
    arguments=('q', 'qd', 'tau'), results=(TORQUE,), forces=True,
    coupled=mimic_dynamics.forward_dynamics, inverts_inertia=True)


@FORWARD_DYNAMICS.public
def forward_dynamics(model, q, qd, tau, f_ext=None, *, out=None):
    """
    Joint accelerations qdd = M(q)^-1 (tau + J^T f_ext - h(q, qd)).

    ``f_ext`` as for ``inverse_dynamics``; qdd is (N, nq) for a batch
    (see ``dynamics_ros.dynamics`` for batches and ``out``).
    """
    return dispatch(FORWARD_DYNAMICS, model, (q, qd, tau), f_ext, out)
