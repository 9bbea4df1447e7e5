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

Beside a robot driver (or ``simulator_node``), from the ``joint_states``
it publishes - positions, velocities and the measured joint efforts - the
generalized-momentum observer (dynamics_ros.estimation, Haddadin, De Luca
and Albu-Schaeffer 2017) estimates the torques that something other than
the actuators applies to the joints, with no force sensor.  A node of its
own rather than a mode of inverse_dynamics_node: it needs the driver's
measured efforts, has its own failure modes (a driver that publishes no
effort) and its own rate, and keeps the 1 kHz feed-forward path lean.

Subscribes ``joint_states`` (sensor_msgs/JointState, sensor-data QoS) and
publishes (relative names):

- ``external_torques`` (sensor_msgs/JointState): name and effort (the
  estimate, N m or N) in ``joints`` order, stamped with the joint state;
- ``external_wrench`` (geometry_msgs/WrenchStamped): the wrench on ``link``
  that explains the estimate (damped least squares on its Jacobian),
  expressed in ``frame`` (default ``link``) about its origin, with
  ``header.frame_id`` that frame; only while ``link`` (or ``tip_link``) is
  set and someone subscribes;
- ``collision`` (std_msgs/Bool, reliable, transient-local depth 1: late
  subscribers get the current state): false at start, then every change;
  each change is logged (which joints, their estimate and threshold).

Service ``~/reset_observer`` (std_srvs/Trigger): start the observer over
(estimate 0, integral from the next sample) and end a collision.

Parameters (validated on every set; a refused value is named with its
reason): ``gain`` (K, 1/s: one value, or one per joint in ``joints``
order; default 50, a 20 ms time constant), ``order`` (1, or 2 for the
residual filtered once more), ``thresholds`` (N m or N, one or one per
joint; default 5), ``hysteresis`` (share of a threshold below which a
collision ends, [0, 1), 0.2), ``max_gap`` (s, 0.1: a longer gap between
samples restarts the integral, with a warning), ``link`` and ``frame``
(URDF link names; '' = ``tip_link`` and ``link``), ``wrench_damping``
(singular values of the Jacobian below it are damped, 0.02), and the
model and payload parameters of dynamics_ros.nodes.model_source.

