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
The batches' vector sines and cosines (``dynamics_ros/fast/sincos.py``).

Held to numpy's (the C library's): a wrong quadrant, a lost digit of the
reduction or a short series would each miss these by far more than the
bounds.
"""

from dynamics_ros.fast.sincos import REDUCED_UP_TO, sines_and_cosines
from hypothesis import given, settings, strategies
import numpy as np
import pytest

pytest.importorskip('numba')

EPSILON = np.finfo(float).eps


def ours(angles):
    """Return our sines and cosines of ``angles``."""
    angles = np.ascontiguousarray(angles, dtype=float)
    sines = np.empty_like(angles)
    cosines = np.empty_like(angles)
    sines_and_cosines(angles, sines, cosines)
    return sines, cosines


def test_joint_angles_within_two_units_in_the_last_place():
    """Angles of joints (a few turns): within 2 ulp of the C library."""
    angles = np.random.default_rng(0).uniform(-20.0, 20.0, 200_000)
    sines, cosines = ours(angles)
    for value, exact in ((sines, np.sin(angles)), (cosines, np.cos(angles))):
        ulps = np.abs(value - exact) / np.spacing(np.abs(exact))
        assert ulps.max() <= 2.0
    # Every quadrant is met, both signs of both.
    assert (np.sign(sines) != np.sign(cosines)).mean() > 0.4


def test_multiples_of_half_pi_and_large_angles():
    """Near k pi/2 (where r cancels) within 3 ulp; far ones exactly libm's."""
    near = np.arange(-2000, 2000) * (np.pi / 2)
    sines, cosines = ours(near)
    for value, exact in ((sines, np.sin(near)), (cosines, np.cos(near))):
        assert (np.abs(value - exact) / np.spacing(np.abs(exact))).max() \
            <= 3.0
    far = np.array([REDUCED_UP_TO, -REDUCED_UP_TO * 3.7, 1e12, -1e300])
    sines, cosines = ours(far)
    assert np.array_equal(sines, np.sin(far))
    assert np.array_equal(cosines, np.cos(far))


def test_non_finite_angles_give_nan():
    """Infinite and nan angles give nan, as the C library does; zero 0, 1."""
    with np.errstate(invalid='ignore'):
        sines, cosines = ours([np.inf, -np.inf, np.nan, 0.0, 5e-324])
    assert np.isnan(sines[:3]).all() and np.isnan(cosines[:3]).all()
    assert sines[3] == 0.0 and cosines[3] == 1.0
    assert sines[4] == 5e-324 and cosines[4] == 1.0


@settings(max_examples=300, deadline=None)
@given(strategies.lists(strategies.floats(-1e6, 1e6), min_size=1,
                        max_size=40))
def test_any_angle_within_one_epsilon(angles):
    """Any angle up to 1e6 rad: error at most one epsilon absolute."""
    sines, cosines = ours(angles)
    assert np.abs(sines - np.sin(angles)).max() <= EPSILON
    assert np.abs(cosines - np.cos(angles)).max() <= EPSILON
