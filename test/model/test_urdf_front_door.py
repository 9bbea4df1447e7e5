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
The front door: every robot description a ROS user has.

Each refusal (ModelError) and each warning (ModelWarning) of ``load_urdf``
with its exact message; real descriptions that urdfdom-py refused (PR2's
ROS 1 transmissions, iCub's textures without filename) and that the old
inertia checks refused (TIAGo, Allegro, ANYmal C); tags dynamics does not
need; mimic joints (Panda with its hand); xacro with an argument and
``$(find)`` through a temporary ament index, in the library and in the
node's model source; robot_description compared by content.
"""

import os
import re
import warnings

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.model.mimic_model import MimicModel
from dynamics_ros.nodes.shared.model_source import read_urdf_file, same_model
import numpy as np
from oracle import pin, robots_directory
import oracle_record
import pytest

INERTIA = ('<inertia ixx="%s" ixy="0" ixz="0" iyy="%s" iyz="0" '
           'izz="%s"/>')


def inertial(mass='1', moments=('0.01', '0.02', '0.02'), xyz='0.1 0 0'):
    """Return an <inertial> block with a diagonal inertia."""
    return ('<inertial><origin xyz="%s" rpy="0 0 0"/><mass value="%s"/>%s'
            '</inertial>' % (xyz, mass, INERTIA % tuple(moments)))


def link(name, body=None):
    """Return a <link>; ``body`` replaces the default inertial."""
    return '<link name="%s">%s</link>' % (
        name, inertial() if body is None else body)


def joint(name, parent, child, kind='revolute', extra='',
          origin='<origin xyz="0 0 0.3" rpy="0 0 0"/>'):
    """Return a <joint> with a z axis and limits."""
    return ('<joint name="%s" type="%s"><parent link="%s"/>'
            '<child link="%s"/>%s<axis xyz="0 0 1"/><limit lower="-1" '
            'upper="1" effort="10" velocity="1"/>%s</joint>' % (
                name, kind, parent, child, origin, extra))


def robot(*elements, name='t'):
    """Return a URDF document of ``elements``."""
    return '<robot name="%s">%s</robot>' % (name, ''.join(elements))


def chain(**overrides):
    """Return base -> j1 -> l1 -> j2 -> l2, parts replaced by name."""
    parts = dict(base=link('base'), l1=link('l1'), l2=link('l2'),
                 j1=joint('j1', 'base', 'l1'), j2=joint('j2', 'l1', 'l2'))
    parts.update(overrides)
    return robot(*[part for part in parts.values() if part])


def load_quietly(source, **options):
    """Load with every warning turned into an error (none expected)."""
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        return dr.load_urdf(source, **options)


def load_warning_texts(source, **options):
    """Return (model, texts of the ModelWarnings of loading)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        model = dr.load_urdf(source, **options)
    return model, [str(w.message) for w in caught
                   if issubclass(w.category, dr.ModelWarning)]


def robot_path(relative):
    """Path of a URDF shipped by example-robot-data."""
    return os.path.join(robots_directory(), relative)


# --- refusals: one per class, with the exact message ---------------------

REFUSALS = {
    'negative mass': (
        chain(l2=link('l2', inertial(mass='-2'))),
        "link 'l2': mass -2.0 is not a finite non-negative number"),
    'NaN mass': (
        chain(l2=link('l2', inertial(mass='nan'))),
        "link 'l2': mass nan is not a finite non-negative number"),
    'non-finite inertia': (
        chain(l1=link('l1', inertial(moments=('0.01', 'inf', '0.02')))),
        "link 'l1': inertia has non-finite entries "
        '[0.01, 0.0, 0.0, inf, 0.0, 0.02]'),
    'non-finite origin': (
        chain(j2=joint('j2', 'l1', 'l2', origin='<origin xyz="0 nan 0"/>')),
        "joint 'j2': origin has non-finite values "
        '[0.0, nan, 0.0, 0.0, 0.0, 0.0]'),
    'bad number': (
        chain(l1=link('l1', inertial(mass='heavy'))),
        "link 'l1': <mass value='heavy'> is not a number"),
    'bad vector': (
        chain(j2=joint('j2', 'l1', 'l2', origin='<origin xyz="0 0"/>')),
        "joint 'j2': <origin xyz='0 0'> is not 3 numbers"),
    'missing parent': (
        chain(j2='<joint name="j2" type="revolute"><child link="l2"/>'
                 '</joint>'),
        'joint \'j2\': no <parent link="..."/>'),
    'missing type': (
        chain(j2='<joint name="j2"><parent link="l1"/><child link="l2"/>'
                 '</joint>'),
        "joint 'j2': <joint> has no type"),
    'undefined link': (
        chain(j2=joint('j2', 'l1', 'ghost')),
        "joint 'j2': child link 'ghost' is not defined"),
    'duplicate link': (
        chain(l3=link('l1')),
        "link 'l1' is defined twice: link names must be unique"),
    'duplicate joint': (
        chain(l3=link('l3'), j3=joint('j2', 'l2', 'l3')),
        "joint 'j2' is defined twice: joint names must be unique"),
    'two parents': (
        chain(j3=joint('j3', 'base', 'l2')),
        "link 'l2' has two parent joints ('j2' and 'j3'): a URDF must be a "
        'tree'),
    'cycle': (
        robot(link('a'), link('b'), joint('ab', 'a', 'b'),
              joint('ba', 'b', 'a')),
        'URDF has no root link: joints ba, ab form a cycle (every link has '
        'a parent)'),
    'cycle below the root': (
        chain(l3=link('l3'), j3=joint('j3', 'l3', 'l2'),
              j2=joint('j2', 'l2', 'l3')),
        'joints j3, j2 form a cycle: links l2, l3 are not reachable from '
        "root 'base'"),
    'own parent': (
        chain(j2=joint('j2', 'l2', 'l2')),
        "joint 'j2': link 'l2' is its own parent"),
    'two <dynamics>': (
        chain(j2=joint('j2', 'l1', 'l2', extra='<dynamics damping="1"/>'
                       '<dynamics damping="2"/>')),
        "joint 'j2': <joint> has 2 <dynamics> elements: give one"),
    'two <inertial>': (
        chain(l2=link('l2', inertial() + inertial())),
        "link 'l2': <link> has 2 <inertial> elements: give one"),
    'several roots': (
        robot(link('a'), link('b'), link('c'), joint('ab', 'a', 'b')),
        'URDF has several root links (a, c): its links are not connected '
        'into one tree; pick one with root_link (only its subtree is '
        'kept)'),
    'floating joint': (
        chain(j1=joint('j1', 'base', 'l1', kind='floating')),
        "joint 'j1' (floating): a floating joint (6 DoF) is not supported: "
        'the model is a fixed-base tree; pick root_link below it (e.g. '
        "root_link='l1')"),
    'planar joint': (
        chain(j2=joint('j2', 'l1', 'l2', kind='planar')),
        "joint 'j2' (planar): a planar joint (3 DoF) is not supported: the "
        'model is a fixed-base tree of 1-DoF joints; pick root_link below '
        "it (e.g. root_link='l2')"),
    'unknown joint type': (
        chain(j2=joint('j2', 'l1', 'l2', kind='ball')),
        "joint 'j2' (ball): unknown joint type (URDF types: revolute, "
        'continuous, prismatic, fixed, floating, planar)'),
    'zero axis': (
        chain(j2=joint('j2', 'l1', 'l2').replace('0 0 1', '0 0 0')),
        "joint 'j2': axis [0.0, 0.0, 0.0] is not a usable direction"),
    'inverted limits': (
        chain(j2=joint('j2', 'l1', 'l2').replace(
            'lower="-1" upper="1"', 'lower="1" upper="-1"')),
        "joint 'j2': lower limit 1 is above upper limit -1"),
    'mimic cycle': (
        chain(j1=joint('j1', 'base', 'l1', extra='<mimic joint="j2"/>'),
              j2=joint('j2', 'l1', 'l2', extra='<mimic joint="j1"/>')),
        'mimic joints j1 -> j2 -> j1 follow each other in a cycle'),
    'mimic without joint': (
        chain(j2=joint('j2', 'l1', 'l2', extra='<mimic multiplier="2"/>')),
        "joint 'j2': <mimic> has no joint"),
    'not a robot': (
        '<sdf version="1.6"><model name="m"/></sdf>',
        'URDF root element is <sdf>, not <robot>'),
    'malformed XML': (
        '<robot name="t"><link name="a"></robot>',
        'URDF could not be parsed: not well-formed XML (mismatched tag: '
        'line 1, column 33)'),
    'xacro text': (
        '<robot name="t" xmlns:xacro="http://www.ros.org/wiki/xacro">'
        '<xacro:property name="a" value="1"/></robot>',
        'the URDF still contains xacro elements (xacro:property): expand it '
        'with xacro first, or pass the path of the .xacro file'),
    'no links': ('<robot name="empty"/>', 'URDF has no links'),
}


@pytest.mark.parametrize('case', sorted(REFUSALS))
def test_each_refusal_has_its_exact_message(case):
    """A description that gives no meaningful model: ModelError, exactly."""
    xml, message = REFUSALS[case]
    with pytest.raises(dr.ModelError) as raised:
        dr.load_urdf(xml)
    assert str(raised.value) == message


def test_refused_inputs_and_options_name_the_culprit():
    """Source type, missing files, root_link, tip_link, gravity."""
    cases = [
        (dict(source=42), 'URDF source must be a file path or an XML '
                          'string, got int'),
        (dict(source='/no/such.urdf'), "URDF file '/no/such.urdf' does not "
                                       'exist'),
        (dict(source='robot name="t">\n</robot>'),
         'URDF source is neither XML (it does not start with "<") nor a '
         'file path'),
        (dict(source='/no/such.urdf.xacro'),
         "xacro file '/no/such.urdf.xacro' does not exist"),
        (dict(root_link='nowhere'), "root_link 'nowhere' is not a link of "
                                    'the URDF (links: base, l1, l2)'),
        (dict(tip_link='nowhere'), "tip_link 'nowhere' is not a link of "
                                   'the URDF'),
        (dict(root_link='l2', tip_link='l1'),
         "tip_link 'l1' is not below root_link 'l2'"),
        (dict(gravity=(0, 0)), 'gravity must be 3 finite numbers, got '
                               '[0.0, 0.0]'),
    ]
    for options, message in cases:
        options = dict(options)
        source = options.pop('source', chain())
        with pytest.raises(dr.ModelError) as raised:
            dr.load_urdf(source, **options)
        assert str(raised.value) == message


def test_a_mimic_master_cut_off_by_tip_link_is_refused():
    """Keeping a mimic joint without its master cannot be resolved."""
    xml = robot(link('base'), link('a'), link('b'), link('c'),
                joint('ja', 'base', 'a'), joint('jb', 'base', 'b'),
                joint('jc', 'b', 'c', extra='<mimic joint="ja"/>'))
    with pytest.raises(dr.ModelError, match=re.escape(
            "joint 'jc' mimics joint 'ja', which is not a movable joint of "
            'the model (a fixed joint, a missing one, or cut off by '
            'root_link/tip_link)')):
        dr.load_urdf(xml, tip_link='c')


# --- warnings: one per class, with the exact message ---------------------

def test_triangle_inequality_violation_warns_with_its_size():
    """Moments 0.01 + 0.02 < 0.05: no rigid body; loaded as given."""
    xml = chain(l1=link('l1', inertial(moments=('0.01', '0.02', '0.05'))))
    with pytest.warns(dr.ModelWarning) as caught:
        model = dr.load_urdf(xml)
    assert [str(w.message) for w in caught] == [
        "link 'l1': inertia is not that of a rigid body: principal moments "
        'violating the triangle inequality (0.01 + 0.02 < 0.05) by 0.02 kg '
        'm^2 (40% of the largest moment; principal moments 0.01, 0.02, '
        '0.05); used as given, as Pinocchio does']
    assert_close(model.inertia_com[0], np.diag([0.01, 0.02, 0.05]),
                 what='inertia kept as given')


def test_negative_principal_moment_warns_with_its_size():
    """A negative moment larger than the tolerance warns, is kept."""
    xml = chain(l1=link('l1', inertial(moments=('-0.01', '0.02', '0.02'))))
    with pytest.warns(dr.ModelWarning) as caught:
        dr.load_urdf(xml)
    assert [str(w.message) for w in caught] == [
        "link 'l1': inertia is not that of a rigid body: a negative "
        'principal moment -0.01 kg m^2 (50% of the largest moment; '
        'principal moments -0.01, 0.02, 0.02); used as given, as Pinocchio '
        'does']


def test_rounding_sized_violations_pass_silently():
    """Relative to the link, or tiny next to the robot's largest moment."""
    relative = chain(l1=link('l1', inertial(
        moments=('0.01', '0.01', '0.0200000001'))))
    load_quietly(relative)
    # TIAGo's antenna: -3e-8 kg m^2 on a 1 mg link of a robot whose
    # upper arm has moments of 0.5 kg m^2.
    antenna = chain(l1=link('l1', inertial(moments=('0.5', '0.5', '0.8'))),
                    l2=link('l2', '<inertial><mass value="1e-06"/>'
                                  '<inertia ixx="2e-8" ixy="5e-8" ixz="0" '
                                  'iyy="2e-8" iyz="0" izz="9e-8"/>'
                                  '</inertial>'))
    load_quietly(antenna)
    # Without a larger link next to it the same numbers are a violation.
    alone = robot(link('base'), link('l2', '<inertial><mass value="1e-06"/>'
                                           '<inertia ixx="2e-8" ixy="5e-8" '
                                           'ixz="0" iyy="2e-8" iyz="0" '
                                           'izz="9e-8"/></inertial>'),
                  joint('j2', 'base', 'l2'))
    with pytest.warns(dr.ModelWarning, match="link 'l2': inertia is not"):
        dr.load_urdf(alone)


def test_joints_that_move_no_mass_warn_and_forward_dynamics_refuses():
    """A ROS-Industrial style arm without <inertial>, tool0 fixed to it."""
    xml = robot(link('base', ''), link('l1', ''), link('l2', ''),
                link('tool0', ''), joint('j1', 'base', 'l1'),
                joint('j2', 'l1', 'l2'),
                '<joint name="flange" type="fixed"><parent link="l2"/>'
                '<child link="tool0"/></joint>', name='industrial')
    with pytest.warns(dr.ModelWarning) as caught:
        model = dr.load_urdf(xml)
    assert [str(w.message) for w in caught] == [
        "joints 'j1', 'j2' move no mass or inertia about their axes: the "
        'mass matrix is singular, so forward dynamics and the simulator '
        'refuse this model; add <inertial> to the links they move, '
        'armature to the joints, or cut them off with tip_link']
    with pytest.raises(dr.ModelError, match='j1, j2') as raised:
        dr.forward_dynamics(model, np.zeros(2), np.zeros(2), np.zeros(2))
    assert 'not positive definite' in str(raised.value)


def test_only_the_massless_end_of_a_chain_is_named():
    """A massless middle link is ordinary; a massless last joint is not."""
    load_quietly(chain(l1=link('l1', '')))
    with pytest.warns(dr.ModelWarning) as caught:
        dr.load_urdf(chain(l2=link('l2', '')))
    assert [str(w.message) for w in caught][0].startswith(
        "joints 'j2' move no mass")


def test_no_movable_joint_warns():
    """A description of fixed joints only gives an empty model, warned."""
    xml = robot(link('base'), link('camera'),
                '<joint name="mount" type="fixed"><parent link="base"/>'
                '<child link="camera"/></joint>', name='sensor_head')
    with pytest.warns(dr.ModelWarning) as caught:
        model = dr.load_urdf(xml)
    assert [str(w.message) for w in caught] == [
        "model 'sensor_head' has no movable joint below root link 'base' (0 "
        'coordinates): nothing to compute']
    assert model.nq == 0


def test_mimic_of_a_joint_the_urdf_lacks_warns_and_frees_the_joint():
    """Pinocchio and KDL load such a file with the joint free; so do we."""
    xml = chain(j2=joint('j2', 'l1', 'l2', extra='<mimic joint="ghost"/>'))
    with pytest.warns(dr.ModelWarning) as caught:
        model = dr.load_urdf(xml)
    assert [str(w.message) for w in caught] == [
        "joint 'j2' mimics joint 'ghost', which is not a movable joint of "
        "the URDF: the mimic tag is ignored and 'j2' is an independent "
        'joint']
    assert isinstance(model, dr.RobotModel) and model.nq == 2


# --- what must load ------------------------------------------------------

EVERYTHING_ELSE = """<?xml version="1.0" encoding="utf-8"?>
<robot name="decorated" xmlns:gazebo="http://gazebosim.org/schema">
  <!-- tags dynamics does not read: none of them may refuse the file -->
  <material name="grey"><color rgba="0.5 0.5 0.5 1"/><texture/></material>
  <link name="base">
    <visual><geometry><mesh filename="package://x/base.dae"/></geometry>
      <material name="skin"><texture/></material></visual>
    <collision><geometry><box size="1 1 1"/></geometry></collision>
  </link>
  <link name="l1">
    <inertial><origin xyz="0 0 0.1"/><mass value="2"/>
      <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.01"/>
    </inertial>
    <visual><geometry><cylinder radius="0.1" length="0.2"/></geometry>
    </visual>
    <sensor name="imu" type="imu"><update_rate>100</update_rate></sensor>
  </link>
  <joint name="j1" type="continuous">
    <parent link="base"/><child link="l1"/><axis xyz="0 1 0"/>
    <calibration rising="0.0"/>
    <safety_controller soft_lower_limit="-1" soft_upper_limit="1"
                       k_velocity="10"/>
    <dynamics damping="0.5" friction="0.25"/>
  </joint>
  <transmission type="pr2_mechanism_model/SimpleTransmission" name="t1">
    <actuator name="motor1"/><joint name="j1"/><mechanicalReduction>1
    </mechanicalReduction>
  </transmission>
  <transmission name="t2">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="j1"><hardwareInterface>EffortJointInterface
    </hardwareInterface></joint>
    <actuator name="m2"><mechanicalReduction>50</mechanicalReduction>
    </actuator>
  </transmission>
  <gazebo reference="l1"><material>Gazebo/Grey</material></gazebo>
  <gazebo><plugin name="ros2_control" filename="libgz_ros2_control.so"/>
  </gazebo>
  <ros2_control name="arm" type="system">
    <hardware><plugin>mock_components/GenericSystem</plugin></hardware>
    <joint name="j1"><command_interface name="effort"/>
      <state_interface name="position"/></joint>
  </ros2_control>
  <unknown_vendor_tag anything="goes"><nested/></unknown_vendor_tag>
</robot>
"""


def test_tags_dynamics_does_not_need_never_refuse():
    """Visual, material, texture, transmissions, gazebo, ros2_control."""
    model = load_quietly(EVERYTHING_ELSE)
    assert model.joint_names == ['j1'] and model.name == 'decorated'
    assert bool(model.continuous[0]) and model.mass[0] == 2.0
    assert (model.damping[0], model.friction[0]) == (0.5, 0.25)


def test_pr2_and_icub_load():
    """ROS 1 <transmission> (PR2) and <texture/> without filename (iCub)."""
    pr2, texts = load_warning_texts(robot_path('pr2_description/urdf/'
                                               'pr2.urdf'))
    assert isinstance(pr2, MimicModel) and pr2.nq == 20
    unphysical = sorted(text.split("'")[1] for text in texts
                        if 'inertia is not' in text)
    assert unphysical == ['double_stereo_link', 'sensor_mount_link']
    icub = load_quietly(robot_path('icub_description/robots/icub.urdf'))
    assert icub.nq == 32


@pytest.mark.parametrize('relative, warned_links', [
    ('tiago_description/robots/tiago.urdf', []),
    ('anymal_c_simple_description/urdf/anymal.urdf', []),
    ('allegro_hand_description/urdf/allegro_right_hand.urdf',
     ['link_11.0', 'link_15.0', 'link_3.0', 'link_7.0']),
    ('hyq_description/robots/hyq_no_sensors.urdf',
     ['lf_foot', 'lh_foot', 'rf_foot', 'rh_foot']),
])
def test_slightly_unphysical_robots_load_with_at_most_a_warning(
        relative, warned_links):
    """Real descriptions the old checks refused; Pinocchio loads them."""
    model, texts = load_warning_texts(robot_path(relative))
    assert model.nq > 0
    named = sorted(re.match(r"link '([^']+)': inertia is not", text).group(1)
                   for text in texts)
    assert named == warned_links


def test_root_link_resolves_several_roots():
    """Only root_link's subtree is kept; the stray root is ignored."""
    xml = robot(link('world_marker'), link('base'), link('l1'),
                joint('j1', 'base', 'l1'))
    model = load_quietly(xml, root_link='base')
    assert model.joint_names == ['j1'] and model.root_link == 'base'
    assert 'world_marker' not in model.frames


def test_root_link_below_a_floating_joint():
    """The floating error's advice works: the subtree below loads."""
    xml = robot(link('world', ''), link('base'), link('l1'),
                joint('free', 'world', 'base', kind='floating'),
                joint('j1', 'base', 'l1'))
    assert load_quietly(xml, root_link='base').joint_names == ['j1']


def test_panda_with_its_hand_is_a_mimic_model():
    """7 arm joints + finger_joint1; finger_joint2 follows it."""
    path = robot_path('panda_description/urdf/panda.urdf')
    model = load_quietly(path)
    assert isinstance(model, MimicModel)
    assert model.joint_names == ['panda_joint%d' % i for i in range(1, 8)] \
        + ['panda_finger_joint1']
    assert model.mimic == {
        'panda_finger_joint2': ('panda_finger_joint1', 1.0, 0.0)}
    assert model.full_joint_names == model.joint_names + [
        'panda_finger_joint2']
    cut, texts = load_warning_texts(path, tip_link='panda_hand')
    assert isinstance(cut, dr.RobotModel) and cut.nq == 7
    # The fingers cut off by their prismatic joints are named with their
    # mass (2 x 0.015 kg in the URDF): a payload estimate would count it.
    assert texts == ["tip_link 'panda_hand' leaves out links panda_hand_tcp, "
                     'panda_leftfinger, panda_rightfinger (0.03 kg) that '
                     'hang from the arm below or beside the tip: they are '
                     'not part of the arm model, so a payload estimate '
                     'counts their mass as payload (load without tip_link '
                     'to keep them)']
    # The fingers' mass counts: gravity torques differ from the cut arm's.
    q = np.array([0.1, -0.5, 0.2, -2.0, 0.3, 1.5, 0.7, 0.02])
    full = dr.gravity_torques(model, q)
    assert np.max(np.abs(full[:7] - dr.gravity_torques(cut, q[:7]))) > 0.1


def test_panda_gravity_with_its_hand_equals_pinocchio_mimic():
    """Reduced gravity torques equal Pinocchio 4.1's mimic=True model."""
    path = robot_path('panda_description/urdf/panda.urdf')
    model = load_quietly(path)
    q = np.array([0.1, -0.5, 0.2, -2.0, 0.3, 1.5, 0.7, 0.02])

    def gravity():
        reference = pin.buildModelFromUrdf(path, mimic=True)
        return pin.computeGeneralizedGravity(
            reference, reference.createData(), q)
    # Pinocchio's answer through oracle_record: stored where it is missing.
    with open(path, encoding='utf-8') as stream:
        identity = oracle_record.digest(stream.read()) + ' mimic'
    expected = oracle_record.call('gravity', (identity, q), gravity)
    assert_close(dr.gravity_torques(model, q), expected,
                 what='Panda with hand, gravity')


def test_reader_keeps_the_numbering_and_defaults():
    """Depth-first, children in document order; URDF defaults."""
    xml = robot(link('base'), link('a'), link('b'), link('a1'),
                joint('to_a', 'base', 'a'), joint('to_b', 'base', 'b'),
                joint('to_a1', 'a', 'a1'),
                link('m'), '<joint name="bare" type="revolute">'
                '<parent link="b"/><child link="m"/></joint>')
    model = load_quietly(xml)
    assert model.joint_names == ['to_a', 'to_a1', 'to_b', 'bare']
    assert model.parent.tolist() == [-1, 0, -1, 2]
    # No <axis>: x; no <limit>: unbounded; no <origin>: identity.
    assert model.axis[3].tolist() == [1.0, 0.0, 0.0]
    assert model.lower_limit[3] == -np.inf and model.effort_limit[3] == \
        np.inf
    assert model.origin_translation[3].tolist() == [0.0, 0.0, 0.0]


# --- xacro ---------------------------------------------------------------

LINK_MACRO = """<?xml version="1.0"?>
<robot xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:macro name="arm_link" params="name mass">
    <link name="${name}">
      <inertial><origin xyz="0.2 0 0"/><mass value="${mass}"/>
        <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/>
      </inertial>
    </link>
  </xacro:macro>
</robot>
"""

ARM_XACRO = """<?xml version="1.0"?>
<robot name="xacro_arm" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:arg name="tip_mass" default="1.0"/>
  <xacro:include filename="$(find test_arm_description)/urdf/link.xacro"/>
  <xacro:arm_link name="base" mass="1"/>
  <xacro:arm_link name="l1" mass="$(arg tip_mass)"/>
  <joint name="j1" type="revolute">
    <parent link="base"/><child link="l1"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="50" velocity="2"/>
  </joint>
</robot>
"""


@pytest.fixture
def xacro_workspace(tmp_path, monkeypatch):
    """Make a temporary ament index with package test_arm_description."""
    prefix = tmp_path / 'install'
    marker = prefix / 'share' / 'ament_index' / 'resource_index' / \
        'packages' / 'test_arm_description'
    marker.parent.mkdir(parents=True)
    marker.write_text('')
    share = prefix / 'share' / 'test_arm_description' / 'urdf'
    share.mkdir(parents=True)
    (share / 'link.xacro').write_text(LINK_MACRO)
    arm = tmp_path / 'arm.urdf.xacro'
    arm.write_text(ARM_XACRO)
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(prefix))
    return arm


