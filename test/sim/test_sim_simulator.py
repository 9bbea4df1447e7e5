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
Test the ROS-free simulator step by step.

Integrators, damping, Coulomb friction, joint limits, effort saturation and
continuous joints, each against a case with a closed-form answer.
"""

import os

from conftest import assert_close, REPO_ROOT
import dynamics_ros as dr
from dynamics_ros.sim.joint_effects import solve_impulses
from dynamics_ros.sim.simulator import Simulator
import numpy as np
import pytest

URDF = os.path.join(REPO_ROOT, 'urdf')
G = 9.81


def slider_urdf(axis='0 0 1', mass=2.0, damping=0.0, friction=0.0,
                lower=-100.0, upper=100.0, effort=1000.0):
    """Return a point-like mass on one prismatic joint (vertical default)."""
    return """<robot name="slider">
  <link name="base_link"/>
  <joint name="slide" type="prismatic">
    <parent link="base_link"/><child link="carriage"/><axis xyz="%s"/>
    <limit lower="%r" upper="%r" effort="%r" velocity="10"/>
    <dynamics damping="%r" friction="%r"/>
  </joint>
  <link name="carriage">
    <inertial><mass value="%r"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
</robot>""" % (axis, lower, upper, effort, damping, friction, mass)


def pendulum_urdf(lower=None, upper=None, friction=0.0, length=1.0,
                  mass=1.0, axis='0 1 0'):
    """Return a uniform rod hanging from a joint (continuous if no limits)."""
    limit = '' if lower is None else (
        '<limit lower="%r" upper="%r" effort="100" velocity="10"/>'
        % (lower, upper))
    kind = 'continuous' if lower is None else 'revolute'
    moment = mass * length ** 2 / 12.0
    return """<robot name="pendulum">
  <link name="base_link"/>
  <joint name="pivot" type="%s">
    <parent link="base_link"/><child link="rod"/><axis xyz="%s"/>
    %s<dynamics friction="%r"/>
  </joint>
  <link name="rod">
    <inertial><origin xyz="0 0 %r"/><mass value="%r"/>
      <inertia ixx="%r" iyy="%r" izz="1e-6" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
