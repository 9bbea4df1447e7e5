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
Least-squares fits of the base and of physically consistent parameters.

``ordinary_fit``: the base parameters by (weighted) least squares, with
their standard deviations from the residual (Gautier 1990; Swevers et al.
1997 eq. 20): cov(beta) = sigma^2 (W_b^T W_b)^-1, rows weighted by each
joint's own residual level (Gautier and Khalil's weighted least squares).

``consistent_fit``: every body's ten parameters kept physical by
construction, in the log-Cholesky coordinates of Rucker and Wensing (2022),
"Smooth parameterization of rigid-body inertia" (IEEE RA-L 7(2)), eq. 9:
the pseudo-inertia

    J = [[Sigma, h], [h^T, m]],  Sigma = tr(Ibar)/2 1 - Ibar  (eq. 3)

is positive definite exactly when the body is physically consistent
(positive mass, inertia satisfying the triangle inequalities: Wensing,
Kim and Slotine 2017), and J = U U^T with

    U = e^alpha [[e^d1, s12, s13, t1], [0, e^d2, s23, t2],
                 [0, 0, e^d3, t3], [0, 0, 0, 1]]

is positive definite for every real theta = (alpha, d, s, t).  So an
unconstrained least squares over theta (scipy.optimize.least_squares) can
only return physical bodies.  Friction is bounded below by zero (viscous
and Coulomb).  A prior (the URDF's values) with standard deviations makes
the unidentifiable directions fall back to it instead of wandering: the
fit is then the maximum a posteriori estimate.
"""

import numpy as np
import scipy.linalg
import scipy.optimize

from ..dynamics.regressor import inertia_matrix, inertia_vector

# Relative prior standard deviation of a body's mass (1 = 100 %), the
# length scale of its first moment and inertia (m), the smallest mass
# (kg) the prior's scale uses.
PRIOR_RELATIVE = 1.0
PRIOR_LENGTH = 0.1
PRIOR_MIN_MASS = 0.1


class Fit:
    """
    A fit's result.

    ``parameters`` (p,) standard parameters (``consistent_fit``) or None,
    ``base`` (r,) base parameter values, ``base_std`` their standard
    deviations, ``sigma`` the residual torque RMS per joint, ``rms`` over
    all joints, and ``info`` (solver status, iterations).
    """

    def __init__(self, parameters, base, base_std, sigma, rms, info=None):
        """Hold the fit's values."""
        self.parameters = parameters
        self.base = base
        self.base_std = base_std
        self.sigma = sigma
        self.rms = rms
        self.info = info or {}


def pseudo_inertia(parameters):
    """Return J (4, 4) of ten parameters [m, h, Ixx, Ixy, Iyy, Ixz, ...]."""
    m, h = parameters[0], parameters[1:4]
    Ibar = inertia_matrix(parameters[4:10])
    J = np.empty((4, 4))
    J[:3, :3] = 0.5 * np.trace(Ibar) * np.eye(3) - Ibar
    J[:3, 3] = h
    J[3, :3] = h
    J[3, 3] = m
    return J


def parameters_of_pseudo_inertia(J):
    """Return the ten parameters of a pseudo-inertia J (Ibar = tr(S) 1 - S)."""
    Sigma = J[:3, :3]
    Ibar = np.trace(Sigma) * np.eye(3) - Sigma
    return np.concatenate(([J[3, 3]], J[:3, 3], inertia_vector(Ibar)))


def log_cholesky_to_parameters(theta):
    """Ten parameters of theta = (alpha, d1, d2, d3, s12, s23, s13, t1..3)."""
    # Exponents clipped where exp overflows: a solver's trial step may
    # try them; no real body is e^100 kg.
    alpha, d1, d2, d3 = np.clip(theta[:4], -100.0, 100.0)
    s12, s23, s13, t1, t2, t3 = theta[4:]
    U = np.exp(alpha) * np.array([
        [np.exp(d1), s12, s13, t1],
        [0.0, np.exp(d2), s23, t2],
        [0.0, 0.0, np.exp(d3), t3],
        [0.0, 0.0, 0.0, 1.0]])
    return parameters_of_pseudo_inertia(U @ U.T)


def parameters_to_log_cholesky(parameters, floor=1e-9):
    """
    Return theta of ten parameters (the inverse of the map above).

    J = U U^T with U upper triangular is the Cholesky factor of J with rows
    and columns reversed.  A J that is not positive definite (a URDF body
    without inertia, or an unphysical one) is first lifted to its nearest
    matrix with eigenvalues of at least ``floor`` times its scale.
    """
    J = pseudo_inertia(np.asarray(parameters, dtype=float))
    values, vectors = np.linalg.eigh(J)
    scale = max(float(np.max(np.abs(values))), 1e-6)
    values = np.maximum(values, floor * scale)
    J = (vectors * values) @ vectors.T
    reverse = np.arange(3, -1, -1)
    L = np.linalg.cholesky(J[np.ix_(reverse, reverse)])
    U = L[np.ix_(reverse, reverse)]
    alpha = np.log(U[3, 3])
    V = U / U[3, 3]
    return np.array([alpha, np.log(V[0, 0]), np.log(V[1, 1]),
                     np.log(V[2, 2]), V[0, 1], V[1, 2], V[0, 2], V[0, 3],
                     V[1, 3], V[2, 3]])


def physically_consistent(parameters, tolerance=0.0):
    """Return True if every body's pseudo-inertia is positive definite."""
    bodies = np.asarray(parameters, dtype=float).reshape(-1, 10)
    return all(np.linalg.eigvalsh(pseudo_inertia(b))[0] > tolerance
               for b in bodies)


def joint_rows(rows, nq):
    """Return the joint of each stacked row (sample-major stacking)."""
    return np.arange(rows) % nq


def ordinary_fit(W_base, tau, nq, weighted=True, joints=None):
    """
    Least squares of the base parameters, with standard deviations.

    ``W_base`` (N nq, r) and ``tau`` (N nq,) are stacked sample-major.
    ``weighted``: a second pass weights each joint's rows by the inverse
    of its first-pass residual RMS.  ``joints``: the joint of each row
    (default: sample-major stacking of every joint).
    """
    W_base = np.asarray(W_base, dtype=float)
    tau = np.asarray(tau, dtype=float).ravel()
    joint = joint_rows(len(tau), nq) if joints is None else np.asarray(
        joints, dtype=int)
    weights = np.ones(len(tau))
    for _ in range(2 if weighted else 1):
        Ww = W_base * weights[:, None]
        beta = np.linalg.lstsq(Ww, tau * weights, rcond=None)[0]
        residual = tau - W_base @ beta
        sigma = np.array([np.sqrt(np.mean(residual[joint == j] ** 2))
                          for j in range(nq)])
        weights = 1.0 / np.maximum(sigma, 1e-12 * max(sigma.max(), 1e-300))
        weights = weights[joint]
    # Covariance of the weighted problem: residuals of unit variance.
    Ww = W_base * weights[:, None]
    dof = max(len(tau) - W_base.shape[1], 1)
    unit = np.sum(((tau - W_base @ beta) * weights) ** 2) / dof
    covariance = unit * np.linalg.pinv(Ww.T @ Ww)
    std = np.sqrt(np.maximum(np.diag(covariance), 0.0))
    return Fit(None, beta, std, sigma, float(np.sqrt(np.mean(residual ** 2))),
               {'covariance': covariance, 'weights': weights})


def prior_scales(prior, relative=PRIOR_RELATIVE, length=PRIOR_LENGTH):
    """Return the prior standard deviation of every inertial parameter."""
    bodies = np.asarray(prior, dtype=float).reshape(-1, 10)
    mass = np.maximum(np.abs(bodies[:, 0]), PRIOR_MIN_MASS) * relative
    scales = np.empty_like(bodies)
    scales[:, 0] = mass
    scales[:, 1:4] = (mass * length)[:, None]
    scales[:, 4:] = (mass * length ** 2)[:, None]
    return scales.ravel()


def compress(W, tau):
    """
    Return (R, c, rest) with ||W x - tau||^2 = ||R x - c||^2 + rest.

    One QR of [W tau] turns a long data set into p rows, so the nonlinear
    fit iterates on a p x p problem.
    """
    p = W.shape[1]
    R = scipy.linalg.qr(np.column_stack((W, tau)), mode='r')[0]
    R = R[:p + 1]
    return R[:p, :p], R[:p, p], float(R[p, p] ** 2) if R.shape[0] > p \
        else 0.0


def consistent_fit(W, tau, bodies, prior, sigma=None, prior_weight=1.0,
                   friction_columns=None, max_evaluations=150,
                   progress=None):
    """
    Physically consistent parameters: log-Cholesky least squares.

    ``W`` (N nq, 10 bodies + f) and ``tau`` stacked; the first 10 bodies
    columns are inertial, the rest friction (``friction_columns``: indices
    of those bounded below by 0, viscous and Coulomb).  ``prior`` (10
    bodies + f,) is the start and, with ``prior_weight`` > 0, the prior
    mean (standard deviations ``prior_scales`` / sqrt(prior_weight));
    ``sigma`` (N nq,) weights the rows (1 / torque noise).  Returns the
    standard parameters.
    """
    W = np.asarray(W, dtype=float)
    tau = np.asarray(tau, dtype=float).ravel()
    if sigma is not None:
        W = W / sigma[:, None]
        tau = tau / sigma
    inertial = 10 * bodies
    p = W.shape[1]
    R, c, _ = compress(W, tau)
    prior = np.asarray(prior, dtype=float)
    scales = np.concatenate((prior_scales(prior[:inertial]),
                             np.maximum(np.abs(prior[inertial:]), 1.0)))
    prior_rows = np.sqrt(prior_weight) / scales if prior_weight > 0 else None
    friction = np.zeros(p - inertial, dtype=bool)
    if friction_columns is not None:
        friction[np.asarray(friction_columns, dtype=int) - inertial] = True
    theta0 = np.concatenate([parameters_to_log_cholesky(prior[10 * b:
                                                              10 * b + 10])
                             for b in range(bodies)])
    phi0 = np.where(friction, np.maximum(prior[inertial:], 0.0),
                    prior[inertial:])
    x0 = np.concatenate((theta0, phi0))
    lower = np.concatenate((np.full(inertial, -np.inf),
                            np.where(friction, 0.0, -np.inf)))

    def standard(x):
        pi = np.concatenate([log_cholesky_to_parameters(x[10 * b:10 * b + 10])
                             for b in range(bodies)])
        return np.concatenate((pi, x[inertial:]))

    def derivative(x):
        # d pi / d theta, block-diagonal (10 x 10 per body) by central
        # differences of the closed form; friction is the identity.
        D = np.eye(p)
        for b in range(bodies):
            block = slice(10 * b, 10 * b + 10)
            for k in range(10):
                step = 1e-6 * max(1.0, abs(x[10 * b + k]))
                up, down = x[block].copy(), x[block].copy()
                up[k] += step
                down[k] -= step
                D[block, 10 * b + k] = (
                    log_cholesky_to_parameters(up)
                    - log_cholesky_to_parameters(down)) / (2 * step)
        return D

    def residual(x):
        pi = standard(x)
        r = R @ pi - c
        if prior_rows is not None:
            r = np.concatenate((r, prior_rows * (pi - prior)))
        return r

    def jacobian(x):
        D = derivative(x)
        J = R @ D
        if prior_rows is not None:
            J = np.vstack((J, prior_rows[:, None] * D))
        return J

    calls = [0]

    def counted(x):
        calls[0] += 1
        if progress is not None and calls[0] % 25 == 0:
            progress('consistent fit: %d evaluations' % calls[0])
        return residual(x)

    x0 = np.maximum(x0, lower)
    result = scipy.optimize.least_squares(
        counted, x0, jac=jacobian, bounds=(lower, np.inf), method='trf',
        x_scale='jac', max_nfev=max_evaluations, xtol=1e-10, ftol=1e-10,
        gtol=1e-8, tr_solver='lsmr')
    return standard(result.x), {'status': result.status,
                                'message': result.message,
                                'evaluations': result.nfev,
                                'cost': result.cost}
