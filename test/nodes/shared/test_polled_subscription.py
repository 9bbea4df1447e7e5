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

"""PolledSubscription: messages kept by DDS until taken, no executor."""

import time

from dynamics_ros.nodes.shared.polled_subscription import PolledSubscription
import pytest
import rclpy
from rclpy.duration import Duration
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from ros_harness import reserve_domain_id
from std_msgs.msg import Float64MultiArray

WAIT_S = 10.0


@pytest.fixture
def context():
    """Yield an rclpy context in a domain of this test's own."""
    context = rclpy.Context()
    rclpy.init(context=context,
               domain_id=reserve_domain_id('polled subscription'))
    yield context
    rclpy.try_shutdown(context=context)


def publish_and_take(publisher, polled, values, expected_count):
    """Publish ``values`` one message each; take until ``expected_count``."""
    for value in values:
        publisher.publish(Float64MultiArray(data=[float(value)]))
    taken = []
    end = time.monotonic() + WAIT_S
    while len(taken) < expected_count and time.monotonic() < end:
        messages, errors = polled.take()
        assert errors == []
        taken.extend(msg.data[0] for msg in messages)
        time.sleep(0.05)
    return taken


def test_messages_wait_in_order_until_taken_and_depth_keeps_the_newest(
        context):
    node = rclpy.create_node('poller', namespace='arm', context=context)
    depth = 4
    qos = QoSProfile(depth=depth, history=HistoryPolicy.KEEP_LAST,
                     reliability=ReliabilityPolicy.RELIABLE)
    # Relative topic: resolved in the node's namespace, as the node's own.
    polled = PolledSubscription(node, Float64MultiArray, 'commands', qos)
    publisher = node.create_publisher(Float64MultiArray, '/arm/commands',
                                      qos)
    end = time.monotonic() + WAIT_S
    while publisher.get_subscription_count() < 1 and \
            time.monotonic() < end:
        time.sleep(0.05)
    assert publisher.get_subscription_count() == 1
    assert polled.take() == ([], [])
    # Nothing spins the helper node: the messages wait for take().
    assert publish_and_take(publisher, polled, [1, 2, 3], 3) == [1.0, 2.0,
                                                                 3.0]
    # More than the history holds, sent before a take: the newest depth.
    for value in range(10, 20):
        publisher.publish(Float64MultiArray(data=[float(value)]))
    # Reliable: acknowledged once in the subscription's history.
    assert publisher.wait_for_all_acked(Duration(seconds=WAIT_S))
    messages, errors = polled.take()
    assert errors == []
    assert [msg.data[0] for msg in messages] == [16.0, 17.0, 18.0, 19.0]
    assert polled.take() == ([], [])
    polled.destroy()
    node.destroy_node()
