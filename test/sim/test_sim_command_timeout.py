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
What a stale command falls back to in the simulator: the pose held.

The issue's case, ROS-free: a Panda swung by a held effort (the sender of
the commands died mid-move).  When the command times out, the joint
commands hold the pose where it struck with the position PID of
simulator_node's default gains and the gravity torques of that pose as
feed-forward (JointCommands.hold_pose).  The arm must stay within 0.05 rad
of that pose; the held effort alone swings it far, and the position loop
without the gravity feed-forward sags further than with it (why the
feed-forward is part of the hold).
"""

import dynamics_ros as dr
from dynamics_ros.sim.controllers import default_gains, JointCommands
from dynamics_ros.sim.simulator import Simulator
import numpy as np
import oracle

MODEL = dr.load_urdf(oracle.example_arm_xml('panda'))
Q0 = np.array([0.0, -0.3, 0.0, -2.0, 0.0, 1.8, 0.8])
STRUCK = 0.3    # s: when the command times out, mid-move
AFTER = 1.0     # s simulated after it


def run(feedforward=True, timeout=True):
    """Return q at the timeout, the worst and the last deviation from it."""
    simulator = Simulator(MODEL, dt=1e-3, q0=Q0)
    commands = JointCommands(MODEL, *default_gains(MODEL, Q0))
    simulator.hand_over(commands, warn=False)
    # The dead sender's last command: gravity plus a push on three joints.
    push = np.array([0.0, 2.0, 0.0, 2.0, 0.0, 0.0, 0.0])
    commands.command_effort(dr.gravity_torques(MODEL, Q0) + push)
    struck = None
    worst = 0.0
    while simulator.t < STRUCK + AFTER - 1e-9:
        if struck is None and simulator.t >= STRUCK - 1e-9:
            struck = simulator.q.copy()
            if timeout:
                gravity = dr.gravity_torques(MODEL, struck)
                commands.hold_pose(struck, gravity if feedforward
                                   else np.zeros(MODEL.nq))
        simulator.step(commands(simulator.t, simulator.q, simulator.qd,
                                simulator.dt), commands.damping)
        if struck is not None:
            worst = max(worst, float(np.max(np.abs(simulator.q - struck))))
    return struck, worst, float(np.max(np.abs(simulator.q - struck)))


def test_the_pose_where_the_timeout_struck_is_held_within_0_05_rad():
    struck, worst, last = run()
    assert np.max(np.abs(struck - Q0)) > 0.1   # it was moving
    assert worst < 0.05, 'moved %.3f rad after the timeout' % worst
    assert last < 1e-3   # and back at the pose, no sag


def test_the_held_effort_alone_swings_the_arm_away():
    assert run(timeout=False)[1] > 0.5


def test_without_the_gravity_feed_forward_the_hold_sags():
    # The position loop alone settles g / kp away from the pose.
    assert run(feedforward=False)[2] > 5e-3
