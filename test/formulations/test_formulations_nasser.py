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

"""Nasser's 6x6 inbound/outbound forward dynamics against the core ABA."""

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.dynamics.coriolis import ancestor_mask
from dynamics_ros.formulations.nasser import nasser_forward_dynamics, \
    NasserLinks
from formulation_cases import CHAIN_CASES, load_case, states, TREE_CASES
import numpy as np
import pytest


def tolerance(model, q):
    """Return 1e-10 scaled by cond(M): qdd goes through M^-1."""
    return 1e-10 * max(1.0, np.linalg.cond(dr.mass_matrix(model, q)))


@pytest.mark.parametrize('name', CHAIN_CASES + TREE_CASES)
def test_equals_core_forward_dynamics(name):
    """Chains and trees, revolute and prismatic, with external wrenches."""
    model = load_case(name)
    links = NasserLinks(model)
    rng = np.random.default_rng(5)
    for q, qd, _, tau in states(model, 3):
        f_ext = rng.normal(size=(model.nq, 6))
        rtol = tolerance(model, q)
        assert_close(nasser_forward_dynamics(model, q, qd, tau, links=links),
                     dr.forward_dynamics(model, q, qd, tau), rtol, name)
        assert_close(nasser_forward_dynamics(model, q, qd, tau, f_ext,
                                             links=links),
                     dr.forward_dynamics(model, q, qd, tau, f_ext), rtol,
                     name + ' f_ext')


def test_forward_inverse_round_trip():
    """Round trip RNEA(q, qd, Nasser(q, qd, tau)) = tau on a tree."""
    model = load_case('tree2')
    for q, qd, _, tau in states(model, 3):
        qdd = nasser_forward_dynamics(model, q, qd, tau)
        assert_close(dr.inverse_dynamics(model, q, qd, qdd), tau, 1e-10)


def test_actuator_inertia_is_nassers_model():
    """
    J^a (eq. 2.1.7.2): rotor on the parent, full reaction to the parent.

    The effective mass matrix gains J^a_j on the diagonal and J^a_j
    (z_k . z_j) in M[k, j] for each ancestor k of j
    (docs/papers/nasser_1990.md): not symmetric, unlike the core API's
    armature.
    """
    model = load_case('tree1')
    revolute = model.joint_type == dr.REVOLUTE
    # Rotors on the revolute joints (a pure moment on the parent).
    rotor = np.linspace(0.05, 0.3, model.nq) * revolute
    assert np.count_nonzero(rotor) >= 3
    for q, qd, _, tau in states(model, 2):
        rotations, _ = dr.body_poses(model, q)
        axes = np.einsum('nij,nj->ni', rotations, model.axis)
        extra = np.zeros((model.nq, model.nq))
        mask = ancestor_mask(model)
        for j in range(model.nq):
            for k in range(model.nq):
                if mask[j, k] and revolute[k]:
                    extra[k, j] = rotor[j] * (axes[k] @ axes[j]) if k != j \
                        else rotor[j]
        expected = np.linalg.solve(dr.mass_matrix(model, q) + extra,
                                   tau - dr.bias_forces(model, q, qd))
        assert_close(nasser_forward_dynamics(model, q, qd, tau,
                                             actuator_inertia=rotor),
                     expected, tolerance(model, q))


def test_armature_is_refused():
    """The core API's symmetric armature is not Nasser's J^a: ModelError."""
    model = load_case('puma560').copy(armature=np.full(6, 0.1))
    with pytest.raises(dr.ModelError, match='actuator_inertia'):
        nasser_forward_dynamics(model, *np.zeros((3, 6)))
