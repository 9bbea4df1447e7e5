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
The flexible-link model (Mackay 1988) without time integration.

Mode shapes against the thesis' numbers; the 4x4 recursive algorithms
against each other, against an independent material-point quadrature of
the energy, against Lagrange's equations by finite differences, against
Mackay's scalar equations of motion (as corrected in
docs/papers/mackay_1988.md), and, with the modes removed, against the rigid
algorithms and Pinocchio.
"""

import warnings

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.flexible import FlexibleLink, FlexibleModel, RigidPart
from dynamics_ros.flexible.examples import (
    mackay_double_pendulum, MACKAY_EI, MACKAY_GRAVITY,
    mackay_joint_mass_link, MACKAY_LENGTH, MACKAY_MASS, mackay_pendulum,
    mackay_three_link_arm, mackay_three_link_urdf)
from dynamics_ros.flexible.inverse_dynamics import generalized_forces
from dynamics_ros.flexible.kinematics import body_transforms
from dynamics_ros.flexible.link import pseudo_inertia
from dynamics_ros.flexible.modes import gauss_stations, ModeShapes
from dynamics_ros.resources import shipped_file
import numpy as np
from oracle import oracle_for
import pytest
from urdf_factory import random_urdf

# --- mode shapes (thesis eqs. 3.4, 3.13-3.16) ---------------------------


def mackay_constants():
    """F, G, H, K of eqs. 3.13-3.16 from the first clamped-free shape."""
    a = MACKAY_LENGTH
    shapes = ModeShapes(a, 1, 'mackay')
    eta, w = gauss_stations(a, 64)
    V = shapes.shape(eta)[0]
    return dict(F=V ** 2 @ w / a, G=eta * V @ w / a ** 2, H=V @ w / a,
                K=shapes.roots[0] ** 4 * shapes.shape(a)[0, 0] ** 2)


def test_mode_shapes_match_the_thesis_constants():
    """Roots alpha a, V(a), F, G, H, K computed from eq. 3.4 (5-6 digits)."""
    shapes = ModeShapes(MACKAY_LENGTH, 3, 'mackay')
    # Frequency-equation roots: standard 1.8751, 4.6941, 7.8548.
    assert_close(shapes.roots, [1.8751041, 4.6940911, 7.8547574], 1e-7)
    assert_close(shapes.shape(MACKAY_LENGTH)[0], [2.724441], 1e-6)
    constants = mackay_constants()
    # 6-7 significant digits (docs/papers/mackay_1988.md; the thesis
    # prints none of them).
    for name, value in dict(F=1.855645, G=0.774866, H=1.066607,
                            K=91.7606).items():
        assert_close(constants[name], value, 1e-6, what=name)


def test_mode_shapes_are_clamped_free_and_orthogonal():
    """Phi(0) = Phi'(0) = 0, Phi''(a) = 0; int Phi_k Phi_j = 0, k != j."""
    a = 1.7
    shapes = ModeShapes(a, 8, 'tip')
    scale = np.abs(shapes.curvature(np.linspace(0, a, 50))).max()
    assert np.abs(shapes.shape(0.0)).max() < 1e-12
    assert np.abs(shapes.slope(0.0)).max() < 1e-12 * scale
    assert np.abs(shapes.curvature(a)).max() < 1e-12 * scale
    assert_close(shapes.shape(a)[:, 0], np.ones(8))           # 'tip' scale
    eta, w = gauss_stations(a, 96)
    phi = shapes.shape(eta)
    gram = (phi * w) @ phi.T
    assert np.abs(gram - np.diag(np.diag(gram))).max() < 1e-12 * gram.max()
    # Stiffness identity used for K: int Phi''^2 = alpha^4 int Phi^2.
    curvature = shapes.curvature(eta)
    assert_close((curvature ** 2) @ w,
                 shapes.wavenumbers() ** 4 * np.diag(gram), 1e-10)


