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
linearization_node reads its inputs at each tick, on simulated time.

A tick at 2 Hz finds the 25 states sent at 50 Hz since the last one.
They must all be read, in order: the states carry no velocity, so the
node estimates it from each joint's last two positions, and positions on
a parabola make that estimate name the pair it came from.  The states a
newer one follows are past max_state_age (0.1 s) when the tick reads
them, which is no stalled driver: no warning.
"""

from builtin_interfaces.msg import Time
from conftest import assert_close
import numpy as np
import oracle
from ros_harness import finish, linearization_topics, NodeProcess, \
    reserve_domain_id, RosTester
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Header

DOMAIN_ID = reserve_domain_id(__name__)
NODE = 'linearization_node'
XML = oracle.example_arm_xml('panda')
MODEL, _ = oracle.oracle_for(XML)
RATE = 2.0          # Hz of simulated time
STATE_PERIOD = 0.02  # s of simulated time: 25 states per tick
START = 3.0         # s: the simulated time of the first state


def stamp_of(k):
    """Return the stamp of state ``k`` (exact nanoseconds)."""
    nanoseconds = int(round((START + k * STATE_PERIOD) * 1e9))
    return Time(sec=nanoseconds // 10**9, nanosec=nanoseconds % 10**9)


def seconds(stamp):
    """Return a stamp in seconds, as the node reads it."""
    return stamp.sec + 1e-9 * stamp.nanosec


def positions(k):
    """Return state ``k``'s positions: a parabola in k on every joint."""
    return 0.1 + 1e-4 * k * k + 0.01 * np.arange(MODEL.nq)


def test_every_state_since_the_last_tick_is_read_in_order():
    node = NodeProcess(NODE, DOMAIN_ID, {
        'robot_description': XML, 'rate': RATE, 'use_sim_time': True})
    ros = linearization_topics(RosTester(DOMAIN_ID))
    clock = ros.publisher(Clock, '/clock')
    try:
        ros.wait_for_subscriber(ros.states)
        ros.wait_for_subscriber(clock)
        k = 0

        def send_next():
            nonlocal k
            stamp = stamp_of(k)
            # The state's /clock first, as a simulator sends it.
            clock.publish(Clock(clock=stamp))
            ros.states.publish(JointState(
                header=Header(stamp=stamp),
                name=MODEL.joint_names, position=positions(k).tolist()))
            k += 1

        # Ticks at 3.5, 4.0, ... s: wait for four operating points.
        ros.wait_for(lambda: len(ros.point.messages) >= 4, action=send_next,
                     every=0.01, what='four operating points')
    finally:
        finish(node, ros)
    for point in ros.point.messages[1:]:
        # The state it is about, and the one just before it.
        k = int(round((seconds(point.header.stamp) - START) / STATE_PERIOD))
        assert point.header.stamp == stamp_of(k)
        # The newest state at the tick, to the bit.
        assert list(point.position) == positions(k).tolist()
        # (q_k - q_k-1) / dt: the pair of consecutive states, not the
        # newest states of two ticks (which would give about 25x that).
        expected = (positions(k) - positions(k - 1)) / (
            seconds(stamp_of(k)) - seconds(stamp_of(k - 1)))
        assert_close(point.velocity, expected,
                     what='velocity estimated from states k-1 and k')
    stale = ros.warnings(NODE, containing='older than the node clock')
    assert stale == [], stale
