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


"""identify's messages: mimic joints named, --holdout 0 fits everything."""

import dynamics_ros as dr
from dynamics_ros.__main__ import main
from dynamics_ros.errors import IdentificationError
from dynamics_ros.identification.pipeline import NO_HOLDOUT, prepare
from dynamics_ros.identification.recording import write_bag
from identification_data import moving_recording
from oracle import example_arm_xml, robots_directory
import pytest


def test_mimic_model_refusal_names_the_joints_and_the_tip_option():
    model = dr.load_urdf(robots_directory()
                         + '/panda_description/urdf/panda.urdf')
    with pytest.raises(IdentificationError) as caught:
        prepare(model, ['unused.bag'])
    assert str(caught.value) == (
        'identification needs a plain model (no mimic joints or flexible '
        'links), got MimicModel with mimic joints panda_finger_joint2 (a '
        "gripper's): cut the model at the arm's last link with --tip "
        '(tip_link)')


def test_holdout_zero_fits_everything_and_leaves_validation_to_the_user(
        tmp_path, capsys):
    urdf = tmp_path / 'panda.urdf'
    urdf.write_text(example_arm_xml('panda'), encoding='utf-8')
    panda = dr.load_urdf(str(urdf))
    bag = str(tmp_path / 'arm')
    write_bag(moving_recording(panda, seconds=8.0), bag, storage='mcap')
    out = str(tmp_path / 'identified.urdf')
    assert main(['identify', bag, '--urdf', str(urdf), '--out', out,
                 '--holdout', '0']) == 0
    printed = capsys.readouterr().out
    assert NO_HOLDOUT in printed and 'held-out torque RMS (N m)' not in \
        printed
    assert dr.load_urdf(out).joint_names == panda.joint_names
    report = (tmp_path / 'identified_report' / 'report.md').read_text(
        encoding='utf-8')
    assert '| all | nan | nan |' in report