def test_table_3_1_link_clamped_period_is_275_ms():
    """The fundamental clamped period of Table 3.1's link: thesis 275 ms."""
    link = mackay_pendulum(1).links['link1']
    period = link.clamped_periods()[0]
    # Closed form 2 pi / ((alpha a)^2 sqrt(EI / (m a^3))).
    omega = 1.8751040687119611 ** 2 * np.sqrt(
        MACKAY_EI / (MACKAY_MASS * MACKAY_LENGTH ** 3))
    assert_close(period, 2 * np.pi / omega, 1e-12)
    assert abs(period - 0.275) < 0.0005          # thesis: 275 ms
    # Modal stiffness 10581.1 N/m per unit amplitude (derived, see
    # docs/papers/mackay_1988.md).
    assert_close(link.stiffness[0], 10581.1, 1e-5)


def test_tip_deflection_of_thesis_amplitude_is_32_7_mm():
    """Mackay: varsigma = 0.012 'corresponding to ... 0.0327 m'."""
    fm = mackay_pendulum(1)
    tip = fm.link_tip_deflections([0.0, 0.012])[0]       # (y, z), beam frame
    assert tip[0] == pytest.approx(0.0327, abs=5e-5) and tip[1] == 0.0
    # The same deflection seen in the world, from the rigid tip position.
    assert np.linalg.norm(fm.tip_deflection([0.0, 0.012], 'tip')) == \
        pytest.approx(0.0327, abs=5e-5)
    # The 'tip' normalization makes the amplitude the tip deflection.
    fm_tip = mackay_pendulum(1, normalization='tip')
    assert_close(fm_tip.link_tip_deflections([0.0, 0.0327])[0],
                 [0.0327, 0.0])


# --- a random tree with everything ----------------------------------------


def random_flexible(seed, with_modes=True):
    """Random 7-joint tree, five links flexible, joint and tip masses."""
    model = dr.load_urdf(random_urdf(seed, n_movable=7, tree=True))
    rng = np.random.default_rng(seed)
    links = {}
    for k, name in enumerate(model.body_names[:5]):
        links[name] = FlexibleLink(
            length=rng.uniform(0.3, 1.0), EI=rng.uniform(50, 200),
            mass=rng.uniform(0.5, 2.0),
            modes_xy=(k % 3) if with_modes else 0,
            modes_xz=((k + 1) % 2) if with_modes else 0,
            axis=rng.normal(size=3), origin=rng.uniform(-0.1, 0.1, 3),
            normalization=('tip', 'mackay')[k % 2],
            damping_ratio=0.02 * (k % 2),
            joint_mass=RigidPart(0.3, [0.01, 0.02, 0.0],
                                 np.diag([0.01, 0.02, 0.015])),
            tip_mass=RigidPart(0.2, [0.0, 0.01, 0.0],
                               np.diag([0.001, 0.002, 0.0015]))
            if k % 2 else None)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', dr.ModelWarning)
        return FlexibleModel(model, links)


def random_state(fm, rng):
    """Random z (modes a few cm), zd, zdd."""
    z = np.concatenate((rng.uniform(-np.pi, np.pi, fm.nq),
                        rng.uniform(-0.05, 0.05, fm.nm)))
    return z, rng.normal(size=fm.nz), rng.normal(size=fm.nz)


@pytest.fixture(scope='module')
def tree():
    """Return a random flexible tree: revolute, continuous, prismatic."""
    fm = random_flexible(5)
    assert fm.nm >= 5 and (fm.model.joint_type == dr.PRISMATIC).any()
    return fm


def test_mass_matrix_equals_inverse_dynamics_columns(tree):
    """Composite I(z) (eqs. 2.64-2.81) == unit-acceleration ID columns."""
    rng = np.random.default_rng(1)
    for _ in range(3):
        z = random_state(tree, rng)[0]
        zero = np.zeros(tree.nz)
        base = generalized_forces(tree, z, zero, zero, False, False)
        columns = np.array([
            generalized_forces(tree, z, zero, e, False, False) - base
            for e in np.eye(tree.nz)]).T
        inertia = tree.mass_matrix(z)
        assert_close(inertia, columns)
        assert_close(inertia, inertia.T)
        assert np.linalg.eigvalsh(inertia).min() > 0.0


