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

"""The stamp of a lockstep answer, read from its serialized bytes."""

from builtin_interfaces.msg import Time
from dynamics_ros.nodes.shared.conversions import BadInput
from dynamics_ros.nodes.simulator.lockstep import stamp_nanoseconds
from dynamics_ros.nodes.simulator.parameters import lockstep_peers_reason
from geometry_msgs.msg import WrenchStamped
import pytest
from rclpy.serialization import serialize_message
from sensor_msgs.msg import JointState


@pytest.mark.parametrize('message', [JointState, WrenchStamped])
def test_the_stamp_of_any_stamped_message(message):
    msg = message()
    msg.header.stamp = Time(sec=12, nanosec=345678901)
    msg.header.frame_id = 'link6'
    assert stamp_nanoseconds(serialize_message(msg)) == 12345678901


def test_bytes_too_short_for_a_stamp_are_refused():
    with pytest.raises(BadInput):
        stamp_nanoseconds(b'\x00\x01\x00\x00\x0c')


def test_lockstep_peers_must_be_topic_names():
    assert lockstep_peers_reason(['feedforward', 'ns/external_torques']) \
        is None
    assert 'twice' in lockstep_peers_reason(['a', 'a'])
    assert 'not a topic name' in lockstep_peers_reason(['a b'])
    assert 'at most' in lockstep_peers_reason(['t%d' % k for k in range(17)])
