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
Freeman's (1985) own cases: the five-bar (App. C) and the planar parallel mechanism (App. E).

Numbers are the dissertation's tables with the corrections that
docs/papers/freeman_1985.md lists: C-1 y_B = +3.29, C-3 I* and P* in units
of 1e-3 (the OCR prints 1e3) and P* plane 2 (3, 4) = -0.17; E-1 P* plane 2
(1, 3) = +0.026; E-2 H^q plane 2 (2, 3) = -0.064 and plane 3
(1, 1) = -0.225.  The figures with the geometry and the mass data (C-1,
E-1) are lost, so the inputs are derived here from what the text states,
never fitted to the tables a test compares with:

- five-bar: O1A = 12, AC = CB = 24, BO2 = 12 in at q1 = 70 deg, AC at 35
  deg, CB at -65 deg, q2 = 90 deg (the positions of Table C-1).  Only the
  coupler AC has mass (I*_phiphi of Table C-2 is zero outside phi1, phi2);
  its mass, centroid and I_c come from Table C-2's printed I*_phiphi (the
  transfer's input), and the tests compare the transfer's output (C-3) and
  the dyad analysis (C-1);
- parallel mechanism: three identical legs, 120 deg apart, each a 3R chain
  of links 1.5, 1.5 and 1.0 in from a base joint at 2.95 in from the
  platform point to the platform point, the platform joint and the base
  joint on one ray (the 1.0 in platform radius and the legs' symmetry
  make Table E-2's I*_qq = diag(1, 2, 3) hold with base inertias 1, 2, 3
  and nothing else with mass).  Table E-1's G is then computed, not copied.

Tolerances: the tables print 2 to 4 significant digits, so a table holds
to 0.3 % of its largest entry plus half a unit of its last printed digit.
Every identity that does not go through a printed number holds to 1e-9.
"""

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.dynamics.actuated import reflected_model
from dynamics_ros.model.actuators import motors_from_mapping
from dynamics_ros.resources import robot_urdf
import numpy as np

PLANAR = [3, 4, 2]  # rows x_dot, y_dot, theta_dot of [angular; linear]


def assert_table(ours, table, half_unit, relative=0.003):
    """Hold ``ours`` to a printed table (see the module notes)."""
    ours, table = np.asarray(ours, dtype=float), np.asarray(table, float)
    assert ours.shape == table.shape
    bound = relative * np.abs(table).max() + half_unit
    error = np.abs(ours - table).max()
    assert error <= bound, 'off the table by %.3g > %.3g:\n%s\nvs\n%s' % (
        error, bound, ours, table)


def planar_chain(lengths, hand, rotor_inertia, coupler=None):
    """
    Open chain of revolute joints about z with links along x.

    ``lengths[i]`` is the distance from joint i to joint i + 1, ``hand``
    the distance of the chain's free end from the last joint (frame
    'hand').  ``rotor_inertia`` (about z, at the joint) per link and
    ``coupler = (link, mass, centroid distance, I_c)`` are the only masses.
    """
    n = len(lengths)
    origins = np.zeros((n, 3))
    origins[1:, 0] = lengths[:-1]
    mass, com = np.zeros(n), np.zeros((n, 3))
    inertia = np.zeros((n, 3, 3))
    for i, value in enumerate(rotor_inertia):
        inertia[i] = np.diag([value, value, value])
    if coupler is not None:
        link, mass[link], com[link, 0], I_c = coupler
        inertia[link] = np.diag([I_c, I_c, I_c])
    return dr.RobotModel(
        joint_names=['phi%d' % (i + 1) for i in range(n)],
        body_names=['link%d' % (i + 1) for i in range(n)],
        parent=np.arange(n) - 1, joint_type=np.full(n, dr.REVOLUTE),
        axis=np.tile([0.0, 0.0, 1.0], (n, 1)),
        origin_rotation=np.tile(np.eye(3), (n, 1, 1)),
        origin_translation=origins, mass=mass, com=com, inertia_com=inertia,
        gravity=np.zeros(3), name='planar_chain', frames=dict(
            [('link%d' % (i + 1), (i, np.eye(3), np.zeros(3)))
             for i in range(n)],
            hand=(n - 1, np.eye(3), np.array([hand, 0.0, 0.0]))))


def chain_through(points):
    """Link lengths and relative joint angles of a chain through points."""
    links = np.diff(np.asarray(points, dtype=float), axis=0)
    angles = np.arctan2(links[:, 1], links[:, 0])
    return np.linalg.norm(links, axis=1), np.diff(angles, prepend=0.0)


def planar_coefficients(model, phi, link='hand', point=None):
    """G and H of (x, y, theta) of a point: Freeman's planar rows."""
    G, H = dr.influence_coefficients(model, phi, link, point)
    return G[PLANAR], H[PLANAR]