def material_points(fm, z):
    """
    Masses and world positions of points that carry every body's mass.

    Beams: Gauss stations of the deflected centre line.  Rigid parts: six
    points at c +- sqrt(3 sigma_k / m) e_k, which have the body's mass,
    centre and second moments, so the same kinetic energy under any affine
    motion.  Independent of the pseudo-inertias and recursions under test.
    """
    W = body_transforms(fm, z)
    masses, points = [], []

    def rigid(mass, com, inertia, transform):
        if mass <= 0:
            return
        sigma = 0.5 * np.trace(inertia) * np.eye(3) - inertia
        values, vectors = np.linalg.eigh(sigma)
        for k in range(3):
            offset = np.sqrt(3 * max(values[k], 0) / mass) * vectors[:, k]
            for sign in (1, -1):
                masses.append(mass / 6)
                points.append(transform @ np.append(com + sign * offset, 1))

    for i in range(fm.nq):
        link = fm.flexible[i]
        if link is None:
            model = fm.model
            rigid(model.mass[i], model.com[i], model.inertia_com[i], W[i])
            continue
        delta = z[fm.mode_slices[i]]
        eta, w = gauss_stations(link.length, 40)
        shape = link.shapes.shape(eta)
        for s in range(eta.size):
            local = np.array([eta[s], 0.0, 0.0, 1.0])
            for k, (plane, n) in enumerate(link.mode_planes):
                local[1 if plane == 'xy' else 2] += delta[k] * shape[n, s]
            masses.append(link.mass_per_length * w[s])
            points.append(W[i] @ link.S @ local)
        if link.joint_mass is not None:
            part = link.joint_mass
            rigid(part.mass, part.com, part.inertia, W[i])
        if link.tip_mass is not None:
            part = link.tip_mass
            R = link.S[:3, :3]
            com = R @ (np.array([link.length, 0, 0]) + part.com) + \
                link.S[:3, 3]
            N = link.section_matrices(link.length)
            tip = W[i] @ (np.eye(4) + np.tensordot(delta, N, 1))
            rigid(part.mass, com, R @ part.inertia @ R.T, tip)
    return np.array(masses), np.array(points)[:, :3]


def test_energy_matches_material_point_quadrature(tree):
    """T = 1/2 sum m |pd|^2 (pd by central differences) = 1/2 zd^T I zd."""
    rng = np.random.default_rng(2)
    z, zd, _ = random_state(tree, rng)
    masses, points = material_points(tree, z)
    eps = 1e-6
    velocity = (material_points(tree, z + eps * zd)[1] -
                material_points(tree, z - eps * zd)[1]) / (2 * eps)
    kinetic = 0.5 * masses @ np.sum(velocity ** 2, axis=1)
    gravity = -masses @ (points @ tree.model.gravity)
    T, Vg, Ve = tree.energy(z, zd)
    # Central differences: truncation ~eps^2, rounding ~1e-16 / eps.
    assert_close(T, kinetic, 1e-8)
    assert_close(0.5 * zd @ tree.mass_matrix(z) @ zd, T)
    assert_close(Vg, gravity, 1e-12)
    assert_close(Ve, 0.5 * tree.stiffness @ z ** 2)
    assert abs(masses.sum() - tree.rigid_model().total_mass) < 1e-9


