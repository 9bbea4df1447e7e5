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
Task-space dynamics of redundant arms and Freeman's ch. IV transfers.

Oracles: Pinocchio's Jacobians (computeJointJacobians, getFrameJacobian)
and mass matrix (crba) give Lambda = (J M^-1 J^T)^-1, J_bar and N to 1e-9
(Panda, UR5 with its full and its position task, xArm7 and a random
7-joint chain);
central differences of J along qd give J_dot qd for the task equation
Lambda x_ddot + mu + p = F checked through Pinocchio's forward dynamics
(1e-6: the central-difference error of J_dot at step 1e-6 is ~1e-9 of J's
size, times |qd|^2 and Lambda); exact identities of Freeman's eqs. 4-65 to
4-90 (1e-9).

Freeman prints no numbers for his redundant (Fig. 4-4) or overconstrained
(Fig. 4-5) examples, nor for App. D: there are no printed digits to
reproduce, so the two-finger hand below is built from his description
(two planar fingers pinned to one object, four actuated joints, u = (x, y,
theta) of the object) and held to his equations' defining properties.
"""

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.dynamics.task_space import task_rows
import numpy as np
from oracle import example_arm_xml, oracle_for, pin, random_state
import pytest
from urdf_factory import random_urdf

ARMS = [  # name, URDF, task link, task rows
    ('panda', example_arm_xml('panda'), 'panda_hand', 'all'),
    ('ur5', example_arm_xml('ur5'), 'tool0', 'all'),
    ('ur5_position', example_arm_xml('ur5'), 'tool0', 'linear'),
    ('xarm7', example_arm_xml('xarm7'), 'link_eef', 'all'),
    ('chain7', random_urdf(71, n_movable=7, prismatic=False,
                           continuous=False), None, 'all'),
]


@pytest.fixture(scope='module', params=ARMS, ids=[a[0] for a in ARMS])
def arm(request):
    """(model, oracle, link, rows) of one arm and task."""
    _, xml, link, rows = request.param
    model, oracle = oracle_for(xml)
    if link is None:
        link = [name for name, (body, _, _) in model.frames.items()
                if body == model.nq - 1][-1]
    return model, oracle, link, rows


def pinocchio_jacobian(oracle, q, link):
    """Pinocchio's frame Jacobian, world axes, as ours [angular; linear]."""
    def jacobian():
        pin.computeJointJacobians(oracle.pin_model, oracle.data,
                                  oracle.q(q))
        pin.updateFramePlacements(oracle.pin_model, oracle.data)
        J = pin.getFrameJacobian(oracle.pin_model, oracle.data,
                                 oracle.pin_model.getFrameId(link),
                                 pin.LOCAL_WORLD_ALIGNED)
        return np.vstack((J[3:], J[:3]))[:, oracle.idx_v]
    return oracle.ask('frame jacobian world', (np.array(q, float), link),
                      jacobian)


def states(model, seed, count=3):
    """Return a few random states, each (q, qd, qdd, tau)."""
    rng = np.random.default_rng(seed)
    return [random_state(model, rng) for _ in range(count)]


def test_lambda_j_bar_and_null_space_equal_pinocchio(arm):
    """Lambda, J_bar, N from Pinocchio's J and M (1e-9) on three arms."""
    model, oracle, link, rows = arm
    index = task_rows(rows)
    for q, qd, _, _ in states(model, 1):
        J = pinocchio_jacobian(oracle, q, link)[index]
        M = oracle.crba(q)
        Lambda = np.linalg.inv(J @ np.linalg.solve(M, J.T))
        J_bar = np.linalg.solve(M, J.T) @ Lambda
        ts = dr.task_space(model, q, link, qd=qd, rows=rows)
        assert_close(ts.J, J, what='J')
        assert_close(ts.Lambda, Lambda, what='Lambda')
        assert_close(ts.J_bar, J_bar, what='J_bar')
        # N is I less a projector: entries are held relative to I's 1.
        assert_close(ts.N, np.eye(model.nq) - J_bar @ J, what='N', scale=1.0)
        # Gravity in the task space, from Pinocchio's g.
        assert_close(ts.p, J_bar.T @ oracle.gravity(q), what='p')
        # Projector identities: N N = N, J N = 0, J J_bar = I and dynamic
        # consistency J M^-1 N^T = 0.
        assert_close(ts.N @ ts.N, ts.N, scale=1.0)
        assert np.abs(J @ ts.N).max() < 1e-9 * np.abs(J).max()
        assert_close(J @ ts.J_bar, np.eye(J.shape[0]), scale=1.0)
        assert np.abs(J @ np.linalg.solve(M, ts.N.T)).max() < 1e-9 * (
            np.abs(J @ np.linalg.solve(M, np.eye(model.nq))).max())
        # The null space has the dimension of the redundancy.
        assert round(np.trace(ts.N)) == model.nq - J.shape[0]


