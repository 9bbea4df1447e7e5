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
A subscription served by a thread of its own.

rclpy's stock executors rebuild their wait set in Python and wrap every
callback in a task on every wake-up; for a 1 kHz topic that costs more CPU
than the dynamics.  ``DedicatedSubscription(node, msg_type, topic,
callback, qos)`` creates the subscription on a hidden helper node
(``_<node>_<topic>``: no parameter services, no rosout, no QoS event
handlers) and spins that node alone with rclpy's public
``rclpy.experimental.EventsExecutor`` (its event loop is C++) on a daemon
thread.  So the topic neither waits behind the node's other callbacks
(parameter services, timers) nor delays them: a 10,000-point trajectory's
deserialization does not hold up a parameter call.  The topic is resolved
by ``node`` first, so namespaces and remaps given to the node apply.  The
callback runs on the thread: guard shared state with a lock.  An exception
from the callback is logged and the thread goes on.  ``destroy()`` stops
the thread (within 0.1 s) and destroys the helper node; call it before
shutting rclpy down.  With ``raw=True`` the callback gets each message's
serialized bytes (rclpy's raw subscription), to read as it likes.
"""

import threading
import traceback

import rclpy
from rclpy.event_handler import SubscriptionEventCallbacks
from rclpy.executors import ExternalShutdownException
from rclpy.experimental import EventsExecutor
from rclpy.parameter import Parameter

WAIT_S = 0.1  # how soon the thread notices destroy()


def helper_subscription(node, msg_type, topic, callback, qos, raw=False):
    """
    Return (helper node, subscription) of ``topic`` beside ``node``.

    The helper (``_<node>_<topic>``) has no parameter services, no rosout
    and no QoS event handlers; ``node`` resolves the topic, so its
    namespace and remaps apply.
    """
    resolved = node.resolve_topic_name(topic)
    helper = rclpy.create_node(
        '_%s%s' % (node.get_name(), resolved.replace('/', '_')),
        context=node.context, namespace=node.get_namespace(),
        use_global_arguments=False, enable_rosout=False,
        start_parameter_services=False, parameter_overrides=[
            Parameter('start_type_description_service', value=False)])
    return helper, helper.create_subscription(
        msg_type, resolved, callback, qos, raw=raw,
        event_callbacks=SubscriptionEventCallbacks(
            use_default_callbacks=False))


class DedicatedSubscription:
    """Subscribe ``callback`` to ``topic`` on a thread of its own."""

    def __init__(self, node, msg_type, topic, callback, qos, raw=False):
        """Create the helper node, the subscription and the thread."""
        self.context = node.context
        self.logger = node.get_logger()
        self.callback = callback
        self.node, self.subscription = helper_subscription(
            node, msg_type, topic, self._call, qos, raw)
        self.executor = EventsExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.stopping = threading.Event()
        self.thread = threading.Thread(
            target=self._serve, daemon=True,
            name='dedicated ' + self.subscription.topic_name)
        self.thread.start()

    def _serve(self):
        """Spin the helper node until stopped or rclpy shuts down."""
        try:
            while not self.stopping.is_set() and self.context.ok():
                self.executor.spin_once(timeout_sec=WAIT_S)
        except ExternalShutdownException:
            pass
        except Exception:  # noqa: B902 (context gone: stop quietly)
            if not (self.stopping.is_set() or not self.context.ok()):
                raise

    def _call(self, msg):
        """Run the callback; log (not raise) what it raises."""
        try:
            self.callback(msg)
        except Exception:  # noqa: B902 (a node bug must not stop input)
            self.logger.error('callback failed:\n%s' % traceback.format_exc())

    def destroy(self):
        """Stop the thread, then destroy the executor and the helper node."""
        self.stopping.set()
        self.thread.join(2.0)
        self.executor.shutdown()
        self.node.destroy_node()
