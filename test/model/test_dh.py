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
DH tables: extraction from URDF models, models from tables, URDF writing.

Oracles: the published DH tables of the PUMA 560 (Corke's mdl_puma560,
standard), the Franka Panda (Franka's documentation, modified) and the UR5
(Universal Robots, standard); Corke's link centres of mass in DH frames;
Pinocchio on the URDF that to_urdf writes; and the source model itself
(round trip URDF -> DH -> model gives the same dynamics).
"""

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.model.dh import DHTable
from dynamics_ros.resources import robot_urdf
import numpy as np
from oracle import example_arm_xml, PinocchioOracle, random_state
import pytest
from urdf_factory import random_urdf

HALF_PI = np.pi / 2


def shipped(name):
    """Load a shipped robot."""
    return dr.load_urdf(robot_urdf(name))


def assert_same_dynamics(model, other, states=5, seed=0, rtol=1e-10):
    """ID, M and FD of two models agree to ``rtol`` on random states."""
    rng = np.random.default_rng(seed)
    for _ in range(states):
        q, qd, qdd, tau = random_state(model, rng)
        assert_close(dr.inverse_dynamics(other, q, qd, qdd),
                     dr.inverse_dynamics(model, q, qd, qdd), rtol, 'tau')
        assert_close(dr.mass_matrix(other, q), dr.mass_matrix(model, q),
                     rtol, 'M')
        # FD goes through M^-1: relative to M's conditioning.
        expected = dr.forward_dynamics(model, q, qd, tau)
        M = dr.mass_matrix(model, q)
        assert_close(dr.forward_dynamics(other, q, qd, tau), expected,
                     rtol * np.linalg.cond(M), 'qdd')


def assert_tool_pose(table, model, seed=0):
    """Check the table's forward kinematics puts the tool where the URDF does."""
    rng = np.random.default_rng(seed)
    for _ in range(5):
        q = random_state(model, rng)[0]
        pose = table.frames(q)[-1]
        rotation, position = dr.link_pose(model, q, table.tip_link)
        assert_close(pose[:3, :3], rotation, 1e-12, 'tool rotation', 1.0)
        assert_close(pose[:3, 3], position, 1e-12, 'tool position', 1.0)


def test_puma560_standard_table_is_corkes():
    """PUMA 560: the published standard DH table, zero offsets, no extras."""
    model = shipped('puma560')
    table = dr.dh_table(model, 'standard')
    assert_close(table.a, [0, 0.4318, 0.0203, 0, 0, 0], 1e-12, 'a', 1.0)
    assert_close(table.d, [0, 0, 0.15005, 0.4318, 0, 0], 1e-12, 'd', 1.0)
    # The URDF writes pi/2 as 1.570796327: angles agree to 1e-9.
    assert_close(table.alpha, [HALF_PI, 0, -HALF_PI, HALF_PI, -HALF_PI, 0],
                 1e-9, 'alpha', 1.0)
    assert_close(table.theta, np.zeros(6), 1e-9, 'theta', 1.0)
    assert table.extra_transforms() == []
    # Corke's centres of mass (mdl_puma560 'r'), in DH frames (1e-9: the
    # URDF's rounded pi/2 again).
    assert_close(table.com[1:], [[-0.3638, 0.006, 0.2275],
                                 [-0.0203, -0.0141, 0.070], [0, 0.019, 0],
                                 [0, 0, 0], [0, 0, 0.032]], 1e-9, 'com', 1.0)
    assert_close(np.diagonal(table.inertia_com, axis1=1, axis2=2)[1],
                 [0.13, 0.524, 0.539], 1e-12, 'I2', 1.0)


def test_panda_modified_table_is_frankas():
    """Panda: Franka's modified DH table; the hand is 0.107 m, -45 deg."""
    model = dr.load_urdf(example_arm_xml('panda'))
    table = dr.dh_table(model, 'modified', tip_link='panda_hand')
    assert_close(table.a, [0, 0, 0, 0.0825, -0.0825, 0, 0.088], 1e-12, 'a',
                 1.0)
    assert_close(table.d, [0.333, 0, 0.316, 0, 0.384, 0, 0], 1e-12, 'd', 1.0)
    assert_close(table.alpha, [0, -HALF_PI, HALF_PI, HALF_PI, -HALF_PI,
                               HALF_PI, HALF_PI], 1e-12, 'alpha', 1.0)
    assert_close(table.theta, np.zeros(7), 1e-12, 'theta', 1.0)
    assert [name for name, _ in table.extra_transforms()] == ['tool']
    c = np.cos(np.pi / 4)
    assert_close(table.tool, [[c, c, 0, 0], [-c, c, 0, 0], [0, 0, 1, 0.107],
                              [0, 0, 0, 1]], 1e-12, 'tool', 1.0)
    assert_tool_pose(table, model)


def test_ur5_standard_table_is_universal_robots():
    """
    UR5: Universal Robots' standard DH lengths and offsets.

    The URDF's base_link is UR's DH base turned by 180 degrees about z, so
    the signs of a2, a3 and alpha1 flip against UR's table (a2 = -0.425
    there); magnitudes and zero angle offsets agree.
    """
    model = dr.load_urdf(example_arm_xml('ur5'))
    table = dr.dh_table(model, 'standard', tip_link='tool0')
    assert_close(table.a, [0, 0.425, 0.39225, 0, 0, 0], 1e-12, 'a', 1.0)
    assert_close(table.d, [0.089159, 0, 0, 0.10915, 0.09465, 0.0823], 1e-12,
                 'd', 1.0)
    # ur5_robot.urdf writes pi/2 as 1.57079632679: 1e-8.
    assert_close(np.abs(table.alpha), [HALF_PI, 0, 0, HALF_PI, HALF_PI, 0],
                 1e-8, 'alpha', 1.0)
    assert_close(table.theta, np.zeros(6), 1e-8, 'theta', 1.0)
    assert_tool_pose(table, model)


def test_stanford_arm_tables():
    """
    Stanford Arm (Kane & Levinson lengths): d1 = L4, d2 = L1, d4 = L2.

    Joint 1 turns about the vertical through A*, joint 2 about a1 at
    B* = A* + L1 a1 + L4 a2, the boom slides along c2 and the wrist point P
    is L2 beyond C*; the joint-1 offset of 90 degrees says that DH's x1 is
    Kane's -n3 at q = 0.
    """
    model = shipped('stanford_arm')
    table = dr.dh_table(model, 'standard')
    assert list(table.joint_type) == [0, 0, 1, 0, 0, 0]
    assert_close(table.d, [0.1, 0.1, 0, 0.6, 0, 0], 1e-12, 'd', 1.0)
    assert_close(table.a, np.zeros(6), 1e-12, 'a', 1.0)
    assert_close(table.alpha, [HALF_PI, -HALF_PI, 0, HALF_PI, -HALF_PI, 0],
                 1e-12, 'alpha', 1.0)
    assert_close(table.theta, [HALF_PI, 0, 0, 0, 0, 0], 1e-12, 'theta', 1.0)
    for convention in ('standard', 'modified'):
        table = dr.dh_table(model, convention)
        assert_tool_pose(table, model)
        assert_same_dynamics(model, dr.from_dh(table))


@pytest.mark.parametrize('convention', ['standard', 'modified'])
@pytest.mark.parametrize('name', ['puma560', 'stanford_arm', 'two_link_planar',
                                  'panda', 'ur5'])
def test_round_trip_urdf_dh_model(name, convention):
    """URDF -> DH -> model: the same dynamics to 1e-10, tool where it was."""
    if name in ('panda', 'ur5'):
        model = dr.load_urdf(example_arm_xml(name))
    else:
        model = shipped(name)
    table = dr.dh_table(model, convention)
    assert_same_dynamics(model, dr.from_dh(table))
    assert_tool_pose(table, model)


@pytest.mark.parametrize('seed', range(12))
def test_round_trip_random_chains(seed):
    """Random chains: rotated frames, arbitrary or aligned axes, R and P."""
    xml = random_urdf(seed, n_movable=2 + seed % 6, aligned_axes=seed % 2 == 0)
    model = dr.load_urdf(xml)
    for convention in ('standard', 'modified'):
        table = dr.dh_table(model, convention)
        assert_same_dynamics(model, dr.from_dh(table), states=3, seed=seed)
        assert_tool_pose(table, model, seed)


def test_extra_transforms_are_reported():
    """Two-link arm: joint axes along -y, so DH needs base and tool frames."""
    model = shipped('two_link_planar')
    table = dr.dh_table(model, 'standard')
    extras = dict(table.extra_transforms())
    assert sorted(extras) == ['base', 'tool']
    # DH frame 0 has z along the shoulder axis, -y of the root.
    assert_close(extras['base'][:3, 2], [0, -1, 0], 1e-12, 'z0', 1.0)
    assert_close(table.a, [1.0, 0.0], 1e-12, 'a', 1.0)
    assert_tool_pose(table, model)


def test_from_dh_builds_the_published_puma():
    """
    A table typed in from Corke's PUMA data gives the shipped URDF's model.

    Standard DH rows, masses, centres of mass (DH frames) and central
    inertias of mdl_puma560 with the URDF's physical link-1 and link-3
    moments (see urdf/puma560.urdf).
    """
    inertia = [np.diag(v) for v in (
        [0.175, 0.35, 0.175], [0.13, 0.524, 0.539], [0.066, 0.086, 0.02],
        [0.0018, 0.0013, 0.0018], [0.0003, 0.0004, 0.0003],
        [0.00015, 0.00015, 0.00004])]
    table = DHTable(
        a=[0, 0.4318, 0.0203, 0, 0, 0], d=[0, 0, 0.15005, 0.4318, 0, 0],
        alpha=[HALF_PI, 0, -HALF_PI, HALF_PI, -HALF_PI, 0],
        theta=np.zeros(6), mass=[0, 17.4, 4.8, 0.82, 0.34, 0.09],
        com=[[0, 0, 0], [-0.3638, 0.006, 0.2275], [-0.0203, -0.0141, 0.070],
             [0, 0.019, 0], [0, 0, 0], [0, 0, 0.032]],
        inertia_com=np.array(inertia))
    model = dr.from_dh(table)
    assert model.joint_names == ['joint%d' % i for i in range(1, 7)]
    assert_same_dynamics(shipped('puma560'), model, rtol=1e-9)


@pytest.mark.parametrize('name', ['puma560', 'stanford_arm', 'panda'])
def test_to_urdf_is_read_back_and_by_pinocchio(name):
    """to_urdf: load_urdf and Pinocchio read the same dynamics back."""
    source = example_arm_xml(name) if name == 'panda' else robot_urdf(name)
    model = dr.load_urdf(source)
    for written_from in (model, dr.from_dh(dr.dh_table(model, 'modified'))):
        xml = dr.to_urdf(written_from)
        again = dr.load_urdf(xml)
        assert again.joint_names == model.joint_names
        assert set(written_from.frames) <= set(again.frames)
        assert_same_dynamics(model, again, states=3)
        oracle = PinocchioOracle(again, xml)
        rng = np.random.default_rng(1)
        for _ in range(3):
            q, qd, qdd, _ = random_state(model, rng)
            assert_close(oracle.rnea(q, qd, qdd),
                         dr.inverse_dynamics(model, q, qd, qdd), 1e-9,
                         'pinocchio tau')


def test_to_urdf_keeps_limits_and_unlimited_joints():
    """Limits survive; unlimited revolute -> continuous, prismatic bounded."""
    table = DHTable(a=[0.3, 0.2], alpha=[0.1, 0.2], d=[0.1, 0.0],
                    theta=[0, 0], joint_type=[dr.REVOLUTE, dr.PRISMATIC],
                    mass=[1, 2], inertia_com=np.array([np.eye(3)] * 2) * 0.01,
                    upper_limit=[np.inf, 0.5], lower_limit=[-np.inf, -0.5],
                    effort_limit=[10, np.inf])
    model = dr.from_dh(table)
    xml = dr.to_urdf(model)
    assert 'type="continuous"' in xml and 'type="prismatic"' in xml
    again = dr.load_urdf(xml)
    assert again.continuous[0] and not again.continuous[1]
    assert_close(again.upper_limit[1:], [0.5], 0, 'upper')
    assert_close(again.effort_limit[:1], [10], 0, 'effort')
    assert np.isinf(again.effort_limit[1])
    assert_same_dynamics(model, again)


def test_tree_and_bad_tables_raise_model_error():
    """A tree names tip_link; bad conventions and shapes are ModelErrors."""
    tree = dr.load_urdf(random_urdf(3, n_movable=5, tree=True))
    assert np.any(tree.parent != np.arange(tree.nq) - 1)
    with pytest.raises(dr.ModelError, match='tip_link'):
        dr.dh_table(tree)
    model = shipped('puma560')
    with pytest.raises(dr.ModelError, match='convention'):
        dr.dh_table(model, 'craig')
    with pytest.raises(dr.ModelError, match='not a link'):
        dr.dh_table(model, tip_link='nowhere')
    with pytest.raises(dr.ModelError, match='alpha'):
        DHTable(a=[0, 1], alpha=[0], d=[0, 0], theta=[0, 0])
    with pytest.raises(dr.ModelError, match='masses'):
        DHTable(a=[0], alpha=[0], d=[0], theta=[0], mass=[-1])
    with pytest.raises(dr.ModelError, match='rigid'):
        DHTable(a=[0], alpha=[0], d=[0], theta=[0], base=2 * np.eye(4))
    with pytest.raises(dr.ModelError, match='DHTable'):
        dr.from_dh(model)
