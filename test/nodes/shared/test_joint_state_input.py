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


"""JointStateInput's stamp checks against the node clock, ROS-free."""

import os

from builtin_interfaces.msg import Time
from conftest import REPO_ROOT
import dynamics_ros as dr
from dynamics_ros.nodes.shared.conversions import BadInput
from dynamics_ros.nodes.shared.joint_state_input import JointStateInput
import numpy as np
import pytest
from sensor_msgs.msg import JointState

MODEL = dr.load_urdf(os.path.join(REPO_ROOT, 'urdf', 'two_link_planar.urdf'))


def state(seconds):
    """Return a JointState of every joint stamped ``seconds``."""
    msg = JointState(name=MODEL.joint_names, position=[0.1, 0.2],
                     velocity=[0.0, 0.3])
    sec, nanosec = divmod(int(round(seconds * 1e9)), 1000000000)
    msg.header.stamp = Time(sec=sec, nanosec=nanosec)
    return msg


def refusal(clock, stamp):
    """Return the BadInput of a state stamped ``stamp`` at ``clock``."""
    reader = JointStateInput(MODEL, lambda: clock, 0.1)
    with pytest.raises(BadInput) as error:
        reader.message(state(stamp))
    return error.value


def test_a_sim_clock_before_its_first_message_is_named():
    """Joining a running simulation: the clock reads 0 until /clock."""
    waiting = refusal(0.0, 12.5)
    assert waiting.kind == 'no clock'
    assert 'no /clock message has come yet' in str(waiting)
    # A running clock: the same stamp is ahead, or stale, by its numbers.
    assert refusal(2.0, 12.5).kind == 'ahead'
    assert refusal(20.0, 12.5).kind == 'stale'


def test_a_fresh_stamp_gives_the_state():
    reader = JointStateInput(MODEL, lambda: 12.55, 0.1)
    stamp, t, merged = reader.message(state(12.5))
    assert stamp == (12, 500000000) and t == pytest.approx(12.5)
    assert np.array_equal(merged.position, [0.1, 0.2])
    assert np.array_equal(merged.velocity, [0.0, 0.3])


def test_in_lockstep_a_stamp_ahead_of_the_clock_is_now():
    """The simulator's stamp is its time; its /clock may come after."""
    for clock in (0.0, 2.0):   # no /clock yet, or one a step behind
        reader = JointStateInput(MODEL, lambda: clock, 0.1, lockstep=True)
        stamp, t, merged = reader.message(state(12.5))
        assert stamp == (12, 500000000) and t == 12.5
        assert np.array_equal(merged.position, [0.1, 0.2])
    # Stale states are still refused: lockstep changes only "ahead".
    stale = JointStateInput(MODEL, lambda: 20.0, 0.1, lockstep=True)
    with pytest.raises(BadInput) as error:
        stale.message(state(12.5))
    assert error.value.kind == 'stale'
