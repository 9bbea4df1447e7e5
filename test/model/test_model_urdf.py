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

"""URDF -> RobotModel: what is parsed, what is merged, what is refused."""

import warnings

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.model.mimic_model import MimicModel
from dynamics_ros.resources import robot_urdf
import numpy as np
from oracle import example_arm_xml, robots_directory
import pytest

INERTIAL = ('<inertial><origin xyz="0.1 0 0" rpy="0 0 0"/><mass value="1"/>'
            '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" '
            'izz="0.02"/></inertial>')


def link(name, inertial=INERTIAL):
    """Return a <link> element with the default inertial."""
    return '<link name="%s">%s</link>' % (name, inertial)


def joint(name, parent, child, kind='revolute', extra=''):
    """Return a <joint> element with limits and a z axis."""
    return ('<joint name="%s" type="%s"><parent link="%s"/>'
            '<child link="%s"/><origin xyz="0 0 0.3" rpy="0 0 0"/>'
            '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="10" '
            'velocity="1"/>%s</joint>' % (name, kind, parent, child, extra))


def robot(*elements):
    """Return a URDF document of the given elements."""
    return '<robot name="t">%s</robot>' % ''.join(elements)


def two_joint_robot(**overrides):
    """Return base -> j1 -> l1 -> j2 -> l2, elements overridden by name."""
    parts = dict(base=link('base'), l1=link('l1'), l2=link('l2'),
                 j1=joint('j1', 'base', 'l1'), j2=joint('j2', 'l1', 'l2'))
    parts.update(overrides)
    return robot(*parts.values())


def test_path_and_xml_string_give_the_same_model():
    """A file path and its text build identical models."""
    path = robot_urdf('puma560')
    with open(path) as stream:
        text = stream.read()
    a, b = dr.load_urdf(path), dr.load_urdf(text)
    assert a.joint_names == b.joint_names
    q = np.linspace(-1, 1, a.nq)
    assert_close(dr.mass_matrix(a, q), dr.mass_matrix(b, q))


def test_depth_first_order_on_a_tree():
    """Coordinates follow depth-first order, children in document order."""
    xml = robot(link('base'), link('a'), link('a1'), link('b'), link('b1'),
                joint('ja', 'base', 'a'), joint('jb', 'base', 'b'),
                joint('ja1', 'a', 'a1'), joint('jb1', 'b', 'b1'))
    model = dr.load_urdf(xml)
    assert model.joint_names == ['ja', 'ja1', 'jb', 'jb1']
    assert list(model.parent) == [-1, 0, -1, 2]


def test_fixed_joints_are_merged_with_their_inertia():
    """A fixed child's mass joins its parent body; its frame is kept."""
    with_fixed = two_joint_robot(
        l2=link('l2', ''), extra=link('tip'),
        j3=joint('j3', 'l2', 'tip', kind='fixed'))
    model = dr.load_urdf(with_fixed)
    assert model.nq == 2 and model.mass[1] == pytest.approx(1.0)
    # tip origin is 0.3 m along z of l2, its com 0.1 m along x.
    assert_close(model.com[1], [0.1, 0.0, 0.3])
    body, rotation, translation = model.frames['tip']
    assert body == 1
    assert_close(translation, [0.0, 0.0, 0.3])
    rotation_world, position = dr.link_pose(model, [0.0, np.pi / 2], 'tip')
    assert_close(position, [0.0, 0.0, 0.9])


def test_continuous_joint_is_one_angle():
    """A continuous joint is one coordinate without limits."""
    model = dr.load_urdf(two_joint_robot(j2=joint('j2', 'l1', 'l2',
                                                  kind='continuous')))
    assert model.nq == 2
    assert list(model.continuous) == [False, True]
    assert np.isinf(model.upper_limit[1]) and model.upper_limit[0] == 1.0


def test_prismatic_joint_and_limits_are_read():
    """Prismatic type, limits and <dynamics> reach the model."""
    model = dr.load_urdf(two_joint_robot(j2=joint(
        'j2', 'l1', 'l2', kind='prismatic',
        extra='<dynamics damping="0.5" friction="0.25"/>')))
    assert model.joint_type[1] == dr.PRISMATIC
    assert model.damping[1] == 0.5 and model.friction[1] == 0.25
    assert model.effort_limit[1] == 10.0 and model.velocity_limit[1] == 1.0


def test_root_and_tip_cut_a_chain_out_of_a_tree():
    """tip_link keeps the root -> tip path only; root_link moves the base."""
    xml = example_arm_xml('panda')
    model = dr.load_urdf(xml, tip_link='panda_link4')
    assert model.joint_names == ['panda_joint%d' % i for i in range(1, 5)]
    sub = dr.load_urdf(xml, root_link='panda_link2', tip_link='panda_link5')
    assert sub.joint_names == ['panda_joint3', 'panda_joint4', 'panda_joint5']
    assert sub.root_link == 'panda_link2'


