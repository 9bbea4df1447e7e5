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
Jacobians, Freeman's influence coefficients G and H, and I*, P*, T^L.

Oracles: central differences of forward kinematics (1e-7), Pinocchio's
frame Jacobians, mass matrix and bias forces (1e-9), our RNEA and its
analytic derivatives, and exact identities of Freeman's coordinate
transfer (eqs. 3-15 to 3-36) on serial arms.
"""

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.resources import robot_urdf
import numpy as np
from oracle import example_arm_xml, oracle_for, pin, random_state
import pytest
from urdf_factory import random_urdf

ROBOTS = [
    ('panda', example_arm_xml('panda')),
    ('kinova', example_arm_xml('kinova')),
    ('tree_mixed', random_urdf(31, n_movable=7, tree=True)),
    ('chain_prismatic', random_urdf(32, n_movable=6, continuous=False)),
]


@pytest.fixture(scope='module', params=ROBOTS, ids=[r[0] for r in ROBOTS])
def robot(request):
    """(model, oracle) for one robot."""
    return oracle_for(request.param[1])


def moving_links(model):
    """Every kept link moved by at least one joint."""
    return [name for name, (body, _, _) in model.frames.items() if body >= 0]


def point_position(model, q, link, point):
    """Root-frame position of a point given in a link's frame."""
    rotation, translation = dr.link_pose(model, q, link)
    return translation + rotation @ point


def angular_velocity_jacobian(model, q, link, eps=1e-6):
    """Columns w_j from central differences of the link rotation R(q)."""
    rotation = dr.link_pose(model, q, link)[0]
    columns = []
    for e in np.eye(model.nq):
        R_dot = (dr.link_pose(model, q + eps * e, link)[0]
                 - dr.link_pose(model, q - eps * e, link)[0]) / (2 * eps)
        W = R_dot @ rotation.T
        columns.append([W[2, 1], W[0, 2], W[1, 0]])
    return np.array(columns).T


def test_jacobian_matches_finite_differences(robot):
    """
    Linear rows are d(point)/dq, angular rows (dR/dq) R^T (1e-7).

    Central differences with step 1e-6 are good to about 1e-10 here.
    """
    model, _ = robot
    rng = np.random.default_rng(60)
    q = random_state(model, rng)[0]
    for link in moving_links(model):
        point = rng.uniform(-0.3, 0.3, 3)
        J = dr.link_jacobian(model, q, link, point)
        eps = 1e-6
        linear = np.array([
            (point_position(model, q + eps * e, link, point)
             - point_position(model, q - eps * e, link, point)) / (2 * eps)
            for e in np.eye(model.nq)]).T
        assert_close(J[3:], linear, 1e-7, what='linear ' + link)
        assert_close(J[:3], angular_velocity_jacobian(model, q, link), 1e-7,
                     what='angular ' + link)


def test_jacobian_matches_pinocchio(robot):
    """World-aligned and local Jacobians equal Pinocchio's frame Jacobians."""
    model, oracle = robot
    rng = np.random.default_rng(61)
    q = random_state(model, rng)[0]
    pin_q = oracle.q(q)
    for link in moving_links(model):
        for ours_frame in ('world', 'local'):
            def jacobian():
                reference = {'world': pin.LOCAL_WORLD_ALIGNED,
                             'local': pin.LOCAL}[ours_frame]
                theirs = pin.computeFrameJacobian(
                    oracle.pin_model, oracle.data, pin_q,
                    oracle.pin_model.getFrameId(link), reference)
                return np.vstack((theirs[3:], theirs[:3]))[:, oracle.idx_v]
            theirs = oracle.ask('frame jacobian', (q, link, ours_frame),
                                jacobian)
            ours = dr.link_jacobian(model, q, link, frame=ours_frame)
            assert_close(ours, theirs, what='%s %s' % (link, ours_frame))


def test_second_order_coefficients_match_finite_differences(robot):
    """H[p, m, n] = dG[p, n]/dq_m, Freeman's index order (1e-7)."""
    model, _ = robot
    rng = np.random.default_rng(62)
    q = random_state(model, rng)[0]
    for link in moving_links(model)[-3:]:
        point = rng.uniform(-0.3, 0.3, 3)
        G, H = dr.influence_coefficients(model, q, link, point)
        assert_close(G, dr.link_jacobian(model, q, link, point))
        eps = 1e-6
        H_fd = np.array([
            (dr.influence_coefficients(model, q + eps * e, link, point)[0]
             - dr.influence_coefficients(model, q - eps * e, link, point)[0])
            / (2 * eps) for e in np.eye(model.nq)]).transpose(1, 0, 2)
        assert_close(H, H_fd, 1e-7, what='H ' + link)
        # Rotational H is not symmetric, translational H is (Table 2-3).
        assert_close(H[3:], H[3:].transpose(0, 2, 1))
        if model.nq > 2 and np.any(H[:3]):
            assert not np.allclose(H[:3], H[:3].transpose(0, 2, 1))


