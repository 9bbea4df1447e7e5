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
``joint_states`` into a fresh, whole state of a model's joints.

What inverse_dynamics_node, linearization_node and external_torque_node
do with every ``joint_states`` message, in one place:

- read it by joint name, serialized in place (joint_state_cdr) or as a
  message; it may name some of the joints only (an arm's driver and a
  gripper's on one topic);
- refuse a stamp more than ``max_state_age`` older than the node's clock
  or ahead of it (streams.clock_jumps.stamp_problem; a zero stamp means
  "now"; a sim-time clock still at 0, before its first /clock message,
  is said as such);
- merge it with the latest values of the other joints
  (streams.joint_state_merger) and answer only when every joint is fresh,
  a velocity known for each (measured, or estimated from positions; never
  zero).

Each refusal is a BadInput whose ``kind`` ('stale', 'ahead', 'no clock',
'incomplete', 'no velocity', ...) keys its throttled warning.
"""

from rclpy.serialization import deserialize_message
from sensor_msgs.msg import JointState

from .conversions import BadInput, JointStateReader
from .joint_state_cdr import JointStateCdrReader
from .parameters import Spec
from .qos import LOCKSTEP_QOS, STATE_QOS
from ...streams.clock_jumps import DEFAULT_MAX_STATE_AGE, MAX_STATE_AGE, stamp_problem
from ...streams.joint_state_merger import JointStateMerger, MergeProblem, VELOCITY_POLICIES

# What a change of these parameters rebuilds (their table entries).
STATE_INPUT = 'state input'


def state_input_specs(effect, velocities=True):
    """
    Return the Specs of max_state_age (and missing_velocity) of a node.

    ``effect``: what else the age does in that node, in words; without
    ``velocities`` the node refuses states without velocities, always.
    """
    specs = [Spec(
        'max_state_age', 'double', DEFAULT_MAX_STATE_AGE,
        "oldest joint state used, s, against the node's clock: a state "
        'stamped longer ago (a stalled driver) or that far ahead (another '
        'time base) is dropped with a warning, and a joint that another '
        'publisher sends is used while this fresh; %s; 0: no check, and '
        'every message must name every joint' % effect,
        low=0.0, high=MAX_STATE_AGE, rebuilds=STATE_INPUT)]
    if velocities:
        specs.append(Spec(
            'missing_velocity', 'string', 'estimate',
            'for joints whose joint_states carry no velocity: estimate: '
            'difference their last two positions; refuse: no state (with a '
            'warning) until velocities come', choices=VELOCITY_POLICIES,
            rebuilds=STATE_INPUT))
    return specs


def lockstep_spec(answer):
    """Return the Spec of ``lockstep`` for a node that answers on ``answer``."""
    return Spec(
        'lockstep', 'bool', False,
        'answer every joint state of a simulator_node in lockstep (its '
        'lockstep_peers names %s): joint_states read reliably, none '
        'dropped, and a state stamped ahead of the node clock is used (the '
        "simulator's /clock for it may come just after it); "
        'doc/theory/lockstep.md' % answer, read_only=True)


def state_qos(node):
    """Return the QoS of ``node``'s joint_states input (lockstep or not)."""
    return LOCKSTEP_QOS if node.get_parameter('lockstep').value \
        else STATE_QOS


NO_CLOCK = ('the node clock reads 0 s: use_sim_time is true and no /clock '
            'message has come yet (states are used from the first one on)')


def node_seconds(node):
    """Return a function giving ``node``'s clock in seconds (cheap)."""
    handle = node.get_clock().handle
    # Clock.now() builds a Time (microseconds at 1 kHz); the handle's
    # reading is the same clock (sim time with use_sim_time).
    return lambda: handle.get_now().nanoseconds * 1e-9


class JointStateInput:
    """
    The state of ``model``'s joints from every ``joint_states`` message.

    ``now()``: the node's clock, s; ``max_state_age``: s (0: no check of
    the stamps, and no merging: without an age limit a joint heard of once
    would be used forever, so each message must name every joint, as
    before); ``velocities``: 'estimate' or 'refuse' for joints a publisher
    gives no velocity for.
    """

    def __init__(self, model, now, max_state_age, velocities='estimate',
                 lockstep=False):
        """
        Read ``model.joint_names``; ``now`` is the node's clock.

        ``lockstep``: the states come from a simulator in lockstep, whose
        stamps are its time: one ahead of the node clock (its /clock not
        heard yet, or none at all yet) is taken as now, not refused.
        """
        self.now = now
        self.lockstep = lockstep
        self.max_state_age = float(max_state_age)
        whole = self.max_state_age <= 0.0
        self.reader = JointStateReader(model.joint_names, True, whole)
        self.cdr_reader = JointStateCdrReader(model.joint_names, True, whole)
        self.merger = JointStateMerger(model.joint_names, max_state_age,
                                       velocities, model.continuous)

    def serialized(self, data, velocity=True):
        """Return (stamp (sec, nanosec), t s, MergedState) of ``data``."""
        read = self.cdr_reader(data)
        if read is None:   # not read in place: as a message
            try:
                msg = deserialize_message(data, JointState)
            except Exception as error:  # noqa: B902 (whatever rclpy raises)
                raise BadInput('not a JointState (%s)' % type(
                    error).__name__, 'not a JointState')
            return self.message(msg, velocity)
        return self.take(*read, velocity)

    def message(self, msg, velocity=True):
        """Return (stamp (sec, nanosec), t s, MergedState) of a JointState."""
        arrays, joints = self.reader(msg)
        stamp = msg.header.stamp
        return self.take((stamp.sec, stamp.nanosec), arrays, joints, velocity)

    def take(self, stamp, arrays, joints, velocity=True):
        """Merge one message's values; return the state (else BadInput)."""
        now = self.now()
        sec, nanosec = stamp
        if sec == 0 and nanosec == 0:   # "now": stamped on receipt
            t = now
            sec, nanosec = divmod(int(round(now * 1e9)), 1000000000)
        else:
            t = sec + 1e-9 * nanosec
            if self.lockstep and t > now:
                now = t
            problem = stamp_problem(t, now, self.max_state_age)
            if problem is not None:
                if now == 0.0:
                    # Only sim time reads 0: no /clock message yet (a node
                    # started beside a simulation that already runs).
                    raise BadInput(NO_CLOCK, 'no clock')
                raise BadInput(problem.text, problem.kind)
        self.merger.update(t, arrays.position, arrays.velocity, arrays.effort,
                           joints)
        try:
            state = self.merger.state(now, velocity)
        except MergeProblem as problem:
            raise BadInput(str(problem), problem.kind)
        return (sec, nanosec), t, state
