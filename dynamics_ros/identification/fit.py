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

``ordinary_fit_normal``: the same from per-joint normal equations
(chunks.Equations), for recordings of any length.

``consistent_fit_normal``: the standard parameters with every body
physically consistent, least squares plus the URDF as prior, as a
semidefinite program (Wensing, Kim and Slotine 2017): the pseudo-inertia

    J = [[Sigma, h], [h^T, m]],  Sigma = tr(Ibar)/2 1 - Ibar

is linear in a body's ten parameters and positive semidefinite exactly
when the body is a physical mass distribution (positive mass, inertia
satisfying the triangle inequalities).  The problem is convex, so the
solver (cvxpy, Clarabel) returns the global optimum with a status, not an
iteration limit.  The prior (the URDF's values with standard deviations)
makes the unidentifiable directions fall back to it instead of
wandering: the fit is the maximum a posteriori estimate.

The log-Cholesky map of Rucker and Wensing (2022), "Smooth
parameterization of rigid-body inertia" (IEEE RA-L 7(2)), eq. 9, J = U U^T
with U = e^alpha [[e^d1, s12, s13, t1], [0, e^d2, s23, t2], [0, 0, e^d3,
t3], [0, 0, 0, 1]], stays here (``log_cholesky_to_parameters`` and its
inverse) for callers that want an unconstrained parameterization.
"""

import numpy as np
import scipy.linalg

from ..dynamics.regressor import parameters_of_pseudo_inertia, \
    pseudo_inertia
from ..optional import import_optional

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


def ordinary_fit_normal(A, b, c, n, base):
    """
    Weighted least squares of the base parameters from per-joint sums.

    ``A`` (nq, p, p), ``b`` (nq, p), ``c``, ``n`` (nq,) as
    ``chunks.Equations`` holds them; ``base`` the BaseParameters.  The
    same two passes as ``ordinary_fit`` (unit weights, then each joint's
    rows weighted by 1 / its residual RMS): a joint's residual sum of
    squares is c_j - 2 beta^T b_j + beta^T A_j beta, so no row is needed.
    """
    index = base.independent
    Ab = A[:, index][:, :, index]
    bb = b[:, index]
    nq = len(n)
    counts = np.maximum(n, 1)
    weights = np.ones(nq)
    for _ in range(2):
        beta = solve_normal((Ab * weights[:, None, None] ** 2).sum(axis=0),
                            (bb * weights[:, None] ** 2).sum(axis=0))
        squares = residual_squares(Ab, bb, c, beta)
        sigma = np.sqrt(squares / counts)
        weights = 1.0 / np.maximum(sigma, 1e-12 * max(sigma.max(), 1e-300))
    Aw = (Ab * weights[:, None, None] ** 2).sum(axis=0)
    dof = max(int(n.sum()) - len(index), 1)
    unit = float(np.sum(residual_squares(Ab, bb, c, beta) * weights ** 2)
                 / dof)
    covariance = unit * np.linalg.pinv(Aw)
    std = np.sqrt(np.maximum(np.diag(covariance), 0.0))
    rms = float(np.sqrt(np.sum(residual_squares(Ab, bb, c, beta))
                        / max(int(n.sum()), 1)))
    return Fit(None, beta, std, sigma, rms, {'covariance': covariance,
                                             'weights': weights})


def residual_squares(A, b, c, x):
    """Return per joint c_j - 2 x^T b_j + x^T A_j x (>= 0)."""
    return np.maximum(c - 2.0 * b @ x + np.einsum('p,jpq,q->j', x, A, x),
                      0.0)


def solve_normal(A, b):
    """Solve A x = b, A symmetric PSD, column-scaled (least norm if rank-deficient)."""
    scale = np.sqrt(np.maximum(np.diag(A), 1e-300))
    As = A / np.outer(scale, scale)
    x = scipy.linalg.lstsq(As, b / scale, lapack_driver='gelsd',
                           cond=1e-13)[0]
    return x / scale


def consistent_fit(W, tau, bodies, prior, sigma=None, prior_weight=1.0,
                   friction_columns=None, progress=None):
    """
    Physically consistent parameters of stacked data (see ``consistent_fit_normal``).

    ``W`` (N nq, 10 bodies + f) and ``tau`` stacked; ``sigma`` (N nq,)
    weights the rows (1 / torque noise).
    """
    W = np.asarray(W, dtype=float)
    tau = np.asarray(tau, dtype=float).ravel()
    if sigma is not None:
        W = W / sigma[:, None]
        tau = tau / sigma
    return consistent_fit_normal(W.T @ W, W.T @ tau, bodies, prior,
                                 prior_weight, friction_columns, progress)


def consistent_fit_normal(A, b, bodies, prior, prior_weight=1.0,
                          friction_columns=None, progress=None):
    """
    Physically consistent parameters: least squares + prior as an SDP.

    Minimizes ||W pi - tau||^2 (given by A = W^T W, b = W^T tau of the
    weighted rows) plus the prior term sum ((pi - prior) / scale)^2 *
    ``prior_weight``, subject to every body's pseudo-inertia J(pi_i)
    being positive semidefinite (Wensing, Kim and Slotine 2017, "Linear
    matrix inequalities for physically consistent inertial parameter
    identification", IEEE RA-L 3(1), Theorem 1: J >= 0 exactly when the
    body is a physical density; J is linear in pi, so this is a linear
    matrix inequality) and viscous and Coulomb friction
    (``friction_columns``) >= 0.  Convex: the solver's optimum is the
    global one, its status the answer's.  Solved by cvxpy with Clarabel
    (interior point; SCS if Clarabel is absent), in variables scaled by
    the prior's scales so that the solver sees unit-sized numbers.
    Returns (parameters, info) with info['status'] the solver's status,
    info['message'] a sentence for the report and ``solver``.
    """
    cp = import_optional('cvxpy', 'the physically consistent fit')

    A = np.asarray(A, dtype=float)
    b = np.asarray(b, dtype=float)
    prior = np.asarray(prior, dtype=float)
    inertial = 10 * bodies
    p = len(prior)
    scales = np.concatenate((prior_scales(prior[:inertial]),
                             np.maximum(np.abs(prior[inertial:]), 1.0)))
    # pi = prior + scales * y: y of order one.
    As = A * np.outer(scales, scales)
    bs = scales * (b - A @ prior)
    # ||W pi - tau||^2 = y^T As y - 2 bs^T y + const: as a sum of squares
    # of R y - r with As = R^T R (eigenvalues clipped at round-off).
    values, vectors = np.linalg.eigh(0.5 * (As + As.T))
    keep = values > max(values.max(), 1e-300) * 1e-13
    R = np.sqrt(values[keep])[:, None] * vectors[:, keep].T
    r = (vectors[:, keep].T @ bs) / np.sqrt(values[keep])
    y = cp.Variable(p)
    cost = cp.sum_squares(R @ y - r)
    if prior_weight > 0.0:
        cost = cost + prior_weight * cp.sum_squares(y)
    pi = prior + cp.multiply(scales, y)
    constraints = []
    for body in range(bodies):
        constraints.append(pseudo_inertia_expression(
            pi[10 * body:10 * body + 10]) >> 0)
    if friction_columns is not None and len(friction_columns):
        columns = np.asarray(friction_columns, dtype=int)
        constraints.append(pi[columns] >= 0.0)
    problem = cp.Problem(cp.Minimize(cost), constraints)
    solver = 'CLARABEL' if 'CLARABEL' in cp.installed_solvers() else 'SCS'
    if progress is not None:
        progress('consistent fit: semidefinite program, %d bodies, %s'
                 % (bodies, solver))
    try:
        problem.solve(solver=solver)
    except cp.error.SolverError as error:
        return prior.copy(), {'status': 'solver_error', 'solver': solver,
                              'message': 'solver %s failed (%s): the URDF '
                                         'values are kept' % (
                                             solver, str(error)[:200]),
                              'converged': False}
    status = problem.status
    converged = status in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE)
    if not converged or y.value is None:
        return prior.copy(), {'status': status, 'solver': solver,
                              'message': 'not converged (%s, %s): the URDF '
                                         'values are kept' % (status, solver),
                              'converged': False}
    parameters = prior + scales * np.asarray(y.value)
    return parameters, {
        'status': status, 'solver': solver, 'converged': True,
        'iterations': problem.solver_stats.num_iters,
        'message': 'converged (%s; %s, %s iterations)' % (
            status, solver, problem.solver_stats.num_iters)}


def pseudo_inertia_expression(parameters):
    """Return J (4, 4) of ten cvxpy parameters (``pseudo_inertia``)."""
    cp = import_optional('cvxpy', 'the physically consistent fit')

    m, hx, hy, hz, xx, xy, yy, xz, yz, zz = [
        parameters[k] for k in range(10)]
    half = 0.5 * (xx + yy + zz)
    return cp.bmat([[half - xx, -xy, -xz, hx],
                    [-xy, half - yy, -yz, hy],
                    [-xz, -yz, half - zz, hz],
                    [hx, hy, hz, m]])