def test_inverse_dynamics_satisfies_lagranges_equations(tree):
    """ID = d/dt(I zd) - dT/dz + dV/dz + c deltad, by finite differences."""
    rng = np.random.default_rng(3)
    z, zd, zdd = random_state(tree, rng)
    eps = 1e-6
    unit = np.eye(tree.nz)
    zero = np.zeros(tree.nz)

    def kinetic(z):
        return tree.energy(z, zd)[0]

    def potential(z):
        return sum(tree.energy(z, zero)[1:])

    I_dot = (tree.mass_matrix(z + eps * zd) -
             tree.mass_matrix(z - eps * zd)) / (2 * eps)
    dT = np.array([kinetic(z + eps * e) - kinetic(z - eps * e)
                   for e in unit]) / (2 * eps)
    dV = np.array([potential(z + eps * e) - potential(z - eps * e)
                   for e in unit]) / (2 * eps)
    lagrange = tree.mass_matrix(z) @ zdd + I_dot @ zd - dT + dV + \
        tree.modal_damping * zd
    # Central differences of energies: ~1e-9 relative.
    assert_close(tree.inverse_dynamics(z, zd, zdd), lagrange, 1e-7)


def test_forward_dynamics_inverts_inverse_dynamics(tree):
    """FD(z, zd, ID joint rows, ID modal rows) == zdd; bias and gravity."""
    rng = np.random.default_rng(4)
    for _ in range(3):
        z, zd, zdd = random_state(tree, rng)
        Q = tree.inverse_dynamics(z, zd, zdd)
        assert_close(tree.forward_dynamics(z, zd, Q[:tree.nq], Q[tree.nq:]),
                     zdd)
        assert_close(tree.bias_forces(z, zd),
                     Q - tree.mass_matrix(z) @ zdd)
        zero = np.zeros(tree.nz)
        assert_close(tree.gravity_forces(z), tree.inverse_dynamics(
            z, zero, zero) - tree.stiffness * z)


# --- reduction to the rigid model -----------------------------------------


def test_no_modes_reduces_exactly_to_the_rigid_algorithms():
    """Modes removed: ID, I, FD equal RNEA, CRBA, ABA on rigid_model()."""
    fm = random_flexible(5, with_modes=False)
    assert fm.nz == fm.nq
    rigid = fm.rigid_model()
    rng = np.random.default_rng(5)
    for _ in range(3):
        q, qd, qdd = random_state(fm, rng)
        assert_close(fm.inverse_dynamics(q, qd, qdd),
                     dr.inverse_dynamics(rigid, q, qd, qdd))
        assert_close(fm.mass_matrix(q), dr.mass_matrix(rigid, q))
        tau = rng.normal(size=fm.nq)
        assert_close(fm.forward_dynamics(q, qd, tau),
                     dr.forward_dynamics(rigid, q, qd, tau))


def test_undeformed_state_has_the_rigid_joint_dynamics(tree):
    """At delta = deltad = deltadd = 0 the joint rows are the rigid RNEA/CRBA."""
    rigid = tree.rigid_model()
    rng = np.random.default_rng(6)
    q, qd, qdd = (v[:tree.nq] for v in random_state(tree, rng))
    z = tree.join(q)
    assert_close(tree.inverse_dynamics(z, tree.join(qd),
                                       tree.join(qdd))[:tree.nq],
                 dr.inverse_dynamics(rigid, q, qd, qdd))
    assert_close(tree.mass_matrix(z)[:tree.nq, :tree.nq],
                 dr.mass_matrix(rigid, q))


def test_three_link_arm_without_modes_matches_pinocchio():
    """Mackay's 3-link arm, modes removed, against pin on the same URDF."""
    model, oracle = oracle_for(mackay_three_link_urdf())
    fm = mackay_three_link_arm(0)
    rng = np.random.default_rng(7)
    for _ in range(3):
        q = rng.uniform(-np.pi, np.pi, 3)
        qd, qdd, tau = rng.normal(size=(3, 3))
        assert_close(fm.inverse_dynamics(q, qd, qdd), oracle.rnea(q, qd, qdd))
        assert_close(fm.mass_matrix(q), oracle.crba(q))
        assert_close(fm.forward_dynamics(q, qd, tau), oracle.aba(q, qd, tau))


# --- Mackay's scalar models (sec. 3.3, corrected equations) -------------


