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
Analytic partial derivatives of forward dynamics: dqdd/dq, dqdd/dqd, M^-1.

Forward dynamics solves ID(q, qd, qdd) = tau for qdd.  Differentiating that
identity at qdd = FD(q, qd, tau) (implicit function theorem) gives

    dqdd/dq = -M^-1 dID/dq,   dqdd/dqd = -M^-1 dID/dqd,   dqdd/dtau = M^-1,

which is how Carpentier and Mansard (2018, sec. IV) obtain the derivatives
of the articulated-body algorithm.  M comes out of the same derivative pass
(``inverse_dynamics_derivatives``); M^-1 from its Cholesky factor.  In numpy
(``reference_forward_dynamics_derivatives``), or compiled
(``dynamics_ros.fast.aba_derivatives``) when numba is installed.
"""

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from . import mimic_dynamics
from .aba import reference_forward_dynamics
from .dispatch import dispatch, MATRIX, Operation
from .rnea_derivatives import reference_inverse_dynamics_derivatives
from ..model.massless import singular_inertia_error


def inverse_inertia(M, model=None):
    """Return M^-1 of a symmetric positive-definite M via Cholesky."""
    try:
        factor = cho_factor(M)
    except np.linalg.LinAlgError:
        raise singular_inertia_error(model)
    return cho_solve(factor, np.eye(M.shape[0]))


def reference_forward_dynamics_derivatives(model, q, qd, tau, f_ext=None):
    """Forward-dynamics Jacobians of one state in numpy: the reference."""
    with np.errstate(invalid='ignore', divide='ignore'):
        # A singular M is reported by inverse_inertia, not by ABA.
        qdd = reference_forward_dynamics(model, q, qd, tau, f_ext)
    dtau_dq, dtau_dqd, M = reference_inverse_dynamics_derivatives(
        model, q, qd, qdd, f_ext)
    Minv = inverse_inertia(M, model)
    return -Minv @ dtau_dq, -Minv @ dtau_dqd, Minv


# Mimic models: ABA's recursion cannot follow a coupling (mimic_dynamics).
FORWARD_DYNAMICS_DERIVATIVES = Operation(
    reference=reference_forward_dynamics_derivatives,
    arguments=('q', 'qd', 'tau'), forces=True, inverts_inertia=True,
    kernel='aba_derivatives.forward_dynamics_derivatives',
    results=(MATRIX, MATRIX, MATRIX),
    coupled=mimic_dynamics.forward_dynamics_derivatives)


@FORWARD_DYNAMICS_DERIVATIVES.public
def forward_dynamics_derivatives(model, q, qd, tau, f_ext=None, *, out=None):
    """
    Partial derivatives of ``forward_dynamics`` at (q, qd, tau).

    Returns ``(dqdd_dq, dqdd_dqd, Minv)``, each (nq, nq), where
    ``Minv = dqdd/dtau``; the same as Pinocchio's computeABADerivatives.
    Stacked (N, nq, nq) for a batch, and ``out`` a tuple of 3 arrays.
    """
    return dispatch(FORWARD_DYNAMICS_DERIVATIVES, model, (q, qd, tau), f_ext,
                    out)
