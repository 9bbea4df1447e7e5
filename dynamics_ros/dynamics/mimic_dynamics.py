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
Forward dynamics and its derivatives in independent coordinates.

The articulated-body recursion runs over a tree's own joints, so it cannot
follow a mimic coupling.  With q_tree = G q + offset (``MimicModel``) the
equations of motion in independent coordinates are

    M_r qdd + h_r = tau,   M_r = G^T M G,   h_r = G^T h(G q + offset, G qd)

(the virtual work of the tree's torques on the independent joints), so
qdd = M_r^-1 (tau - h_r).  M_r and h_r come from the dispatched
``mass_matrix`` and ``inverse_dynamics`` (compiled, batches included), the
solve from a Cholesky factor that also tells a singular M_r.  The
derivatives follow as in Carpentier and Mansard (2018):
dqdd/dq = -M_r^-1 dtau_r/dq at qdd, dqdd/dtau = M_r^-1.
"""

import numpy as np

from .crba import mass_matrix
from .rnea import inverse_dynamics
from .rnea_derivatives import inverse_dynamics_derivatives
from ..fast.samples import samples
from ..model.massless import singular_inertia_error


def cholesky(model, M):
    """Cholesky factors of one M or a stack; ModelError if not PD."""
    try:
        return np.linalg.cholesky(M)
    except np.linalg.LinAlgError:
        if M.ndim == 3:
            for k in range(M.shape[0]):
                try:
                    np.linalg.cholesky(M[k])
                except np.linalg.LinAlgError:
                    raise singular_inertia_error(model, k)
        raise singular_inertia_error(model)


def inverse(model, M):
    """M^-1 of one symmetric positive-definite M or a stack of them."""
    L = cholesky(model, M)
    Linv = np.linalg.inv(L)
    return np.swapaxes(Linv, -1, -2) @ Linv


def forward_dynamics(model, q, qd, tau, f_ext=None):
    """Return qdd = M_r^-1 (tau - h_r) of a MimicModel, one state or N."""
    (q, qd, tau), size = samples(model, ('q', 'qd', 'tau'), (q, qd, tau))
    M = mass_matrix(model, q)
    h = inverse_dynamics(model, q, qd, np.zeros(model.nq), f_ext)
    cholesky(model, M)  # refuses a singular M by name
    return np.linalg.solve(M, (tau - h)[..., None])[..., 0]


def forward_dynamics_derivatives(model, q, qd, tau, f_ext=None):
    """(dqdd/dq, dqdd/dqd, M_r^-1) of a MimicModel at (q, qd, tau)."""
    (q, qd, tau), size = samples(model, ('q', 'qd', 'tau'), (q, qd, tau))
    qdd = forward_dynamics(model, q, qd, tau, f_ext)
    dtau_dq, dtau_dqd, M = inverse_dynamics_derivatives(model, q, qd, qdd,
                                                        f_ext)
    Minv = inverse(model, M)
    return -Minv @ dtau_dq, -Minv @ dtau_dqd, Minv


def linearize(model, q, qd, tau):
    """
    Continuous (A, B) of a MimicModel, damping G^T D G included.

    The layout of ``dynamics.linearize``: A = [[0, I], [dqdd/dq, dqdd/dqd -
    M^-1 D]], B = [[0], [M^-1]], with the applied torque tau - D qd.
    """
    (q, qd, tau), size = samples(model, ('q', 'qd', 'tau'), (q, qd, tau))
    dqdd_dq, dqdd_dqd, Minv = forward_dynamics_derivatives(
        model, q, qd, tau - model.damping * qd)
    n = model.nq
    stack = dqdd_dq.shape[:-2]
    A = np.zeros(stack + (2 * n, 2 * n))
    A[..., :n, n:] = np.eye(n)
    A[..., n:, :n] = dqdd_dq
    A[..., n:, n:] = dqdd_dqd - Minv * model.damping
    B = np.zeros(stack + (2 * n, n))
    B[..., n:, :] = Minv
    return A, B