</robot>""" % (kind, axis, limit, friction, -length / 2.0, mass, moment,
               moment)


def test_rk4_is_exact_for_free_fall():
    model = dr.load_urdf(slider_urdf())
    simulator = Simulator(model, dt=1e-3, qd0=[1.0])
    simulator.run(1.0)
    t = simulator.t
    assert_close(simulator.q, [t - 0.5 * G * t ** 2], rtol=1e-12)
    assert_close(simulator.qd, [1.0 - G * t], rtol=1e-12)


def test_semi_implicit_euler_moves_with_the_new_velocity():
    model = dr.load_urdf(slider_urdf())
    simulator = Simulator(model, dt=1e-3, integrator_name='semi_implicit_euler',
                          qd0=[1.0])
    n = 1000
    simulator.run(n * 1e-3)
    dt = 1e-3
    # q_n = n dt v0 - g dt^2 n(n+1)/2 (explicit Euler would give n(n-1)/2).
    assert_close(simulator.q, [n * dt - G * dt ** 2 * n * (n + 1) / 2],
                 rtol=1e-12)
    assert_close(simulator.qd, [1.0 - G * n * dt], rtol=1e-12)


def test_viscous_damping_decays_exponentially():
    mass, damping = 2.0, 3.0
    model = dr.load_urdf(slider_urdf(axis='1 0 0', mass=mass,
                                     damping=damping))
    simulator = Simulator(model, dt=1e-3, qd0=[1.0])
    simulator.run(1.0)
    rate = damping / mass
    assert_close(simulator.qd, [np.exp(-rate)], rtol=1e-10)
    assert_close(simulator.q, [(1.0 - np.exp(-rate)) / rate], rtol=1e-10)


@pytest.mark.parametrize('integrator_name', ['rk4', 'semi_implicit_euler'])
def test_coulomb_friction_decelerates_then_sticks(integrator_name):
    # 4 N of friction on 2 kg sliding at 1 m/s: -2 m/s^2, at rest after
    # 0.5 s and 0.25 m, then still.
    model = dr.load_urdf(slider_urdf(axis='1 0 0', mass=2.0, friction=4.0))
    simulator = Simulator(model, dt=1e-3, integrator_name=integrator_name,
                          qd0=[1.0])
    log = simulator.run(1.0)
    half = 250
    t = log.time[half]
    assert_close(log.qd[half], [1.0 - 2.0 * t], rtol=1e-12)
    if integrator_name == 'rk4':
        assert_close(log.q[half], [t - t ** 2], rtol=1e-12)
    else:
        dt = simulator.dt
        assert_close(log.q[half], [t - 2.0 * dt ** 2 * half * (half + 1) / 2],
                     rtol=1e-12)
    assert np.all(np.abs(log.qd[501:]) < 1e-12)
    # Semi-implicit Euler stops at sum dt v_k = 0.25 - dt/2 (k = 1..500).
    assert_close(log.q[-1], [0.25 if integrator_name == 'rk4' else 0.2495],
                 rtol=1e-9)
    assert np.ptp(log.q[501:]) == 0.0


def test_static_friction_holds_and_sliding_friction_slows_a_fall():
    weight = 2.0 * G
    held = Simulator(dr.load_urdf(slider_urdf(friction=1.01 * weight)),
                     dt=1e-3, q0=[0.3])
    held.run(0.5)
    assert held.q[0] == 0.3 and held.qd[0] == 0.0
    sliding = Simulator(dr.load_urdf(slider_urdf(friction=10.0)), dt=1e-3)
    sliding.run(0.5)
    acceleration = -(G - 10.0 / 2.0)
    assert_close(sliding.qd, [acceleration * 0.5], rtol=1e-12)
    assert_close(sliding.q, [0.5 * acceleration * 0.25], rtol=1e-12)


def test_friction_holds_a_tilted_pendulum_and_a_two_link_arm():
    # Gravity torque at 0.1 rad: m g l/2 sin 0.1 = 0.49 N m < 0.5 N m.
    pendulum = Simulator(dr.load_urdf(pendulum_urdf(friction=0.5)),
                         dt=1e-3, q0=[0.1])
    pendulum.run(0.5)
    assert pendulum.q[0] == 0.1 and pendulum.qd[0] == 0.0
    # Just below the gravity torque it slides.
    slipping = Simulator(dr.load_urdf(pendulum_urdf(friction=0.48)),
                         dt=1e-3, q0=[0.1])
    slipping.run(0.5)
    assert slipping.q[0] < 0.1 - 1e-4
    # Horizontal two-link arm: gravity torques 30.4 and 5.9 N m, coupled
    # through the mass matrix; both joints must be held together.
    model = dr.load_urdf(os.path.join(URDF, 'two_link_planar.urdf'))
    gravity = dr.gravity_torques(model, np.zeros(2))
    arm = Simulator(model.copy(friction=1.01 * gravity), dt=1e-3)
    arm.run(0.2)
    assert np.all(arm.q == 0.0) and np.all(arm.qd == 0.0)
    # With the shoulder's friction below its gravity torque, it gives way.
    arm = Simulator(model.copy(friction=[0.99, 1.01] * gravity), dt=1e-3)
    arm.run(0.2)
    assert arm.q[0] < -1e-3


def test_impulses_satisfy_the_complementarity_conditions():
    rng = np.random.default_rng(3)
    for _ in range(20):
        root = rng.normal(size=(6, 6))
        inverse_inertia = root @ root.T + 0.1 * np.eye(6)
        velocity = rng.normal(size=6)
        bound = rng.uniform(0.0, 0.5, 6)
        lower, upper = -bound, bound.copy()
        lower[0], upper[1] = -np.inf, np.inf   # two joints at a stop
        upper[2] = lower[2] = 0.0              # one without friction
        p = solve_impulses(inverse_inertia, velocity, lower, upper)
        after = velocity + inverse_inertia @ p
        assert p[2] == 0.0
        for i in (0, 1, 3, 4, 5):
            if lower[i] < p[i] < upper[i]:
                assert abs(after[i]) < 1e-9      # held still
            elif p[i] == upper[i]:
                assert after[i] < 1e-9           # pushed as hard as allowed
            else:
                assert p[i] == lower[i] and after[i] > -1e-9


def test_a_joint_limit_stops_the_joint_and_holds_it():
    model = dr.load_urdf(pendulum_urdf(lower=0.2, upper=1.0))
    simulator = Simulator(model, dt=1e-3, q0=[0.5])
    log = simulator.run(1.0)
    assert np.all(log.q >= 0.2) and np.all(log.q <= 1.0)
    assert log.q[-1, 0] == 0.2 and log.qd[-1, 0] == 0.0
    # A torque beyond gravity's lifts it off the stop again.
    simulator.run(0.2, effort=[5.0])
    assert simulator.q[0] > 0.25 and simulator.qd[0] > 0.0


@pytest.mark.parametrize('integrator_name', ['rk4', 'semi_implicit_euler',
                                             'adaptive'])
def test_a_violent_impact_on_a_limit_gives_no_nan(integrator_name):
    model = dr.load_urdf(pendulum_urdf(lower=-0.5, upper=0.5))
    simulator = Simulator(model, dt=1e-3, integrator_name=integrator_name,
                          qd0=[1000.0])
    log = simulator.run(0.05)
    assert np.all(np.isfinite(log.q)) and np.all(np.isfinite(log.qd))
    assert np.all(np.abs(log.q) <= 0.5)
    assert log.q[1, 0] == 0.5 and log.qd[1, 0] == 0.0


def test_commanded_effort_saturates_at_the_urdf_limit():
    model = dr.load_urdf(slider_urdf(axis='1 0 0', mass=2.0, effort=5.0))
    simulator = Simulator(model, dt=1e-3)
    simulator.step([1000.0])
    assert simulator.applied_effort[0] == 5.0
    assert_close(simulator.qd, [5.0 / 2.0 * 1e-3], rtol=1e-12)
    simulator.step([-1e9])
    assert simulator.applied_effort[0] == -5.0
    assert_close(simulator.qd, [0.0], rtol=1e-12, scale=1e-3)


def test_continuous_joints_wrap():
    # A vertical axis: gravity exerts no torque, the spin stays at 10 rad/s.
    model = dr.load_urdf(pendulum_urdf(axis='0 0 1'))
    simulator = Simulator(model, dt=1e-3, qd0=[10.0])
    log = simulator.run(2.0)
    assert np.all(log.q >= -np.pi) and np.all(log.q < np.pi)
    assert np.max(np.abs(log.q)) > 3.1
    assert_close(np.unwrap(log.q[:, 0]), 10.0 * log.time, rtol=1e-12)


def test_adaptive_and_rk4_agree_on_a_double_pendulum():
    model = dr.load_urdf(os.path.join(URDF, 'two_link_planar.urdf'))
    start = dict(q0=[0.3, -0.5], qd0=[1.0, 2.0])
    rk4 = Simulator(model, dt=1e-3, **start)
    rk4.run(0.5)
    adaptive = Simulator(model, dt=0.1, integrator_name='adaptive',
                         rtol=1e-12, atol=1e-12, **start)
    adaptive.run(0.5)
    # RK4's global error at h = 1 ms on this swing is below 1e-10.
    assert_close(rk4.q, adaptive.q, rtol=1e-9)
    assert_close(rk4.qd, adaptive.qd, rtol=1e-9)


def test_a_control_law_is_evaluated_at_every_stage():
    # qdd = -k q - c qd from a callable effort: RK4 of the closed loop is
    # as accurate as RK4 of the ODE, far better than holding the effort.
    model = dr.load_urdf(slider_urdf(axis='1 0 0', mass=1.0))
    stiffness = 100.0

    def spring(t, q, qd):
        return -stiffness * q

    simulator = Simulator(model, dt=1e-3, q0=[0.1])
    simulator.run(1.0, spring)
    omega = np.sqrt(stiffness)
    assert_close(simulator.q, [0.1 * np.cos(omega * simulator.t)],
                 rtol=1e-9)
    held = Simulator(model, dt=1e-3, q0=[0.1])
    for _ in range(1000):
        held.step(spring(held.t, held.q, held.qd))
    assert abs(held.q[0] - 0.1 * np.cos(omega)) > 1e-5


def test_default_initial_positions_follow_joint_state_publisher():
    # Zero where zero is allowed, else the middle of the limits.
    model = dr.load_urdf(slider_urdf(lower=0.5, upper=1.5))
    assert Simulator(model).q[0] == 1.0
    model = dr.load_urdf(os.path.join(URDF, 'two_link_planar.urdf'))
    assert np.all(Simulator(model).q == 0.0)


def test_reset_returns_to_the_initial_state():
    model = dr.load_urdf(os.path.join(URDF, 'two_link_planar.urdf'))
    simulator = Simulator(model, q0=[0.1, 0.2])
    simulator.run(0.1, effort=[1.0, 2.0])
    simulator.reset(keep_time=True)
    assert np.all(simulator.q == [0.1, 0.2]) and np.all(simulator.qd == 0.0)
    assert simulator.t == pytest.approx(0.1)
    simulator.reset()
    assert simulator.t == 0.0


def test_bad_arguments_are_refused_with_the_reason():
    model = dr.load_urdf(os.path.join(URDF, 'two_link_planar.urdf'))
    with pytest.raises(ValueError, match='rk4'):
        Simulator(model, integrator_name='euler')
    with pytest.raises(ValueError, match='time step'):
        Simulator(model, dt=0.0)
    with pytest.raises(ValueError, match="'elbow' is outside"):
        Simulator(model, q0=[0.0, 4.0])
    with pytest.raises(ValueError, match='2 finite values'):
        Simulator(model, q0=[0.0])
    with pytest.raises(ValueError, match='effort must be 2'):
        Simulator(model).step([1.0, 2.0, 3.0])