# --- App. C: the five-bar ------------------------------------------------

DEG = np.pi / 180.0
FIVE_BAR_PHI = np.array([70.0, -35.0, -100.0, -25.0]) * DEG
W_DOT = np.array([2.0, 0.0, 0.0, 3.0])   # q1_dot, X_h, Y_h fixed, q2_dot
W_DDOT = np.array([1.0, 0.0, 0.0, 0.5])
# Table C-2's printed I*_phiphi (in lbf s^2): only phi1 and phi2 carry
# inertia, so the coupler AC (link 2) is the only link with mass.
TABLE_C2_I = np.array([[2.774, 1.418], [1.418, 0.808]])
GRAVITY_IN = 386.4  # in/s^2: Freeman's units are in, lbf, s


def coupler_mass_data():
    """
    Mass, centroid distance from A and I_c of AC from Table C-2's I*.

    For one massive link 2 behind a link 1 of length l1 = O1A:
    I*_11 - 2 I*_12 + I*_22 = m l1^2, I*_12 - I*_22 = m l1 c cos(phi2),
    I*_22 = I_c + m c^2.  The printed digits give m = 2.002 lbf / g and
    c = 11.98 in: a 2 lbf coupler with its centroid at the middle of its
    24 in, which is what is used (the unrounded values move T1 of Table
    C-3 by 5 % because T1 is a small difference of large terms); I_c
    follows from I*_22.
    """
    (I11, I12), (_, I22) = TABLE_C2_I
    l1, phi2 = 12.0, FIVE_BAR_PHI[1]
    m = (I11 - 2 * I12 + I22) / l1 ** 2
    c = (I12 - I22) / (m * l1 * np.cos(phi2))
    assert abs(m * GRAVITY_IN - 2.0) < 0.005 and abs(c - 12.0) < 0.05
    m, c = 2.0 / GRAVITY_IN, 12.0
    return m, c, I22 - m * c * c


def five_bar():
    """
    Open chain O1-A-C-B-O2 of the five-bar and its model in w.

    Returns ``(model, J, H_w)`` with w = (phi1, X_h, Y_h, theta_h),
    J = G^w_phi and H_w = H^w_phiphi (Table C-2: [1 0 0 0; Ge], [0; He]).
    """
    mass, centroid, I_c = coupler_mass_data()
    model = planar_chain([12.0, 24.0, 24.0, 12.0], 12.0, [0.0] * 4,
                         coupler=(1, mass, centroid, I_c))
    G_e, H_e = planar_coefficients(model, FIVE_BAR_PHI)
    J = np.vstack((np.eye(4)[:1], G_e))
    H_w = np.concatenate((np.zeros((1, 4, 4)), H_e))
    return model, J, H_w


def five_bar_motion():
    """Joint rates and accelerations of the closed loop (Table C-1 input)."""
    model, J, H_w = five_bar()
    phi_dot = np.linalg.solve(J, W_DOT)
    phi_ddot = np.linalg.solve(J, W_DDOT - dr.quadratic(H_w, phi_dot))
    return model, phi_dot, phi_ddot


def test_five_bar_open_chain_coefficients():
    """Table C-2: Ge, He and I*, P* of the open chain."""
    model, J, H_w = five_bar()
    assert_table(J[1:], [[8.71, 19.98, 33.75, 12.0],
                         [33.91, 29.80, 10.14, 0.0],
                         [1.0, 1.0, 1.0, 1.0]], 0.005)
    plane_x = -np.array([[33.91, 29.80, 10.14, 0.0],
                         [29.80, 29.80, 10.14, 0.0],
                         [10.14, 10.14, 10.14, 0.0],
                         [0.0, 0.0, 0.0, 0.0]])
    plane_y = np.array([[8.71, 19.98, 33.75, 12.0],
                        [19.98, 19.98, 33.75, 12.0],
                        [33.75, 33.75, 33.75, 12.0],
                        [12.0, 12.0, 12.0, 12.0]])
    assert_table(H_w[1], plane_x, 0.005)
    assert_table(H_w[2], plane_y, 0.005)
    assert not np.any(H_w[3])
    I_star, P_star, _ = dr.dynamics_coefficients(model, FIVE_BAR_PHI)
    assert_table(I_star, [[2.774, 1.418, 0, 0], [1.418, 0.808, 0, 0],
                          [0, 0, 0, 0], [0, 0, 0, 0]], 0.0005)
    expected = np.zeros((4, 4, 4))
    expected[0, :2, :2] = [[0.0, 0.428], [0.428, 0.428]]
    expected[1, 0, 0] = -0.428
    assert_table(P_star, expected, 0.0005)


