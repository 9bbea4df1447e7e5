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
Mackay's verification systems (1988, sec. 3.3), declared in Python.

Every flexible link is the thesis' standard link of Table 3.1 (a 4 m steel
tube).  FLX needs two links and locks joint 1 for the one-link cases; here
a one-joint model is the same system.  Geometry that sat in the missing
figures is chosen and stated: each joint turns about its body Z axis, the
beam lies along body X, so bending in the beam's XY plane back-drives the
joint and bending in XZ (the plane of the joint axis) does not.
"""

import numpy as np

from .link import FlexibleLink, RigidPart
from .model import FlexibleModel
from ..model.robot_model import REVOLUTE, RobotModel
from ..model.urdf import load_urdf

# Table 3.1: m = 10.955 kg, a = 4.0 m, E = 2.0e11 Pa, I_y = I_z = 1.476e-7
# m^4 (the table's values, 0.8 % above the tube's geometry; see
# docs/papers/mackay_1988.md).
MACKAY_LENGTH = 4.0
MACKAY_MASS = 10.955
MACKAY_EI = 2.0e11 * 1.476e-7
# Gravity that reproduces Table 3.2's elliptic-integral periods.
MACKAY_GRAVITY = 9.81


def mackay_link(modes_xy=1, modes_xz=0, normalization='mackay', **extra):
    """Table 3.1's link with clamped-free modes (Mackay's eq. 3.4 scale)."""
    return FlexibleLink(length=MACKAY_LENGTH, mass=MACKAY_MASS, EI=MACKAY_EI,
                        modes_xy=modes_xy, modes_xz=modes_xz,
                        normalization=normalization, **extra)


def _rod_inertial(mass, length, start=0.0):
    """Mass, com and central inertia of a line mass along body X."""
    com = np.array([start + 0.5 * length, 0.0, 0.0])
    inertia = np.diag([0.0, 1.0, 1.0]) * mass * length ** 2 / 12.0
    return mass, com, inertia


def _chain(name, origins, rotations, inertials, gravity):
    """Build the RobotModel of a chain of revolute joints about body Z."""
    n = len(origins)
    frames = {'base_link': (-1, np.eye(3), np.zeros(3))}
    for i in range(n):
        frames['link%d' % (i + 1)] = (i, np.eye(3), np.zeros(3))
    frames['tip'] = (n - 1, np.eye(3), np.array([MACKAY_LENGTH, 0, 0]))
    return RobotModel(
        joint_names=['joint%d' % (i + 1) for i in range(n)],
        body_names=['link%d' % (i + 1) for i in range(n)],
        parent=np.arange(n) - 1, joint_type=[REVOLUTE] * n,
        axis=[[0.0, 0.0, 1.0]] * n, origin_rotation=rotations,
        origin_translation=origins,
        mass=[m for m, _, _ in inertials], com=[c for _, c, _ in inertials],
        inertia_com=[i for _, _, i in inertials], gravity=gravity,
        root_link='base_link', name=name, frames=frames)


# Rotation that hangs the link: body X -> world -Z, body Z -> world X.
HANGING = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])


def mackay_pendulum(modes=1, normalization='mackay'):
    """
    SRPEN (modes=0) and FPEN (modes=1): Mackay secs. 3.3.1 and 3.3.3.

    A 4 m link on a horizontal pivot, hanging straight down at angle 0,
    under g = 9.81 m/s^2; its modes bend in the plane of the swing.  The
    beam's Y axis points against the swing so that a positive amplitude
    deflects the tip backwards, the sign of Mackay's eqs. 3.11-3.12
    (coupling -m G a).
    """
    rod = _rod_inertial(MACKAY_MASS, MACKAY_LENGTH)
    model = _chain('mackay_pendulum', [np.zeros(3)], [HANGING], [rod],
                   [0.0, 0.0, -MACKAY_GRAVITY])
    return FlexibleModel(model, {'link1': mackay_link(
        modes, 0, normalization, y_axis=(0.0, -1.0, 0.0))})


def mackay_double_pendulum():
    """DRPEN (sec. 3.3.2): two rigid standard links, parallel axes."""
    rod = _rod_inertial(MACKAY_MASS, MACKAY_LENGTH)
    model = _chain('mackay_double_pendulum',
                   [np.zeros(3), [MACKAY_LENGTH, 0.0, 0.0]],
                   [HANGING, np.eye(3)], [rod, rod],
                   [0.0, 0.0, -MACKAY_GRAVITY])
    return FlexibleModel(model, {'link1': mackay_link(0, 0),
                                 'link2': mackay_link(0, 0)})


def mackay_joint_mass_link(inertia=0.0, radius=0.0, modes_xy=1, modes_xz=1):
    """
    JMFLX (sec. 3.3.4): a link on a rigid joint mass, no gravity.

    The joint mass is a disc of polar moment ``inertia`` (kg m^2) about the
    joint axis; the beam starts at ``radius`` from the axis (Mackay's R).
    XY modes back-drive the joint; XZ modes bend in the plane of the joint
    axis, whose base is clamped (his Fig. 3.21).
    """
    rod = _rod_inertial(MACKAY_MASS, MACKAY_LENGTH, radius)
    hub = RigidPart(0.0, np.zeros(3), np.diag([0.5, 0.5, 1.0]) * inertia)
    mass, com, central = rod
    central = central + hub.inertia
    model = _chain('mackay_joint_mass_link', [np.zeros(3)], [np.eye(3)],
                   [(mass, com, central)], [0.0, 0.0, 0.0])
    return FlexibleModel(model, {'link1': mackay_link(
        modes_xy, modes_xz, origin=(radius, 0.0, 0.0), joint_mass=hub)})


def mackay_three_link_urdf(hub_mass=20.0):
    """
    URDF of the three-link arm of sec. 3.3.5 (Fig. 3.22 chosen as stated).

    Joint 1 turns about the vertical Z0 and carries a zero-length link (a
    hub, so that the arm pointing straight up keeps an inertia about Z0);
    joints 2 and 3 are horizontal and parallel, each moving a standard 4 m
    link along its X.  Inertials are the undeformed links (line masses).
    """
    mass, length = MACKAY_MASS, MACKAY_LENGTH
    across = mass * length ** 2 / 12.0
    rod = ('<inertial><origin xyz="%r 0 0"/><mass value="%r"/>'
           '<inertia ixx="0" ixy="0" ixz="0" iyy="%r" iyz="0" izz="%r"/>'
           '</inertial>' % (length / 2, mass, across, across))
    hub = ('<inertial><origin xyz="0 0 0"/><mass value="%r"/>'
           '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="2"/>'
           '</inertial>' % hub_mass)
    return '\n'.join([
        '<?xml version="1.0"?>',
        '<robot name="mackay_three_link">',
        '  <link name="base_link"/>',
        '  <joint name="joint1" type="continuous">',
        '    <parent link="base_link"/><child link="link1"/>',
        '    <axis xyz="0 0 1"/></joint>',
        '  <link name="link1">%s</link>' % hub,
        '  <joint name="joint2" type="continuous">',
        '    <parent link="link1"/><child link="link2"/>',
        '    <origin xyz="0 0 0" rpy="1.5707963267948966 0 0"/>',
        '    <axis xyz="0 0 1"/></joint>',
        '  <link name="link2">%s</link>' % rod,
        '  <joint name="joint3" type="continuous">',
        '    <parent link="link2"/><child link="link3"/>',
        '    <origin xyz="%r 0 0"/><axis xyz="0 0 1"/></joint>' % length,
        '  <link name="link3">%s</link>' % rod,
        '  <joint name="tool_joint" type="fixed">',
        '    <parent link="link3"/><child link="tool"/>',
        '    <origin xyz="%r 0 0"/></joint>' % length,
        '  <link name="tool"/>',
        '</robot>'])


def mackay_three_link_arm(modes=1, normalization='mackay'):
    """Sec. 3.3.5: links 2 and 3 flexible, ``modes`` per bending plane."""
    model = load_urdf(mackay_three_link_urdf())
    return FlexibleModel(model, {
        'link2': mackay_link(modes, modes, normalization),
        'link3': mackay_link(modes, modes, normalization)})
