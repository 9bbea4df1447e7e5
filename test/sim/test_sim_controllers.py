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
Test the simulator's joint controllers.

PID arithmetic, the command modes of ros2_control's shapes, and trajectory
following with effort feed-forward.

A command is held over each step (zero-order hold), so on a mass with no
other force RK4 is exact and the closed loop has a closed-form recurrence.
"""

import os

from conftest import assert_close, REPO_ROOT
import dynamics_ros as dr
from dynamics_ros.control.trajectory import sample, Trajectory
from dynamics_ros.sim.controllers import (default_gains, FollowedTrajectory,
                                          JointCommands, JointPid, PidGains)
from dynamics_ros.sim.simulator import Simulator
import numpy as np

URDF = os.path.join(REPO_ROOT, 'urdf')
TWO_LINK = os.path.join(URDF, 'two_link_planar.urdf')

SLIDER = """<robot name="slider">
  <link name="base_link"/>
  <joint name="slide" type="prismatic">
    <parent link="base_link"/><child link="carriage"/><axis xyz="1 0 0"/>
    <limit lower="-10" upper="10" effort="1000" velocity="10"/>
  </joint>
  <link name="carriage">
    <inertial><mass value="2.0"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
</robot>"""


def run(simulator, commands, steps):
    """Step with the commands' effort held over each step."""
    for _ in range(steps):
        simulator.step(commands(simulator.t, simulator.q, simulator.qd,
                                simulator.dt))


def test_pid_terms_and_integral_clamp():
    pid = JointPid(PidGains(p=[2.0, 3.0], i=[10.0, 10.0], d=[0.5, 0.0],
                            max_integral_error=[0.015, 1.0]))
    effort = pid([1.0, -1.0], 0.01, error_rate=[4.0, 4.0])
    assert_close(effort, [2.0 + 10.0 * 0.01 + 0.5 * 4.0,
                          -3.0 - 10.0 * 0.01])
    effort = pid([1.0, -1.0], 0.01, error_rate=[0.0, 0.0])
    # The first joint's integral stops at 0.015, the second's runs on.
    assert_close(effort, [2.0 + 10.0 * 0.015, -3.0 - 10.0 * 0.02])


def test_pid_differentiates_the_error_when_no_rate_is_given():
    pid = JointPid(PidGains(p=[0.0], i=[0.0], d=[1.0]))
    assert pid([1.0], 0.5) == 0.0          # no previous error yet
    assert_close(pid([2.0], 0.5), [2.0])   # (2 - 1) / 0.5


def test_effort_commands_pass_through():
    model = dr.load_urdf(SLIDER)
    commands = JointCommands(model, *default_gains(model, [0.0]))
    assert np.all(commands(0.0, np.zeros(1), np.zeros(1), 1e-3) == 0.0)
    commands.command_effort([3.5])
    assert commands(0.0, np.ones(1), np.ones(1), 1e-3)[0] == 3.5


def test_velocity_pid_on_a_free_mass_follows_its_recurrence():
    model = dr.load_urdf(SLIDER)
    gains = PidGains(p=[40.0], i=[0.0], d=[0.0])
    commands = JointCommands(model, gains, gains)
    commands.command_velocity([0.5])
    simulator = Simulator(model, dt=1e-3)
    run(simulator, commands, 300)
    # v_{n+1} = v_n + dt kp / m (0.5 - v_n), exact for a held force.
    assert_close(simulator.qd, [0.5 * (1.0 - (1.0 - 1e-3 * 40.0 / 2.0)
                                       ** 300)], rtol=1e-12)


def test_position_pid_on_a_free_mass_follows_its_recurrence():
    model = dr.load_urdf(SLIDER)
    kp, kd, mass, dt = 400.0, 30.0, 2.0, 1e-3
    commands = JointCommands(model, PidGains(p=[kp], i=[0.0], d=[kd]),
                             PidGains(p=[0.0], i=[0.0], d=[0.0]))
    commands.command_position([0.2])
    simulator = Simulator(model, dt=dt)
    run(simulator, commands, 500)
    x = v = 0.0
    for _ in range(500):
        force = kp * (0.2 - x) - kd * v
        x, v = x + dt * v + 0.5 * dt ** 2 * force / mass, v + dt * force / mass
    assert_close(simulator.q, [x], rtol=1e-12)
    assert_close(simulator.qd, [v], rtol=1e-9, scale=abs(x))


def test_position_pid_balances_gravity_with_p_and_removes_it_with_i():
    model = dr.load_urdf(TWO_LINK)
    target = np.array([0.4, -0.6])
    position_gains, velocity_gains = default_gains(model, target)
    commands = JointCommands(model, position_gains, velocity_gains)
    commands.command_position(target)
    simulator = Simulator(model, dt=1e-3, q0=target)
    run(simulator, commands, 1000)
    # At rest, kp (q* - q) = g(q): the error gravity leaves a P-D loop.
    assert np.max(np.abs(simulator.qd)) < 1e-6
    assert_close(position_gains.p * (target - simulator.q),
                 dr.gravity_torques(model, simulator.q), rtol=1e-5)
    assert np.max(np.abs(target - simulator.q)) > 1e-3
    # With an integral term the error goes away.
    with_integral = PidGains(p=position_gains.p,
                             i=position_gains.p * 2.0 * np.pi,
                             d=position_gains.d)
    commands = JointCommands(model, with_integral, velocity_gains)
    commands.command_position(target)
    simulator = Simulator(model, dt=1e-3, q0=target)
    run(simulator, commands, 3000)
    assert np.max(np.abs(target - simulator.q)) < 1e-5