def test_five_bar_kinematics():
    """
    Table C-1: velocities and accelerations of A, B, AC and its centroid.

    A sits at the end of link 1, B at the start of link 4, the coupler
    angle psi is that of link 2; q1_dot = 2, q2_dot = 3, q1_ddot = 1,
    q2_ddot = 0.5 with O2 and the ground fixed.
    """
    model, phi_dot, phi_ddot = five_bar_motion()

    def motion(link, point):
        G, H = planar_coefficients(model, FIVE_BAR_PHI, link, point)
        return G @ phi_dot, G @ phi_ddot + dr.quadratic(H, phi_dot)

    a_vel, a_acc = motion(0, [12.0, 0.0, 0.0])
    assert_table(a_vel[:2], [-22.55, 8.21], 0.005, 0.0)
    assert_table(a_acc[:2], [-27.69, -41.0], 0.005, 0.0)
    b_vel, b_acc = motion(3, [0.0, 0.0, 0.0])
    assert_table(b_vel[:2], [-36.0, 0.0], 0.05, 0.0)
    assert_table(b_acc[:2], [-6.0, -108.0], 0.05, 0.0)
    c_vel, c_acc = motion(1, [12.0, 0.0, 0.0])
    assert_table([c_vel[2], c_acc[2]], [-0.074, -3.405], 0.0005, 0.0)
    assert_table(c_acc[:2], [-4.31, -74.51], 0.005, 0.0)
    # Positions: A and B, with y_B = +3.29 (the table's -3.29 is a typo).
    rotation, translation = dr.link_pose(model, FIVE_BAR_PHI, 'link4')
    assert_table(translation[:2], [33.9, 3.29], 0.05, 0.0)
    # The joint rates of the reconstructed five-bar (not printed by Freeman;
    # docs/papers/freeman_1985.md).
    assert_table(phi_dot, [2.0, -2.074, -0.591, 3.665], 0.0005)
    assert_table(phi_ddot, [1.0, -4.405, 2.459, 1.447], 0.0005)


def test_five_bar_constrained_model():
    """Table C-3: I*_ww, P*_www in w = (phi1, X_h, Y_h, theta_h), and T_w."""
    model, J, H_w = five_bar()
    I_star, P_star, _ = dr.dynamics_coefficients(model, FIVE_BAR_PHI)
    I_w, P_w = dr.transfer_dynamics(I_star, P_star, J, H_w)
    assert_table(I_w * 1e3, [[411.24, -5.73, 12.29, 68.79],
                             [-5.73, 0.26, -0.55, -3.10],
                             [12.29, -0.55, 1.19, 6.64],
                             [68.79, -3.10, 6.64, 37.17]], 0.005)
    planes = [
        [[303.35, -0.18, -8.96, 2.15], [-0.18, -0.24, -0.61, 2.84],
         [-8.96, -0.61, 0.52, 7.27], [2.15, 2.84, 7.27, -181.56]],
        [[3.38, 0.13, 0.14, -1.58], [0.13, 0.02, 0.01, -0.20],
         [0.14, 0.01, 0.005, -0.17], [-1.58, -0.20, -0.17, 9.06]],
        [[-7.24, -0.28, -0.29, 3.38], [-0.28, -0.04, -0.03, 0.43],
         [-0.29, -0.03, -0.01, 0.36], [3.38, 0.43, 0.36, -19.43]],
        [[-40.50, -1.58, -1.66, 18.95], [-1.58, -0.20, -0.17, 2.42],
         [-1.66, -0.17, -0.06, 2.03], [18.95, 2.42, 2.03, -108.7]],
    ]
    for plane, table in zip(P_w * 1e3, planes):
        assert_table(plane, table, 0.005)
    T_w = I_w @ W_DDOT + dr.quadratic(P_w, W_DOT)
    assert_table(T_w[:3] * 1e3, [50.77, 68.83, -147.60], 0.005)
    # T2 (the torque on theta_h = the crank O2B): Table C-3's entry is
    # illegible and Table C-1 prints +0.83 in lbf, which this model cannot
    # reach: it gives -0.826.  Table C-1's own pin force F_H = (0.07, -0.15)
    # on the massless crank (B - O2 = 12 in straight up, q2 = 90 deg) needs
    # T2 = (B - O2) x F_H = -12 * 0.07 = -0.84 +- 0.06 (half a printed unit
    # of F_Hx times 12 in): the sign of C-1's T2 is the odd one out.
    assert abs(T_w[3] - (-0.826)) <= 0.0005
    assert abs(T_w[3] - (-12.0 * 0.07)) <= 12.0 * 0.005
    # Independently of the tables: the transferred model gives the loads
    # J^-T tau of the open chain's RNEA for the same motion (virtual work).
    _, phi_dot, phi_ddot = five_bar_motion()
    tau = dr.inverse_dynamics(model, FIVE_BAR_PHI, phi_dot, phi_ddot)
    assert_close(T_w, np.linalg.solve(J.T, tau))


