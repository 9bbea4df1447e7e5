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

"""simulator_node's parameters (doc/nodes/simulator_node.md)."""

from .lockstep import ON_TIMEOUT
from ..shared.friction_input import friction_file_reason
from ..shared.parameters import ParameterTable, Spec
from ...sim.controllers import HOLD_MODES
from ...sim.integrators import INTEGRATORS
from ...streams.command_timeout import DEFAULT_COMMAND_TIMEOUT, MAX_COMMAND_TIMEOUT

PID_TERMS = ('kp', 'ki', 'kd', 'max_integral_error')
GAIN_PARAMETERS = tuple('%s_%s' % (prefix, term) for prefix in ('pos', 'vel')
                        for term in PID_TERMS)

# Bounds of the PID terms (N m and s, per rad or rad/s): a 100 kg m^2 joint
# at 1 kHz bandwidth needs kp ~ 4e9; beyond these no step rate keeps the
# loop stable.  max_integral_error may be .inf (no clamp).
PID_BOUNDS = {'kp': 1e10, 'ki': 1e13, 'kd': 1e8, 'max_integral_error': 1e6}
PID_UNITS = {
    'pos': {'kp': 'N m/rad', 'ki': 'N m/(rad s)', 'kd': 'N m s/rad',
            'max_integral_error': 'rad s'},
    'vel': {'kp': 'N m s/rad', 'ki': 'N m/rad', 'kd': 'N m s^2/rad',
            'max_integral_error': 'rad'},
}

SIMULATION = 'simulation'   # what a change of most parameters rebuilds
# Bounds of lockstep_peers: names a ROS topic can have, a handful of peers.
MAX_LOCKSTEP_PEERS = 16


def lockstep_peers_reason(topics, model=None):
    """Return why ``topics`` cannot be the lockstep peers, else None."""
    if len(topics) > MAX_LOCKSTEP_PEERS:
        return 'lockstep_peers names %d topics (at most %d)' % (
            len(topics), MAX_LOCKSTEP_PEERS)
    if len(set(topics)) != len(topics):
        return 'lockstep_peers names a topic twice'
    for topic in topics:
        if not topic or len(topic) > 256 or not all(
                c.isalnum() or c in '_/~{}' for c in topic):
            return 'lockstep_peers: %r is not a topic name' % topic[:64]
    return None


def gain_spec(prefix, term):
    """Return the Spec of PID term ``term`` of the ``prefix`` interface."""
    interface = 'position' if prefix == 'pos' else 'velocity'
    unit = PID_UNITS[prefix][term]
    return Spec(
        '%s_%s' % (prefix, term), 'per_joint', None,
        '%s PID %s, %s: one for every joint, or one per joint; unset: %s' % (
            interface, term, unit, '.inf (no clamp)'
            if term == 'max_integral_error' else 'from pid_bandwidth'),
        low=0.0, high=PID_BOUNDS[term],
        infinite=term == 'max_integral_error', unset_ok=True,
        rebuilds=SIMULATION)


