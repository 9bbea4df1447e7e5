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
from dynamics_ros.control.computed_torque import (computed_torque,
                                                  position_error)
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