# --- App. E: the 3-leg planar parallel mechanism -------------------------

# Leg design (Fig. E-1 is lost): link lengths base-elbow, elbow-platform
# joint, platform joint-platform point (in.); the base and platform joints
# of leg 1 lie on the ray at 210 deg from the platform point, at these
# distances, the elbow on the counterclockwise side of the leg.
LEG_LENGTHS = (1.5, 1.5, 1.0)
BASE_RADIUS = 2.95
LEG_RAY_DEG = 210.0


def leg_joints(turn_deg):
    """Return the base, elbow and platform joints of a leg (platform point 0)."""
    angle = np.radians(LEG_RAY_DEG + turn_deg)
    ray = np.array([np.cos(angle), np.sin(angle)])
    base, platform = BASE_RADIUS * ray, LEG_LENGTHS[2] * ray
    half = 0.5 * np.linalg.norm(base - platform)
    # Elbow: LEG_LENGTHS[0] from the base joint and LEG_LENGTHS[1] (equal)
    # from the platform joint, off the ray to its counterclockwise side
    # seen from the base.
    assert LEG_LENGTHS[0] == LEG_LENGTHS[1]
    offset = np.sqrt(LEG_LENGTHS[0] ** 2 - half ** 2)
    elbow = 0.5 * (base + platform) + offset * np.array([ray[1], -ray[0]])
    return np.array([base, elbow, platform])


def parallel_leg(turn_deg, base_inertia):
    """
    Leg 1 turned by ``turn_deg`` about the platform point.

    Returns ``(model, phi, J, H_w)`` with w = (x, y, theta) of the platform
    point: J = G^w_phi, H_w = H^w_phiphi.
    """
    joints = leg_joints(turn_deg)
    lengths, phi = chain_through(np.vstack((joints, [[0.0, 0.0]])))
    assert_close(lengths, LEG_LENGTHS)
    model = planar_chain(lengths, lengths[-1], [base_inertia, 0.0, 0.0])
    J, H_w = planar_coefficients(model, phi)
    return model, phi, J, H_w


def legs():
    """Transfer the three legs to the platform coordinates w."""
    result = []
    for turn, inertia in ((0.0, 1.0), (120.0, 2.0), (240.0, 3.0)):
        model, phi, J, H_w = parallel_leg(turn, inertia)
        I_star, P_star, _ = dr.dynamics_coefficients(model, phi)
        G_phi, H_phi = dr.invert_influence(J, H_w)
        I_w, P_w = dr.transfer_dynamics(I_star, P_star, J, H_w)
        result.append((I_star, P_star, G_phi, H_phi, I_w, P_w))
    return result


