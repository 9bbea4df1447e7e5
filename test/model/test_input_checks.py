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
Smaller input checks: values refused with their reason.

A massless last link is a ModelError when a Simulator is built, not a
FloatingPointError at its first step; computed torque refuses arguments of
the wrong shape (None, a scalar or a column target that would broadcast
to an (n, n) torque) and non-finite gains; gains and the observer's
``max_gap`` have upper bounds.
"""

import os

from conftest import REPO_ROOT
import dynamics_ros as dr
from dynamics_ros.control.computed_torque import (
    computed_torque, gain_reason, saturated_computed_torque)
from dynamics_ros.estimation.momentum_observer import check_max_gap, \
    MomentumObserver
import numpy as np
import pytest

TWO_LINK_PATH = os.path.join(REPO_ROOT, 'urdf', 'two_link_planar.urdf')
with open(TWO_LINK_PATH, encoding='utf-8') as _stream:
    TWO_LINK = _stream.read()


def test_a_massless_last_link_is_refused_by_the_simulator():
    start = TWO_LINK.index('<link name="fore_link"')
    end = TWO_LINK.index('</link>', start)
    inertial = TWO_LINK[TWO_LINK.index('<inertial>', start):end]
    massless = TWO_LINK.replace(inertial, '')
    with pytest.warns(dr.ModelWarning, match='move no mass'):
        model = dr.load_urdf(massless)
    with pytest.raises(dr.ModelError, match='joints elbow move no mass'):
        dr.Simulator(model)
    dr.Simulator(dr.load_urdf(TWO_LINK)).step(np.zeros(2))   # still runs


def test_computed_torque_refuses_arguments_of_the_wrong_shape():
    model = dr.load_urdf(TWO_LINK)
    q, qd, kp, kd = np.array([0.1, 0.2]), np.zeros(2), 10.0, 2.0
    good = computed_torque(model, q, qd, q, qd, np.zeros(2), kp, kd)
    assert good.shape == (2,)
    bad = {'qdd None': (q, qd, q, qd, None, kp, kd),
           'qdd scalar': (q, qd, q, qd, 1.0, kp, kd),
           'qdd column': (q, qd, q, qd, np.zeros((2, 1)), kp, kd),
           'q column': (q[:, None], qd, q, qd, np.zeros(2), kp, kd),
           'q_desired long': (q, qd, np.zeros(3), qd, np.zeros(2), kp, kd),
           'qd of a batch': (np.zeros((4, 2)), qd, q, qd, qd, kp, kd),
           'kp nan': (q, qd, q, qd, qd, np.nan, kd),
           'kd inf': (q, qd, q, qd, qd, kp, [1.0, np.inf]),
           'kp of 3': (q, qd, q, qd, qd, [1.0, 2.0, 3.0], kd),
           'kp text': (q, qd, q, qd, qd, 'high', kd),
           # float64 vectors take the compiled law, which checks the
           # gains only when tau is not finite: still refused.
           'kp nan per joint': (q, qd, q, qd, qd, np.array([np.nan, 1.0]),
                                np.full(2, 2.0)),
           'kd inf per joint': (q, qd, q, qd, qd, np.full(2, 10.0),
                                np.array([1.0, np.inf]))}
    for what, arguments in bad.items():
        with pytest.raises(ValueError, match='must') as error:
            computed_torque(model, *arguments)
        assert 'shape (2, 2)' not in str(error.value), what
        with pytest.raises(ValueError, match='must'):
            saturated_computed_torque(model, *arguments, np.full(2, 10.0))


def test_a_nan_state_propagates_on_the_compiled_law():
    """A NaN in a state is not refused: tau shows it (the caller checks)."""
    model = dr.load_urdf(TWO_LINK)
    q, gains = np.array([0.1, np.nan]), np.full(2, 10.0)
    tau = computed_torque(model, q, np.zeros(2), np.zeros(2), np.zeros(2),
                          np.zeros(2), gains, gains)
    assert np.isnan(tau).any()


def test_gains_and_gaps_have_upper_bounds():
    assert gain_reason('kp', [100.0]) is None
    assert gain_reason('kd', 20.0, 2) is None
    assert 'kp must be >= 0 and <= 1e+06' in gain_reason('kp', [1e308])
    assert 'kd must be' in gain_reason('kd', [np.nan])
    assert 'one per joint' in gain_reason('kp', [1.0, 2.0, 3.0], 2)
    assert check_max_gap(0.1) is None
    assert 'at most 10 s' in check_max_gap(1e308)
    with pytest.raises(ValueError, match='max_gap'):
        MomentumObserver(dr.load_urdf(TWO_LINK), max_gap=1e308)