def test_acceleration_from_coefficients_matches_pinocchio(robot):
    """G qdd + qd^T H qd is the classical acceleration of the point."""
    model, oracle = robot
    rng = np.random.default_rng(63)
    q, qd, qdd, _ = random_state(model, rng)
    links = moving_links(model)

    def accelerations():
        pin.forwardKinematics(oracle.pin_model, oracle.data, oracle.q(q),
                              oracle.v(qd), oracle.v(qdd))
        pin.updateFramePlacements(oracle.pin_model, oracle.data)
        return tuple(np.array(pin.getFrameClassicalAcceleration(
            oracle.pin_model, oracle.data, oracle.pin_model.getFrameId(link),
            pin.LOCAL_WORLD_ALIGNED).vector) for link in links)
    every = oracle.ask('frame classical accelerations',
                       (q, qd, qdd, tuple(links)), accelerations)
    for link, theirs in zip(links, every):
        G, H = dr.influence_coefficients(model, q, link)
        acceleration = G @ qdd + dr.quadratic(H, qd)
        # Pinocchio's motion vector: [linear; angular].
        assert_close(acceleration[3:], theirs[:3], what='linear ' + link)
        assert_close(acceleration[:3], theirs[3:], what='angular ' + link)


def test_inertia_and_power_arrays(robot):
    """I* = M, qd^T P* qd = Coriolis torques, -T^L = g(q) (Pinocchio)."""
    model, oracle = robot
    rng = np.random.default_rng(64)
    q, qd, qdd, _ = random_state(model, rng)
    I_star, P_star, T_load = dr.dynamics_coefficients(model, q)
    assert_close(I_star, oracle.crba(q), what='I*')
    assert_close(dr.quadratic(P_star, qd),
                 oracle.bias(q, qd) - oracle.gravity(q), what='P*')
    assert_close(-T_load, oracle.gravity(q), what='T^L')
    # Freeman eq. 2-198: T = I* qdd + qd^T P* qd - T^L is the RNEA.
    assert_close(I_star @ qdd + dr.quadratic(P_star, qd) - T_load,
                 dr.inverse_dynamics(model, q, qd, qdd), what='2-198')
    # dT/dqd = qd^T (P* + P*^T) (Freeman 2-212) is the analytic dtau/dqd.
    dtau_dqd = np.einsum('a,nam->nm', qd, P_star + P_star.transpose(0, 2, 1))
    assert_close(dtau_dqd, dr.inverse_dynamics_derivatives(
        model, q, qd, qdd)[1], what='dT/dqd')


def test_armature_is_part_of_the_effective_inertia():
    """Rotor inertia adds to I* as it does to the mass matrix."""
    model = dr.load_urdf(robot_urdf('puma560'))
    model = model.copy(armature=np.linspace(0.5, 1.0, model.nq))
    q = np.linspace(-1.0, 1.0, model.nq)
    assert_close(dr.dynamics_coefficients(model, q)[0],
                 dr.mass_matrix(model, q))


def task_space_arm():
    """PUMA 560 with its tool point: six joints, six task coordinates."""
    model = dr.load_urdf(robot_urdf('puma560'))
    tool = list(model.frames)[-1]
    return model, tool, np.array([0.0, 0.0, 0.1])


def task_space_state(model, tool, point, seed):
    """
    Random state whose tool Jacobian is well conditioned (cond < 100).

    Near a singularity J^-T amplifies rounding by cond(J); away from it
    the transfer identities hold to 1e-9.
    """
    rng = np.random.default_rng(seed)
    while True:
        state = random_state(model, rng)
        J = dr.link_jacobian(model, state[0], tool, point)
        if np.linalg.cond(J) < 100.0:
            return state


def test_inverse_coefficients_recover_joint_motion():
    """Eqs. 3-15, 3-19: G^phi_q and H^phi_qq give qd, qdd from the task."""
    model, tool, point = task_space_arm()
    q, qd, qdd, _ = task_space_state(model, tool, point, 65)
    J, H = dr.influence_coefficients(model, q, tool, point)
    x_dot = J @ qd
    x_ddot = J @ qdd + dr.quadratic(H, qd)
    G_inv, H_inv = dr.invert_influence(J, H)
    assert_close(G_inv @ x_dot, qd)
    assert_close(G_inv @ x_ddot + dr.quadratic(H_inv, x_dot), qdd)