def test_parallel_leg_one():
    """
    Table E-1: G, H, I*, P* of leg 1 and its transfer to the platform.

    G and H come from the leg design (module notes), not from the table:
    the other elbow of the same links gives a G off the table by 1.97 in.
    """
    model, phi, J, H_w = parallel_leg(0.0, 1.0)
    assert_table(J, [[-1.475, 0.0, -0.5], [2.55, 2.28, 0.866],
                     [1.0, 1.0, 1.0]], 0.0005)
    assert_table(H_w[0], -np.array([[2.55, 2.28, 0.866],
                                    [2.28, 2.28, 0.866],
                                    [0.866, 0.866, 0.866]]), 0.0005)
    assert_table(H_w[1], [[-1.475, 0.0, -0.5], [0.0, 0.0, -0.5],
                          [-0.5, -0.5, -0.5]], 0.0005)
    I_star, P_star, G_phi, H_phi, I_w, P_w = legs()[0]
    assert_close(I_star, np.diag([1.0, 0.0, 0.0]))
    assert not np.any(np.abs(P_star) > 1e-12)
    assert_table(G_phi, [[-0.637, 0.225, -0.513], [0.758, 0.439, -0.001],
                         [-0.122, -0.664, 1.514]], 0.0005)
    assert_table(I_w, [[0.405, -0.143, 0.327], [-0.143, 0.051, -0.116],
                       [0.327, -0.116, 0.264]], 0.0005)
    for plane, table in zip(H_phi, [
            [[0.050, -0.105, 0.116], [-0.105, -0.439, 0.328],
             [0.116, 0.328, -0.665]],
            [[0.358, -0.053, 0.225], [-0.053, 0.419, -0.390],
             [0.225, -0.390, 1.327]],
            [[-0.408, 0.158, -0.341], [0.158, 0.019, 0.062],
             [-0.341, 0.062, -0.662]]]):
        assert_table(plane, table, 0.0005)
    for plane, table in zip(P_w, [
            [[-0.032, 0.067, -0.074], [0.067, 0.280, -0.209],
             [-0.074, -0.209, 0.423]],
            [[0.011, -0.024, 0.026], [-0.024, -0.099, 0.074],
             [0.026, 0.074, -0.150]],
            [[-0.026, 0.054, -0.059], [0.054, 0.225, -0.168],
             [-0.059, -0.168, 0.341]]]):
        assert_table(plane, table, 0.0005)


def test_parallel_mechanism_assembly():
    """
    Table E-2, and back in the base joints I*_qq = diag(1, 2, 3), P* = 0.

    The platform is massless, so I*_ww and P*_www are the legs' sums (eq.
    4-48); the actuated q_r is phi_1 of leg r, so row r of G^q_w and plane
    r of H^q_ww are leg r's first row and plane of G^phi_w, H^phi_ww
    (eqs. 4-58 to 4-60).
    """
    parts = legs()
    I_w = sum(part[4] for part in parts)
    P_w = sum(part[5] for part in parts)
    G_q = np.array([part[2][0] for part in parts])
    H_q = np.array([part[3][0] for part in parts])
    assert_table(G_q, [[-0.637, 0.225, -0.513], [0.124, -0.665, -0.514],
                       [0.513, 0.439, -0.513]], 0.0005)
    assert_table(I_w, [[1.225, 0.367, -0.589], [0.367, 1.513, -0.106],
                       [-0.589, -0.106, 1.582]], 0.0005)
    for plane, table in zip(H_q, [
            [[0.050, -0.105, 0.116], [-0.105, -0.439, 0.328],
             [0.116, 0.328, -0.665]],
            [[-0.408, -0.159, -0.342], [-0.159, 0.018, -0.064],
             [-0.342, -0.064, -0.665]],
            [[-0.225, 0.263, 0.225], [0.263, -0.165, -0.263],
             [0.225, -0.263, -0.664]]]):
        assert_table(plane, table, 0.0005)
    # Legs 2 and 3 are reconstructed (turned copies of leg 1), so P*_www
    # is held to 0.3 % of its largest entry over all planes, as I*_ww is.
    assert_table(P_w, [
        [[-0.479, 0.432, 0.188], [0.432, 0.031, -0.629],
         [0.188, -0.629, -0.762]],
        [[0.259, 0.534, 0.777], [0.534, -0.340, -0.188],
         [0.777, -0.188, -0.137]],
        [[0.741, -0.188, -0.054], [-0.188, 0.459, 0.302],
         [-0.054, 0.302, 2.045]]], 0.0005)
    I_q, P_q = dr.transfer_dynamics(I_w, P_w, G_q, H_q)
    assert_close(I_q, np.diag([1.0, 2.0, 3.0]))
    assert_close(P_q, np.zeros((3, 3, 3)), scale=1.0)
    # The round trip is not trivial: I*_ww and P*_www are full.
    assert np.abs(I_w - np.diag(np.diag(I_w))).max() > 0.1
    assert np.abs(P_w).max() > 1.0