def j_dot_qd(model, q, qd, link, frame, eps=1e-6):
    """J_dot qd by central differences of J along q + t qd."""
    return (dr.link_jacobian(model, q + eps * qd, link, frame=frame) -
            dr.link_jacobian(model, q - eps * qd, link, frame=frame)) @ qd / (
                2 * eps)


@pytest.mark.parametrize('frame', ['world', 'local'])
def test_task_equation_through_pinocchio_forward_dynamics(arm, frame):
    """
    Torques J^T F + N^T tau_0 give Lambda x_ddot + mu + p = F, any tau_0.

    x_ddot = J qdd + J_dot qd with qdd from Pinocchio's ABA and J_dot qd
    from central differences; 1e-6 relative (module notes).
    """
    model, oracle, link, rows = arm
    index = task_rows(rows)
    rng = np.random.default_rng(2)
    for q, qd, _, tau_0 in states(model, 3):
        ts = dr.task_space(model, q, link, qd=qd, rows=rows, frame=frame)
        F = rng.uniform(-20.0, 20.0, ts.J.shape[0])
        accelerations = []
        for null in (np.zeros(model.nq), tau_0):
            tau = ts.J.T @ F + ts.N.T @ null
            qdd = oracle.aba(q, qd, tau)
            x_ddot = ts.J @ qdd + j_dot_qd(model, q, qd, link, frame)[index]
            assert_close(ts.Lambda @ x_ddot + ts.mu + ts.p, F, 1e-6,
                         what=frame)
            accelerations.append(x_ddot)
        # The null-space torque leaves the task acceleration alone.
        assert_close(accelerations[1], accelerations[0], 1e-9)
        assert np.abs(ts.N.T @ tau_0).max() > 1e-3 or ts.J.shape[0] == \
            model.nq


def test_j_bar_minimizes_kinetic_energy(arm):
    """
    Freeman eq. 4-70 (Whitney): J_bar is the least kinetic-energy inverse.

    For a task velocity x_dot, qd = J_bar x_dot has kinetic energy
    x_dot^T Lambda x_dot / 2, and every other qd with J qd = x_dot has
    more (by qd_0^T M qd_0 / 2 for the null-space part qd_0 = N qd').
    """
    model, oracle, link, rows = arm
    rng = np.random.default_rng(4)
    q = states(model, 5, 1)[0][0]
    ts = dr.task_space(model, q, link, rows=rows)
    M = oracle.crba(q)
    x_dot = rng.uniform(-1.0, 1.0, ts.J.shape[0])
    qd = ts.J_bar @ x_dot
    assert_close(0.5 * qd @ M @ qd, 0.5 * x_dot @ ts.Lambda @ x_dot)
    assert_close(dr.weighted_pseudo_inverse(ts.J, M), ts.J_bar)
    other = qd + ts.N @ rng.uniform(-1.0, 1.0, model.nq)
    assert_close(ts.J @ other, x_dot, scale=np.abs(x_dot).max())
    extra = other - qd
    assert_close(0.5 * other @ M @ other - 0.5 * qd @ M @ qd,
                 0.5 * extra @ M @ extra, scale=0.5 * qd @ M @ qd)
    # The identity weight gives the least-norm rates (Moore-Penrose).
    assert_close(dr.weighted_pseudo_inverse(ts.J), np.linalg.pinv(ts.J))