def test_transfer_of_influence_coefficients():
    """Eqs. 3-22, 3-26: another link's motion from task coordinates."""
    model, tool, point = task_space_arm()
    q, qd, qdd, _ = task_space_state(model, tool, point, 66)
    J, H_q = dr.influence_coefficients(model, q, tool, point)
    elbow = list(model.frames)[3]
    G_u, H_u = dr.influence_coefficients(model, q, elbow, [0.1, 0.2, 0.0])
    G_uq, H_uq = dr.transfer_influence(G_u, H_u, J, H_q)
    x_dot = J @ qd
    x_ddot = J @ qdd + dr.quadratic(H_q, qd)
    assert_close(G_uq @ x_dot, G_u @ qd)
    assert_close(G_uq @ x_ddot + dr.quadratic(H_uq, x_dot),
                 G_u @ qdd + dr.quadratic(H_u, qd))
    # H^u_qq is the derivative of G^u_q along q (Freeman's index order):
    # d G^u_q / dt = sum_m H^u_qq[:, m, :] x_dot_m, by differences in time.
    eps = 1e-6

    def transferred_jacobian(t):
        q_t = q + qd * t + 0.5 * qdd * t * t
        J_t, H_t = dr.influence_coefficients(model, q_t, tool, point)
        G_t, H_ut = dr.influence_coefficients(model, q_t, elbow,
                                              [0.1, 0.2, 0.0])
        return dr.transfer_influence(G_t, H_ut, J_t, H_t)[0]

    G_dot = (transferred_jacobian(eps) - transferred_jacobian(-eps)) / (
        2 * eps)
    assert_close(np.einsum('pmn,m->pn', H_uq, x_dot), G_dot, 1e-7)


def test_transfer_of_dynamics_to_task_coordinates():
    """
    Eqs. 3-34 to 3-36: task forces from I*_qq, P*_qqq and T^L_q.

    The generalized force along the task coordinates must be J^-T times
    the joint torques of the same motion (virtual work).
    """
    model, tool, point = task_space_arm()
    q, qd, qdd, _ = task_space_state(model, tool, point, 67)
    J, H = dr.influence_coefficients(model, q, tool, point)
    I_star, P_star, T_load = dr.dynamics_coefficients(model, q)
    I_q, P_q, T_q = dr.transfer_dynamics(I_star, P_star, J, H, T_load)
    x_dot = J @ qd
    x_ddot = J @ qdd + dr.quadratic(H, qd)
    tau = dr.inverse_dynamics(model, q, qd, qdd)
    assert_close(I_q @ x_ddot + dr.quadratic(P_q, x_dot) - T_q,
                 np.linalg.solve(J.T, tau))
    assert_close(I_q, np.linalg.inv(J @ np.linalg.solve(I_star, J.T)))
    assert_close(I_q, I_q.T)


def test_array_operators():
    """Generalized dot, congruence and quadratic against explicit loops."""
    rng = np.random.default_rng(68)
    A = rng.normal(size=(2, 3))
    C = rng.normal(size=(3, 4, 4))
    X = rng.normal(size=(4, 4))
    v = rng.normal(size=4)
    dot = dr.generalized_dot(A, C)
    assert_close(dot[1], A[1, 0] * C[0] + A[1, 1] * C[1] + A[1, 2] * C[2])
    assert_close(dr.congruence(X, C)[2], X.T @ C[2] @ X)
    assert_close(dr.quadratic(C, v)[0], v @ C[0] @ v)
    # App. A identity: A (b^T C b) = b^T (A . C) b.
    assert_close(A @ dr.quadratic(C, v), dr.quadratic(dot, v))


def test_bad_input_is_named():
    """Unknown links, bad points and singular coordinate changes."""
    model = dr.load_urdf(robot_urdf('puma560'))
    q = np.zeros(model.nq)
    with pytest.raises(KeyError, match='no_such_link'):
        dr.link_jacobian(model, q, 'no_such_link')
    with pytest.raises(ValueError, match='point'):
        dr.influence_coefficients(model, q, list(model.frames)[-1], [1, 2])
    with pytest.raises(ValueError, match='frame'):
        dr.link_jacobian(model, q, list(model.frames)[-1], frame='tool')
    with pytest.raises(ValueError, match='singular'):
        dr.invert_influence(np.ones((3, 3)), np.zeros((3, 3, 3)))
    with pytest.raises(ValueError, match='square'):
        dr.transfer_dynamics(np.eye(3), np.zeros((3, 3, 3)),
                             np.ones((2, 3)), np.zeros((2, 3, 3)))
    # The root link does not move: its Jacobian is zero.
    assert not np.any(dr.link_jacobian(model, q, model.root_link))