def test_flexible_pendulum_equals_eqs_3_11_and_3_12():
    """FPEN: eq. 3.11 and corrected 3.12 (varsigma in Mackay's scale)."""
    fm = mackay_pendulum(1)
    c = mackay_constants()
    m, a, g = MACKAY_MASS, MACKAY_LENGTH, MACKAY_GRAVITY
    k = c['K'] * MACKAY_EI / (4 * a ** 3)
    rng = np.random.default_rng(8)
    for _ in range(5):
        (phi, s), (phid, sd), T = rng.normal(size=2) * [1, 0.05], \
            rng.normal(size=2), rng.normal() * 50
        M = [[m * a * a / 3 + m * c['F'] * s * s, -m * c['G'] * a],
             [-m * c['G'] * a, m * c['F']]]
        R = [T - 2 * m * c['F'] * s * sd * phid -
             m * g * (a / 2 * np.sin(phi) - c['H'] * s * np.cos(phi)),
             -(k - m * c['F'] * phid ** 2) * s + m * g * c['H'] * np.sin(phi)]
        assert_close(fm.forward_dynamics([phi, s], [phid, sd], [T]),
                     np.linalg.solve(M, R))


def test_joint_mass_link_equals_eqs_3_17_and_3_18():
    """JMFLX: eq. 3.17 and corrected 3.18, with R and J."""
    R_, J = 0.2, 3.0
    fm = mackay_joint_mass_link(J, R_, modes_xy=1, modes_xz=0)
    c = mackay_constants()
    m, a = MACKAY_MASS, MACKAY_LENGTH
    k = c['K'] * MACKAY_EI / (4 * a ** 3)
    coupling = m * (R_ * c['H'] + c['G'] * a)
    rng = np.random.default_rng(9)
    for _ in range(5):
        (phi, s), (phid, sd) = rng.normal(size=2) * [1, 0.05], \
            rng.normal(size=2)
        M = [[m * (R_ ** 2 + R_ * a + a * a / 3) + m * c['F'] * s * s + J,
              coupling], [coupling, m * c['F']]]
        rhs = [-2 * m * c['F'] * s * sd * phid,
               -(k - m * c['F'] * phid ** 2) * s]
        assert_close(fm.forward_dynamics([phi, s], [phid, sd], [0.0]),
                     np.linalg.solve(M, rhs))


def test_double_pendulum_equals_corrected_eqs_3_8_and_3_9():
    """DRPEN: corrected equations (printed 3.8-3.9 are wrong)."""
    fm = mackay_double_pendulum()
    a, g = MACKAY_LENGTH, MACKAY_GRAVITY
    rng = np.random.default_rng(10)
    for _ in range(5):
        (p1, p2), (d1, d2) = rng.normal(size=(2, 2))
        # Both rows times 3 / (m a^2).
        M = [[5 + 3 * np.cos(p2), 1 + 1.5 * np.cos(p2)],
             [1 + 1.5 * np.cos(p2), 1.0]]
        rhs = [1.5 * np.sin(p2) * (2 * d1 + d2) * d2 -
               4.5 * g / a * np.sin(p1) - 1.5 * g / a * np.sin(p1 + p2),
               -1.5 * np.sin(p2) * d1 ** 2 - 1.5 * g / a * np.sin(p1 + p2)]
        assert_close(fm.forward_dynamics([p1, p2], [d1, d2], [0.0, 0.0]),
                     np.linalg.solve(M, rhs))


# --- statics, small vibrations, kinematics ----------------------------------


def test_static_deflection_is_an_equilibrium():
    """At the static deflection the arm held by g(z) does not accelerate."""
    fm = dr.load_flexible(shipped_file('config',
                                       'flexible_two_link_planar.yaml'))
    q = np.array([-0.3, 0.6])
    z = fm.join(q, fm.static_deflection(q))
    tau = fm.gravity_forces(z)[:fm.nq]
    zdd = fm.forward_dynamics(z, np.zeros(fm.nz), tau)
    assert np.abs(zdd).max() < 1e-9
    # Sags downwards (world -Z) by several centimetres.
    assert fm.tip_deflection(z, 'tool0')[2] < -0.02


