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

"""linearization_node's parameters (doc/nodes/linearization_node.md)."""

from ..shared.friction_input import friction_file_reason
from ..shared.joint_state_input import lockstep_spec, state_input_specs
from ..shared.parameters import ParameterTable, Spec

MIN_RATE = 1e-3  # Hz: one model every 1000 s
MAX_RATE = 1e3  # Hz: a linearization every millisecond
MAX_DT = 1.0  # s: longer zero-order holds overflow for a stiff arm

PARAMETERS = ParameterTable([
    Spec('rate', 'double', 10.0, 'publication rate of A and B, Hz',
         low=MIN_RATE, high=MAX_RATE, rebuilds='timer'),
    Spec('discrete_dt', 'double', 0.0,
         '> 0: zero-order-hold discrete model x[k+1] = A x[k] + B u[k] '
         'with this sample time, s; 0: continuous dx/dt = A x + B u',
         low=0.0, high=MAX_DT),
    Spec('friction_file', 'string', '',
         'identified joint friction YAML (python -m dynamics_ros identify): '
         'the model is linearized at the torque left after friction and A '
         "gets its slope (viscous and smoothed Coulomb); '' = none",
         check=friction_file_reason, rebuilds='friction model'),
] + state_input_specs('no model is published about an older state') + [
    lockstep_spec('state_space/operating_point; A, B and the operating '
                  'point are then published for every state, at its stamp, '
                  'about the effort the state carries (the one the '
                  'simulator applied), not at rate')])