def test_appendix_b_wrist_point_closed_form():
    """
    Eq. 3-19 against App. B's closed form for theta_1 of a wrist point.

    First three joints of an arm with joint 1 about the vertical z through
    the origin: theta1_ddot = (1/r)(-s1, c1, 0).P_ddot + P_dot^T (1/r^2)
    [[s2, -c2, 0], [-c2, -s2, 0], [0, 0, 0]] P_dot, where r is the wrist
    point's distance from the z axis and s2 = sin(2 theta_1) (B-15).
    """
    model = dr.RobotModel(
        joint_names=['theta1', 'theta2', 'theta3'],
        body_names=['base_turn', 'upper_arm', 'forearm'],
        parent=[-1, 0, 1], joint_type=[dr.REVOLUTE] * 3,
        axis=[[0, 0, 1.0], [0, 1.0, 0], [0, 1.0, 0]],
        origin_rotation=np.tile(np.eye(3), (3, 1, 1)),
        origin_translation=[[0, 0, 0], [0.1, 0.0, 0.5], [0.43, 0, 0]],
        mass=[1.0, 1.0, 1.0], com=np.zeros((3, 3)),
        inertia_com=np.tile(np.eye(3), (3, 1, 1)),
        frames={'wrist': (2, np.eye(3), np.array([0.4, 0.0, -0.02]))})
    theta = np.array([0.7, -0.4, 0.9])
    G, H = dr.influence_coefficients(model, theta, 'wrist')
    G_inv, H_inv = dr.invert_influence(G[3:], H[3:])
    position = dr.link_pose(model, theta, 'wrist')[1]
    r = np.hypot(position[0], position[1])
    c1, s1 = np.cos(theta[0]), np.sin(theta[0])
    assert_close(r * np.array([c1, s1]), position[:2])
    assert_close(G_inv[0], np.array([-s1, c1, 0.0]) / r)
    c2, s2 = np.cos(2 * theta[0]), np.sin(2 * theta[0])
    closed_form = np.array([[s2, -c2, 0], [-c2, -s2, 0], [0, 0, 0]]) / r ** 2
    assert_close(0.5 * (H_inv[0] + H_inv[0].T), closed_form)


# --- Ch. IV and the motor model: second tests of single-test equations ---

def test_redundant_h_is_the_kinetic_energy_weighted_inverse():
    """
    Eq. 4-72 on a planar 3R arm with a 2-row task (the hand's x, y).

    H^q_uu = -G^-RT (G^-R . H^u_qq) G^-R gives, with q_dot = G^-R u_dot
    and q_ddot = G^-R u_ddot + u_dot^T H^q_uu u_dot, (a) the task's
    acceleration G q_ddot + q_dot^T H q_dot = u_ddot (the sign) and (b)
    of all joint accelerations that do, the one of least q_ddot^T I*
    q_ddot: I* q_ddot is orthogonal to G's null space (the weighting of
    G^-R, eq. 4-70; I* here is far from a multiple of the identity).
    """
    model = planar_chain([10.0, 8.0, 5.0], 4.0, [1.0, 0.5, 0.2],
                         coupler=(1, 0.02, 4.0, 0.3))
    phi = np.array([0.4, 0.9, -0.7])
    G, H = planar_coefficients(model, phi)
    G, H = G[:2], H[:2]
    I_star, P_star, _ = dr.dynamics_coefficients(model, phi)
    assert np.abs(I_star - np.diag(np.diag(I_star))).max() > 0.1 * \
        np.abs(I_star).max()
    G_R, H_q, _, _ = dr.redundant_transfer(I_star, P_star, G, H)
    null = np.linalg.svd(G)[2][-1]
    assert_close(G @ null, np.zeros(2), scale=1.0)
    rng = np.random.default_rng(12)
    for _ in range(3):
        u_dot, u_ddot = rng.uniform(-1.0, 1.0, (2, 2))
        q_dot = G_R @ u_dot
        q_ddot = G_R @ u_ddot + dr.quadratic(H_q, u_dot)
        assert_close(G @ q_ddot + dr.quadratic(H, q_dot), u_ddot)
        assert abs(null @ I_star @ q_ddot) < 1e-9 * np.abs(
            I_star @ q_ddot).max()
        # The velocity-product part alone: -G^-R (q_dot^T H q_dot).
        assert_close(dr.quadratic(H_q, u_dot),
                     -G_R @ dr.quadratic(H, q_dot))


