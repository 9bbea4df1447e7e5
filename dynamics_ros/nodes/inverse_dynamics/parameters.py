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

"""inverse_dynamics_node's parameters (doc/nodes/inverse_dynamics_node.md)."""

from ..shared.friction_input import friction_file_reason
from ..shared.joint_state_input import lockstep_spec, STATE_INPUT, state_input_specs
from ..shared.parameters import ParameterTable, Spec
from ...control.reference_sampler import JUMP_POLICIES
from ...control.retime import TRAJECTORY_MODES
from ...control.saturation import check_limits, MAX_SCALE
from ...streams.clock_jumps import JUMP_BOUND

MODES = ('gravity', 'inverse_dynamics', 'computed_torque')

# Gains of computed torque: kp = w^2, kd = 2 zeta w for a closed-loop
# natural frequency w; w = 1000 rad/s (kp 1e6, kd 2e3 critically damped)
# is beyond any joint_states rate, so the bounds refuse only typos.
MAX_KP = 1e6   # 1/s^2
MAX_KD = 1e4   # 1/s
# Joint accelerations beyond this are typos (.inf: no limit).
MAX_ACCELERATION = 1e6   # rad/s^2


def effort_limits_reason(limits, model=None):
    """Return a reason if ``limits`` are not per-joint effort limits."""
    return check_limits(limits, None if model is None else model.nq)


PARAMETERS = ParameterTable([
    Spec('mode', 'string', 'gravity',
         'gravity: g(q); inverse_dynamics: RNEA of the reference; '
         'computed_torque: M(q) (qdd_d + kp e + kd de) + h(q, qd)',
         choices=MODES),
    Spec('kp', 'per_joint', 100.0,
         'computed_torque position gains, 1/s^2: one for every joint, or '
         'one per joint in joints order', low=0.0, high=MAX_KP,
         rebuilds='gains'),
    Spec('kd', 'per_joint', 20.0,
         'computed_torque velocity gains, 1/s: one for every joint, or one '
         'per joint in joints order', low=0.0, high=MAX_KD,
         rebuilds='gains'),
    Spec('saturate', 'bool', True,
         'clip every published effort to the effort limits; false: publish '
         'them unclipped', rebuilds='effort limits'),
    Spec('effort_limit_scale', 'double', 1.0,
         "factor on the effort limits in use (the URDF's or effort_limits)",
         low=0.0, low_open=True, high=MAX_SCALE, rebuilds='effort limits'),
    Spec('effort_limits', 'double[]', None,
         'per-joint limits in joints order, N m (N for a prismatic joint), '
         ".inf: no limit for that joint; unset or []: the URDF's <limit "
         'effort> (a joint without one is not limited)',
         infinite=True, check=effort_limits_reason, dynamic=True,
         constraint='> 0 each (.inf: none), one per joint',
         rebuilds='effort limits',
         unset_hint=': set [] for the URDF limits, or saturate false for '
         'none'),
    Spec('friction_file', 'string', '',
         'friction YAML as python -m dynamics_ros identify writes it, added '
         "to the torques; '' = none", check=friction_file_reason,
         rebuilds='friction model'),
    Spec('trajectory_mode', 'string', 'annotate',
         'trajectory_in -> trajectory_out: annotate: as it came, with the '
         'efforts at its points; retime: when it exceeds a limit, the '
         'time-optimal timing of its waypoints within the limits',
         choices=TRAJECTORY_MODES),
    Spec('trajectory_margin', 'double', 1.0,
         'fraction of every limit (effort, velocity, acceleration) a '
         'trajectory may use; 0.9 leaves 10 % to the feedback',
         low=0.0, low_open=True, high=1.0),
    Spec('acceleration_limits', 'per_joint', float('inf'),
         'joint acceleration limits for the trajectory check and retiming, '
         'rad/s^2 (m/s^2): one for every joint, or one per joint in joints '
         'order; .inf: none (a URDF gives none)',
         low=0.0, low_open=True, high=MAX_ACCELERATION, infinite=True),
    Spec('follow_payload', 'bool', False,
         'apply every geometry_msgs/InertiaStamped on payload (as '
         'payload_estimation_node publishes it) as the payload.* '
         'parameters; its frame must be the tip link'),
    Spec('jump_policy', 'string', 'hold',
         "when the joint states' time goes back by more than "
         'max_state_age or leaps ahead by more than %g s (/clock jumped, '
         'the simulator restarted): hold: drop the trajectory, hold the '
         'current position; re-anchor: resume the trajectory where it '
         'was' % JUMP_BOUND, choices=JUMP_POLICIES, rebuilds=STATE_INPUT),
] + state_input_specs('the reference pauses over a gap in the states '
                      'longer than this') + [lockstep_spec(
                          'feedforward; a trajectory on joint_trajectory '
                          'stamped ahead of the states then takes over at '
                          'the first state at or after its stamp')])
