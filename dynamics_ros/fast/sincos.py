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
Sines and cosines of many angles at once, in a loop the compiler vectorizes.

A call to the C library's ``sin`` cannot run several angles in one
instruction, and a batch of inverse dynamics spends about a third of its
time in them.  Here each angle is reduced to r in [-pi/4, pi/4] with
x = n pi/2 + r (pi/2 in three parts, Cody and Waite's reduction: n P1 and
n P2 are exact, so r keeps its precision), sin r and cos r are their
Taylor series (the terms left out are below 1e-19 of the result on that
interval), and the quadrant n mod 4 picks and signs them.  Everything is
multiplies, adds and selects, so LLVM runs four angles per instruction.
Results are within 3 units in the last place of the C library's (2 for
angles that are not near a multiple of pi/2); angles beyond ``REDUCED_UP_TO``, where n P1 is
no longer exact, and non-finite ones go to the C library.
"""

from decimal import Decimal, getcontext
import math

import numpy as np

from .compiler import compiled


def pi_over_2_parts():
    """
    Return P1, P2, P3 with P1 + P2 + P3 = pi/2 to about 110 bits.

    P1 and P2 keep 30 significant bits each, so n P1 and n P2 are exact
    for |n| < 2^23.
    """
    getcontext().prec = 60
    # pi/2 to 60 digits.
    remainder = Decimal(
        '1.57079632679489661923132169163975144209858469968755291048747')
    parts = []
    for _ in range(2):
        mantissa, exponent = math.frexp(float(remainder))
        part = math.floor(mantissa * 2.0 ** 30) * 2.0 ** (exponent - 30)
        parts.append(part)
        remainder -= Decimal(part)
    parts.append(float(remainder))
    return tuple(parts)


P1, P2, P3 = pi_over_2_parts()
TWO_OVER_PI = 2.0 / math.pi
# |x| below this: |n| < 2^21, well inside the exact range of n P1.
REDUCED_UP_TO = 2.0 ** 21
# Taylor coefficients: sin r = r + r^3 (S[0] + r^2 S[1] + ...),
# cos r = 1 - r^2 / 2 + r^4 (C[0] + r^2 C[1] + ...).
SINE_TERMS = tuple((-1) ** k / math.factorial(2 * k + 1) for k in range(1, 9))
COSINE_TERMS = tuple((-1) ** k / math.factorial(2 * k) for k in range(2, 10))


@compiled(inline=True)
def series(z, terms):
    """Return terms[0] + z terms[1] + z^2 terms[2] + ... (Horner)."""
    total = terms[len(terms) - 1]
    for k in range(len(terms) - 2, -1, -1):
        total = total * z + terms[k]
    return total


@compiled
def sines_and_cosines(angles, sines, cosines):
    """Write sin and cos of every entry of ``angles`` (1-D arrays)."""
    for k in range(angles.size):
        x = angles[k]
        n = np.rint(x * TWO_OVER_PI)
        r = ((x - n * P1) - n * P2) - n * P3
        z = r * r
        s = r + r * z * series(z, SINE_TERMS)
        c = 1.0 - 0.5 * z + z * z * series(z, COSINE_TERMS)
        # Quadrant n mod 4: sin x = s, c, -s, -c; cos x = c, -s, -c, s.
        quadrant = int(n) & 3
        odd = (quadrant & 1) == 1
        first = c if odd else s
        second = s if odd else c
        sines[k] = -first if quadrant & 2 else first
        cosines[k] = -second if (quadrant + 1) & 2 else second
    for k in range(angles.size):
        if not abs(angles[k]) < REDUCED_UP_TO:  # large, inf or nan
            sines[k] = np.sin(angles[k])
            cosines[k] = np.cos(angles[k])