def pendulum_gravity(tip_mass, q):
    """Return the gravity torque of the xacro arm: the tip's mass 0.2 m off the axis."""
    # Turning about +y lowers the mass at +x: V = -m g 0.2 sin q.
    return -tip_mass * 9.81 * 0.2 * np.cos(q)


def test_xacro_with_an_argument_and_find_loads(xacro_workspace):
    """$(find) through the ament index; name:=value as list or dict."""
    default = load_quietly(str(xacro_workspace))
    assert default.name == 'xacro_arm' and default.mass.tolist() == [1.0]
    for args in (['tip_mass:=2.5'], {'tip_mass': 2.5}):
        model = load_quietly(str(xacro_workspace), xacro_args=args)
        assert model.mass.tolist() == [2.5]
        assert_close(dr.gravity_torques(model, [0.3]),
                     [pendulum_gravity(2.5, 0.3)], what='xacro arm gravity')


def test_xacro_errors_are_model_errors(xacro_workspace, monkeypatch,
                                       tmp_path):
    """Bad argument form, undefined substitution, missing package."""
    path = str(xacro_workspace)
    with pytest.raises(dr.ModelError) as raised:
        dr.load_urdf(path, xacro_args=['tip_mass'])
    assert str(raised.value) == \
        "xacro argument 'tip_mass' is not of the form name:=value"
    broken = tmp_path / 'broken.xacro'
    broken.write_text('<robot name="b" xmlns:xacro="http://www.ros.org/'
                      'wiki/xacro"><link name="$(arg nope)"/></robot>')
    with pytest.raises(dr.ModelError) as raised:
        dr.load_urdf(str(broken))
    assert str(raised.value) == 'xacro could not expand %r: Undefined ' \
        'substitution argument nope' % str(broken)
    monkeypatch.setenv('AMENT_PREFIX_PATH', str(tmp_path / 'empty'))
    with pytest.raises(dr.ModelError, match=re.escape(
            'xacro could not expand %r: PackageNotFoundError: "package '
            "'test_arm_description' not found" % path)):
        dr.load_urdf(path)


