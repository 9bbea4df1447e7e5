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

"""Uicker/Kahn Lagrangian (Turney et al. sec. 2) against the core API."""

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.formulations.chain import dh_chain
from dynamics_ros.formulations.lagrange import lagrange_coriolis_tensor, \
    lagrange_gravity, lagrange_inverse_dynamics, lagrange_mass_matrix
from formulation_cases import CHAIN_CASES, load_case, states
import numpy as np
import pytest


@pytest.mark.parametrize('name', CHAIN_CASES)
def test_terms_equal_core(name):
    """M, C (Christoffel), G and tau equal CRBA, Coriolis, gravity, RNEA."""
    model = load_case(name)
    chain = dh_chain(model)
    for q, qd, qdd, _ in states(model, 3):
        M = lagrange_mass_matrix(chain, q)
        C = lagrange_coriolis_tensor(chain, q)
        assert_close(M, dr.mass_matrix(model, q), 1e-10, 'M')
        assert_close(M, M.T, 1e-14, 'M symmetric')
        assert_close(C, np.transpose(C, (0, 2, 1)), 1e-14, 'C^i_jk = C^i_kj')
        assert_close(np.einsum('ijk,k->ij', C, qd),
                     dr.coriolis_matrix(model, q, qd), 1e-10, 'C')
        assert_close(lagrange_gravity(chain, q), dr.gravity_torques(model, q),
                     1e-10, 'G')
        tau = dr.inverse_dynamics(model, q, qd, qdd)
        assert_close(lagrange_inverse_dynamics(chain, q, qd, qdd), tau,
                     1e-10, 'tau')
        assert_close(M @ qdd + np.einsum('ijk,j,k->i', C, qd, qd)
                     + lagrange_gravity(chain, q), tau, 1e-10, 'M qdd + C + G')


def test_vertical_first_joint_has_no_gravity_torque():
    """Turney's check: G_1 = 0 when joint 1 is vertical (PUMA, Stanford)."""
    for name in ('puma560', 'stanford_arm'):
        model = load_case(name)
        for q, _, _, _ in states(model, 3):
            G = lagrange_gravity(model, q)
            assert abs(G[0]) < 1e-12 and np.max(np.abs(G)) > 1.0
