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

"""Flexible-link declarations (YAML and Python), bad input, flex-demo."""

import os
import re
import warnings

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.__main__ import main
from dynamics_ros.resources import robot_urdf, shipped_file
import numpy as np
import pytest
import yaml

CONFIG = shipped_file('config', 'flexible_two_link_planar.yaml')


def test_shipped_config_loads_beside_the_unchanged_urdf():
    """Two flexible links, two in-plane modes each, no inertial warning."""
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        fm = dr.load_flexible(CONFIG)
    assert fm.joint_names == ['shoulder', 'elbow']
    assert fm.coordinate_names[2:] == [
        'upper_link/xz1', 'upper_link/xz2', 'fore_link/xz1', 'fore_link/xz2']
    assert np.all(fm.modal_damping[2:] > 0)
    # The rigid URDF is untouched; the undeformed links match its rods.
    rigid = dr.load_urdf(robot_urdf('two_link_planar'))
    assert_close(fm.rigid_model().mass, rigid.mass)
    assert_close(fm.rigid_model().com, rigid.com)
    # Clamped-free fundamental of the fore link: (1.8751)^2 sqrt(EI/m a^3).
    link = fm.links['fore_link']
    omega = 1.8751040687 ** 2 * np.sqrt(120.0 / (1.5 * 0.8 ** 3))
    assert_close(link.clamped_periods()[0], 2 * np.pi / omega, 1e-9)


def test_config_as_text_mapping_and_python_are_the_same_model():
    """YAML text, a dict and FlexibleLink objects give one model."""
    with open(CONFIG, encoding='utf-8') as stream:
        text = stream.read()
    data = yaml.safe_load(text)
    urdf = robot_urdf('two_link_planar')
    from_text = dr.load_flexible(text, model=urdf)
    from_dict = dr.load_flexible(data, model=dr.load_urdf(urdf))
    from_python = dr.FlexibleModel(dr.load_urdf(urdf), {
        'upper_link': dr.FlexibleLink(length=1.0, mass_per_length=2.0,
                                      EI=300.0, modes_xz=2, modes_xy=0,
                                      damping_ratio=0.01),
        'fore_link': dr.FlexibleLink(length=0.8, mass=1.5, EI_xz=120.0,
                                     EI_xy=1.0, modes_xz=2, modes_xy=0,
                                     damping_ratio=0.01)})
    rng = np.random.default_rng(0)
    z, zd = rng.normal(size=(2, 6)) * 0.1
    expected = from_text.bias_forces(z, zd)
    assert_close(from_dict.bias_forces(z, zd), expected)
    assert_close(from_python.bias_forces(z, zd), expected)
    assert_close(from_python.mass_matrix(z), from_text.mass_matrix(z))


def test_urdf_path_relative_to_the_yaml_file(tmp_path):
    """`urdf:` is looked up beside the YAML file first."""
    with open(robot_urdf('two_link_planar'), encoding='utf-8') as stream:
        (tmp_path / 'arm.urdf').write_text(stream.read())
    (tmp_path / 'flexible_arm.yaml').write_text(
        'urdf: arm.urdf\nflexible_links:\n  fore_link: {length: 0.8, '
        'mass: 1.5, EI: 50, modes: 1}\n')
    fm = dr.load_flexible(str(tmp_path / 'flexible_arm.yaml'))
    assert fm.mode_names == ['fore_link/xy1', 'fore_link/xz1']


