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

"""M, C and G by strobing inverse dynamics (Turney et al., end of sec. 3)."""

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.formulations.chain import dh_chain
from dynamics_ros.formulations.lagrange import lagrange_coriolis_tensor
from dynamics_ros.formulations.modified_newton_euler import \
    modified_newton_euler_inverse_dynamics
from dynamics_ros.formulations.strobing import paper_coriolis_strobe, \
    strobe_bias, strobe_coriolis_matrix, strobe_coriolis_tensor, \
    strobe_gravity, strobe_mass_matrix
from formulation_cases import CHAIN_CASES, load_case, states
import numpy as np
import pytest


@pytest.mark.parametrize('name', CHAIN_CASES)
def test_strobed_terms_equal_core(name):
    """Strobed M, Coriolis matrix, G and C + G equal the core API."""
    model = load_case(name)
    chain = dh_chain(model)
    for q, qd, _, _ in states(model, 2):
        assert_close(strobe_mass_matrix(chain, q), dr.mass_matrix(model, q),
                     1e-10, 'M')
        assert_close(strobe_coriolis_matrix(chain, q, qd),
                     dr.coriolis_matrix(model, q, qd), 1e-10, 'C')
        assert_close(strobe_gravity(chain, q), dr.gravity_torques(model, q),
                     1e-10, 'G')
        assert_close(strobe_bias(chain, q, qd), dr.bias_forces(model, q, qd),
                     1e-10, 'C + G')


def test_any_inverse_dynamics_can_be_strobed():
    """Strobing the core RNEA and the modified NE gives the same tensor."""
    model = load_case('puma560')
    chain = dh_chain(model)
    q = next(states(model))[0]

    def core(q, qd, qdd, gravity):
        weight = model if gravity else model.copy(gravity=np.zeros(3))
        return dr.inverse_dynamics(weight, q, qd, qdd)

    def modified(q, qd, qdd, gravity):
        return modified_newton_euler_inverse_dynamics(chain, q, qd, qdd,
                                                      gravity)
    assert_close(strobe_coriolis_tensor(chain, q, core),
                 strobe_coriolis_tensor(chain, q, modified), 1e-10)
    assert_close(strobe_mass_matrix(model, q, core),
                 dr.mass_matrix(model, q), 1e-10)


def test_printed_coriolis_strobe_is_wrong_and_corrected_one_is_right():
    """
    qd_j = qd_k = 1 returns C^i_jj + C^i_kk + 2 C^i_jk (the misprint).

    The corrected three-run strobe equals Lagrange's C^i_jk.
    """
    model = load_case('stanford_arm')
    chain = dh_chain(model)
    q = next(states(model))[0]
    C = lagrange_coriolis_tensor(chain, q)
    strobed = strobe_coriolis_tensor(chain, q)
    assert_close(strobed, C, 1e-10, 'corrected strobe')
    j, k = 0, 1
    printed = paper_coriolis_strobe(chain, q, j, k)
    assert_close(printed, C[:, j, j] + C[:, k, k] + 2 * C[:, j, k], 1e-10)
    assert np.max(np.abs(printed - C[:, j, k])) > 0.1
