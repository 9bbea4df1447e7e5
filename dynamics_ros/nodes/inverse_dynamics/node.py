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
inverse_dynamics_node: feed-forward joint torques from joint states.

Every ``joint_states`` message gives one torque vector - gravity, inverse
dynamics of the reference trajectory, or computed torque (``mode``) - on
``effort_commands`` and ``feedforward``, saturated to the effort limits;
``trajectory_in`` is republished on ``trajectory_out`` with the points'
efforts.  With ``follow_payload``, every geometry_msgs/InertiaStamped on
``payload`` (payload_estimation_node's estimate) becomes the ``payload.*``
parameters.  Topics, parameters (``inverse_dynamics/parameters.py``) and
behaviour: doc/nodes/inverse_dynamics_node.md.
"""

import threading

from builtin_interfaces.msg import Time
import numpy as np
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from trajectory_msgs.msg import JointTrajectory

from .effort_saturation import EffortSaturation, finite
from .parameters import PARAMETERS
from .trajectory_retiming import TrajectoryRetiming
from ..shared.conversions import joint_state_message, refuse_mimic_joints, vector_message
from ..shared.dedicated_subscription import DedicatedSubscription
from ..shared.entry_point import entry_point
from ..shared.friction_input import load_friction
from ..shared.joint_state_input import JointStateInput, node_seconds, state_qos
from ..shared.model_source import model_index, ModelSource, NO_MODEL
from ..shared.parameters import per_joint_values, publishers
from ..shared.payload_input import follow_payload_topic
from ..shared.qos import COMMAND_QOS, PUBLISH_QOS
from ..shared.serialized_message import serialized_effort_state, serialized_vector
from ..shared.throttled_warnings import node_warnings
from ..shared.trajectory_conversions import trajectory_arrays
from ...control.computed_torque import computed_torque, saturated_computed_torque
from ...control.reference_sampler import ReferenceSampler, step_note
from ...dynamics.bias import gravity_torques
from ...dynamics.rnea import inverse_dynamics
from ...model.summary import limits_text as per_joint_limits_text


class InverseDynamicsNode(Node):
    """Feed-forward torques (gravity, inverse dynamics, computed torque)."""

    def __init__(self, **kwargs):
        """Declare parameters, topics and the model source."""
        super().__init__('inverse_dynamics_node', **kwargs)
        self.lock = threading.Lock()  # joint_states run on their own thread
        self.model = None
        self.cache = {}
        # The trajectory (or the first position held) and its time watch.
        self.sampler = ReferenceSampler()
        self.last_state = None
        # Set before anything can raise: destroy_node runs on a node that
        # failed to start too (rclpy destroys it at shutdown).
        self.state_subscription = None
        self.trajectory_subscriptions = []
        PARAMETERS.declare(self)
        PARAMETERS.refuse_at_start(self)
        self.seconds = node_seconds(self)
        self.warnings = node_warnings(self)
        self.effort_publisher, self.feedforward_publisher, \
            self.annotated_publisher = publishers(
                self, (Float64MultiArray, 'effort_commands'),
                (JointState, 'feedforward'),
                (JointTrajectory, 'trajectory_out'))
        self.retiming = TrajectoryRetiming(
            self, self.warnings, self.annotated_publisher, PUBLISH_QOS)
        self.source = ModelSource(self, self.on_model)
        if self.model is not None:  # sizes per joint, now they are known
            PARAMETERS.refuse_at_start(self, self.model)
        self.add_on_set_parameters_callback(self.on_set_parameters)
        self.add_post_set_parameters_callback(self.after_set_parameters)
        # The 1 kHz input gets a thread and a tiny executor of its own; so
        # do trajectories, whose conversion from DDS (about 0.1 s for 10,000
        # points) must not hold up the parameter services.  Joint states
        # arrive serialized: read in place (joint_state_cdr), not converted
        # to a Python message first.
        self.state_subscription = DedicatedSubscription(
            self, JointState, 'joint_states',
            self.warnings.dropping('joint_states', self.on_joint_state),
            state_qos(self), raw=True)
        self.payload_subscription = follow_payload_topic(
            self, self.warnings, lambda: self.model)
        self.trajectory_subscriptions = [
            DedicatedSubscription(self, JointTrajectory, topic,
                                  self.warnings.dropping(topic, callback),
                                  COMMAND_QOS)
            for topic, callback in (('joint_trajectory', self.on_trajectory),
                                    ('trajectory_in', self.on_trajectory_in))]

    # -- parameters -----------------------------------------------------

    def on_set_parameters(self, parameters):
        """Refuse a value of the table that is unusable, with the reason."""
        return PARAMETERS.set_result(parameters, self.model)

    def after_set_parameters(self, parameters):
        """Forget what was computed from the parameters (one changed)."""
        if any(p.name in PARAMETERS for p in parameters):
            with self.lock:   # answers compute and cache them under it
                self.cache.clear()
                if self.model is not None and any(p.name in (
                        'max_state_age', 'jump_policy', 'missing_velocity')
                        for p in parameters):
                    self.watch_time()

    def watch_time(self):
        """Read states and watch their time with the parameters in force."""
        age = self.get_parameter('max_state_age').value
        self.input = JointStateInput(
            self.model, self.seconds, age,
            self.get_parameter('missing_velocity').value,
            self.get_parameter('lockstep').value)
        self.sampler.watch(age, self.get_parameter('jump_policy').value)

    def friction(self):
        """Return the JointFriction in model order, None: none (cached)."""
        if 'friction' not in self.cache:
            self.cache['friction'] = load_friction(
                self.get_logger(), self.get_parameter('friction_file').value,
                self.model)
        return self.cache['friction']

    def saturation(self):
        """Return the EffortSaturation in force (cached)."""
        # Built once per model and parameter set, not per message: the
        # cache is cleared by after_set_parameters and on_model.
        saturation = self.cache.get('saturation')
        if saturation is None:
            saturation = self.cache['saturation'] = EffortSaturation(
                self.model, self.index, self.joint_names,
                lambda name: self.get_parameter(name).value, self.warnings)
        return saturation

    def loaded_details(self):
        """Return this node's items of the model line (ModelSource)."""
        # Built afresh: the model line may come before the cache is cleared.
        limits = EffortSaturation(
            self.model, self.index, self.joint_names,
            lambda name: self.get_parameter(name).value, self.warnings).limits
        return [('mode', self.get_parameter('mode').value),
                ('saturation', 'off' if limits is None else
                 per_joint_limits_text(limits, 'N m (N)'))]

    def saturated(self, efforts):
        """Return ``efforts`` (joints order, (n,) or (k, n)) clipped."""
        return self.saturation().saturated(efforts)

    def gains(self, name):
        """Return per-joint gains in model order (ValueError: unfit)."""
        gains = self.cache.get(name)
        if gains is None:   # forgotten when kp / kd or the model change
            gains = self.model_order_gains(name,
                                           self.get_parameter(name).value)
            self.cache[name] = gains
        return gains

    def mode(self):
        """Return the mode parameter (cached like the gains)."""
        mode = self.cache.get('mode')
        if mode is None:
            mode = self.cache['mode'] = self.get_parameter('mode').value
        return mode

    def model_order_gains(self, name, value):
        """Return gains ``value`` (joints order) in model order."""
        reason = PARAMETERS.reason({name: value}, self.model)
        if reason:
            raise ValueError(reason)
        return per_joint_values(value, self.model.nq, self.index)

    # -- model ------------------------------------------------------------

    def on_model(self, model, joint_names):
        """Use a new model; keep the reference if the joints are the same."""
        same_joints = (self.model is not None
                       and self.model.joint_names == model.joint_names)
        with self.lock:
            self.model = model
            self.joint_names = list(joint_names)
            self.index = model_index(model, joint_names)
            self.in_order = np.array_equal(self.index, np.arange(model.nq))
            self.cache.clear()
            # The outputs kept serialized (None: layout not recognised,
            # messages are built instead).
            self.effort_output = serialized_vector(len(joint_names))
            self.feedforward_output = serialized_effort_state(joint_names)
            if not same_joints:
                self.sampler.clear()
                self.last_state = None
            self.watch_time()

    def destroy_node(self):
        """Stop the input threads, then destroy the node."""
        for subscription in [self.state_subscription] + \
                self.trajectory_subscriptions:
            if subscription is not None:
                subscription.destroy()
        self.state_subscription = None
        self.trajectory_subscriptions = []
        return super().destroy_node()

    # -- inputs -----------------------------------------------------------

    def now(self):
        """Return the node clock (sim time if use_sim_time) in seconds."""
        return self.get_clock().now().nanoseconds * 1e-9

    def on_joint_state(self, data):
        """Compute and publish the torques for one serialized joint state."""
        with self.lock:
            if self.model is None:
                self.warnings.ignored('joint_states', NO_MODEL)
                return
            # Fresh and whole (publishers merged); qd where it is used.
            stamp, t, state = self.input.serialized(data, self.uses_qd())
            self.answer(stamp, t, state)

    def uses_qd(self):
        """Return True if the torques use the measured velocities."""
        return self.mode() == 'computed_torque' or (
            self.mode() == 'gravity' and self.friction() is not None)

    def answer(self, stamp, time, state):
        """Compute and publish the torques for a joint state (lock held)."""
        self.last_state = (state.position, state.velocity)
        self.sampler.take_scheduled(time, state.position, state.velocity)
        try:
            efforts = self.efforts(time, state.position, state.velocity)
        except (ValueError, ArithmeticError, np.linalg.LinAlgError) as error:
            reason = 'computation failed: %s' % error
            self.warnings.warn('computation failed',
                               'no torques published: %s' % reason)
            return
        self.publish(efforts, *stamp)

    def reference(self, time):
        """Return the desired q, qd and qdd at ``time`` in model order."""
        desired, step = self.sampler.sample(time, self.last_state[0])
        if step.kind in ('gap', 'forward', 'back'):
            self.warnings.warn('reference ' + step.kind, lambda: step_note(
                step, self.sampler.jump_policy))
        return desired

    def efforts(self, time, q, qd):
        """
        Return the efforts to publish: joints order, saturated, finite.

        Computed torque on a plain model without friction (the 1 kHz case)
        is one compiled call with the saturation
        (``saturated_computed_torque``); every other case is ``torques``,
        then ``saturated``.
        """
        saturation = self.saturation()
        limits = saturation.model_order
        if limits is None or self.mode() != 'computed_torque' or \
                self.friction() is not None:
            tau = self.torques(time, q, qd)
            return saturation.saturated(
                tau if self.in_order else tau[self.index])
        tau, clipped, count = saturated_computed_torque(
            self.model, q, qd, *self.reference(time), self.gains('kp'),
            self.gains('kd'), limits)
        finite(clipped)
        if self.in_order:
            ordered = clipped
        else:
            ordered, tau = clipped[self.index], tau[self.index]
        if count:
            saturation.warn(tau, ordered != tau)
        return ordered

    def torques(self, time, q, qd):
        """Return tau (model order) for the current mode (else ValueError)."""
        mode = self.mode()
        if mode == 'gravity':
            tau = gravity_torques(self.model, q)
        elif mode == 'inverse_dynamics':
            desired = self.reference(time)
            tau = inverse_dynamics(self.model, *desired)
        else:
            kp, kd = self.gains('kp'), self.gains('kd')
            tau = computed_torque(self.model, q, qd, *self.reference(time),
                                  kp, kd)
        friction = self.friction()
        if friction is not None:
            rate = desired[1] if mode == 'inverse_dynamics' else qd
            tau = tau + friction.torque(rate, offset=False)
        return finite(tau)

    def publish(self, ordered, sec, nanosec):
        """Publish efforts (joints order, saturated) on both topics."""
        # Serialized outputs: two buffer copies, no Python message built.
        if self.effort_output is not None:
            self.effort_publisher.publish(
                self.effort_output.serialized(0, (ordered,)))
        elif self.effort_publisher.get_subscription_count():
            self.effort_publisher.publish(vector_message(ordered))
        if self.feedforward_output is not None:
            self.feedforward_publisher.publish(
                self.feedforward_output.serialized(
                    sec * 1000000000 + nanosec, (ordered,)))
        elif self.feedforward_publisher.get_subscription_count():
            self.feedforward_publisher.publish(joint_state_message(
                self.joint_names, Time(sec=sec, nanosec=nanosec),
                effort=ordered))

    def read_trajectory(self, msg, model, start_time):
        """Return the Trajectory of ``msg`` in model order (or BadInput)."""
        refuse_mimic_joints(msg.joint_names, model.mimic, 'JointTrajectory')
        return trajectory_arrays(msg, model.joint_names, start_time)

    def on_trajectory(self, msg):
        """Make ``msg`` the reference (start at header.stamp or now)."""
        model = self.model
        if model is None:
            self.warnings.ignored('joint_trajectory', NO_MODEL)
            return
        now = self.now()
        trajectory = self.read_trajectory(msg, model, now)
        with self.lock:
            if self.model is not model:
                self.warnings.ignored('joint_trajectory',
                                      'the model changed while reading it')
                return
            if self.get_parameter('lockstep').value and \
                    trajectory.start_time > now:
                # From the state at its start: the same run every time.
                self.sampler.follow_at_start(trajectory)
                return
            if self.last_state is not None:
                # Like JTC: from the state at receipt to the first waypoint.
                trajectory.initial = self.last_state
                trajectory.received_time = now
            self.sampler.follow(trajectory)

    def on_trajectory_in(self, msg):
        """Annotate or retime ``msg`` onto trajectory_out; report it."""
        with self.lock:
            model, index = self.model, self.index
        if model is None:
            self.retiming.refused(NO_MODEL)
            self.warnings.ignored('trajectory_in', NO_MODEL)
            return
        try:
            trajectory = self.read_trajectory(msg, model, 0.0)
        except ValueError as error:   # BadInput: reported, then warned
            self.retiming.refused(error)
            raise
        with self.lock:
            if self.model is not model:
                self.retiming.refused('the model changed while reading it')
                self.warnings.ignored('trajectory_in',
                                      'the model changed while reading it')
                return
            limits = self.saturation().trajectory_limits()
            mode, margin = (self.get_parameter(name).value for name in (
                'trajectory_mode', 'trajectory_margin'))

        def saturated(efforts):   # model order in and out
            with self.lock:
                clipped = self.saturated(efforts[:, index])
            ordered = np.empty_like(clipped)
            ordered[:, index] = clipped
            return ordered

        self.retiming.handle(msg, model, trajectory, limits, mode, margin,
                             saturated)


main = entry_point(InverseDynamicsNode)

if __name__ == '__main__':
    raise SystemExit(main())
