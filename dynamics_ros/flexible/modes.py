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
Clamped-free Euler-Bernoulli mode shapes (Mackay 1988, eq. 3.4).

Mackay writes the k-th shape of a uniform beam of length a as

    Phi(eta) = s (cosh(alpha eta) - cos(alpha eta))
               - (sinh(alpha eta) - sin(alpha eta)),
    s = (sinh(alpha a) + sin(alpha a)) / (cosh(alpha a) + cos(alpha a)),

with alpha a the k-th root of cos(alpha a) cosh(alpha a) + 1 = 0.  His s is
the reciprocal of the textbook sigma, so his shapes are the textbook ones
times s: the first has Phi(a) = 2.7244, not 2 (docs/papers/mackay_1988.md;
sec. 3.3.3: "varsigma = 0.012 -> tip 0.0327 m").  The amplitude scale is a
choice, made explicit here by ``normalization``:

- ``'tip'``: Phi(a) = 1, so a mode's amplitude is its tip deflection in m;
- ``'mackay'``: eq. 3.4 as printed (the thesis' numbers use this one).

The hyperbolic terms are evaluated in a cancellation-free form so that high
modes (alpha a ~ 30) keep full precision.
"""

import numpy as np
from scipy.optimize import brentq

NORMALIZATIONS = ('tip', 'mackay')


def frequency_roots(count):
    """First ``count`` roots alpha*a of cos(x) cosh(x) + 1 = 0."""
    def equation(x):
        # Divided by cosh x, which is positive: same roots, no overflow.
        return np.cos(x) + 1.0 / np.cosh(x)

    roots = []
    for k in range(1, count + 1):
        centre = (k - 0.5) * np.pi
        roots.append(brentq(equation, centre - 0.5, centre + 0.5,
                            xtol=1e-15, rtol=4 * np.finfo(float).eps))
    return np.array(roots)


def _textbook_shape(x, L):
    """
    Textbook shape phi(x) and its first two x-derivatives.

    phi = cosh x - cos x - sigma (sinh x - sin x), sigma = (cosh L + cos L)
    / (sinh L + sin L).  cosh x - sigma sinh x is rewritten with
    1 - sigma = (sin L - cos L - exp(-L)) / (sinh L + sin L) so that no two
    large numbers are subtracted.
    """
    denominator = np.sinh(L) + np.sin(L)
    sigma = (np.cosh(L) + np.cos(L)) / denominator
    one_minus_sigma = (np.sin(L) - np.cos(L) - np.exp(-L)) / denominator
    grow = 0.5 * one_minus_sigma * np.exp(x)
    decay = 0.5 * (1.0 + sigma) * np.exp(-x)
    cosh_part = grow + decay            # cosh x - sigma sinh x
    sinh_part = grow - decay            # sinh x - sigma cosh x
    value = cosh_part - np.cos(x) + sigma * np.sin(x)
    first = sinh_part + np.sin(x) + sigma * np.cos(x)
    second = cosh_part + np.cos(x) - sigma * np.sin(x)
    return value, first, second, sigma


class ModeShapes:
    """
    The first ``count`` clamped-free shapes of a beam of length ``length``.

    ``shape(eta)`` returns Phi_k(eta) for every mode k (rows) and every
    station eta (columns); ``slope`` and ``curvature`` the first and second
    eta-derivatives.  ``roots[k]`` is alpha_k a.
    """

    def __init__(self, length, count, normalization='tip'):
        """Solve the frequency equation and fix each mode's scale."""
        if normalization not in NORMALIZATIONS:
            raise ValueError('mode normalization must be one of %s, got %r'
                             % (', '.join(NORMALIZATIONS), normalization))
        self.length = float(length)
        self.count = int(count)
        self.normalization = normalization
        self.roots = frequency_roots(self.count)
        self.scale = np.ones(self.count)
        for k, L in enumerate(self.roots):
            tip, _, _, sigma = _textbook_shape(L, L)
            # Mackay's eq. 3.4 multiplies the textbook shape by 1 / sigma.
            self.scale[k] = 1.0 / sigma if normalization == 'mackay' \
                else 1.0 / tip

    def _evaluate(self, eta, derivative):
        eta = np.atleast_1d(np.asarray(eta, dtype=float))
        alpha = self.roots / self.length
        out = np.zeros((self.count, eta.size))
        for k, L in enumerate(self.roots):
            parts = _textbook_shape(alpha[k] * eta, L)
            out[k] = self.scale[k] * parts[derivative] * alpha[k] ** derivative
        return out

    def shape(self, eta):
        """Return Phi_k at the stations eta: (count, len(eta))."""
        return self._evaluate(eta, 0)

    def slope(self, eta):
        """Return dPhi_k/deta at the stations eta: (count, len(eta))."""
        return self._evaluate(eta, 1)

    def curvature(self, eta):
        """Return d2Phi_k/deta2 at the stations eta: (count, len(eta))."""
        return self._evaluate(eta, 2)

    def wavenumbers(self):
        """Return alpha_k = (alpha a)_k / a, in 1/m."""
        return self.roots / self.length


def gauss_stations(length, count=64):
    """Gauss-Legendre stations and weights on [0, length]."""
    nodes, weights = np.polynomial.legendre.leggauss(count)
    return 0.5 * length * (nodes + 1.0), 0.5 * length * weights