def test_joint_mass_periods_rise_from_47_to_275_ms():
    """Linearized JMFLX periods (derived: 47.2 ... 274.6 ms; R=0.05: 49.6)."""
    periods = [mackay_joint_mass_link(J, 0.0, 1, 0).natural_periods(
        np.zeros(2))[0] for J in (0.0, 1.0, 10.0, 100.0, 1e3, 1e4)]
    assert np.all(np.diff(periods) > 0)
    expected = [47.2, 58.8, 113.9, 220.7, 267.9, 274.6]     # derived, ms
    assert_close(1e3 * np.array(periods), expected, 1e-3)
    # Mackay's 49.6 ms 'with no joint mass' fits a hub radius R = 0.05 m.
    radius = mackay_joint_mass_link(0.0, 0.05, 1, 0).natural_periods(
        np.zeros(2))[0]
    assert abs(1e3 * radius - 49.6) < 0.1
    # Bending in the plane of the joint axis is clamped: 275 ms for any J.
    both = mackay_joint_mass_link(0.0, 0.0, 1, 1).natural_periods(
        np.zeros(3))
    assert abs(1e3 * both[0] - 275.4) < 0.05


def test_frame_pose_follows_the_deflected_tip():
    """A frame at the tip moves by the tip deflection, turned by the slope."""
    fm = mackay_joint_mass_link(0.0, 0.0, 1, 1)
    link = fm.links['link1']
    z = np.array([0.3, 0.01, -0.02])
    pose = fm.frame_pose(z, 'tip')
    rotation = np.array([[np.cos(0.3), -np.sin(0.3), 0],
                         [np.sin(0.3), np.cos(0.3), 0], [0, 0, 1]])
    tip = link.shapes.shape(MACKAY_LENGTH)[0, 0]
    assert_close(pose[:3, 3], rotation @ [
        MACKAY_LENGTH, 0.01 * tip, -0.02 * tip])
    slope = link.shapes.slope(MACKAY_LENGTH)[0, 0]
    # First-order section rotation: theta_z = 0.01 Phi', theta_y = 0.02 Phi'.
    assert_close(rotation.T @ pose[:3, :3] - np.eye(3), [
        [0, -0.01 * slope, 0.02 * slope], [0.01 * slope, 0, 0],
        [-0.02 * slope, 0, 0]], 1e-12, scale=1.0)


def test_flexible_state_layout():
    """Names, amplitudes, rates and tip deflections for a JointState."""
    fm = mackay_three_link_arm(1)
    z = fm.join([0.1, 0.2, 0.3], [0.01, -0.02, 0.03, 0.0])
    zd = fm.join([0, 0, 0], [1.0, 2.0, 3.0, 4.0])
    names, position, velocity = fm.flexible_state(z, zd)
    assert names == ['link2/xy1', 'link2/xz1', 'link3/xy1', 'link3/xz1',
                     'link2/tip_y', 'link2/tip_z', 'link3/tip_y',
                     'link3/tip_z']
    tip = 2.7244411
    assert_close(position, [0.01, -0.02, 0.03, 0.0, 0.01 * tip,
                            -0.02 * tip, 0.03 * tip, 0.0], 1e-7)
    assert_close(velocity, [1, 2, 3, 4, tip, 2 * tip, 3 * tip, 4 * tip],
                 1e-7)


def test_pseudo_inertia_round_trip():
    """Half pseudo-inertia <-> (mass, com, central inertia)."""
    inertia = np.array([[0.3, 0.01, 0.02], [0.01, 0.4, 0.03],
                        [0.02, 0.03, 0.5]])
    J = pseudo_inertia(2.0, [0.1, -0.2, 0.3], inertia)
    mass, com, central = dr.flexible.link.rigid_parameters(J)
    assert_close(mass, 2.0)
    assert_close(com, [0.1, -0.2, 0.3])
    assert_close(central, inertia)