def test_a_new_mode_starts_its_pid_afresh():
    model = dr.load_urdf(SLIDER)
    gains = PidGains(p=[0.0], i=[1.0], d=[0.0])
    commands = JointCommands(model, gains, gains)
    commands.command_position([1.0])
    for _ in range(10):
        commands(0.0, np.zeros(1), np.zeros(1), 0.1)
    assert_close(commands.position_pid.integral, [1.0])
    commands.command_position([1.0])   # same mode: the integral stays
    assert_close(commands.position_pid.integral, [1.0])
    commands.command_velocity([0.0])
    commands.command_position([1.0])
    assert np.all(commands.position_pid.integral == 0.0)


def test_feedforward_is_linear_between_waypoints_and_held_outside():
    trajectory = Trajectory(
        times=np.array([0.0, 1.0, 3.0]), positions=np.zeros((3, 2)),
        velocities=np.zeros((3, 2)), accelerations=np.zeros((3, 2)),
        has_velocity=np.zeros(3, bool), has_acceleration=np.zeros(3, bool),
        start_time=10.0)
    followed = FollowedTrajectory(trajectory, np.array(
        [[0.0, 1.0], [2.0, -1.0], [4.0, 3.0]]))
    assert_close(followed.feedforward(10.5), [1.0, 0.0])
    assert_close(followed.feedforward(12.0), [3.0, 1.0])
    assert_close(followed.feedforward(5.0), [0.0, 1.0])
    assert_close(followed.feedforward(99.0), [4.0, 3.0])
    assert np.all(FollowedTrajectory(trajectory).feedforward(11.0) == 0.0)


def test_trajectory_following_with_inverse_dynamics_feedforward():
    model = dr.load_urdf(TWO_LINK)
    times = np.linspace(0.0, 1.0, 11)
    positions = np.stack([0.5 * np.sin(2 * times),
                          0.3 - 0.3 * np.cos(3 * times)], 1)
    velocities = np.stack([np.cos(2 * times), 0.9 * np.sin(3 * times)], 1)
    accelerations = np.stack([-2.0 * np.sin(2 * times),
                              2.7 * np.cos(3 * times)], 1)
    trajectory = Trajectory(times, positions, velocities, accelerations,
                            np.ones(11, bool), np.ones(11, bool))
    feedforward = np.array([dr.inverse_dynamics(model, *point) for point in
                            zip(positions, velocities, accelerations)])
    worst = {}
    for label, efforts in (('feedback only', None),
                           ('feed-forward', feedforward)):
        commands = JointCommands(model, *default_gains(model, positions[0]))
        commands.follow(trajectory, efforts)
        simulator = Simulator(model, dt=1e-3, q0=positions[0],
                              qd0=velocities[0])
        worst[label] = 0.0
        for _ in range(1000):
            simulator.step(commands(simulator.t, simulator.q, simulator.qd,
                                    simulator.dt))
            desired = sample(trajectory, simulator.t)[0]
            worst[label] = max(worst[label],
                               np.max(np.abs(desired - simulator.q)))
    # The 10 Hz PD alone lags by millirad; the torques of the reference
    # (linear between waypoints 0.1 s apart) leave only tens of microrad.
    assert 1e-3 < worst['feedback only'] < 1e-2
    assert worst['feed-forward'] < 1e-4


def test_the_followed_trajectory_samples_as_the_trajectory_does():
    """
    The cached segments give what control.trajectory.sample gives.

    Every piece: the hold before the receipt, the segment from the state
    at receipt to the first waypoint, linear, cubic and quintic segments,
    and the hold after the end.  Evaluated in another order (matrix
    products): equal to 1e-12 of the values' scale, not bit for bit.
    """
    times = np.array([0.5, 0.9, 1.4, 2.0, 2.3])
    rng = np.random.default_rng(7)
    positions = rng.normal(size=(5, 3))
    velocities = rng.normal(size=(5, 3))
    accelerations = rng.normal(size=(5, 3))
    # Waypoints 0-1 linear (no velocity at 1), 1-2 linear, 2-3 quintic,
    # 3-4 cubic (no acceleration at 4).
    has_velocity = np.array([True, False, True, True, True])
    has_acceleration = np.array([True, True, True, True, False])
    trajectory = Trajectory(times, positions, velocities, accelerations,
                            has_velocity, has_acceleration, start_time=10.0,
                            initial=(np.ones(3), -np.ones(3)),
                            received_time=10.2)
    followed = FollowedTrajectory(trajectory)
    # Forwards, then backwards and at random: the cache follows.
    instants = np.concatenate([np.linspace(9.9, 12.6, 271),
                               np.linspace(12.6, 9.9, 50),
                               rng.uniform(9.9, 12.6, 50),
                               10.0 + times, [10.2]])
    for t in instants:
        for got, expected in zip(followed.sample(t), sample(trajectory, t)):
            np.testing.assert_allclose(got, expected, rtol=1e-12,
                                       atol=1e-12 * 50.0, err_msg=str(t))
