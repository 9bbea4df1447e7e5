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
simulator_node in lockstep with the nodes that answer its joint states.

With ``lockstep`` true, once the simulation thread has published the joint
state of a step (stamp t), it takes no further step until every peer of
``lockstep_peers`` has answered that state: published, on its answer topic
(a sensor_msgs/JointState), a message stamped t.  The answers are keyed by
their stamp, never by their order of arrival.  The answer of
``lockstep_effort_peer`` (inverse_dynamics_node's ``feedforward``: the
efforts it commands, by joint name) is the effort command of the steps
that follow state t, until the next state.  So what the arm does depends
on the states and the answers alone, not on how fast the machine runs them:
PX4's SITL lockstep, with joint_states in place of the sensor messages.

A peer that has answered before and then stays silent for
``lockstep_timeout`` s of wall time (killed, paused, overloaded) is said
once, naming it and the state, and is no longer waited for; with
``lockstep_on_timeout`` 'hold' the arm holds its pose (as on
``command_timeout``) until every peer answers again, with 'continue' the
simulation goes on without it.  A peer that answers again is waited for
again.  A peer that has never answered (still starting) is waited for
without a limit, and said every few seconds; the state is published again
meanwhile, for a peer that subscribed after it went out.
See doc/theory/lockstep.md.
"""

from dataclasses import dataclass
import heapq
import struct
import threading
import time

import numpy as np
from rclpy.serialization import deserialize_message
from sensor_msgs.msg import JointState

from .state import Command
from ..shared.conversions import BadInput, name_index, pick
from ..shared.dedicated_subscription import DedicatedSubscription
from ..shared.qos import LOCKSTEP_QOS
from ...dynamics.bias import gravity_torques
from ...reasons import quote

ON_TIMEOUT = ('hold', 'continue')
# A state waited for is published again this often (wall s), for a peer
# that subscribed after it went out; and a peer that never answered is
# said this often.
REPUBLISH_S = 0.5
WAITING_NOTE_S = 5.0
# Effort answers kept for states not stepped from yet.
KEPT_ANSWERS = 64
STAMP = struct.Struct('<iI')
BIG_STAMP = struct.Struct('>iI')


def stamp_nanoseconds(data):
    """Return the header stamp (ns) of a serialized stamped message."""
    # Every message whose first field is a std_msgs/Header starts, after
    # the 4-byte CDR encapsulation, with int32 sec and uint32 nanosec.
    if len(data) < 12:
        raise BadInput('lockstep answer of %d bytes has no stamp'
                       % len(data))
    layout = STAMP if data[1] == 1 else BIG_STAMP
    sec, nanosec = layout.unpack_from(data, 4)
    return sec * 1000000000 + nanosec


class Peer:
    """One answering node: its topic and what it has answered."""

    def __init__(self, topic):
        """Nothing heard yet: waited for without a limit."""
        self.topic = topic
        self.answered = -1       # newest stamp answered, ns
        self.heard = False       # has answered at least once
        self.waited = True       # the simulation waits for it
        self.silent_since = None  # wall time it missed a state from


class Lockstep:
    """The peers of a lockstep simulator_node and its waits for them."""

    def __init__(self, node, topics, effort_topic, timeout, on_timeout):
        """
        Subscribe to each answer topic (a thread each, raw messages).

        ``effort_topic``: the peer whose answers are effort commands ('' =
        none); it must be one of ``topics``.
        """
        self.node = node
        self.timeout = float(timeout)
        self.on_timeout = on_timeout
        self.condition = threading.Condition()
        self.peers = {topic: Peer(topic) for topic in topics}
        self.effort_topic = effort_topic or None
        self.efforts = {}   # stamp ns -> (names, efforts) of the effort peer
        self.holding = False
        self.waiting_noted = 0.0
        self.subscriptions = [
            DedicatedSubscription(
                node, JointState, topic,
                lambda data, peer=self.peers[topic]: self.on_answer(
                    peer, data), LOCKSTEP_QOS, raw=True)
            for topic in topics]

    def destroy(self):
        """Stop the answer threads and wake a wait."""
        for subscription in self.subscriptions:
            subscription.destroy()
        self.subscriptions = []
        with self.condition:
            self.condition.notify_all()

    # -- answer threads ---------------------------------------------------

    def on_answer(self, peer, data):
        """Note a peer's answer (its stamp); keep an effort answer."""
        stamp = stamp_nanoseconds(data)
        effort = None
        if peer.topic == self.effort_topic:
            msg = deserialize_message(data, JointState)
            effort = (list(msg.name), np.array(msg.effort, dtype=float))
        with self.condition:
            if effort is not None:
                self.efforts[stamp] = effort
                while len(self.efforts) > KEPT_ANSWERS:
                    self.efforts.pop(min(self.efforts))
            if stamp > peer.answered:
                peer.answered = stamp
            peer.heard = True
            peer.silent_since = None
            if not peer.waited:
                peer.waited = True
                self.node.get_logger().info(
                    'lockstep: %s answered again (state at t = %.6f s): '
                    'waited for again' % (quote(peer.topic), stamp * 1e-9))
            self.condition.notify_all()

    # -- simulation thread ------------------------------------------------

    def wait(self, stamp, republish, stopping):
        """
        Wait until every peer waited for has answered the state ``stamp``.

        ``republish()`` publishes that state again; ``stopping`` (an
        Event) ends the wait.  Sets ``holding`` while a peer that timed
        out is missing under 'hold'.
        """
        started = time.monotonic()
        next_publish = started + REPUBLISH_S
        with self.condition:
            while not stopping.is_set():
                missing = [peer for peer in self.peers.values()
                           if peer.waited and peer.answered < stamp]
                if not missing:
                    break
                now = time.monotonic()
                for peer in missing:
                    if peer.heard and now - started >= self.timeout:
                        self.give_up(peer, stamp)
                if now >= next_publish:
                    next_publish = now + REPUBLISH_S
                    self.note_waiting(missing, stamp, now)
                    self.condition.release()
                    try:
                        republish()
                    finally:
                        self.condition.acquire()
                    continue
                self.condition.wait(min(next_publish, started + self.timeout)
                                    - now if any(p.heard for p in missing)
                                    else next_publish - now)
            if self.holding and all(peer.waited
                                    for peer in self.peers.values()):
                self.holding = False
                self.node.get_logger().info(
                    'lockstep: every peer answers again: the hold ends at '
                    't = %.6f s' % (stamp * 1e-9))

    def give_up(self, peer, stamp):
        """Stop waiting for a peer that missed a state (lock held)."""
        peer.waited = False
        self.node.warnings.warn('lockstep ' + peer.topic, (
            'lockstep: %s did not answer the state at t = %.6f s within '
            'lockstep_timeout %g s (wall time): %s until it answers again'
            % (quote(peer.topic), stamp * 1e-9, self.timeout,
               'holding the pose' if self.on_timeout == 'hold'
               else 'going on without it')))
        if self.on_timeout == 'hold':
            self.holding = True
            self.node.lockstep_hold()

    def note_waiting(self, missing, stamp, now):
        """Say every few seconds which peers never answered (lock held)."""
        never = [peer.topic for peer in missing if not peer.heard]
        if never and now - self.waiting_noted >= WAITING_NOTE_S:
            self.waiting_noted = now
            self.node.get_logger().info(
                'lockstep: waiting for the first answer of %s to the state '
                'at t = %.6f s' % (', '.join(quote(t) for t in never),
                                   stamp * 1e-9))

    def effort(self, stamp, joint_names):
        """
        Return the effort answer to state ``stamp`` in ``joint_names`` order.

        None when there is none (no effort peer, it did not answer this
        state, or the arm is held); BadInput for an answer that does not
        name the joints or is not finite.
        """
        if self.effort_topic is None or self.holding:
            return None
        with self.condition:
            answer = self.efforts.pop(stamp, None)
            for old in [s for s in self.efforts if s < stamp]:
                del self.efforts[old]
        if answer is None:
            return None
        names, values = answer
        index = name_index(names, joint_names, 'lockstep effort answer')
        # BadInput for a length that does not fit or a value not finite.
        return pick(values, index, len(names), 'effort', names,
                    'lockstep effort answer')

    def missing(self):
        """Return True while a peer that timed out has not come back."""
        return any(not peer.waited for peer in self.peers.values())