def test_node_reads_a_xacro_urdf_path(xacro_workspace):
    """The nodes' urdf_path + xacro_args go through the same expansion."""
    xml = read_urdf_file(str(xacro_workspace), ['tip_mass:=3.0'])
    assert load_quietly(xml).mass.tolist() == [3.0]
    with pytest.raises(dr.ModelError) as raised:
        read_urdf_file('/no/arm.xacro')
    assert str(raised.value) == \
        "urdf_path: xacro file '/no/arm.xacro' does not exist"


# --- robot_description compared by content -------------------------------

def test_same_robot_in_other_words_is_the_same_model(xacro_workspace):
    """Whitespace, comments, attribute order: same model; numbers: not."""
    expanded = read_urdf_file(str(xacro_workspace))
    rewritten = re.sub(r'<inertia ixx="0.01" ixy="0" ixz="0"',
                       '<inertia ixz="0" ixy="0.0" ixx="1e-2"',
                       expanded.replace('  ', '\t'))
    rewritten = rewritten.replace('<robot', '<!-- republished -->\n<robot',
                                  1)
    assert rewritten != expanded
    assert same_model(load_quietly(expanded), load_quietly(rewritten))
    heavier = read_urdf_file(str(xacro_workspace), ['tip_mass:=1.5'])
    assert not same_model(load_quietly(expanded), load_quietly(heavier))
    assert not same_model(load_quietly(expanded),
                          load_quietly(expanded, gravity=(0, 0, -3.7)))


