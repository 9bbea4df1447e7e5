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
What every node does with a parameter check's reason, and its publishers.

A node's ``check_*`` function returns None for usable parameters, else the
reason (``dynamics_ros.checks``).  At start a reason stops the node
(``refuse``: ValueError, which the entry point reports); on a parameter set
it is the refusal the caller sees (``set_result``).  ``publishers`` opens
a node's output topics with the one QoS dynamics_ros publishes with.
"""

from rcl_interfaces.msg import SetParametersResult

from .qos import PUBLISH_QOS


def refuse(reason):
    """Raise ValueError(``reason``) unless it is None: a node cannot start."""
    if reason:
        raise ValueError(reason)


def set_result(reason):
    """Return the answer to a parameter set: accepted, or ``reason``."""
    return SetParametersResult(successful=reason is None, reason=reason or '')


def publishers(node, *topics):
    """Return a publisher per (message type, topic) of ``topics``."""
    return [node.create_publisher(kind, topic, PUBLISH_QOS)
            for kind, topic in topics]
