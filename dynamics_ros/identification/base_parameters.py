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
Base parameters: the combinations of inertial parameters data can identify.

Not every inertial parameter changes the joint torques (a body's mass
along its own joint axis, the first body's inertia about axes other than
its joint axis), and some only in fixed combinations with others (a body's
mass moves the joint before it like a first moment of the parent).  The
identifiable combinations, the base parameters, follow numerically from a
regressor stacked over random states (Gautier 1990, "Numerical calculation
of the base inertial parameters of robots"; Khalil and Dombre 2002 sec.
12.4.2): QR with column pivoting, W P = Q R, gives the rank r and

    W P = [W_1 W_2],  W_2 = W_1 K  (K = R_11^-1 R_12),

so tau = W pi = W_1 (pi_1 + K pi_2): the base parameters are
beta = pi_1 + K pi_2, the independent columns' parameters plus the
dependent ones they absorb.
"""

import numpy as np
import scipy.linalg

from ..dynamics.friction import friction_regressor, FRICTION_TERMS
from ..dynamics.regressor import joint_torque_regressor, parameter_names

# Relative size of R's diagonal below which a column counts as dependent.
RANK_TOLERANCE = 1e-8
# Coefficients of a combination smaller than this are left out of its name.
NAME_TOLERANCE = 1e-9


class BaseParameters:
    """
    The base parameters of a regressor's columns.

    - ``names``: the p column (standard parameter) names;
    - ``independent``: the r columns kept (indices into the p);
    - ``dependent``: the others; ``K`` (r, p - r): W_dependent = W_1 K;
    - ``projection`` (r, p): beta = projection @ pi;
    - ``combinations``: a readable name per base parameter, e.g.
      'link3.m_cx + 0.3 link4.m'.
    """

    def __init__(self, names, independent, dependent, K):
        """Build from the pivoted QR's split (see ``base_parameters``)."""
        self.names = list(names)
        self.independent = np.asarray(independent, dtype=int)
        self.dependent = np.asarray(dependent, dtype=int)
        self.K = np.asarray(K, dtype=float)
        p = len(self.names)
        self.projection = np.zeros((len(self.independent), p))
        self.projection[np.arange(len(self.independent)),
                        self.independent] = 1.0
        self.projection[:, self.dependent] = self.K
        self.combinations = [self._combination(k)
                             for k in range(len(self.independent))]

    @property
    def rank(self):
        """Return the number of base parameters."""
        return len(self.independent)

    def _combination(self, k):
        """Name base parameter k as its sum of standard parameters."""
        row = self.projection[k]
        terms = [self.names[self.independent[k]]]
        for j in self.dependent:
            c = row[j]
            if abs(c) <= NAME_TOLERANCE:
                continue
            magnitude = '' if abs(abs(c) - 1.0) < NAME_TOLERANCE \
                else '%.6g ' % abs(c)
            terms.append('%s %s%s' % ('-' if c < 0 else '+', magnitude,
                                      self.names[j]))
        return ' '.join(terms)

    def values(self, parameters):
        """Return beta = projection @ pi of standard parameters ``pi``."""
        return np.asarray(parameters, dtype=float) @ self.projection.T

    def regressor(self, W):
        """Return the base regressor W_1: the independent columns of W."""
        return np.asarray(W)[..., self.independent]

    def unidentifiable(self):
        """Return the names of the parameters that no torque depends on."""
        return [self.names[j] for j in self.dependent
                if np.all(np.abs(self.K[:, list(self.dependent).index(j)])
                          <= NAME_TOLERANCE)]


def base_parameters(W, names, tolerance=RANK_TOLERANCE):
    """
    Return the base parameters of the stacked regressor ``W`` (rows, p).

    Rank by pivoted QR: columns whose |R_kk| is below ``tolerance`` times
    the largest are dependent on the ones before them.
    """
    W = np.asarray(W, dtype=float).reshape(-1, len(names))
    Q, R, order = scipy.linalg.qr(W, mode='economic', pivoting=True)
    diagonal = np.abs(np.diag(R))
    rank = int(np.sum(diagonal > tolerance * diagonal[0])) \
        if diagonal.size else 0
    independent, dependent = order[:rank], order[rank:]
    K = scipy.linalg.solve_triangular(R[:rank, :rank], R[:rank, rank:])
    # Sorted independent columns read better (link by link); K follows.
    sort = np.argsort(independent)
    dependent_sort = np.argsort(dependent)
    K = K[sort][:, dependent_sort]
    # Round-off in K (exact relations have small rational coefficients).
    K[np.abs(K) < NAME_TOLERANCE] = 0.0
    return BaseParameters(names, independent[sort], dependent[dependent_sort],
                          K)


def random_states(model, count, rng, velocity=2.0, acceleration=5.0):
    """(q, qd, qdd) rows: q within finite limits, else [-pi, pi]."""
    lower = np.where(np.isfinite(model.lower_limit), model.lower_limit,
                     -np.pi)
    upper = np.where(np.isfinite(model.upper_limit), model.upper_limit,
                     np.pi)
    q = lower + rng.uniform(0.0, 1.0, (count, model.nq)) * (upper - lower)
    return (q, rng.uniform(-velocity, velocity, (count, model.nq)),
            rng.uniform(-acceleration, acceleration, (count, model.nq)))


def identification_regressor(model, q, qd, qdd, friction=True,
                             smoothing=None):
    """
    Return W = [Y, Y_f] stacked (N nq, 10 nb + 3 nq) and its column names.

    Rows are sample-major (sample k's joints together).  ``friction``
    appends the columns of ``dynamics.friction`` (viscous, Coulomb,
    offset per joint).
    """
    Y = joint_torque_regressor(model, q, qd, qdd)
    names = parameter_names(model)
    if Y.ndim == 2:
        Y = Y[None]
    if friction:
        qd = np.asarray(qd, dtype=float).reshape(-1, model.nq)
        options = {} if smoothing is None else {'smoothing': smoothing}
        Y = np.concatenate((Y, friction_regressor(qd, **options)), axis=2)
        names = names + friction_names(model)
    return Y.reshape(-1, Y.shape[2]), names


def friction_names(model):
    """Return 'joint.viscous', 'joint.coulomb', 'joint.offset' per joint."""
    return ['%s.%s' % (joint, term) for joint in model.joint_names
            for term in FRICTION_TERMS]


def model_base_parameters(model, friction=True, samples=None, seed=0):
    """Return the base parameters of ``model`` (regressor at random states)."""
    rng = np.random.default_rng(seed)
    count = samples or max(200, 40 * model.nq)
    W, names = identification_regressor(model, *random_states(
        model, count, rng), friction=friction)
    return base_parameters(W, names)