def test_redundant_partial_transfer_equals_inverse_dynamics():
    """
    Freeman eqs. 4-70 to 4-75 on Panda's hand point (7 joints, 3 rows).

    T_q = I*_qu u_ddot + u_dot^T P*_quu u_dot - T^L_q (4-73) equals the
    RNEA torques along q_dot = G^-R u_dot, q_ddot = G^-R u_ddot + u_dot^T
    H^q_uu u_dot, and that motion has the task acceleration u_ddot; I*_qu
    = J^T Lambda (4-74).
    """
    model, _ = oracle_for(example_arm_xml('panda'))
    rng = np.random.default_rng(6)
    q = states(model, 7, 1)[0][0]
    point = np.array([0.0, 0.0, 0.1])
    G, H = dr.influence_coefficients(model, q, 'panda_hand', point)
    G, H = G[3:], H[3:]
    I_star, P_star, T_load = dr.dynamics_coefficients(model, q)
    G_R, H_q, I_qu, P_quu = dr.redundant_transfer(I_star, P_star, G, H)
    u_dot, u_ddot = rng.uniform(-1.0, 1.0, (2, 3))
    q_dot = G_R @ u_dot
    q_ddot = G_R @ u_ddot + dr.quadratic(H_q, u_dot)
    assert_close(G @ q_ddot + dr.quadratic(H, q_dot), u_ddot)
    T_q = I_qu @ u_ddot + dr.quadratic(P_quu, u_dot) - T_load
    assert_close(T_q, dr.inverse_dynamics(model, q, q_dot, q_ddot))
    ts = dr.task_space(model, q, 'panda_hand', point=point, rows='linear')
    assert_close(G_R, ts.J_bar)
    assert_close(I_qu, ts.J.T @ ts.Lambda)


def planar_finger(base, lengths, contact):
    """
    Planar R-R finger from ``base`` with a pin at the contact (3 joints).

    The third joint is the contact pin; its link is a massless arm of the
    object from the contact to the object's centre (length ``contact``).
    """
    n = 3
    mass = np.array([0.3, 0.2, 0.0])
    com = np.array([[lengths[0] / 2, 0, 0], [lengths[1] / 2, 0, 0],
                    [contact, 0, 0]])
    inertia = np.array([np.eye(3) * 0.002, np.eye(3) * 0.001,
                        np.zeros((3, 3))])
    origins = np.array([[base[0], base[1], 0.0], [lengths[0], 0, 0],
                        [lengths[1], 0, 0]])
    return dr.RobotModel(
        joint_names=['j1', 'j2', 'pin'], body_names=['l1', 'l2', 'obj'],
        parent=np.arange(n) - 1, joint_type=np.full(n, dr.REVOLUTE),
        axis=np.tile([0.0, 0.0, 1.0], (n, 1)),
        origin_rotation=np.tile(np.eye(3), (n, 1, 1)),
        origin_translation=origins, mass=mass, com=com, inertia_com=inertia,
        gravity=np.array([0.0, -9.81, 0.0]), name='finger',
        frames={'centre': (2, np.eye(3), np.array([contact, 0.0, 0.0]))})


def finger_angles(base, lengths, contact_point, centre, elbow):
    """Joint angles of a finger whose tip is pinned at ``contact_point``."""
    d = np.asarray(contact_point) - base
    l1, l2 = lengths
    phi2 = elbow * np.arccos((d @ d - l1 * l1 - l2 * l2) / (2 * l1 * l2))
    phi1 = np.arctan2(d[1], d[0]) - np.arctan2(l2 * np.sin(phi2),
                                               l1 + l2 * np.cos(phi2))
    arm = np.asarray(centre) - contact_point
    return np.array([phi1, phi2, np.arctan2(arm[1], arm[0]) - phi1 - phi2])


OBJECT_MASS, OBJECT_INERTIA = 0.5, np.diag([2e-4, 3e-4, 4e-4])


def two_finger_hand():
    """
    Two fingers pinned at the ends of a 6 cm object (Fig. 4-5b's layout).

    Object centre (0, 0.15) m turned 0.2 rad; bases at x = -+0.1 m; links
    0.12 and 0.1 m; the object (OBJECT_MASS, OBJECT_INERTIA) is the
    platform, not in the fingers' models.  Returns [(model, phi)] for the
    two fingers.
    """
    centre, theta, half = np.array([0.0, 0.15]), 0.2, 0.03
    along = np.array([np.cos(theta), np.sin(theta)])
    hand = []
    for base, side, elbow in (((-0.1, 0.0), -1.0, -1.0),
                              ((0.1, 0.0), 1.0, 1.0)):
        contact = centre + side * half * along
        lengths = (0.12, 0.1)
        phi = finger_angles(np.array(base), lengths, contact, centre, elbow)
        hand.append((planar_finger(base, lengths, half), phi))
    return hand


