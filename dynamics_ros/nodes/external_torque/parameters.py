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

"""external_torque_node's parameters (doc/nodes/external_torque_node.md)."""

from ..shared.friction_input import friction_file_reason
from ..shared.joint_state_input import lockstep_spec, state_input_specs
from ..shared.parameters import ParameterTable, Spec
from ...estimation.collision import (check_hysteresis, check_thresholds, DEFAULT_HYSTERESIS,
                                     DEFAULT_THRESHOLD)
from ...estimation.momentum_observer import (check_gain, check_max_gap, DEFAULT_GAIN,
                                             DEFAULT_MAX_GAP, MAX_GAIN)
from ...estimation.wrench import check_damping, DEFAULT_DAMPING
from ...reasons import names_text, quote

# Bounds that refuse only typos: a collision threshold above 1e6 N m never
# triggers, a gap of 10 s is no longer one signal, and a damping far above
# any singular value of a Jacobian (m, 1) leaves no wrench.
MAX_THRESHOLD = 1e6   # N m or N
MAX_GAP = 10.0   # s
MAX_DAMPING = 1e3


def joint_count(model):
    """Return the number of joints of ``model`` (None: no model yet)."""
    return None if model is None else model.nq


def order_reason(value, model=None):
    """Return a reason unless the observer order is 1 or 2."""
    if value in (1, 2):
        return None
    return 'order must be 1 or 2, got %s' % quote(value)


def damping_reason(value, model=None):
    """Return a reason unless the wrench damping is usable."""
    reason = check_damping(value)
    return reason and reason.replace('damping must', 'wrench_damping must')


def link_reason(name):
    """Return a check that ``name`` ('link', 'frame') is a link or ''."""
    def reason(value, model=None):
        if value and model is not None and value not in model.frames:
            return '%s %s is not a link of model %s (links: %s)' % (
                name, quote(value), quote(model.name),
                names_text(sorted(model.frames)))
        return None
    return reason


PARAMETERS = ParameterTable([
    Spec('gain', 'per_joint', DEFAULT_GAIN,
         'observer gain K, 1/s (time constant 1/K): one for every joint, or '
         'one per joint in joints order', low=0.0, low_open=True,
         high=MAX_GAIN, check=lambda value, model: check_gain(
             value, joint_count(model)),),
    Spec('order', 'integer', 1,
         '1: the momentum residual; 2: filtered once more (quieter, slower)',
         check=order_reason, constraint='1 \\| 2'),
    Spec('thresholds', 'per_joint', DEFAULT_THRESHOLD,
         'collision thresholds, N m (N for a prismatic joint): one for every '
         'joint, or one per joint in joints order', low=0.0, low_open=True,
         high=MAX_THRESHOLD, check=lambda value, model: check_thresholds(
             value, joint_count(model))),
    Spec('hysteresis', 'double', DEFAULT_HYSTERESIS,
         'a collision ends when every joint is below (1 - hysteresis) x its '
         'threshold', low=0.0, high=1.0,
         check=lambda value, model: check_hysteresis(value),
         constraint='>= 0 and < 1'),
    Spec('max_gap', 'double', DEFAULT_MAX_GAP,
         'longest interval between samples integrated, s: a longer gap '
         'restarts the integral (warned)', low=0.0, low_open=True,
         high=MAX_GAP, check=lambda value, model: check_max_gap(value)),
    Spec('link', 'string', '',
         "link of external_wrench ('' = tip_link, else the last link of the "
         "model's chain: the tip)",
         check=link_reason('link'), constraint="a link of the model, or ''"),
    Spec('frame', 'string', '',
         "frame external_wrench is expressed in, about its origin ('' = "
         'link)', check=link_reason('frame'),
         constraint="a link of the model, or ''"),
    Spec('friction_file', 'string', '',
         'identified joint friction YAML (python -m dynamics_ros identify) '
         'taken off the efforts before the observer, so direction reversals '
         "are not contacts; '' = none", check=friction_file_reason,
         rebuilds='observer friction'),
    Spec('wrench_damping', 'double', DEFAULT_DAMPING,
         'damped least squares: singular values of the link Jacobian below '
         'it are damped', low=0.0, high=MAX_DAMPING, check=damping_reason),
    Spec('follow_payload', 'bool', False,
         'apply every geometry_msgs/InertiaStamped on payload (as '
         'payload_estimation_node publishes it) as the payload.* '
         'parameters, so a held object is no external torque; its frame '
         'must be the tip link'),
] + state_input_specs('velocities must be measured (the momentum needs '
                      'them)', velocities=False) + [
    lockstep_spec('external_torques')])
