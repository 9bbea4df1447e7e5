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
Following the ``payload`` topic: an estimate becomes ``payload.*``.

payload_estimation_node publishes what the robot holds as
geometry_msgs/InertiaStamped on ``payload`` (frame = the tip link; mass,
centre of mass and inertia about it, as the ``payload.*`` parameters).  A
node with ``follow_payload`` (inverse_dynamics_node, external_torque_node)
subscribes with ``follow_payload_topic`` and applies each message as one
atomic set of its ``payload.*`` parameters, so ModelSource checks it like
any set and rebuilds the model; a message for another link, or one the
set refuses, is dropped with the reason (BadInput) and the previous payload
stays.
"""

from geometry_msgs.msg import InertiaStamped
from rclpy.parameter import Parameter

from .conversions import BadInput
from .model_source import NO_MODEL
from .qos import DESCRIPTION_QOS
from ...reasons import quote

FOLLOW_PAYLOAD = 'follow_payload'


def payload_parameters(msg):
    """Return the ``payload.*`` Parameters of an InertiaStamped."""
    inertia = msg.inertia
    return [
        Parameter('payload.mass', Parameter.Type.DOUBLE, float(inertia.m)),
        Parameter('payload.com', Parameter.Type.DOUBLE_ARRAY,
                  [float(inertia.com.x), float(inertia.com.y),
                   float(inertia.com.z)]),
        Parameter('payload.inertia', Parameter.Type.DOUBLE_ARRAY,
                  [float(value) for value in (
                      inertia.ixx, inertia.ixy, inertia.ixz, inertia.iyy,
                      inertia.iyz, inertia.izz)])]


def apply_payload(node, msg, model):
    """
    With ``follow_payload``: make ``msg`` the node's ``payload.*``.

    ``model`` is the node's current model (None: none yet, BadInput).  The
    frame must be the link the payload parameters refer to: ``tip_link``,
    else the model's last body.
    """
    if not node.get_parameter(FOLLOW_PAYLOAD).value:
        return
    if model is None:
        raise BadInput(NO_MODEL)
    link = node.get_parameter('tip_link').value or model.body_names[-1]
    if msg.header.frame_id != link:
        raise BadInput('frame %s is not the tip link %s the payload is '
                       'attached to' % (quote(msg.header.frame_id),
                                        quote(link)))
    result = node.set_parameters_atomically(payload_parameters(msg))
    if not result.successful:
        raise BadInput('not applied: %s' % result.reason)
    inertia = msg.inertia
    node.get_logger().info(
        'payload from the payload topic: %.4f kg at [%.4f, %.4f, %.4f] m in '
        '%s' % (inertia.m, inertia.com.x, inertia.com.y, inertia.com.z,
                link), throttle_duration_sec=1.0)


def follow_payload_topic(node, warnings, model_of):
    """
    Subscribe ``node`` to ``payload``; return the subscription.

    ``model_of()`` returns the node's current model; refused messages are
    ``warnings.dropping``'s throttled warnings.
    """
    return node.create_subscription(
        InertiaStamped, 'payload', warnings.dropping(
            'payload', lambda msg: apply_payload(node, msg, model_of())),
        DESCRIPTION_QOS)
