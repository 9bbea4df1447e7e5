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

"""payload_estimation_node's parameters (doc/nodes/payload_estimation_node.md)."""

from ..shared.friction_input import friction_file_reason
from ..shared.parameters import ParameterTable, Spec
from ...estimation.payload import AUTO, DEFAULT_CUTOFF, MAX_COM_STD, MOTION, STATIC

# A window of 10 minutes at 1 kHz is 600,000 joint states: the bound
# refuses only typos.
MAX_WINDOW = 600.0   # s

PARAMETERS = ParameterTable([
    Spec('window', 'double', 10.0,
         'seconds of recent joint states the estimation uses',
         low=0.0, low_open=True, high=MAX_WINDOW),
    Spec('mode', 'string', AUTO,
         'static: still poses (mass and com); motion: inertia too; auto: '
         'motion when at least half the window moves',
         choices=(AUTO, STATIC, MOTION)),
    Spec('friction_file', 'string', '',
         'joint friction YAML (python -m dynamics_ros identify) subtracted '
         'from the efforts; empty: none', check=friction_file_reason),
    Spec('cutoff', 'double', DEFAULT_CUTOFF,
         'low-pass cut-off of a motion estimate, Hz', low=0.0,
         low_open=True, high=100.0),
    Spec('max_com_std', 'double', MAX_COM_STD,
         'largest standard deviation of the centre of mass accepted, m',
         low=0.0, low_open=True, high=1.0),
])
