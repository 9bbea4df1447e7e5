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

"""Computed torque = M (qdd_d + Kp e + Kd de) + h, against Pinocchio."""

from conftest import assert_close
from dynamics_ros import fast
from dynamics_ros.control.computed_torque import (
    computed_torque, position_error, saturated_computed_torque)
import numpy as np
import oracle
import pytest
from urdf_factory import random_urdf


@pytest.mark.parametrize('arm', ['panda', 'ur5'])
def test_matches_mass_matrix_form(arm):
    model, reference = oracle.oracle_for(oracle.example_arm_xml(arm))
    rng = np.random.default_rng(9)
    kp = rng.uniform(10, 100, model.nq)
    kd = rng.uniform(1, 20, model.nq)
    for _ in range(3):
        q, qd, _, _ = oracle.random_state(model, rng)
        q_d, qd_d, qdd_d, _ = oracle.random_state(model, rng)
        v = qdd_d + kp * (q_d - q) + kd * (qd_d - qd)
        expected = reference.crba(q).dot(v) + reference.bias(q, qd)
        assert_close(computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd),
                     expected, what=arm)


def test_continuous_joints_take_the_short_way_round():
    model = oracle.oracle_for(random_urdf(4, 3, continuous=True))[0]
    assert model.continuous.any()
    q_d = np.full(model.nq, np.pi - 0.1)
    q = np.full(model.nq, -np.pi + 0.1)
    error = position_error(model, q_d, q)
    wrapped = np.where(model.continuous, -0.2, 2 * np.pi - 0.2)
    assert_close(error, wrapped)


def test_batches_equal_single_calls():
    """(N, nq) states with shared targets: row by row the same torques."""
    model = oracle.oracle_for(random_urdf(4, 3, continuous=True))[0]
    assert model.continuous.any()
    rng = np.random.default_rng(4)
    q, qd = rng.uniform(-4, 4, (2, 5, model.nq))
    q_d, qd_d, qdd_d = rng.uniform(-4, 4, (3, model.nq))
    kp, kd = np.full(model.nq, 50.0), np.full(model.nq, 5.0)
    batch = computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd)
    for k in range(5):
        assert_close(batch[k], computed_torque(model, q[k], qd[k], q_d, qd_d,
                                               qdd_d, kp, kd))
    with pytest.raises(ValueError, match='must have %d values per state'
                                         % model.nq):
        position_error(model, np.zeros(model.nq + 1), 0.0)


@pytest.mark.parametrize('source', ['panda', 'tree', 'chain_14'])
def test_the_saturated_law_in_one_kernel(source):
    """
    One compiled call: the law (Pinocchio's M v + h) and its clipping.

    Continuous and prismatic joints (a tree, and a chain long enough for
    the kernels' row-wise paths), errors beyond pi, joints clipped and not,
    against computed_torque (held to Pinocchio above) and np.clip.
    """
    xml = {'panda': oracle.example_arm_xml('panda'),
           'tree': random_urdf(31, n_movable=8, tree=True),
           'chain_14': random_urdf(32, n_movable=14)}[source]
    model, reference = oracle.oracle_for(xml)
    rng = np.random.default_rng(12)
    kp = rng.uniform(10, 100, model.nq)
    kd = rng.uniform(1, 20, model.nq)
    clipped_somewhere = unclipped_somewhere = 0
    for _ in range(5):
        q, qd = rng.uniform(-4, 4, (2, model.nq))
        q_d, qd_d, qdd_d = rng.uniform(-4, 4, (3, model.nq))
        expected = computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd)
        limits = np.abs(expected) * rng.uniform(0.5, 1.5, model.nq)
        tau, clipped, count = saturated_computed_torque(
            model, q, qd, q_d, qd_d, qdd_d, kp, kd, limits)
        assert_close(tau, expected, 1e-12, what=source)
        assert_close(clipped, np.clip(expected, -limits, limits), 1e-12,
                     what=source + ' clipped')
        assert count == np.count_nonzero(np.abs(expected) > limits)
        clipped_somewhere += count
        unclipped_somewhere += model.nq - count
        e = position_error(model, q_d, q)
        v = qdd_d + kp * e + kd * (qd_d - qd)
        assert_close(tau, reference.crba(q).dot(v) + reference.bias(q, qd),
                     what=source + ' Pinocchio')
    assert clipped_somewhere and unclipped_somewhere
    if source == 'tree':
        assert model.continuous.any()


def test_the_saturated_law_takes_any_arguments_and_keeps_nan():
    """Scalar gains, int arrays, a NaN: as computed_torque and saturate."""
    model = oracle.oracle_for(random_urdf(4, 3, continuous=True))[0]
    n = model.nq
    q, qd, q_d, qd_d, qdd_d = np.random.default_rng(3).uniform(
        -2, 2, (5, n))
    kp, kd, limits = np.full(n, 30.0), np.full(n, 4.0), np.full(n, 5.0)
    tau, clipped, count = saturated_computed_torque(
        model, q, qd, q_d, qd_d, qdd_d, kp, kd, limits)
    for odd in ((30.0, 4.0, limits), (kp, kd, [5] * n),
                (kp.astype(int) * 1.0, kd, limits.astype(int))):
        other = saturated_computed_torque(model, q, qd, q_d, qd_d, qdd_d,
                                          *odd)
        assert_close(other[0], tau, 1e-12)
        assert_close(other[1], clipped, 1e-12)
        assert other[2] == count
    q_nan = q.copy()
    q_nan[0] = np.nan
    nan_tau, nan_clipped, _ = saturated_computed_torque(
        model, q_nan, qd, q_d, qd_d, qdd_d, kp, kd, limits)
    assert np.isnan(nan_clipped).any()
    assert np.array_equal(np.isnan(nan_tau), np.isnan(nan_clipped))
    previous = fast.enable(False)   # the numpy composition
    try:
        reference = saturated_computed_torque(model, q, qd, q_d, qd_d, qdd_d,
                                              kp, kd, limits)
    finally:
        fast.enable(previous)
    assert_close(reference[0], tau, 1e-12)
    assert_close(reference[1], clipped, 1e-12)
    assert reference[2] == count


def test_float64_vectors_take_the_kernel(monkeypatch):
    """On the compiled path the numpy composition is not called at all."""
    from dynamics_ros.control import computed_torque as module
    model = oracle.oracle_for(oracle.example_arm_xml('panda'))[0]
    n = model.nq
    expected = computed_torque(model, *np.full((5, n), 0.3), np.full(n, 9.0),
                               np.full(n, 2.0))

    def numpy_path(*args):
        raise AssertionError('the numpy composition ran')
    monkeypatch.setattr(module, 'computed_torque', numpy_path)
    previous = fast.enable(True)
    try:
        tau, _, _ = saturated_computed_torque(
            model, *np.full((5, n), 0.3), np.full(n, 9.0), np.full(n, 2.0),
            np.full(n, 1000.0))
    finally:
        fast.enable(previous)
    assert_close(tau, expected, 1e-12)
