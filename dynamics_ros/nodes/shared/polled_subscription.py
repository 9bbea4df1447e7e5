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
A subscription read when the node wants its messages, not on arrival.

A node that works at its own rate (linearization_node at 10 Hz) needs the
messages that came since its last tick, not a wake-up for each: every
message an executor hands over costs a thread wake-up and a Python
callback (about 0.1 ms of CPU on a small machine), and ``joint_states`` at
1 kHz is 100 of them per tick.  ``PolledSubscription(node, msg_type,
topic, qos)`` subscribes on a hidden helper node (``_<node>_<topic>``:
no parameter services, no rosout, no QoS event handlers) that no
executor spins, so DDS keeps the messages in the subscription's history
(``qos``'s depth: the newest that many) until ``take()`` returns them,
oldest first, with the errors of those that could not be read (a
malformed message is dropped, not raised: the node goes on).  The topic
is resolved by ``node``, so namespaces and remaps given to the node
apply.  ``destroy()`` destroys the helper node; call it before shutting
rclpy down.
"""

from .dedicated_subscription import helper_subscription


class PolledSubscription:
    """Keep ``topic``'s messages until ``take()`` asks for them."""

    def __init__(self, node, msg_type, topic, qos):
        """Create the helper node and its subscription (never spun)."""
        # One take drains at most this many: what arrives meanwhile waits.
        self.limit = 2 * qos.depth + 1
        self.node, self.subscription = helper_subscription(
            node, msg_type, topic, self.never_called, qos)

    @staticmethod
    def never_called(msg):
        """Stand in for the callback rclpy requires (no executor calls it)."""

    def take(self):
        """Return (messages waiting, oldest first; errors) and forget them."""
        subscription = self.subscription
        messages, errors = [], []
        for _ in range(self.limit):
            # What rclpy's executors do for a ready subscription; None once
            # the history is empty.
            try:
                message_and_info = subscription.handle.take_message(
                    subscription.msg_type, subscription.raw)
            except Exception as error:  # noqa: B902 (whatever rclpy raises)
                errors.append(error)
                continue
            if message_and_info is None:
                break
            messages.append(message_and_info[0])
        return messages, errors

    def destroy(self):
        """Destroy the helper node and its subscription."""
        self.node.destroy_node()