def test_overconstrained_split_is_the_least_squares_inverse():
    """
    Eq. 4-86 on a random 5 x 3 G^q_u: G^-LT = G (G^T G)^-1.

    Every split T_q = G^-LT T_u meets the constraint G^T T_q = T_u (4-80)
    and is the least-norm one, pinv(G^T) T_u (4-85); I*_qu, P*_quu and
    T^L_q carry the same split of each term (4-88 to 4-90).
    """
    rng = np.random.default_rng(13)
    G = rng.normal(size=(5, 3))
    A = rng.normal(size=(3, 3))
    I_uu = A @ A.T + np.eye(3)
    P_uuu = rng.normal(size=(3, 3, 3))
    T_load = rng.normal(size=3)
    G_LT, I_qu, P_quu, T_q_load = dr.overconstrained_transfer(
        G, I_uu, P_uuu, T_load)
    assert_close(G.T @ G_LT, np.eye(3), scale=1.0)
    assert_close(G_LT, np.linalg.pinv(G.T))
    assert_close(G.T @ I_qu, I_uu)
    assert_close(G.T @ T_q_load, T_load)
    u_dot, u_ddot = rng.uniform(-1.0, 1.0, (2, 3))
    T_u = I_uu @ u_ddot + dr.quadratic(P_uuu, u_dot) - T_load
    T_q = I_qu @ u_ddot + dr.quadratic(P_quu, u_dot) - T_q_load
    assert_close(G.T @ T_q, T_u)
    other = T_q + np.linalg.svd(G.T)[2][-1]     # another split of T_u
    assert_close(G.T @ other, T_u)
    assert np.linalg.norm(other) > np.linalg.norm(T_q)


def test_nominal_voltage_is_the_motor_equation_along_the_motion():
    """
    The nominal voltage (eqs. 2-237 to 2-240) against L di/dt + R i + C_E qd.

    Along q(t) = q0 + a sin(w t) on the two-link arm, the nominal current
    i(t) (the torque over n k_t) is differentiated in time by central
    differences (h = 1e-5 s, error ~1e-9 relative); the voltage from the
    jerk-based di/dt of eq. 2-240 matches it to 1e-7 relative.  Without
    the jerk term (M qddd) the voltage is off by L M qddd / (n k_t), more
    than 1e-4 of it here.
    """
    model = dr.load_urdf(robot_urdf('two_link_planar'))
    motors = motors_from_mapping({name: dict(
        gear_ratio=40.0 + 20.0 * k, rotor_inertia=3e-5, torque_constant=0.05,
        back_emf=0.05, resistance=1.2, inductance=5e-3, damping=2e-5)
        for k, name in enumerate(model.joint_names)}, model.joint_names)
    q0, a, w = np.array([0.2, -0.4]), np.array([0.5, 0.7]), \
        np.array([4.0, 6.0])

    def motion(t):
        s, c = np.sin(w * t), np.cos(w * t)
        return (q0 + a * s, a * w * c, -a * w * w * s, -a * w ** 3 * c)

    h = 1e-5
    for t in (0.05, 0.3, 0.8):
        voltage, current = dr.nominal_voltage(model, motors, *motion(t))
        rate = (dr.nominal_voltage(model, motors, *motion(t + h))[1]
                - dr.nominal_voltage(model, motors, *motion(t - h))[1]) / (
                    2 * h)
        speed = motors.gear_ratio * motion(t)[1]          # motor side
        expected = (motors.inductance * rate + motors.resistance * current
                    + motors.back_emf * speed)
        assert_close(voltage, expected, 1e-7)
        jerk_part = motors.inductance * (
            dr.mass_matrix(reflected_model(model, motors), motion(t)[0])
            @ motion(t)[3]) / (motors.gear_ratio * motors.torque_constant)
        assert np.abs(jerk_part).max() > 1e-4 * np.abs(voltage).max()