Dropped with a throttled warning, the estimate unchanged: a joint state
without effort (the observer needs the measured torques) or without
velocity, with wrong sizes, non-finite values, missing joints; samples
that do not advance the time.  Mimic joints: the model's coordinates and
every output are the independent joints; mimic joints in ``joint_states``
are ignored.  Nothing non-finite is ever published.
"""

from geometry_msgs.msg import WrenchStamped
import numpy as np
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from rclpy.parameter import Parameter
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool
from std_srvs.srv import Trigger

from .conversions import (BadInput, is_zero_time, joint_state_message,
                          JointStateReader, names_text, quote,
                          ThrottledWarnings, to_seconds)
from .entry_point import entry_point
from .model_source import model_index, ModelSource, NO_MODEL
from .parameters import publishers, refuse, set_result
from .qos import DESCRIPTION_QOS, STATE_QOS
from ..estimation.collision import (check_hysteresis, check_thresholds,
                                    CollisionDetector, DEFAULT_HYSTERESIS,
                                    DEFAULT_THRESHOLD)
from ..estimation.momentum_observer import (check_gain, check_max_gap,
                                            DEFAULT_GAIN, DEFAULT_MAX_GAP,
                                            MomentumObserver)
from ..estimation.wrench import (check_damping, DEFAULT_DAMPING,
                                 external_wrench)

OWN_PARAMETERS = ('gain', 'order', 'thresholds', 'hysteresis', 'max_gap',
                  'link', 'frame', 'wrench_damping')

# The latched collision state: reliable, transient-local, depth 1 (as
# robot_description), so a late subscriber gets the current state.
COLLISION_QOS = DESCRIPTION_QOS


def numbers(value):
    """Return ``value`` (a number or a list of them) as a 1-D float array."""
    if isinstance(value, (str, bool)) or value is None:
        raise ValueError('not a number')
    array = np.asarray(value, dtype=float).reshape(-1)
    return array


def check_own_parameters(values, model=None):
    """
    Return a reason if a value of ``values`` {name: value} is invalid.

    ``model``: the model in use (None: sizes and link names are checked
    when it arrives).  None when all are valid.
    """
    n = None if model is None else model.nq
    for name, check in (('gain', check_gain), ('thresholds',
                                               check_thresholds)):
        if name in values:
            try:
                value = numbers(values[name])
            except (TypeError, ValueError):
                return '%s must be a number or a list of numbers, got %s' % (
                    name, quote(values[name]))
            reason = check(value, n)
            if reason:
                return reason
    if 'order' in values and (isinstance(values['order'], bool)
                              or values['order'] not in (1, 2)):
        return 'order must be 1 or 2, got %s' % quote(values['order'])
    for name, check in (('hysteresis', check_hysteresis),
                        ('max_gap', check_max_gap),
                        ('wrench_damping', check_damping)):
        if name in values:
            if isinstance(values[name], (str, bool)):
                return '%s must be a number, got %s' % (name,
                                                        quote(values[name]))
            reason = check(values[name])
            if reason:
                return reason.replace('damping must', 'wrench_damping must')
    for name in ('link', 'frame'):
        if name in values:
            value = values[name]
            if not isinstance(value, str):
                return '%s must be a link name, got %s' % (name, quote(value))
            if value and model is not None and value not in model.frames:
                return '%s %s is not a link of model %s (links: %s)' % (
                    name, quote(value), quote(model.name),
                    names_text(sorted(model.frames)))
    return None


class ExternalTorqueNode(Node):
    """External joint torques, wrench and collision from joint_states."""

    def __init__(self, **kwargs):
        """Declare parameters, topics, the service and the model source."""
        super().__init__('external_torque_node', **kwargs)
        self.model = None
        self.observer = None
        self.detector = None
        self.reader = None
        self.declare_parameter('gain', DEFAULT_GAIN, ParameterDescriptor(
            description='observer gain K, 1/s (time constant 1/K): one, or '
                        'one per joint in joints order', dynamic_typing=True))
        self.declare_parameter('order', 1, ParameterDescriptor(
            description='1: residual; 2: residual filtered once more'))
        self.declare_parameter('thresholds', DEFAULT_THRESHOLD,
                               ParameterDescriptor(
                                   description='collision thresholds, N m '
                                   'or N: one, or one per joint in joints '
                                   'order', dynamic_typing=True))
        self.declare_parameter('hysteresis', DEFAULT_HYSTERESIS,
                               ParameterDescriptor(
                                   description='a collision ends when every '
                                   'joint is below (1 - hysteresis) x its '
                                   'threshold, [0, 1)'))
        self.declare_parameter('max_gap', DEFAULT_MAX_GAP, ParameterDescriptor(
            description='longest interval between samples integrated, s'))
        self.declare_parameter('link', '', ParameterDescriptor(
            description="link of the external wrench ('' = tip_link)"))
        self.declare_parameter('frame', '', ParameterDescriptor(
            description="frame of the external wrench ('' = link)"))
        self.declare_parameter('wrench_damping', DEFAULT_DAMPING,
                               ParameterDescriptor(
                                   description='damped least squares: '
                                   'singular values of J below it are '
                                   'damped'))
        refuse(check_own_parameters(self.own_values()))
        self.warnings = ThrottledWarnings(self.get_logger())
        self.torque_publisher, self.wrench_publisher = publishers(
            self, (JointState, 'external_torques'),
            (WrenchStamped, 'external_wrench'))
        self.collision_publisher = self.create_publisher(
            Bool, 'collision', COLLISION_QOS)
        self.collision_publisher.publish(Bool(data=False))
        self.source = ModelSource(self, self.on_model)
        if self.model is not None:   # sizes and links, now they are known
            refuse(check_own_parameters(self.own_values(), self.model))
            self.configure()
        self.add_on_set_parameters_callback(self.on_set_parameters)
        self.add_post_set_parameters_callback(self.after_set_parameters)
        self.create_service(Trigger, '~/reset_observer', self.on_reset)
        self.subscription = self.create_subscription(
            JointState, 'joint_states',
            self.warnings.dropping('joint_states', self.on_joint_state),
            STATE_QOS)

    # -- parameters -----------------------------------------------------

    def own_values(self):
        """Return {name: value} of this node's own parameters."""
        return {name: self.get_parameter(name).value
                for name in OWN_PARAMETERS
                if self.get_parameter(name).type_ != Parameter.Type.NOT_SET}

    def on_set_parameters(self, parameters):
        """Refuse invalid gains, thresholds, links with the reason."""
        return set_result(check_own_parameters(
            {p.name: p.value for p in parameters if p.name in OWN_PARAMETERS},
            self.model))

    def after_set_parameters(self, parameters):
        """Apply new observer and detector settings (state kept)."""
        if self.model is not None and any(p.name in OWN_PARAMETERS
                                          for p in parameters):
            self.configure()

    def per_joint(self, name):
        """Return parameter ``name`` (1 or n values, joints order), model order."""
        values = numbers(self.get_parameter(name).value)
        ordered = np.empty(self.model.nq)
        ordered[self.index] = np.broadcast_to(values, (self.model.nq,))
        return ordered

    def configure(self):
        """Make observer and detector use the parameters; keep their state."""
        gain = self.per_joint('gain')
        order = self.get_parameter('order').value
        max_gap = self.get_parameter('max_gap').value
        if self.observer is None:
            self.observer = MomentumObserver(self.model, gain, order, max_gap)
        else:
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
        self.wrench_link = self.get_parameter('link').value or \
            self.get_parameter('tip_link').value or None
        self.wrench_frame = self.get_parameter('frame').value or \
            self.wrench_link
        for name, value in (('link', self.wrench_link),
                            ('frame', self.wrench_frame)):
            if value is not None and value not in self.model.frames:
                self.get_logger().warning(
                    '%s %s is not a link of model %s: no external_wrench '
                    '(links: %s)' % (name, quote(value), quote(
                        self.model.name), names_text(sorted(
                            self.model.frames))))
                self.wrench_link = None
        self.damping = float(self.get_parameter('wrench_damping').value)

    # -- model ------------------------------------------------------------

    def on_model(self, model, joint_names):
        """Use a new model: the observer starts over."""
        self.model = model
        self.joint_names = list(joint_names)
        self.index = model_index(model, joint_names)
        self.reader = JointStateReader(model.joint_names)
        self.end_collision('the model changed')
        self.observer = None
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
        """Return (stamp, JointArrays) of ``msg``, model order (or BadInput)."""
        state = self.reader(msg)
        if state.effort is None:
            raise BadInput('no effort (the observer needs the measured joint '
                           'torques)')
        if len(msg.velocity) == 0:
            raise BadInput('no velocity (the momentum needs the joint '
                           'velocities)')
        stamp = msg.header.stamp
        if is_zero_time(stamp):
            stamp = self.get_clock().now().to_msg()
        return stamp, state

    def on_joint_state(self, msg):
        """Update the estimate with one joint state; publish it."""
        if self.model is None:
            raise BadInput(NO_MODEL)
        stamp, state = self.read(msg)
        try:
            estimate = self.observer.update(to_seconds(stamp), state.position,
                                            state.velocity, state.effort)
        except (ValueError, ArithmeticError, np.linalg.LinAlgError) as error:
            raise BadInput('observer: %s' % error)
        if estimate.note:
            self.warnings.warn(estimate.note[:40], 'joint_states: %s' % (
                estimate.note))
            if estimate.note.startswith('sample'):
                return   # ignored: nothing new to publish
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
