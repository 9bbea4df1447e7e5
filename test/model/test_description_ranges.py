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
Numbers a robot description may give: what is refused, and why.

Each case was accepted before and overflowed, fed energy in or silently
meant "no limit" later (NaN effort limits, negative damping, 1e308
gravity).  SDF's 1e16 "no limit" stays readable.
"""

import dynamics_ros as dr
import numpy as np
import pytest

LINK = ('<link name="{name}"><inertial><origin xyz="{com}"/>'
        '<mass value="{mass}"/><inertia ixx="{ixx}" iyy="0.1" izz="0.1" '
        'ixy="0" ixz="0" iyz="0"/></inertial></link>')


def arm(dynamics='', limit='lower="-1" upper="1" effort="10" velocity="1"',
        mimic='', mass='1', com='0 0 0', ixx='0.1', origin='0 0 0.1'):
    """Two revolute joints; the second may mimic the first."""
    links = ''.join(LINK.format(name=name, com=com, mass=mass, ixx=ixx)
                    for name in ('l1', 'l2'))
    joints = ''.join(
        '<joint name="{0}" type="revolute"><parent link="{1}"/>'
        '<child link="{2}"/><origin xyz="{3}"/><axis xyz="0 0 1"/>{4}'
        '<limit {5}/>{6}</joint>'.format(
            name, parent, child, origin, dynamics, limit,
            mimic if name == 'j2' else '')
        for name, parent, child in (('j1', 'base', 'l1'),
                                    ('j2', 'l1', 'l2')))
    return '<robot name="r"><link name="base"/>%s%s</robot>' % (
        links, joints)


REFUSED = {
    'negative damping': (
        arm(dynamics='<dynamics damping="-1"/>'),
        "joint 'j1': <dynamics>: damping -1 is negative"),
    'negative friction': (
        arm(dynamics='<dynamics friction="-0.5"/>'),
        "joint 'j1': <dynamics>: friction -0.5 is negative"),
    'absurd damping': (
        arm(dynamics='<dynamics damping="1e308"/>'),
        "joint 'j1': <dynamics>: damping 1e+308 is outside the range a "
        'robot model may give (finite, at most 1e+06 in size)'),
    'negative effort limit': (
        arm(limit='lower="-1" upper="1" effort="-5" velocity="1"'),
        "joint 'j1': effort limit -5 is negative"),
    'NaN effort limit': (
        arm(limit='lower="-1" upper="1" effort="nan" velocity="1"'),
        "joint 'j1': effort limit nan is outside the range a robot "
        'model may give (a number)'),
    'NaN velocity limit': (
        arm(limit='lower="-1" upper="1" effort="1" velocity="nan"'),
        "joint 'j1': velocity limit nan is outside the range a robot "
        'model may give (a number)'),
    'absurd mass': (
        arm(mass='1e308'),
        "link 'l1': mass 1e+308 is outside the range a robot model "
        'may give (finite, at most 1e+06 in size)'),
    'absurd inertia': (
        arm(ixx='1e300'),
        "link 'l1': inertia 1e+300, 0, 0, 0.1, 0, 0.1 is outside the range "
        'a robot model may give (finite, at most 1e+06 in size)'),
    'absurd origin': (
        arm(origin='0 0 1e300'),
        "joint 'j1' origin: length 0, 0, 1e+300 is outside the range a "
        'robot model may give (finite, at most 1000 in size)'),
    'absurd centre of mass': (
        arm(com='1e9 0 0'),
        "link 'l1': inertial origin: length 1e+09, 0, 0 is outside the "
        'range a robot model may give (finite, at most 1000 in '
        'size)'),
    'absurd mimic multiplier': (
        arm(mimic='<mimic joint="j1" multiplier="1e9"/>'),
        "joint 'j2': mimic: mimic multiplier 1e+09 is outside the range a "
        'robot model may give (finite, at most 1000 in size)'),
}


@pytest.mark.parametrize('case', sorted(REFUSED))
def test_refused_with_the_value_and_the_range(case):
    """Each out-of-range number: ModelError naming element and value."""
    xml, message = REFUSED[case]
    with pytest.raises(dr.ModelError) as raised:
        dr.load_urdf(xml)
    assert str(raised.value) == message


@pytest.mark.parametrize('gravity, message', [
    ('abc', "gravity must be 3 finite numbers, got 'abc'"),
    ([0.0, 0.0], 'gravity must be 3 finite numbers, got [0.0, 0.0]'),
    ([1e308] * 3, 'load_urdf: gravity 1e+308, 1e+308, 1e+308 is outside '
                  'the range a robot model may give (finite, at most '
                  '1000 in size)'),
])
def test_gravity_is_refused_by_model_error(gravity, message):
    """Gravity that is not 3 plausible numbers: ModelError, not ValueError."""
    with pytest.raises(dr.ModelError) as raised:
        dr.load_urdf(arm(), gravity=gravity)
    assert str(raised.value) == message


def test_sdf_style_huge_limits_mean_no_limit():
    """1e16 position, effort and velocity limits read as no limit."""
    model = dr.load_urdf(arm(
        limit='lower="-1e16" upper="1e16" effort="1e16" velocity="1e20"'))
    assert np.all(model.lower_limit == -np.inf)
    assert np.all(model.upper_limit == np.inf)
    assert np.all(model.effort_limit == np.inf)
    assert np.all(model.velocity_limit == np.inf)
    limited = dr.load_urdf(arm())
    assert np.all(limited.effort_limit == 10.0)
    assert np.all(limited.upper_limit == 1.0)


def test_payloads_are_held_to_the_same_ranges():
    """A 1e308 kg payload is refused as a link of that mass would be."""
    model = dr.load_urdf(arm())
    with pytest.raises(dr.ModelError) as raised:
        dr.add_payload(model, 1e308, [0, 0, 0], [0.1, 0, 0, 0.1, 0, 0.1])
    assert str(raised.value) == (
        'payload: mass 1e+308 is outside the range a robot model may give '
        '(finite, at most 1e+06 in size)')
    with pytest.raises(dr.ModelError, match='payload com: length 0, 0, '
                                            '1e\\+300 is outside'):
        dr.add_payload(model, 1.0, [0, 0, 1e300], [0.1, 0, 0, 0.1, 0, 0.1])
