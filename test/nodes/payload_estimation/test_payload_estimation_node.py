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
payload_estimation_node over DDS, and inverse_dynamics_node following it.

The tester plays a driver of a Panda holding 1.6 kg at its hand: still
poses, efforts from Pinocchio's RNEA of the URDF with the payload welded
to panda_hand, plus noise.  Before any joint state the service refuses
with the reason; after the poses it answers with mass and com, and
``payload`` carries them (frame panda_hand).  inverse_dynamics_node with
``follow_payload`` takes them: its gravity torques become the plant's.
The tester sends each state once the follower answered the one before
(both nodes read ``joint_states`` with the sensor-data QoS, keep last 5:
a burst on a busy machine would lose states).
"""

import dynamics_ros as dr
from dynamics_ros.nodes.shared.conversions import time_message, to_seconds
from geometry_msgs.msg import InertiaStamped
import numpy as np
from oracle import example_arm_xml
from payload_plant import arm
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_harness import finish, NodeProcess, reserve_domain_id, RosTester
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger

DOMAIN_ID = reserve_domain_id(__name__)
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)
NOISE = 0.02   # N m
STEP = 0.01    # s between joint states


def state(seconds, q, effort, names):
    """Return a driver's JointState (at rest) in model order."""
    msg = JointState(name=list(names), position=[float(x) for x in q],
                     velocity=[0.0] * len(names),
                     effort=[float(x) for x in effort])
    msg.header.stamp = time_message(seconds)
    return msg


def call(tester, client):
    """Call the Trigger service; return its response."""
    tester.wait_for(client.service_is_ready, what='estimate_payload')
    future = client.call_async(Trigger.Request())
    tester.wait_for(future.done, what='estimate_payload answer')
    return future.result()


def test_estimate_over_dds_and_follow():
    panda = arm('panda')
    names = panda.model.joint_names
    common = {'robot_description': example_arm_xml('panda'),
              'tip_link': panda.link}
    estimator = NodeProcess('payload_estimation_node', DOMAIN_ID,
                            dict(common, mode='static'))
    follower = NodeProcess('inverse_dynamics_node', DOMAIN_ID,
                           dict(common, follow_payload=True,
                                saturate=False,
                                max_state_age=0.0))   # made-up stamps
    tester = RosTester(DOMAIN_ID)
    try:
        states = tester.publisher(JointState, 'joint_states')
        payloads = tester.collector(InertiaStamped, 'payload', LATCHED)
        feedforward = tester.collector(JointState, 'feedforward')
        client = tester.node.create_client(
            Trigger, '/payload_estimation_node/estimate_payload')
        refused = call(tester, client)
        assert not refused.success
        assert 'no joint states' in refused.message
        tester.wait_for(lambda: states.get_subscription_count() >= 2,
                        what='both nodes on joint_states')
        rng = np.random.default_rng(8)

        def answered(stamp):
            return any(abs(to_seconds(m.header.stamp) - stamp) < 1e-6
                       for m in feedforward.messages[-5:])

        # The follower answers: without efforts, which the estimator drops.
        warm = state(0.5, panda.poses(1, rng)[0], [], names)
        tester.wait_for(lambda: answered(0.5), every=0.5,
                        action=lambda: states.publish(warm),
                        what='a first answer of the follower')
        clock = 1.0
        for q in panda.poses(6, rng):
            effort = panda.plant.rnea(q, 0 * q, 0 * q)
            for _ in range(60):
                msg = state(clock, q, effort + rng.normal(
                    0.0, NOISE, len(q)), names)
                tester.wait_for(lambda t=clock: answered(t), every=1.0,
                                action=lambda m=msg: states.publish(m),
                                what='the answer at %.2f s' % clock)
                clock += STEP
        answer = call(tester, client)
        assert answer.success, answer.message
        assert 'mass 1.6' in answer.message or 'mass 1.5' in answer.message
        tester.wait_for(lambda: payloads.messages, what='payload')
        msg = payloads.messages[-1]
        assert msg.header.frame_id == panda.link
        assert abs(msg.inertia.m - panda.mass) < 0.02 * panda.mass
        com = np.array([msg.inertia.com.x, msg.inertia.com.y,
                        msg.inertia.com.z])
        assert np.max(np.abs(com - panda.com)) < 0.005
        # The follower's gravity torques are now the plant's.
        q = panda.poses(1, rng)[0]
        plant = panda.plant.rnea(q, 0 * q, 0 * q)
        unloaded = dr.gravity_torques(panda.model, q)

        # The payload reaches the follower as a parameter set of its own:
        # states sent before it lands are answered without it, so each try
        # has a stamp of its own and any answer after it may match.
        stamps = []

        def send():
            stamps.append(clock + 1.0 + 0.01 * len(stamps))
            states.publish(state(stamps[-1], q, plant, names))

        def matches():
            for reply in feedforward.messages:
                stamp = to_seconds(reply.header.stamp)
                if any(abs(stamp - sent) < 1e-6 for sent in stamps):
                    values = dict(zip(reply.name, reply.effort))
                    got = np.array([values[n] for n in names])
                    if np.max(np.abs(got - plant)) < 0.05 * np.max(
                            np.abs(plant - unloaded)):
                        return True
            return False

        tester.wait_for(matches, action=send, every=0.5,
                        what='feedforward with the payload')
        clock = stamps[-1]
        # A refused estimate publishes nothing: the payload stays.
        count = len(payloads.messages)
        assert tester.set_parameters('payload_estimation_node',
                                     window=0.1)[0].successful
        # The estimator has read the state that trims its window once it
        # refuses the same state again (service and topic: no order).
        last, logs = state(clock + 0.01, q, plant, names), len(
            tester.logs.messages)
        tester.wait_for(lambda: any(
            'stamp not after the previous one' in m.msg
            for m in tester.logs.messages[logs:]
            if m.name == 'payload_estimation_node'), every=0.5,
            action=lambda: states.publish(last),
            what='the state that trims the window read')
        refused = call(tester, client)
        assert not refused.success
        assert 'too few to estimate' in refused.message
        assert 'previous payload stays' in refused.message
        tester.spin(0.5)
        assert len(payloads.messages) == count
    finally:
        follower_alive = follower.alive()
        follower_status = follower.stop()
        finish(estimator, tester)
    assert follower_alive and follower_status == 0, follower.output()