def test_two_finger_hand_load_distribution():
    """
    Freeman eqs. 4-76 to 4-90: two fingers hold one object (4 actuators).

    Each finger (2 actuated joints and the contact pin) is transferred to
    the object's u = (x, y, theta) (the parallel procedure, eqs. 4-43 to
    4-48) and the object adds its platform terms (4-50); G^q_u stacks the two
    actuated rows of each finger's G^phi_u (4-78).  The split T_q =
    G^-LT T_u meets G^q_u^T T_q = T_u (4-80) with the least norm of all
    splits, and equals I*_qu u_ddot + u_dot^T P*_quu u_dot - T^L_q
    (4-87 to 4-90).
    """
    PLANAR = [3, 4, 2]
    fingers, phis = zip(*two_finger_hand())
    # Both fingers see the same object: one centre, arms half a turn apart.
    poses = [dr.link_pose(model, phi, 'centre') for model, phi in
             zip(fingers, phis)]
    assert_close(poses[0][1], poses[1][1])
    assert_close(poses[0][0].T @ poses[1][0], np.diag([-1.0, -1.0, 1.0]))
    I_uu, P_uuu, T_u_load = np.zeros((3, 3)), np.zeros((3, 3, 3)), \
        np.zeros(3)
    G_rows, H_rows = [], []
    for model, phi in zip(fingers, phis):
        G, H = dr.influence_coefficients(model, phi, 'centre')
        J, H_w = G[PLANAR], H[PLANAR]
        I_star, P_star, T_load = dr.dynamics_coefficients(model, phi)
        I_w, P_w, T_w = dr.transfer_dynamics(I_star, P_star, J, H_w, T_load)
        I_uu, P_uuu, T_u_load = I_uu + I_w, P_uuu + P_w, T_u_load + T_w
        G_phi, H_phi = dr.invert_influence(J, H_w)
        G_rows.append(G_phi[:2])
        H_rows.append(H_phi[:2])
    # The object: Freeman's platform terms in (x, y, theta) (planar rows
    # of (x, y, z, omega)), gravity on it as its T^L (eq. 4-48).
    I_plat, P_plat = dr.platform_coefficients(OBJECT_MASS, OBJECT_INERTIA)
    rows = [0, 1, 5]
    I_uu = I_uu + I_plat[np.ix_(rows, rows)]
    P_uuu = P_uuu + P_plat[np.ix_(rows, rows, rows)]
    gravity = fingers[0].gravity
    T_u_load = T_u_load + OBJECT_MASS * np.array([gravity[0], gravity[1],
                                                  0.0])
    G_q, H_q = np.vstack(G_rows), np.concatenate(H_rows)
    assert G_q.shape == (4, 3) and H_q.shape == (4, 3, 3)
    G_LT, I_qu, P_quu, T_q_load = dr.overconstrained_transfer(
        G_q, I_uu, P_uuu, T_u_load)
    rng = np.random.default_rng(8)
    u_dot, u_ddot = rng.uniform(-1.0, 1.0, (2, 3))
    T_u = I_uu @ u_ddot + dr.quadratic(P_uuu, u_dot) - T_u_load
    T_q = I_qu @ u_ddot + dr.quadratic(P_quu, u_dot) - T_q_load
    assert_close(T_q, G_LT @ T_u)
    assert_close(G_q.T @ T_q, T_u)                                # 4-80
    # Least norm: any other split differs by a null vector of G_q^T.
    null = np.linalg.svd(G_q.T)[2][-1]
    assert abs(null @ T_q) < 1e-9 * np.abs(T_q).max()
    assert np.linalg.norm(T_q + 0.1 * null) > np.linalg.norm(T_q)
    # T_u is what the object's motion needs: its Newton-Euler equations
    # and the joint torques of the two open fingers moving with it, J^-T
    # tau summed (virtual work).
    total = np.concatenate((OBJECT_MASS * (u_ddot[:2] - gravity[:2]),
                            [OBJECT_INERTIA[2, 2] * u_ddot[2]]))
    for model, phi in zip(fingers, phis):
        G, H = dr.influence_coefficients(model, phi, 'centre')
        J, H_w = G[PLANAR], H[PLANAR]
        phi_dot = np.linalg.solve(J, u_dot)
        phi_ddot = np.linalg.solve(J, u_ddot - dr.quadratic(H_w, phi_dot))
        tau = dr.inverse_dynamics(model, phi, phi_dot, phi_ddot)
        total += np.linalg.solve(J.T, tau)
    assert_close(total, T_u)


