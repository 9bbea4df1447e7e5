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


"""identify on a description with a gripper names its mimic joints."""

import dynamics_ros as dr
from dynamics_ros.errors import IdentificationError
from dynamics_ros.identification.pipeline import prepare
from oracle import robots_directory
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
