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
The one line a node logs about its model, and where the tip of a chain is.

``loaded_text`` must name what a user checks first when a launch behaves
oddly - the model and its file, the joints in their order, root and tip,
the limits in joints order, the payload, the friction file - and
``chain_tip_link`` must find the link a tool sits on in real URDFs (a
Panda with and without its fingers, a UR, the shipped arms).
"""

import os

from conftest import REPO_ROOT
import dynamics_ros as dr
from dynamics_ros.model.summary import (chain_tip_link, last_body_link,
                                        limits_text, loaded_text)
from oracle import example_arm_xml, robots_directory
import pytest

TWO_LINK = dr.load_urdf(os.path.join(REPO_ROOT, 'urdf',
                                     'two_link_planar.urdf'))


@pytest.mark.parametrize('model, tip', [
    (lambda: dr.load_urdf(example_arm_xml('panda')), 'panda_hand'),
    (lambda: dr.load_urdf(example_arm_xml('ur5')), 'tool0'),
    # Two fingers branch off the hand: the chain ends at its body.
    (lambda: dr.load_urdf(os.path.join(
        robots_directory(), 'panda_description', 'urdf', 'panda.urdf')),
     'panda_hand_tcp'),
    (lambda: dr.load_urdf(os.path.join(REPO_ROOT, 'urdf', 'puma560.urdf')),
     'tool0'),
])
def test_the_tip_of_a_chain_is_the_link_a_tool_sits_on(model, tip):
    assert chain_tip_link(model()) == tip


def test_the_line_names_what_the_node_works_with():
    text = loaded_text(
        TWO_LINK, ['elbow', 'shoulder'], "parameters (urdf_path '/a.urdf')",
        '', (1.5, [0.0, 0.0, 0.05], [0.0] * 6), '/f.yaml',
        [('hold_mode', 'gravity')])
    assert text == (
        "loaded model 'two_link_planar' from parameters (urdf_path "
        "'/a.urdf'); 2 joints elbow, shoulder; root 'base_link', tip whole "
        "tree (last body 'fore_link'); total mass 3.5000 kg; effort limits "
        '[30, 60] N m (N); velocity limits [5, 5] rad/s (m/s); payload 1.5 '
        "kg at [0, 0, 0.05] m in 'fore_link'; joint friction from '/f.yaml'; "
        'hold_mode gravity')


def test_a_node_without_payload_or_friction_leaves_them_out():
    text = loaded_text(TWO_LINK, TWO_LINK.joint_names, 'the topic',
                       'fore_link')
    assert "tip 'fore_link'" in text
    assert 'payload' not in text and 'friction' not in text
    assert last_body_link(TWO_LINK) == 'fore_link'


def test_limits_not_given_are_said_so():
    assert limits_text([0.0, float('inf')], 'N m') == 'none'
    assert limits_text([87.0, 0.0], 'N m') == '[87, none] N m'