PARAMETERS = ParameterTable([
    Spec('rate', 'double', 1000.0, 'integration rate, Hz', low=1.0,
         high=1e6, rebuilds=SIMULATION),
    Spec('integrator', 'string', 'rk4', 'integration method',
         choices=INTEGRATORS, rebuilds=SIMULATION),
    Spec('real_time_factor', 'double', 1.0,
         'simulated / wall time; 0 = as fast as possible', low=0.0,
         high=1e6),
    Spec('publish_rate', 'double', 100.0,
         'joint_states rate, Hz of simulated time; 0 = every step',
         low=0.0, high=1e6, rebuilds=SIMULATION),
    Spec('publish_clock', 'bool', True,
         'publish /clock (every step, or at clock_rate)'),
    Spec('clock_rate', 'double', 0.0,
         '/clock rate, Hz of simulated time (0 = every step); each '
         'joint_states message has a /clock of its stamp just before it.  '
         'Each /clock wakes every node on use_sim_time, so the launch files '
         'tick at 100 Hz (Gazebo does not tick /clock every step either)',
         low=0.0, high=1e6, rebuilds=SIMULATION),
    Spec('command_timeout', 'double', DEFAULT_COMMAND_TIMEOUT,
         'an effort, velocity or voltage command older than this, s of '
         "simulated time, times out (as joint_trajectory_controller's "
         'cmd_timeout): the joints then hold the pose where it struck '
         '(position PID plus the gravity torques of the model), with one '
         'warning; position commands and trajectories end in a hold of '
         'their own and do not time out; 0: never', low=0.0,
         high=MAX_COMMAND_TIMEOUT),
    Spec('hold_mode', 'string', 'gravity',
         'what holds the joints at start, after ~/reset and for a new model, '
         'until the first command: gravity: the gravity torques of the '
         "simulator's own model at the current pose, every step (exact for "
         'rigid links: the arm stays, a push moves it freely); position: the '
         'position PID at the '
         'pose with those torques as feed-forward (as after a '
         'command_timeout); none: zero effort (the arm falls, as an '
         'unclaimed Gazebo joint); a change applies at the next ~/reset or '
         'model', choices=HOLD_MODES),
    Spec('initial_positions', 'double[]', None,
         'initial joint positions in joints order, the state of the next '
         '~/reset too; unset: zero, or mid-range where zero is outside the '
         'limits', unset_ok=True, rebuilds=SIMULATION),
    Spec('pid_bandwidth', 'double', 10.0,
         "bandwidth of the automatic PID gains, Hz (scaled by each joint's "
         'inertia at the initial positions)', low=0.0, low_open=True,
         high=1e4, rebuilds=SIMULATION),
] + [gain_spec(prefix, term) for prefix in ('pos', 'vel')
     for term in PID_TERMS] + [
    Spec('friction_file', 'string', '',
         'identified joint friction YAML (python -m dynamics_ros identify) '
         "in the plant, beside URDF damping and friction; '' = none",
         check=friction_file_reason, rebuilds=SIMULATION),
    Spec('lockstep', 'bool', False,
         'step in lockstep with the nodes of lockstep_peers: after '
         'publishing a joint state, take no further step until each has '
         'answered it (doc/theory/lockstep.md); inputs stamped ahead of '
         'simulated time (trajectories, pushes) take effect at their stamp',
         read_only=True),
    Spec('lockstep_peers', 'string[]', None,
         'answer topics (sensor_msgs/JointState, stamped with the state '
         "they answer) waited for in lockstep: inverse_dynamics_node's "
         "feedforward, external_torque_node's external_torques, "
         "linearization_node's state_space/operating_point; unset: none",
         unset_ok=True, read_only=True, check=lockstep_peers_reason),
    Spec('lockstep_effort_peer', 'string', '',
         'the peer of lockstep_peers whose answers (JointState effort, by '
         'joint name) are the effort command from the state they answer '
         "to the next: inverse_dynamics_node's feedforward; '' = none",
         read_only=True),
    Spec('lockstep_timeout', 'double', 2.0,
         'wall time, s, a peer that answered before may take to answer a '
         'state before it is said and no longer waited for (a peer that '
         'never answered is waited for without a limit)', low=0.0,
         low_open=True, high=3600.0),
    Spec('lockstep_on_timeout', 'string', 'hold',
         'when a peer times out: hold: the pose is held (position PID plus '
         'the gravity torques, as on command_timeout) until every peer '
         'answers again; continue: the simulation goes on without it',
         choices=ON_TIMEOUT),
    Spec('flexible_config', 'string', '',
         "flexible-link YAML (dynamics_ros.flexible, Mackay 1988); '' = "
         'rigid links', read_only=True),
    Spec('actuator_config', 'string', '',
         'geared DC motors per joint, YAML (dynamics_ros.model.actuators, '
         "Freeman 1985); '' = none", read_only=True),
])