def test_full_panda_with_mimic_fingers_can_be_cut_at_the_hand():
    """Cut at the hand, the Panda drops its mimic fingers: a RobotModel."""
    path = robots_directory() + '/panda_description/urdf/panda.urdf'
    assert isinstance(dr.load_urdf(path), MimicModel)
    cut = dr.load_urdf(path, tip_link='panda_hand')
    assert isinstance(cut, dr.RobotModel) and cut.nq == 7


def test_gravity_option():
    """The gravity vector is stored and changes gravity torques."""
    xml = two_joint_robot()
    model = dr.load_urdf(xml, gravity=(0.0, 0.0, 0.0))
    assert_close(dr.gravity_torques(model, [0.3, 0.2]), [0.0, 0.0],
                 scale=1.0)
    with pytest.raises(dr.ModelError, match='gravity'):
        dr.load_urdf(xml, gravity=(0.0, np.nan, 0.0))


def test_massless_leaf_warns():
    """A moved leaf without <inertial> is massless and warned about."""
    xml = two_joint_robot(l2=link('l2', ''))
    with pytest.warns(dr.ModelWarning, match="joints 'j2' move no mass"):
        model = dr.load_urdf(xml)
    assert model.mass[1] == 0.0
    # A massless link in the middle of the chain is ordinary: no warning.
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        dr.load_urdf(two_joint_robot(l1=link('l1', '')))


BAD_URDFS = {
    'floating joint': (two_joint_robot(j2=joint('j2', 'l1', 'l2',
                                                kind='floating')),
                       "joint 'j2' \\(floating\\)"),
    'planar joint': (two_joint_robot(j2=joint('j2', 'l1', 'l2',
                                              kind='planar')),
                     "joint 'j2' \\(planar\\)"),
    'mimic cycle': (two_joint_robot(
        j1=joint('j1', 'base', 'l1', extra='<mimic joint="j2"/>'),
        j2=joint('j2', 'l1', 'l2', extra='<mimic joint="j1"/>')),
        'mimic joints j1 -> j2 -> j1 follow each other in a cycle'),
    'negative mass': (two_joint_robot(l2=link('l2', INERTIAL.replace(
        'value="1"', 'value="-2"'))), "link 'l2': mass"),
    'non-finite inertia': (two_joint_robot(l1=link('l1', INERTIAL.replace(
        'iyy="0.02"', 'iyy="nan"'))), "link 'l1'.*non-finite"),
    'two parents (cycle)': (two_joint_robot(j3=joint('j3', 'base', 'l2')),
                            "link 'l2' has two parent joints"),
    'closed loop without root': (robot(
        link('a'), link('b'), joint('ab', 'a', 'b'), joint('ba', 'b', 'a')),
        'no root link.*cycle'),
    'several roots': (robot(link('a'), link('b'), link('c'),
                            joint('ab', 'a', 'b')),
                      'several root links.*root_link'),
    'unknown link': (two_joint_robot(j2=joint('j2', 'l1', 'ghost')),
                     "joint 'j2': child link 'ghost' is not defined"),
    'zero axis': (two_joint_robot(j2=joint('j2', 'l1', 'l2').replace(
        '0 0 1', '0 0 0')), "joint 'j2': axis"),
    'inverted limits': (two_joint_robot(j2=joint('j2', 'l1', 'l2').replace(
        'lower="-1" upper="1"', 'lower="1" upper="-1"')),
        "joint 'j2': lower limit"),
    'malformed XML': ('<robot name="t"><link name="a"></robot>',
                      'could not be parsed'),
    'xacro text': ('<robot name="t" xmlns:xacro="http://www.ros.org/wiki/'
                   'xacro"><xacro:property name="a" value="1"/></robot>',
                   'still contains xacro elements'),
}


@pytest.mark.parametrize('case', sorted(BAD_URDFS))
def test_bad_urdf_raises_model_error_naming_the_culprit(case):
    """Each bad URDF raises ModelError with the link or joint named."""
    xml, pattern = BAD_URDFS[case]
    with pytest.raises(dr.ModelError, match=pattern):
        dr.load_urdf(xml)


def test_bad_root_tip_and_source_are_named():
    """Unknown root/tip links, a tip off the root's subtree, a missing file."""
    xml = two_joint_robot()
    with pytest.raises(dr.ModelError, match="root_link 'nowhere'"):
        dr.load_urdf(xml, root_link='nowhere')
    with pytest.raises(dr.ModelError, match="tip_link 'nowhere'"):
        dr.load_urdf(xml, tip_link='nowhere')
    with pytest.raises(dr.ModelError, match="tip_link 'l1' is not below"):
        dr.load_urdf(xml, root_link='l2', tip_link='l1')
    with pytest.raises(dr.ModelError, match='does not exist'):
        dr.load_urdf('/nonexistent/robot.urdf')


def test_wrong_vector_size_is_named():
    """A q of the wrong length is refused with the expected size."""
    model = dr.load_urdf(two_joint_robot())
    with pytest.raises(ValueError, match='q must have 2 values'):
        dr.inverse_dynamics(model, [0.0], [0.0, 0.0], [0.0, 0.0])
    with pytest.raises(ValueError, match=r'f_ext must have shape \(2, 6\)'):
        dr.forward_dynamics(model, [0, 0], [0, 0], [0, 0], np.zeros((2, 3)))
