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
Forward dynamics of a flexible tree, its statics and small vibrations.

Mackay (1988) sec. 2.6: I(z) zdd = R(z, zd, F), solved by Cholesky.  Here
R = Q - bias, with Q the joint forces (and optional modal forces) and bias
the inverse dynamics at zdd = 0; both come from one forward pass.
"""

import numpy as np
from scipy.linalg import eigh
from scipy.linalg.lapack import dpotrf, dpotrs

from .inverse_dynamics import generalized_forces
from .kinematics import forward_pass
from .mass_matrix import mass_matrix_of_pass


def applied_forces(fm, tau, modal_forces=None):
    """Q = (tau, modal forces) as a vector of length nz."""
    tau = np.asarray(tau, dtype=float)
    if tau.shape != (fm.nq,):
        raise ValueError('tau must have %d values (one per joint, in '
                         'joint_names order), got shape %s'
                         % (fm.nq, tau.shape))
    Q = np.zeros(fm.nz)
    Q[:fm.nq] = tau
    if modal_forces is not None:
        Q[fm.nq:] = np.asarray(modal_forces, dtype=float).reshape(fm.nm)
    return Q


def forward_dynamics(fm, z, zd, tau, modal_forces=None):
    """Return zdd = I(z)^-1 (Q - bias(z, zd)) (Mackay sec. 2.6)."""
    z, zd = fm.check(z, 'z'), fm.check(zd, 'zd')
    Q = applied_forces(fm, tau, modal_forces)
    fwd = forward_pass(fm, z, zd, np.zeros_like(z), gravity=True)
    bias = generalized_forces(fm, z, zd, np.zeros_like(z), fwd=fwd)
    inertia = mass_matrix_of_pass(fm, fwd, z)
    # Cholesky factor and solve straight from LAPACK (dpotrf, dpotrs): the
    # numpy/scipy wrappers cost more than the factorization at this size.
    factor, info = dpotrf(inertia, lower=1)
    if info != 0:
        raise ValueError('the inertia matrix of %r is not positive definite '
                         'at z = %s (a massless subtree without armature?)'
                         % (fm.model.name, np.array2string(z, precision=4)))
    return dpotrs(factor, Q - bias, lower=1)[0]


def static_deflection(fm, q, iterations=50, tolerance=1e-12):
    """
    Modal amplitudes at rest under gravity, the joints held at ``q``.

    Solves K delta + g_modal(q, delta) = 0 by fixed-point iteration
    delta <- -K^-1 g_modal; g_modal depends on delta only through the
    small rotations of the sections, so a few steps converge.
    """
    z = fm.join(q)
    stiffness = fm.stiffness[fm.nq:]
    for _ in range(iterations):
        g = generalized_forces(fm, z, np.zeros_like(z), np.zeros_like(z),
                               gravity=True, elastic=False)[fm.nq:]
        delta = -g / stiffness
        change = np.max(np.abs(delta - z[fm.nq:]), initial=0.0)
        z[fm.nq:] = delta
        if change <= tolerance * max(1.0, np.max(np.abs(delta), initial=0)):
            break
    return z[fm.nq:]


def natural_periods(fm, z):
    """
    Periods (s) of small vibrations about z with the joints free.

    Generalized eigenvalues of K v = omega^2 I(z) v, longest period first;
    the joint directions have no stiffness (omega = 0) and are left out.  A fixed-step RK4 needs
    a step well below the shortest of these (Mackay: about 1/50).
    """
    if fm.nm == 0:
        return np.zeros(0)
    K = np.diag(fm.stiffness)
    omega_squared = eigh(K, fm.mass_matrix(z), eigvals_only=True)
    omega_squared = np.sort(omega_squared)[fm.nq:]
    return 2.0 * np.pi / np.sqrt(omega_squared)
