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
payload_estimation_node: what the robot holds, from its recent joint states.

Keeps the last ``window`` seconds of ``joint_states`` (positions and
efforts, sensor_msgs/JointState); the service ``~/estimate_payload``
(std_srvs/Trigger) runs ``dynamics_ros.estimation.payload`` on them with
the arm's model (the model parameters of ``model_source``, without a
payload: this node has no ``payload.*`` parameters) and ``friction_file``.
An accepted estimate is published as geometry_msgs/InertiaStamped on
``payload`` (frame = the tip link: ``tip_link``, else the last body;
reliable, transient-local: a late subscriber gets the latest) with a log
line of mass and centre of mass with their standard deviations; the
answer's message says the same.  A refused estimate (no effort, a joint
missing, too little motion, a mass or com not credible) publishes
nothing, so the previous payload stays, and the answer says why.
``inverse_dynamics_node`` with ``follow_payload`` applies what it hears on
``payload``.
"""

from collections import deque

from geometry_msgs.msg import InertiaStamped
import numpy as np
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger

from .parameters import PARAMETERS
from ..shared.conversions import BadInput, is_zero_time, JointStateReader, to_seconds
from ..shared.entry_point import entry_point
from ..shared.friction_input import cached_friction
from ..shared.model_source import ModelSource, NO_MODEL
from ..shared.qos import DESCRIPTION_QOS, STATE_QOS
from ..shared.throttled_warnings import node_warnings
from ...errors import IdentificationError
from ...estimation.payload import estimate_payload
from ...identification.recording import Recording


def inertia_message(estimate, stamp):
    """Return the InertiaStamped of a PayloadEstimate."""
    msg = InertiaStamped()
    msg.header.stamp = stamp
    msg.header.frame_id = estimate.link
    msg.inertia.m = float(estimate.mass)
    msg.inertia.com.x, msg.inertia.com.y, msg.inertia.com.z = (
        float(c) for c in estimate.com)
    (msg.inertia.ixx, msg.inertia.ixy, msg.inertia.ixz, msg.inertia.iyy,
     msg.inertia.iyz, msg.inertia.izz) = (float(v)
                                          for v in estimate.inertia_six())
    return msg


class PayloadEstimationNode(Node):
    """Estimate the payload on request from a window of joint states."""

    def __init__(self, **kwargs):
        """Declare parameters, the topics, the service, the model source."""
        super().__init__('payload_estimation_node', **kwargs)
        self.model = None
        self.reader = None
        self.history = deque()
        PARAMETERS.declare(self)
        PARAMETERS.refuse_at_start(self)
        self.warnings = node_warnings(self)
        self.publisher = self.create_publisher(InertiaStamped, 'payload',
                                               DESCRIPTION_QOS)
        self.source = ModelSource(self, self.on_model, payload=False)
        self.add_on_set_parameters_callback(
            lambda parameters: PARAMETERS.set_result(parameters, self.model))
        self.create_service(Trigger, '~/estimate_payload', self.on_estimate)
        self.subscription = self.create_subscription(
            JointState, 'joint_states',
            self.warnings.dropping('joint_states', self.on_joint_state),
            STATE_QOS)

    def on_model(self, model, joint_names):
        """Use a new model: the history of other joints is forgotten."""
        if self.model is None or model.joint_names != self.model.joint_names:
            self.history.clear()
        self.model = model
        self.reader = JointStateReader(model.joint_names)

    def on_joint_state(self, msg):
        """Keep positions and efforts (model order); drop the oldest."""
        if self.model is None:
            raise BadInput(NO_MODEL)
        state = self.reader(msg)
        if state.effort is None:
            raise BadInput('no effort (the payload is seen in the measured '
                           'joint torques)')
        if not (np.all(np.isfinite(state.position))
                and np.all(np.isfinite(state.effort))):
            raise BadInput('positions or efforts are not finite')
        stamp = msg.header.stamp
        t = to_seconds(self.get_clock().now().to_msg()
                       if is_zero_time(stamp) else stamp)
        if self.history and t <= self.history[-1][0]:
            if t < self.history[0][0]:   # the clock went back: start over
                self.history.clear()
            else:
                raise BadInput('stamp not after the previous one')
        self.history.append((t, state.position, state.effort))
        window = self.get_parameter('window').value
        while self.history and self.history[0][0] < t - window:
            self.history.popleft()

    def recording(self):
        """Return the window as a Recording (IdentificationError: empty)."""
        if not self.history:
            raise IdentificationError('no joint states with efforts received '
                                      'yet')
        times, positions, efforts = zip(*self.history)
        return Recording(self.model.joint_names, np.array(times),
                         np.array(positions), np.array(efforts),
                         source='the last %.3g s of joint_states' % (
                             times[-1] - times[0]))

    def on_estimate(self, request, response):
        """Estimate, publish if credible; the answer says what or why not."""
        response.success = False
        if self.model is None:
            response.message = NO_MODEL
            return response
        path = self.get_parameter('friction_file').value
        link = self.get_parameter('tip_link').value or None
        try:
            friction = cached_friction(path).select(self.model.joint_names) \
                if path else None
            estimate = estimate_payload(
                self.model, self.recording(), link=link, friction=friction,
                mode=self.get_parameter('mode').value,
                cutoff=self.get_parameter('cutoff').value,
                max_com_std=self.get_parameter('max_com_std').value)
        except (IdentificationError, OSError, ValueError,
                np.linalg.LinAlgError) as error:
            response.message = 'payload estimate refused, the previous ' \
                'payload stays: %s' % error
            self.warnings.warn('refused', response.message)
            return response
        self.publisher.publish(inertia_message(
            estimate, self.get_clock().now().to_msg()))
        response.success = True
        response.message = estimate.summary()
        if estimate.notes:
            response.message += '; ' + '; '.join(estimate.notes)
        self.get_logger().info(response.message, throttle_duration_sec=1.0)
        return response


main = entry_point(PayloadEstimationNode)

if __name__ == '__main__':
    raise SystemExit(main())