def test_same_model_tells_mimic_coupling_apart():
    """A mimic joint is not the same robot as a free one."""
    panda = robot_path('panda_description/urdf/panda.urdf')
    full = load_quietly(panda)
    assert same_model(full, load_quietly(panda))
    assert not same_model(full, full.tree)
    free_fingers = open(panda, encoding='utf-8').read().replace(
        '<mimic joint="panda_finger_joint1"/>', '')
    assert not same_model(full, load_quietly(free_fingers))


# --- a node: .xacro urdf_path, and a republished robot kept --------------

NODE_LOGGER = 'inverse_dynamics_node'
INFO = 20  # /rosout level of the node's model logs


# Starts a node over DDS outside test/nodes/: marked so that `make
# test-distro` (-m 'not ros') leaves it out with the other node tests.
@pytest.mark.ros
def test_node_expands_xacro_and_keeps_a_republished_robot(xacro_workspace):
    """urdf_path=.xacro with xacro_args; the same robot again: no rebuild."""
    from ros_harness import NodeProcess, reserve_domain_id, RosTester
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import JointState
    from std_msgs.msg import String

    domain_id = reserve_domain_id(__name__)
    node = NodeProcess('inverse_dynamics_node', domain_id, {
        'urdf_path': str(xacro_workspace), 'xacro_args': ['tip_mass:=2.5']})
    ros = RosTester(domain_id)
    try:
        states = ros.publisher(JointState, 'joint_states')
        description = ros.publisher(String, 'robot_description', QoSProfile(
            depth=1, reliability=ReliabilityPolicy.RELIABLE,
            durability=DurabilityPolicy.TRANSIENT_LOCAL))
        feedforward = ros.collector(JointState, 'feedforward')

        def gravity_reply(q):
            feedforward.clear()
            ros.wait_for(lambda: feedforward.messages, action=lambda: (
                states.publish(JointState(name=['j1'], position=[q]))),
                what='feedforward')
            return feedforward.messages[-1].effort[0]

        assert_close([gravity_reply(0.3)], [pendulum_gravity(2.5, 0.3)],
                     what='node with the xacro arm')

        def rebuilds():
            return ros.warnings(NODE_LOGGER, 'from the robot_description '
                                'topic', level=INFO)

        expanded = read_urdf_file(str(xacro_workspace), ['tip_mass:=2.5'])
        description.publish(String(data=expanded.replace(
            '<robot', '<!-- republished -->\n<robot', 1)))
        ros.wait_for(lambda: ros.warnings(NODE_LOGGER, 'same robot',
                                          level=INFO),
                     what='"same robot" log')
        assert not rebuilds()
        heavier = read_urdf_file(str(xacro_workspace), ['tip_mass:=4.0'])
        description.publish(String(data=heavier))
        ros.wait_for(rebuilds, what='the rebuilt model')
        assert_close([gravity_reply(0.3)], [pendulum_gravity(4.0, 0.3)],
                     what='node after a new robot')
    finally:
        ros.close()
        alive = node.alive()
        output = node.output()
        node.stop()
    assert alive, output


def test_describe_expands_a_xacro_with_its_arguments(xacro_workspace):
    """Describe a .xacro: ``describe arm.urdf.xacro --xacro-arg ...``."""
    import subprocess
    import sys
    result = subprocess.run(
        [sys.executable, '-m', 'dynamics_ros', 'describe',
         str(xacro_workspace), '--xacro-arg', 'tip_mass:=2.5'],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "Model 'xacro_arm': 1 movable joint(s)" in result.stdout
    assert 'total mass: 2.5000 kg' in result.stdout
