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

"""Luh-Walker-Paul and Turney's modified Newton-Euler against the core RNEA."""

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.formulations.chain import dh_chain
from dynamics_ros.formulations.modified_newton_euler import \
    acceleration_operator, k_matrix, modified_newton_euler_inverse_dynamics, \
    trace_vector
from dynamics_ros.formulations.newton_euler_links import \
    newton_euler_inverse_dynamics
from formulation_cases import CHAIN_CASES, load_case, states
import numpy as np
import pytest

FORMULATIONS = [newton_euler_inverse_dynamics,
                modified_newton_euler_inverse_dynamics]


@pytest.mark.parametrize('formulation', FORMULATIONS)
@pytest.mark.parametrize('name', CHAIN_CASES)
def test_equals_core_inverse_dynamics(name, formulation):
    """Tau equals the core RNEA to 1e-10 on random states."""
    model = load_case(name)
    chain = dh_chain(model)
    for q, qd, qdd, _ in states(model):
        assert_close(formulation(chain, q, qd, qdd),
                     dr.inverse_dynamics(model, q, qd, qdd), 1e-10, name)


@pytest.mark.parametrize('formulation', FORMULATIONS)
def test_without_gravity_and_with_armature(formulation):
    """gravity=False drops G exactly; armature adds armature * qdd."""
    model = load_case('stanford_arm')
    weightless = model.copy(gravity=np.zeros(3),
                            armature=np.linspace(0.1, 0.6, 6))
    chain = dh_chain(weightless)
    for q, qd, qdd, _ in states(model, 2):
        assert_close(formulation(dh_chain(model), q, qd, qdd, gravity=False)
                     + weightless.armature * qdd,
                     dr.inverse_dynamics(weightless, q, qd, qdd), 1e-10)
        assert_close(formulation(chain, q, qd, qdd),
                     dr.inverse_dynamics(weightless, q, qd, qdd), 1e-10)


def test_acceleration_operator_and_trace_vector():
    """
    Turney sec. 5 with two misprints fixed (docs/papers/turney_1980.md).

    A b = omega x (omega x b) + alpha x b needs A[2, 1] = w_z w_y + alpha_x
    (printed +alpha_z), and Tr{A K sigma^t} = I alpha + omega x I omega needs
    x = (AK)_zy - (AK)_yz (printed reversed).
    """
    rng = np.random.default_rng(3)
    for _ in range(5):
        omega, alpha, b = rng.normal(size=(3, 3))
        A = acceleration_operator(omega, alpha)
        assert_close(A @ b, np.cross(omega, np.cross(omega, b))
                     + np.cross(alpha, b), 1e-12)
        root = rng.normal(size=(3, 3))
        inertia = root @ root.T
        assert_close(trace_vector(A @ k_matrix(inertia)),
                     inertia @ alpha + np.cross(omega, inertia @ omega), 1e-12)
    # The printed A[2, 1] = w_z w_y + alpha_z would be wrong.
    misprint = A.copy()
    misprint[2, 1] = omega[2] * omega[1] + alpha[2]
    assert not np.allclose(misprint @ b, A @ b)


def test_tree_is_refused():
    """Both work on serial chains; a tree names tip_link."""
    with pytest.raises(dr.ModelError, match='tip_link'):
        newton_euler_inverse_dynamics(load_case('tree0'), *np.zeros((3, 4)))
