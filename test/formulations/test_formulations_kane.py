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
Kane's method: generated explicit equations against the core API.

The Stanford Arm with Kane and Levinson's generalized speeds also checks
the structure their paper states: X = -M_u symmetric with X15 = X45 = X26 =
0, X55 = -F2, X66 = -(mC + mD + mE + mF), and generalized active forces
K2 = -tau3, K4 = -tau4, K5 = -tau5, K6 = -sigma, K1 = tau1 Z4 - tau2 c3 +
..., K3 = tau1 Z5 - tau2 s3 + ... (eqs. 111-116; Z4 = s3/s2, Z5 = -c3/s2).
"""

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.formulations import kane
from formulation_cases import load_case, states
import numpy as np
import pytest

# Kane's coordinates of the URDF joints: joint1..6 = q1, q2, q6, q3, q4, q5.
KANE_OF_JOINT = [0, 1, 5, 2, 3, 4]


def stanford_state(rng):
    """Random state of the Stanford Arm away from Kane's q2 = 0 and pi."""
    model = load_case('stanford_arm')
    q, qd, qdd, tau = next(states(model, 1, int(rng.integers(1000))))
    q[1] = rng.uniform(0.3, 2.8) * rng.choice([-1, 1])
    return q, qd, qdd, tau


@pytest.mark.parametrize('name', ['two_link_planar', 'puma560',
                                  'stanford_arm', 'chain0', 'tree0'])
def test_joint_rate_equations_equal_core(name):
    """Generated with u = qd: ID to 1e-10, FD to 1e-10 x cond(M)."""
    model = load_case(name)
    equations = kane.kane_equations(model)
    for q, qd, qdd, tau in states(model, 3):
        assert_close(equations.inverse_dynamics(q, qd, qdd),
                     dr.inverse_dynamics(model, q, qd, qdd), 1e-10, 'tau')
        M = dr.mass_matrix(model, q)
        assert_close(equations.mass_matrix(q), M, 1e-10, 'M')
        assert_close(equations.forward_dynamics(q, qd, tau),
                     dr.forward_dynamics(model, q, qd, tau),
                     1e-10 * np.linalg.cond(M), 'qdd')


def test_stanford_module_is_generated_from_the_shipped_arm():
    """
    The module in the package is what the generator gives today.

    Compared by value (the printed text may differ between sympy versions):
    the model digest, and M_u, F and tau of a fresh generation.
    """
    model = load_case('stanford_arm')
    equations = kane.kane_equations(model, 'stanford')
    module = equations.module
    assert module.__name__.endswith(kane.GENERATED_STANFORD_MODULE)
    assert module.MODEL_DIGEST == kane.model_digest(model)
    fresh = {}
    exec(kane.kane_source(model, 'stanford'), fresh)
    rng = np.random.default_rng(4)
    for _ in range(3):
        q, qd, qdd, _ = stanford_state(rng)
        u = module.speeds(q, qd)
        assert_close(module.mass_matrix(q), fresh['mass_matrix'](q), 1e-13)
        assert_close(module.forcing(q, u), fresh['forcing'](q, u), 1e-13)
        assert_close(module.inverse_dynamics(q, qd, qdd),
                     fresh['inverse_dynamics'](q, qd, qdd), 1e-13)


def test_stanford_generalized_speeds():
    """u1..u3 = omega^D . d_i (eqs. 5-7): W(q) and its inverse (eqs. 8-11)."""
    model = load_case('stanford_arm')
    equations = kane.kane_equations(model, 'stanford')
    rng = np.random.default_rng(0)
    for _ in range(3):
        q, qd, qdd, _ = stanford_state(rng)
        u = equations.speeds(q, qd)
        # Body D (link_d) angular velocity in its own basis; Kane's d1, d2,
        # d3 are this file's x, z, -y.
        omega = _angular_velocity(model, q, qd, body=3)
        assert_close(u[:3], [omega[0], omega[2], -omega[1]], 1e-12, 'u1..u3')
        assert_close(u[3:], qd[[4, 5, 2]], 0, 'u4..u6')
        assert_close(equations.module.joint_rates(q, u), qd, 1e-12, 'W^-1')
        # u_dot by differentiation: a finite-difference check.
        h = 1e-6
        ahead = equations.speeds(q + h * qd, qd + h * qdd)
        behind = equations.speeds(q - h * qd, qd - h * qdd)
        assert_close(equations.module.speed_derivatives(q, qd, qdd),
                     (ahead - behind) / (2 * h), 1e-7, 'u_dot')


def _angular_velocity(model, q, qd, body):
    """Angular velocity of a body (chain) in its own frame: sum of axes."""
    rotations, _ = dr.body_poses(model, q)
    omega = sum(rotations[k] @ model.axis[k] * qd[k] for k in range(body + 1)
                if model.joint_type[k] == dr.REVOLUTE)
    return rotations[body].T @ omega


def test_stanford_equations_equal_core_and_paper_structure():
    """Kane's speeds: ID and FD equal the core; X and K as in the paper."""
    model = load_case('stanford_arm')
    equations = kane.kane_equations(model, 'stanford')
    module = equations.module
    rng = np.random.default_rng(1)
    for _ in range(4):
        q, qd, qdd, tau = stanford_state(rng)
        assert_close(equations.inverse_dynamics(q, qd, qdd),
                     dr.inverse_dynamics(model, q, qd, qdd), 1e-10, 'tau')
        M = dr.mass_matrix(model, q)
        assert_close(equations.forward_dynamics(q, qd, tau),
                     dr.forward_dynamics(model, q, qd, tau),
                     1e-10 * np.linalg.cond(M), 'qdd')
        X = -module.mass_matrix(q)
        assert_close(X, X.T, 1e-14, 'X symmetric')
        assert abs(X[0, 4]) + abs(X[3, 4]) + abs(X[1, 5]) < 1e-14
        assert_close([X[4, 4], X[5, 5]], [-0.002, -6.1], 1e-12, 'X55, X66')
        # Active forces in Kane's actuator scalars (tau1 = Q1, others -Q).
        kane_tau = tau[[0, 1, 3, 4, 5]] * [1, -1, -1, -1, -1]
        sigma = -tau[2]
        K = module.active_map(q) @ tau
        s2, c3, s3 = np.sin(q[1]), np.cos(q[3]), np.sin(q[3])
        t1, t2, t3, t4, t5 = kane_tau
        assert_close(K[[1, 3, 4, 5]], [-t3, -t4, -t5, -sigma], 1e-12, 'K')
        assert_close(K[0] - t3 * np.cos(q[1]) * s3 / s2,
                     t1 * s3 / s2 - t2 * c3, 1e-12, 'K1')
        assert_close(K[2] + t3 * np.cos(q[1]) * c3 / s2,
                     -t1 * c3 / s2 - t2 * s3, 1e-12, 'K3')


def test_bad_requests_raise():
    """Kane's speeds need the Stanford chain; armature is refused."""
    with pytest.raises(dr.ModelError, match='Stanford'):
        kane.kane_equations(load_case('puma560'), 'stanford')
    with pytest.raises(dr.ModelError, match='speeds'):
        kane.kane_equations(load_case('puma560'), 'quaternions')
    armed = load_case('two_link_planar').copy(armature=np.ones(2))
    with pytest.raises(dr.ModelError, match='armature'):
        kane.kane_equations(armed)
