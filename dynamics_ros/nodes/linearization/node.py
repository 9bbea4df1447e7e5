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
linearization_node: state-space models (A, B) about the current state.

At ``rate`` Hz it linearizes the dynamics (``dr.linearize``) about the
latest ``joint_states`` and the last ``effort_commands`` (gravity torques
until one arrives) and publishes ``state_space/A``, ``state_space/B`` and
``state_space/operating_point``; x = [q; qd] and u = tau in ``joints``
order.  Both inputs are read at each tick (``PolledSubscription``): the
messages since the last one, in their order, without a wake-up for each.
In lockstep every state is answered on arrival instead.  Topics,
parameters (``linearization/parameters.py``) and behaviour:
doc/nodes/linearization_node.md.
"""

import threading

from builtin_interfaces.msg import Time
import numpy as np
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray

from .parameters import PARAMETERS
from ..shared.conversions import BadInput, joint_state_message, matrix_message, message_vector
from ..shared.dedicated_subscription import DedicatedSubscription
from ..shared.entry_point import entry_point
from ..shared.friction_input import load_friction
from ..shared.joint_state_input import JointStateInput, node_seconds, state_qos
from ..shared.model_source import model_index, ModelSource, NO_MODEL
from ..shared.parameters import publishers
from ..shared.polled_subscription import PolledSubscription
from ..shared.qos import COMMAND_QOS, POLLED_STATE_QOS
from ..shared.throttled_warnings import node_warnings
from ...dynamics.bias import gravity_torques
from ...dynamics.linearize import linearize, linearize_with_friction


def timer_period_ns(rate):
    """Return the timer period in ns of a valid ``rate`` (Hz)."""
    return int(round(1e9 / rate))


def state_order(index):
    """Return the rows of x = [q; qd] (model order) in joints order."""
    n = len(index)
    return np.concatenate([index, n + np.asarray(index)])


class LinearizationNode(Node):
    """Publish A, B and the operating point at a fixed rate."""

    def __init__(self, **kwargs):
        """Declare parameters, topics, the timer and the model source."""
        super().__init__('linearization_node', **kwargs)
        self.lock = threading.Lock()  # lockstep: states on their own thread
        # None until the model source gives a model and states arrive.
        self.model = self.index = self.joint_names = self.friction = None
        self.state = self.command = None
        self.state_subscription = None  # destroy_node may run on a failed
        self.polled = []                # start
        PARAMETERS.declare(self)
        PARAMETERS.refuse_at_start(self)
        self.lockstep = self.get_parameter('lockstep').value
        self.seconds = node_seconds(self)
        self.warnings = node_warnings(self)
        self.a_publisher, self.b_publisher, self.point_publisher = publishers(
            self, (Float64MultiArray, 'state_space/A'),
            (Float64MultiArray, 'state_space/B'),
            (JointState, 'state_space/operating_point'))
        self.source = ModelSource(self, self.on_model)
        self.add_on_set_parameters_callback(self.on_set_parameters)
        self.add_post_set_parameters_callback(self.apply_parameters)
        receive_command = self.warnings.dropping('effort_commands',
                                                 self.on_command)
        if self.lockstep:   # every state answered on arrival
            self.state_subscription = DedicatedSubscription(
                self, JointState, 'joint_states', self.warnings.dropping(
                    'joint_states', self.on_joint_state), state_qos(self))
            self.create_subscription(Float64MultiArray, 'effort_commands',
                                     receive_command, COMMAND_QOS)
        else:   # read at each tick
            self.polled = [
                ('joint_states', PolledSubscription(
                    self, JointState, 'joint_states', POLLED_STATE_QOS),
                 self.on_polled_state),
                ('effort_commands', PolledSubscription(
                    self, Float64MultiArray, 'effort_commands', COMMAND_QOS),
                 lambda msg, superseded: receive_command(msg))]
        self.timer = self.create_timer(
            1e-9 * timer_period_ns(self.get_parameter('rate').value),
            self.on_timer)
        if self.lockstep:   # every state is answered on arrival instead
            self.timer.cancel()

    def on_set_parameters(self, parameters):
        """Reject an invalid rate / discrete_dt with the reason."""
        return PARAMETERS.set_result(parameters)

    def apply_parameters(self, parameters):
        """Apply a new rate at once (discrete_dt is read every period)."""
        for parameter in parameters:
            if parameter.name == 'rate' and not self.lockstep:
                self.timer.timer_period_ns = timer_period_ns(parameter.value)
                self.timer.reset()
        if any(p.name in ('max_state_age', 'missing_velocity')
               for p in parameters):
            with self.lock:
                if self.model is not None:
                    self.read_states()
        if any(p.name == 'friction_file' for p in parameters):
            with self.lock:
                if self.model is not None:
                    self.read_friction()

    def read_friction(self):
        """Read friction_file for the model in use (lock held)."""
        self.friction = load_friction(
            self.get_logger(), self.get_parameter('friction_file').value,
            self.model)

    def read_states(self):
        """Read joint_states with the parameters in force (lock held)."""
        self.input = JointStateInput(
            self.model, self.seconds,
            self.get_parameter('max_state_age').value,
            self.get_parameter('missing_velocity').value, self.lockstep)

    def on_model(self, model, joint_names):
        """Use a new model; forget inputs read for another joint set."""
        with self.lock:
            if (self.model is None
                    or self.model.joint_names != model.joint_names):
                self.state = None
                self.command = None
            self.model = model
            self.joint_names = list(joint_names)
            self.index = model_index(model, joint_names)
            self.read_states()
            self.read_friction()

    def destroy_node(self):
        """Stop the joint_states thread, then destroy the node."""
        if self.state_subscription is not None:
            self.state_subscription.destroy()
            self.state_subscription = None
        for _, subscription, _ in self.polled:
            subscription.destroy()
        self.polled = []
        return super().destroy_node()

    def on_joint_state(self, msg):
        """Keep the latest valid joint state as the operating point."""
        with self.lock:
            if self.model is None:   # dropped with a warning (dropping)
                raise BadInput(NO_MODEL)
            # Fresh, every joint (several publishers merged); copies: the
            # merger writes into its arrays on the next message.
            stamp, t, state = self.input.message(msg)
            self.state = (state.position.copy(), state.velocity.copy(),
                          Time(sec=stamp[0], nanosec=stamp[1]), t)
            if not self.lockstep:
                return
            # The effort the simulator applied up to this state: what the
            # answer depends on is the state alone, not which effort
            # command happened to arrive first.
            tau = None if state.effort is None else \
                np.array(state.effort, dtype=float)
        self.publish_linearization(tau)

    def on_polled_state(self, msg, superseded):
        """Read a state at the tick; ``superseded``: a newer one follows."""
        try:
            self.on_joint_state(msg)
        except BadInput as error:
            # Read at the tick, a state is older than it was on arrival:
            # past max_state_age then, with a newer one behind it, it is
            # no stalled driver (the newest is still checked).
            if not (superseded and error.kind == 'stale'):
                self.warnings.ignored('joint_states', str(error), error.kind)

    def on_command(self, msg):
        """Keep the last valid effort command (joints order -> model)."""
        if self.model is None:   # dropped with a warning (dropping)
            raise BadInput(NO_MODEL)
        command = message_vector(msg, self.model.nq, 'effort_commands',
                                 self.model.mimic)
        tau = np.empty(self.model.nq)
        tau[self.index] = command
        self.command = tau

    def on_timer(self):
        """Read the inputs since the last tick; linearize and publish."""
        for topic, subscription, receive in self.polled:
            messages, errors = subscription.take()
            for position, msg in enumerate(messages, 1):
                receive(msg, position < len(messages))
            for error in errors:
                self.warnings.ignored(topic, 'not readable (%s)' % type(
                    error).__name__, 'not readable')
        self.publish_linearization()

    def publish_linearization(self, effort=None):
        """Linearize about the latest state (and ``effort``, else the command)."""
        with self.lock:
            model, state, tau = self.model, self.state, self.command
            index, joint_names = self.index, self.joint_names
            friction = self.friction
        if effort is not None:
            tau = effort
        if model is None or state is None:
            return
        q, qd, stamp, t = state
        age, limit = self.seconds() - t, self.input.max_state_age
        if limit > 0.0 and age > limit:
            # A stalled driver: no model about a state this old.
            self.warnings.warn('stale state', lambda: (
                'no linearization published: the latest joint state is '
                '%.3g s old (max_state_age %g s)' % (age, limit)))
            return
        if tau is None:
            tau = gravity_torques(model, q)
        dt = self.get_parameter('discrete_dt').value
        try:
            dt = dt if dt > 0 else None
            A, B = linearize(model, q, qd, tau, dt=dt) if friction is None \
                else linearize_with_friction(model, q, qd, tau, friction, dt)
        except (ValueError, ArithmeticError, np.linalg.LinAlgError) as error:
            self.warnings.warn('linearize', 'no linearization published: %s'
                               % error)
            return
        if not (np.all(np.isfinite(A)) and np.all(np.isfinite(B))):
            self.warnings.warn('not finite', 'no linearization published: '
                               'A or B is not finite')
            return
        rows = state_order(index)
        self.a_publisher.publish(matrix_message(A[np.ix_(rows, rows)]))
        self.b_publisher.publish(matrix_message(B[np.ix_(rows, index)]))
        self.point_publisher.publish(joint_state_message(
            joint_names, stamp, position=q[index],
            velocity=qd[index], effort=tau[index]))


main = entry_point(LinearizationNode)

if __name__ == '__main__':
    raise SystemExit(main())
