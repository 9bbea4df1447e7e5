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
Analytic derivatives of inverse and forward dynamics against Pinocchio.

dtau/dq, dtau/dqd, M from ``inverse_dynamics_derivatives`` against
``pin.computeRNEADerivatives``; dqdd/dq, dqdd/dqd, M^-1 from
``forward_dynamics_derivatives`` against ``pin.computeABADerivatives``; both
against central differences of our own RNEA and ABA.  Robots: the
example-robot-data arms, the shipped robots and generated trees with
prismatic and continuous joints, matched to Pinocchio by joint name.
"""

from conftest import assert_close, central_difference
import dynamics_ros as dr
from dynamics_ros.resources import robot_urdf
import numpy as np
from oracle import example_arm_xml, oracle_for, pin_aba_derivatives, \
    pin_rnea_derivatives, random_state, with_armature
import pytest
from robot_sets import robot_sources
from urdf_factory import random_urdf

STATES = 4
ROBOTS = robot_sources()


@pytest.fixture(scope='module', params=ROBOTS, ids=[r[0] for r in ROBOTS])
def robot(request):
    """(model, oracle) for one robot."""
    return oracle_for(request.param[1])


def test_rnea_derivatives_match_pinocchio(robot):
    """dtau/dq, dtau/dqd and M equal computeRNEADerivatives (1e-9)."""
    model, oracle = robot
    rng = np.random.default_rng(40)
    for _ in range(STATES):
        q, qd, qdd, _ = random_state(model, rng)
        ours = dr.inverse_dynamics_derivatives(model, q, qd, qdd)
        theirs = pin_rnea_derivatives(oracle, q, qd, qdd)
        for name, a, b in zip(('dtau_dq', 'dtau_dqd', 'M'), ours, theirs):
            assert_close(a, b, what=name)


def test_aba_derivatives_match_pinocchio(robot):
    """dqdd/dq, dqdd/dqd and M^-1 equal computeABADerivatives (1e-9)."""
    model, oracle = robot
    rng = np.random.default_rng(41)
    for _ in range(STATES):
        q, qd, _, tau = random_state(model, rng)
        ours = dr.forward_dynamics_derivatives(model, q, qd, tau)
        theirs = pin_aba_derivatives(oracle, q, qd, tau)
        for name, a, b in zip(('dqdd_dq', 'dqdd_dqd', 'Minv'), ours, theirs):
            assert_close(a, b, what=name)


def test_rnea_derivatives_match_central_differences(robot):
    """
    Each Jacobian equals central differences of inverse_dynamics.

    Differences with step 1e-6 carry about 1e-9 truncation and rounding
    error relative to the entries, so the bound is 1e-6 (the issue's).
    """
    model, _ = robot
    rng = np.random.default_rng(42)
    q, qd, qdd, _ = random_state(model, rng)
    dq, dqd, M = dr.inverse_dynamics_derivatives(model, q, qd, qdd)
    assert_close(dq, central_difference(
        lambda x: dr.inverse_dynamics(model, x, qd, qdd), q), 1e-6)
    assert_close(dqd, central_difference(
        lambda x: dr.inverse_dynamics(model, q, x, qdd), qd), 1e-6)
    assert_close(M, dr.mass_matrix(model, q), what='M vs CRBA')


def test_derivatives_with_external_wrenches():
    """Body-frame wrenches enter dtau/dq as Pinocchio's fext does."""
    model, oracle = oracle_for(example_arm_xml('panda'))
    rng = np.random.default_rng(43)
    q, qd, qdd, tau = random_state(model, rng)
    f_ext = rng.uniform(-10.0, 10.0, (model.nq, 6))
    ours = dr.inverse_dynamics_derivatives(model, q, qd, qdd, f_ext)
    theirs = pin_rnea_derivatives(oracle, q, qd, qdd, f_ext)
    plain = dr.inverse_dynamics_derivatives(model, q, qd, qdd)
    assert np.abs(ours[0] - plain[0]).max() > 1e-3, 'f_ext had no effect'
    for name, a, b in zip(('dtau_dq', 'dtau_dqd', 'M'), ours, theirs):
        assert_close(a, b, what=name)
    ours = dr.forward_dynamics_derivatives(model, q, qd, tau, f_ext)
    theirs = pin_aba_derivatives(oracle, q, qd, tau, f_ext)
    for name, a, b in zip(('dqdd_dq', 'dqdd_dqd', 'Minv'), ours, theirs):
        assert_close(a, b, what=name)


def test_derivatives_with_armature():
    """Rotor inertia adds to M (and M^-1) as in Pinocchio's model.armature."""
    model, oracle = with_armature(
        *oracle_for(example_arm_xml('ur5')), np.linspace(0.1, 0.6, 6))
    rng = np.random.default_rng(44)
    q, qd, qdd, tau = random_state(model, rng)
    ours = dr.inverse_dynamics_derivatives(model, q, qd, qdd)
    theirs = pin_rnea_derivatives(oracle, q, qd, qdd)
    for name, a, b in zip(('dtau_dq', 'dtau_dqd', 'M'), ours, theirs):
        assert_close(a, b, what=name)
    ours = dr.forward_dynamics_derivatives(model, q, qd, tau)
    theirs = pin_aba_derivatives(oracle, q, qd, tau)
    for name, a, b in zip(('dqdd_dq', 'dqdd_dqd', 'Minv'), ours, theirs):
        assert_close(a, b, what=name)


def test_forward_derivatives_are_minus_minv_times_inverse_ones():
    """dqdd/dx = -M^-1 dtau/dx at qdd = FD, the implicit-function identity."""
    model = dr.load_urdf(random_urdf(24, n_movable=6, tree=True))
    rng = np.random.default_rng(45)
    q, qd, _, tau = random_state(model, rng)
    qdd = dr.forward_dynamics(model, q, qd, tau)
    dq, dqd, M = dr.inverse_dynamics_derivatives(model, q, qd, qdd)
    fq, fqd, Minv = dr.forward_dynamics_derivatives(model, q, qd, tau)
    assert_close(M @ Minv, np.eye(model.nq))
    assert_close(M @ fq, -dq)
    assert_close(M @ fqd, -dqd)


def test_bad_input_is_named():
    """Wrong sizes raise ValueError naming the argument."""
    model = dr.load_urdf(robot_urdf('puma560'))
    zero = np.zeros(model.nq)
    with pytest.raises(ValueError, match='qdd'):
        dr.inverse_dynamics_derivatives(model, zero, zero, zero[:2])
    with pytest.raises(ValueError, match='f_ext'):
        dr.inverse_dynamics_derivatives(model, zero, zero, zero,
                                        np.zeros((2, 6)))
    with pytest.raises(ValueError, match='tau'):
        dr.forward_dynamics_derivatives(model, zero, zero, zero[:3])


def test_massless_subtree_is_refused():
    """A singular M gives a clear error instead of a meaningless inverse."""
    model = dr.load_urdf(robot_urdf('two_link_planar'))
    model = model.copy(mass=np.zeros(model.nq),
                       inertia_com=np.zeros((model.nq, 3, 3)))
    zero = np.zeros(model.nq)
    with pytest.raises(dr.ModelError, match='positive definite'):
        dr.forward_dynamics_derivatives(model, zero, zero, zero)