BAD = [
    ({'fore_link': {'length': 0.8, 'mass': 1.5, 'EI': 1, 'modes': 1,
                    'lenght': 2}}, 'unknown key'),
    ({'forearm': {'length': 0.8, 'mass': 1.5, 'EI': 1, 'modes': 1}},
     "'forearm' is not a link moved by a joint"),
    ({'tool0': {'length': 0.8, 'mass': 1.5, 'EI': 1, 'modes': 1}},
     'merged into link'),
    ({'fore_link': {'mass': 1.5, 'EI': 1, 'modes': 1}}, 'length'),
    ({'fore_link': {'length': 0.8, 'mass': 1.5, 'mass_per_length': 2,
                    'EI': 1, 'modes': 1}}, 'exactly one of mass'),
    ({'fore_link': {'length': 0.8, 'mass': 1.5, 'EI': -3, 'modes': 1}},
     'EI_xy must be > 0'),
    ({'fore_link': {'length': 0.8, 'mass': 1.5, 'EI_xy': 3, 'modes': 1}},
     'give EI'),
    ({'fore_link': {'length': 0.8, 'mass': 1.5, 'EI': 3, 'modes': 1.5}},
     'integer'),
    ({'fore_link': {'length': 0.8, 'mass': 1.5, 'EI': 3, 'modes': 1,
                    'normalization': 'unit'}}, 'normalization'),
    ({'fore_link': {'length': 0.8, 'mass': 1.5, 'EI': 3, 'modes': 1,
                    'axis': [0, 0, 0]}}, 'axis'),
    ({'fore_link': {'length': 0.8, 'mass': 1.5, 'EI': 3, 'modes': 1,
                    'tip_mass': {'mass': 1, 'inertia': [1, 0, 0]}}},
     'triangle inequality'),
    ({'fore_link': {'length': 0.8, 'mass': 1.5, 'EI': 3, 'modes': 1,
                    'tip_mass': {'inertia': [1, 1, 1]}}}, 'at least a mass'),
    ({'fore_link': 3}, 'expected a mapping'),
    ({}, 'flexible_links'),
]


@pytest.mark.parametrize('links, message', BAD,
                         ids=[m for _, m in BAD])
def test_bad_declarations_raise_model_error_naming_the_fault(links,
                                                             message):
    """Each mistake raises ModelError with a message that names it."""
    model = dr.load_urdf(robot_urdf('two_link_planar'))
    with pytest.raises(dr.ModelError, match=re.escape(message)):
        dr.load_flexible({'flexible_links': links}, model=model)


def test_bad_config_files(tmp_path):
    """Missing file, non-YAML, unknown top-level key, no robot."""
    with pytest.raises(dr.ModelError, match='no such file'):
        dr.load_flexible(str(tmp_path / 'missing.yaml'))
    with pytest.raises(dr.ModelError, match='not valid YAML'):
        dr.load_flexible('flexible_links: [\n')
    with pytest.raises(dr.ModelError, match='unknown key'):
        dr.load_flexible({'flexible_links': {}, 'robot': 'x'})
    with pytest.raises(dr.ModelError, match='no "urdf" entry'):
        dr.load_flexible({'flexible_links': {'a': {}}})


def test_inertial_that_disagrees_with_the_beam_warns():
    """The declaration replaces the URDF <inertial>, and says so."""
    with pytest.warns(dr.ModelWarning, match='fore_link'):
        fm = dr.load_flexible({'urdf': 'two_link_planar', 'flexible_links': {
            'fore_link': {'length': 0.8, 'mass': 3.0, 'EI': 50,
                          'modes': 1}}})
    assert fm.rigid_model().mass[1] == pytest.approx(3.0)


def test_flex_demo_saves_a_plot_and_prints_statistics(tmp_path, capsys):
    """`python -m dynamics_ros flex-demo` on a short run."""
    code = main(['flex-demo', '--duration', '0.05', '--output-dir',
                 str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    path = tmp_path / 'flex_demo.png'
    with open(path, 'rb') as stream:
        assert stream.read(8) == b'\x89PNG\r\n\x1a\n'
    assert os.path.getsize(path) > 20000
    numbers = dict(re.findall(r'^\s+(max|final)\s+([0-9.]+) mm', out, re.M))
    # Starts at the static sag (75 mm at the start pose, see
    # test_static_deflection_is_an_equilibrium's config) and moves little.
    assert 60.0 < float(numbers['final']) <= float(numbers['max']) < 150.0
    assert 'plot saved to' in out
