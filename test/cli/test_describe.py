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

"""The ``describe`` command: joint, DH, mass and gravity tables."""

import re

import dynamics_ros as dr
from dynamics_ros.__main__ import main
from dynamics_ros.resources import robot_urdf
import numpy as np
from oracle import example_arm_xml
from urdf_factory import random_urdf


def run_describe(capsys, *argv):
    """Run ``python -m dynamics_ros describe ...``; return (code, out, err)."""
    code = main(['describe'] + list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def section(text, title):
    """Return the lines of the section starting with ``title``."""
    for block in text.split('\n\n'):
        if block.startswith(title):
            return block.splitlines()
    raise AssertionError('no section %r in:\n%s' % (title, text))


def test_puma560_standard(capsys):
    """PUMA 560: Corke's DH rows, total mass, zero-pose gravity torques."""
    path = robot_urdf('puma560')
    code, out, _ = run_describe(capsys, path, '--dh', 'standard')
    assert code == 0
    joints = section(out, 'Joints')
    assert len(joints) == 2 + 6
    assert re.search(r'joint2\s+revolute\s+link1\s+link2\s+0\.000 0\.000 '
                     r'1\.000\s+-3\.9270\s+0\.7854\s+186\.4', out)
    dh = section(out, 'DH table (standard')
    assert re.search(r'3\s+joint3\s+revolute\s+0\.02030\s+-90\.0000\s+'
                     r'0\.15005\s+0\.0000\s+q \+ theta', '\n'.join(dh))
    assert 'no extra transforms' in dh[-1]
    # Numbers are right-aligned under their header.
    header = dh[1]
    end = header.index('alpha [deg]') + len('alpha [deg]')
    for row in dh[2:8]:
        assert row[end - 1] == '0' and row[end] == ' ', row
    assert 'total mass: 23.4500 kg' in out
    model = dr.load_urdf(path)
    expected = dr.gravity_torques(model, np.zeros(6))
    gravity = section(out, 'Gravity torques at q = 0')
    printed = [float(line.split()[-1]) for line in gravity[2:]]
    assert np.allclose(printed, expected, atol=5e-7)
    assert abs(printed[1] - 37.483667) < 1e-6   # joint2 holds the arm


def test_modified_and_extra_transforms(capsys):
    """Two-link arm, modified DH: the tool transform DH cannot absorb."""
    _, out, _ = run_describe(capsys, robot_urdf('two_link_planar'), '--dh',
                             'modified')
    dh = '\n'.join(section(out, 'DH table (modified'))
    assert re.search(r'2\s+elbow\s+revolute\s+1\.00000\s+0\.0000', dh)
    assert 'tool (DH frame 2 -> fore_link) transform' in out
    assert 'total mass: 3.5000 kg' in out
    # g1 = (m1 lc1 + m2 l1) g, g2 = m2 lc2 g at q = 0 (arm horizontal).
    assert re.search(r'shoulder\s+N m\s+30\.411000', out)
    assert re.search(r'elbow\s+N m\s+5\.886000', out)


def test_tree_needs_a_tip(tmp_path, capsys):
    """A tree has no DH table until --tip picks a chain; root/tip work."""
    path = tmp_path / 'tree.urdf'
    path.write_text(random_urdf(3, n_movable=5, tree=True))
    code, out, _ = run_describe(capsys, str(path))
    assert code == 0
    assert 'DH table (standard): not available' in out and 'tip_link' in out
    model = dr.load_urdf(str(path))
    leaf = model.body_names[-1]
    code, out, _ = run_describe(capsys, str(path), '--tip', leaf, '--dh',
                                'modified')
    assert code == 0 and 'DH table (modified:' in out
    assert 'not available' not in out


def test_prismatic_units_and_bad_input(capsys):
    """Stanford Arm: the boom's row is 'q + d' in N; a bad path exits 2."""
    _, out, _ = run_describe(capsys, robot_urdf('stanford_arm'))
    assert re.search(r'3\s+joint3\s+prismatic.*q \+ d', out)
    assert re.search(r'joint3\s+N\s', out)
    code, _, err = run_describe(capsys, '/nonexistent/robot.urdf')
    assert code == 2 and 'does not exist' in err


def test_tip_link_is_the_tool_frame(tmp_path, capsys):
    """Panda cut at panda_hand: the hand is the DH tool, 0.107 m out."""
    path = tmp_path / 'panda.urdf'
    path.write_text(example_arm_xml('panda'))
    code, out, _ = run_describe(capsys, str(path), '--tip', 'panda_hand',
                                '--dh', 'modified')
    assert code == 0
    assert 'tool (DH frame 7 -> panda_hand) transform' in out
    assert re.search(r'\[\s+0\.00000\s+0\.00000\s+1\.00000\s+0\.10700\]', out)
    assert re.search(r'5\s+panda_joint5\s+revolute\s+-0\.08250\s+-90\.0000\s+'
                     r'0\.38400', out)