class SimulatorLockstep:
    """Lockstep and inputs stamped ahead of time in SimulatorNode (a mixin)."""

    def start_lockstep(self):
        """Subscribe to the peers' answers if ``lockstep`` is on."""
        self.lockstep = None
        self.awaited = None    # stamp (ns) of the state the peers answer
        self.lockstep_started = False
        self.scheduled = []    # heap of (stamp ns, order, input item)
        self.scheduled_count = 0
        if not self.get_parameter('lockstep').value:
            return
        peers = list(self.optional('lockstep_peers') or [])
        effort = self.get_parameter('lockstep_effort_peer').value
        if effort and effort not in peers:
            raise ValueError('lockstep_effort_peer %s is not one of '
                             'lockstep_peers (%s)' % (
                                 quote(effort), ', '.join(peers) or 'none'))
        self.lockstep = Lockstep(
            self, peers, effort, self.settings['lockstep_timeout'],
            self.settings['lockstep_on_timeout'])
        self.get_logger().info(
            'lockstep: every joint state waits for the answers of %s%s' % (
                ', '.join(quote(p) for p in peers) or 'no peer',
                '; efforts from %s' % quote(effort) if effort else ''))

    def at_stamp(self, stamp, item):
        """
        Return the input item to queue for a message stamped ``stamp`` (s).

        In lockstep, an item stamped ahead of simulated time takes effect
        at its stamp (a trajectory, a push scripted ahead), whatever the
        step it arrived at; otherwise at once.
        """
        if self.lockstep is None or stamp <= self.simulation.simulator.t:
            return item
        return AtStamp(int(round(stamp * 1e9)), item)

    def apply_scheduled(self):
        """Apply the scheduled items that are due (simulation thread)."""
        now = int(round(self.simulation.simulator.t * 1e9))
        while self.scheduled and self.scheduled[0][0] <= now:
            heapq.heappop(self.scheduled)[2].apply(self)

    def lockstep_answers(self):
        """
        Wait for the answers to the state last published; apply its effort.

        Before the first step the initial state is published first.  Steps
        after an unpublished state wait for nothing.  A refused effort
        answer is a throttled warning; the command in force then stays.
        """
        simulation = self.simulation
        if not self.lockstep_started:
            self.lockstep_started = True
            self.publish(simulation, every_step=True)
        stamp = self.awaited
        if stamp is None:
            return
        self.lockstep.wait(stamp, lambda: self.publish(simulation,
                                                       every_step=True),
                           self.stopping)
        self.awaited = None
        try:
            effort = self.lockstep.effort(stamp, simulation.joint_names)
        except BadInput as error:
            self.warnings.warn('lockstep effort', str(error))
            return
        if effort is not None:
            Command('effort', effort).apply(self)

    def lockstep_hold(self):
        """Hold the pose while a peer is missing (simulation thread)."""
        simulation = self.simulation
        simulator = simulation.simulator
        pose = simulator.q.copy()
        simulator.voltage = None
        simulation.commands.hold_pose(pose, gravity_torques(
            simulation.model, pose))
        self.command_timeout.cancel()

    def lockstep_factor(self, factor):
        """Return the pace: at most real time while a peer is missing."""
        if self.lockstep is not None and self.lockstep.missing():
            return min(factor, 1.0) if factor > 0.0 else 1.0
        return factor


@dataclass(frozen=True, slots=True)
class AtStamp:
    """An input item that takes effect at simulated time ``stamp`` (ns)."""

    stamp: int
    item: object

    def apply(self, node):
        """Schedule the item (applied by ``apply_scheduled`` when due)."""
        node.scheduled_count += 1
        heapq.heappush(node.scheduled,
                       (self.stamp, node.scheduled_count, self.item))
