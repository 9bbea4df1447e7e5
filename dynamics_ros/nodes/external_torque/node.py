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
external_torque_node: external joint torques, wrench and collisions.

Beside a robot driver (or ``simulator_node``), the generalized-momentum
observer (dynamics_ros.estimation, Haddadin, De Luca and Albu-Schaeffer
2017) estimates from ``joint_states`` - positions, velocities and the
measured efforts - the torques something other than the actuators applies,
with no force sensor; it publishes them (``external_torques``), the wrench
on a link that explains them (``external_wrench``) and a latched
``collision`` flag.  Topics, parameters (``external_torque/parameters.py``)
and behaviour: doc/nodes/external_torque_node.md and
doc/workflows/external_torques.md.
With ``follow_payload``, every geometry_msgs/InertiaStamped on ``payload``
(payload_estimation_node's estimate) becomes the ``payload.*`` parameters:
the observer starts over on the model holding it.
"""

from builtin_interfaces.msg import Time
from geometry_msgs.msg import WrenchStamped
import numpy as np
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool
from std_srvs.srv import Trigger

from .parameters import PARAMETERS
from ..shared.conversions import BadInput, joint_state_message
from ..shared.entry_point import entry_point
from ..shared.friction_input import load_friction
from ..shared.joint_state_input import JointStateInput, node_seconds, state_qos
from ..shared.model_source import model_index, ModelSource, NO_MODEL
from ..shared.parameters import per_joint_values, publishers
from ..shared.payload_input import follow_payload_topic
from ..shared.qos import DESCRIPTION_QOS
from ..shared.throttled_warnings import node_warnings
from ...estimation.collision import CollisionDetector, DEFAULT_HYSTERESIS, DEFAULT_THRESHOLD
from ...estimation.momentum_observer import DEFAULT_GAIN, MomentumObserver
from ...estimation.wrench import external_wrench
from ...model.summary import chain_tip_link
from ...reasons import names_text, quote

# The latched collision state: reliable, transient-local, depth 1 (as
# robot_description), so a late subscriber gets the current state.
COLLISION_QOS = DESCRIPTION_QOS


class ExternalTorqueNode(Node):
    """External joint torques, wrench and collision from joint_states."""

    def __init__(self, **kwargs):
        """Declare parameters, topics, the service and the model source."""
        super().__init__('external_torque_node', **kwargs)
        self.model = None
        self.observer = None
        self.friction = self.friction_path = None
        self.detector = None
        self.input = None
        # The first choice of link is in the model line; changes get one.
        self.wrench_choice_logged = False
        PARAMETERS.declare(self)
        PARAMETERS.refuse_at_start(self)
        self.seconds = node_seconds(self)
        self.warnings = node_warnings(self)
        self.torque_publisher, self.wrench_publisher = publishers(
            self, (JointState, 'external_torques'),
            (WrenchStamped, 'external_wrench'))
        self.collision_publisher = self.create_publisher(
            Bool, 'collision', COLLISION_QOS)
        self.collision_publisher.publish(Bool(data=False))
        self.source = ModelSource(self, self.on_model)
        if self.model is not None:   # sizes and links, now they are known
            PARAMETERS.refuse_at_start(self, self.model)
            self.configure()
        self.add_on_set_parameters_callback(self.on_set_parameters)
        self.add_post_set_parameters_callback(self.after_set_parameters)
        self.create_service(Trigger, '~/reset_observer', self.on_reset)
        self.subscription = self.create_subscription(
            JointState, 'joint_states',
            self.warnings.dropping('joint_states', self.on_joint_state),
            state_qos(self))
        # With follow_payload, an estimated payload joins the model: what
        # the arm holds is no longer an external torque.
        self.payload_subscription = follow_payload_topic(
            self, self.warnings, lambda: self.model)

    # -- parameters -----------------------------------------------------

    def on_set_parameters(self, parameters):
        """Refuse invalid gains, thresholds, links with the reason."""
        return PARAMETERS.set_result(parameters, self.model)

    def after_set_parameters(self, parameters):
        """Apply new observer and detector settings (state kept)."""
        if self.model is not None and any(p.name in PARAMETERS
                                          for p in parameters):
            self.configure()
            if any(p.name == 'max_state_age' for p in parameters):
                self.read_states()

    def read_states(self):
        """Read joint_states with max_state_age in force."""
        # The momentum needs measured velocities: none are estimated.
        self.input = JointStateInput(
            self.model, self.seconds,
            self.get_parameter('max_state_age').value, 'refuse',
            self.get_parameter('lockstep').value)

    def per_joint(self, name):
        """Return parameter ``name`` (1 or n values, joints order), model order."""
        return per_joint_values(self.get_parameter(name).value,
                                self.model.nq, self.index)

    def configure(self):
        """Make observer and detector use the parameters; keep their state."""
        gain = self.per_joint('gain')
        order = self.get_parameter('order').value
        max_gap = self.get_parameter('max_gap').value
        path = self.get_parameter('friction_file').value
        if path != self.friction_path:
            self.friction_path = path
            self.friction = load_friction(self.get_logger(), path, self.model)
        if self.observer is None:
            self.observer = MomentumObserver(self.model, gain, order, max_gap,
                                             friction=self.friction)
        else:
            self.observer.friction = self.friction
            self.observer.set_gain(gain)
            self.observer.max_gap = float(max_gap)
            if order != self.observer.order:
                # The filter starts where the residual is: no jump.
                self.observer.filtered = self.observer.residual.copy()
                self.observer.order = order
        thresholds = self.per_joint('thresholds')
        hysteresis = float(self.get_parameter('hysteresis').value)
        if self.detector is None:
            self.detector = CollisionDetector(thresholds, hysteresis,
                                              self.model.nq)
        else:
            self.detector.thresholds = thresholds
            self.detector.hysteresis = hysteresis
        self.choose_wrench_link()
        self.damping = float(self.get_parameter('wrench_damping').value)

    def choose_wrench_link(self):
        """
        Set the link and frame of external_wrench; say so when they change.

        ``link``, else ``tip_link``, else the link at the end of the
        model's chain (``model.summary.chain_tip_link``): the tip, where a
        tool meets the world.  No wrench only for a link that is not the
        model's (or a model with no chain to speak of), said once.
        """
        link = self.get_parameter('link').value or \
            self.get_parameter('tip_link').value or chain_tip_link(
                self.model)
        frame = self.get_parameter('frame').value or link
        why_not = None
        if link is None:
            why_not = 'model %s has no serial chain from its base (set link)' \
                % quote(self.model.name)
        for name, value in (('link', link), ('frame', frame)):
            if why_not is None and value not in self.model.frames:
                why_not = '%s %s is not a link of model %s (links: %s)' % (
                    name, quote(value), quote(self.model.name),
                    names_text(sorted(self.model.frames)))
        if why_not is not None:
            link = frame = None
        choice = (link, frame, why_not)
        if choice != getattr(self, 'wrench_choice', None):
            self.wrench_choice = choice
            if why_not is not None:
                self.get_logger().warning('no external_wrench: %s' % why_not)
            elif self.wrench_choice_logged:
                self.get_logger().info(self.wrench_text())
            self.wrench_choice_logged = True
        self.wrench_link, self.wrench_frame = link, frame

    def wrench_text(self):
        """Return where external_wrench is estimated, in words."""
        link, frame, why_not = self.wrench_choice
        if why_not is not None:
            return 'none (%s)' % why_not
        return 'external_wrench on link %s in frame %s' % (
            quote(link), quote(frame))

    def loaded_details(self):
        """Return this node's items of the model line (ModelSource)."""
        if self.observer is None or getattr(self, 'wrench_choice',
                                            None) is None:
            return []
        return [('wrench', self.wrench_text())]

    # -- model ------------------------------------------------------------

    def on_model(self, model, joint_names):
        """Use a new model: the observer starts over."""
        self.model = model
        self.joint_names = list(joint_names)
        self.index = model_index(model, joint_names)
        self.read_states()
        self.end_collision('the model changed')
        self.observer = None
        self.friction_path = None   # read again for the new joints
        self.detector = None
        try:
            self.configure()
        except ValueError as error:
            # Per-joint values of the old joint count: say so, use one value.
            self.get_logger().warning(
                'parameters do not fit the new model (%s): gain %g and '
                'threshold %g for every joint until they are set' % (
                    error, DEFAULT_GAIN, DEFAULT_THRESHOLD))
            self.observer = MomentumObserver(model, DEFAULT_GAIN)
            self.detector = CollisionDetector(DEFAULT_THRESHOLD,
                                              DEFAULT_HYSTERESIS, model.nq)
            self.wrench_link = self.wrench_frame = None

    # -- service ------------------------------------------------------------

    def on_reset(self, request, response):
        """Start the observer over."""
        if self.observer is None:
            response.success = False
            response.message = NO_MODEL
            return response
        self.observer.reset()
        self.end_collision('observer reset')
        response.success = True
        response.message = 'observer reset: estimate 0, integral from the ' \
            'next joint state'
        return response

    # -- input ------------------------------------------------------------

    def read(self, msg):
        """Return (stamp, t s, MergedState) of ``msg`` (or BadInput)."""
        # Fresh on the node's clock, every joint (publishers merged).
        (sec, nanosec), t, state = self.input.message(msg)
        if state.effort is None:
            raise BadInput('no effort (the observer needs the measured joint '
                           'torques)', 'no effort')
        return Time(sec=sec, nanosec=nanosec), t, state

    def on_joint_state(self, msg):
        """Update the estimate with one joint state; publish it."""
        if self.model is None:
            raise BadInput(NO_MODEL)
        stamp, t, state = self.read(msg)
        try:
            estimate = self.observer.update(t, state.position,
                                            state.velocity, state.effort)
        except (ValueError, ArithmeticError, np.linalg.LinAlgError) as error:
            raise BadInput('observer: %s' % error, 'observer')
        if estimate.note:
            if estimate.kind == 'repeat':
                # Nothing new to publish.  In lockstep the simulator sends
                # a state again while it waits for a peer: no news either.
                if not self.input.lockstep:
                    self.warnings.warn('observer repeat',
                                       'joint_states: %s' % estimate.note)
                return
            # Keyed by the event, not by its text (which has the times).
            self.warnings.warn('observer ' + estimate.kind,
                               'joint_states: %s' % estimate.note)
        torques = estimate.torques
        if not np.all(np.isfinite(torques)):
            self.warnings.warn('not finite', 'external torques are not '
                               'finite (%s): observer reset' % quote(torques))
            self.observer.reset()
            return
        self.publish(stamp, state.position, torques)

    def publish(self, stamp, q, torques):
        """Publish the torques, the wrench and any change of collision."""
        if self.torque_publisher.get_subscription_count():
            self.torque_publisher.publish(joint_state_message(
                self.joint_names, stamp, effort=torques[self.index]))
        if self.wrench_link is not None and \
                self.wrench_publisher.get_subscription_count():
            self.publish_wrench(stamp, q, torques)
        collision = self.detector.update(torques)
        if self.detector.changed:
            self.log_change(collision, torques)
            self.collision_publisher.publish(Bool(data=collision))

    def publish_wrench(self, stamp, q, torques):
        """Publish the wrench on ``link`` in ``frame`` that explains torques."""
        try:
            wrench = external_wrench(self.model, q, torques, self.wrench_link,
                                     self.wrench_frame, self.damping)
        except (ValueError, KeyError, np.linalg.LinAlgError) as error:
            self.warnings.warn('wrench', 'no external_wrench: %s' % error)
            return
        if not np.all(np.isfinite(wrench)):
            self.warnings.warn('wrench', 'no external_wrench: not finite')
            return
        msg = WrenchStamped()
        msg.header.stamp = stamp
        msg.header.frame_id = self.wrench_frame
        (msg.wrench.torque.x, msg.wrench.torque.y, msg.wrench.torque.z,
         msg.wrench.force.x, msg.wrench.force.y, msg.wrench.force.z) = (
            float(x) for x in wrench)
        self.wrench_publisher.publish(msg)

    def end_collision(self, why):
        """End a collision without a measurement (publish and log it)."""
        if self.detector is not None:
            was = self.detector.collision
            self.detector.reset()
            if was:
                self.get_logger().info('collision ended: %s' % why)
                self.collision_publisher.publish(Bool(data=False))

    def log_change(self, collision, torques):
        """Log a change of the collision decision with the joints."""
        if collision:
            joints = np.flatnonzero(self.detector.joints)
            self.get_logger().warning('collision: %s' % ', '.join(
                '%s %.3g (threshold %.3g)' % (
                    self.model.joint_names[j], torques[j],
                    self.detector.thresholds[j]) for j in joints[:6]))
        else:
            self.get_logger().info(
                'collision ended: every joint below %.0f %% of its '
                'threshold' % (100 * (1 - self.detector.hysteresis)))


main = entry_point(ExternalTorqueNode)

if __name__ == '__main__':
    raise SystemExit(main())