def test_square_task_is_freemans_transfer():
    """
    A 6-joint arm with a 6-row task: Khatib's model is Freeman's ch. III.

    Lambda = I*_qq = J^-T I* J^-1 (eq. 3-34), mu = x_dot^T P*_qqq x_dot
    (3-35) and p = -T^L_q (3-36), with J, H the influence coefficients of
    the tool frame (angular rows included: quasi-coordinates, whose H is
    not symmetric; the quadratic forms use it as the acceleration does).
    """
    model, _ = oracle_for(example_arm_xml('ur5'))
    q, qd, _, _ = states(model, 11, 1)[0]
    G, H = dr.influence_coefficients(model, q, 'tool0')
    I_star, P_star, T_load = dr.dynamics_coefficients(model, q)
    I_q, P_q, T_q = dr.transfer_dynamics(I_star, P_star, G, H, T_load)
    ts = dr.task_space(model, q, 'tool0', qd=qd)
    assert_close(ts.Lambda, I_q)
    assert_close(ts.mu, dr.quadratic(P_q, G @ qd))
    assert_close(ts.p, -T_q)
    assert np.abs(ts.mu).max() > 1e-3


def test_mimic_model_task_space():
    """
    A Panda whose joints 7 and 5 follow 5 and 3 (a MimicModel, 5 coordinates).

    J = J_tree G and M = G^T M_tree G from Pinocchio's model of every joint
    give Lambda (1e-9); the task equation holds through forward dynamics.
    """
    xml = example_arm_xml('panda')
    tree_model, tree_oracle = oracle_for(xml)
    model = dr.MimicModel(tree_model, {
        'panda_joint7': ('panda_joint5', -0.5, 0.1),
        'panda_joint5': ('panda_joint3', 2.0, -0.2)})
    rng = np.random.default_rng(9)
    q, qd = rng.uniform(-0.5, 0.5, (2, model.nq))
    full = model.full_positions(q)
    J = pinocchio_jacobian(tree_oracle, full, 'panda_hand') @ model.G
    M = model.G.T @ tree_oracle.crba(full) @ model.G
    ts = dr.task_space(model, q, 'panda_hand', qd=qd, rows='linear')
    assert_close(ts.Lambda, np.linalg.inv(J[3:] @ np.linalg.solve(M, J[3:].T)))
    F = rng.uniform(-10.0, 10.0, 3)
    qdd = dr.forward_dynamics(model, q, qd, ts.J.T @ F)
    eps = 1e-6
    J_dot_qd = (dr.link_jacobian(model, q + eps * qd, 'panda_hand')
                - dr.link_jacobian(model, q - eps * qd, 'panda_hand')
                ) @ qd / (2 * eps)
    assert_close(ts.Lambda @ (ts.J @ qdd + J_dot_qd[3:]) + ts.mu + ts.p, F,
                 1e-6)


def test_platform_terms_give_the_euler_equations():
    """
    Freeman's platform terms (eqs. 4-50 to 4-54) are a body's Euler terms.

    I_plat w_ddot + w_dot^T P_plat w_dot = (m a, II alpha + omega x II
    omega).
    """
    rng = np.random.default_rng(12)
    A = rng.normal(size=(3, 3))
    II = A @ A.T + np.eye(3)
    I_plat, P_plat = dr.platform_coefficients(2.5, II)
    w_dot, w_ddot = rng.normal(size=(2, 6))
    load = I_plat @ w_ddot + dr.quadratic(P_plat, w_dot)
    omega = w_dot[3:]
    assert_close(load[:3], 2.5 * w_ddot[:3])
    assert_close(load[3:], II @ w_ddot[3:] + np.cross(omega, II @ omega))
    with pytest.raises(ValueError, match='platform'):
        dr.platform_coefficients(-1.0, II)


def test_bad_input_is_named():
    """Singular tasks, bad rows and shapes raise errors that say why."""
    model, _ = oracle_for(example_arm_xml('ur5'))
    q = np.zeros(model.nq)   # UR5 at zero: wrist singular
    with pytest.raises(ValueError, match='singular'):
        dr.task_space(model, q, 'tool0')
    damped = dr.task_space(model, q, 'tool0', damping=0.1)
    assert np.all(np.isfinite(damped.Lambda))
    with pytest.raises(ValueError, match='rows'):
        dr.task_space(model, q, 'tool0', rows='sideways')
    with pytest.raises(ValueError, match='rows'):
        dr.task_space(model, q, 'tool0', rows=[0, 0, 7])
    with pytest.raises(ValueError, match='damping'):
        dr.task_space(model, q, 'tool0', damping=-1.0)
    with pytest.raises(ValueError, match='N <= M'):
        dr.weighted_pseudo_inverse(np.ones((4, 3)))
    with pytest.raises(ValueError, match='M >= N'):
        dr.overconstrained_transfer(np.ones((2, 3)), np.eye(3),
                                    np.zeros((3, 3, 3)))
