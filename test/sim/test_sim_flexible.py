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
The ROS-free Simulator stepping a FlexibleModel (Mackay 1988).

Oracles: Mackay's flexible pendulum (thesis numbers), the flexible
package's own FLX-style simulation, the rigid Simulator (a flexible model
without modes) and the clamped-free beam for a joint held by friction.
"""

import os
import warnings

from conftest import assert_close, REPO_ROOT
import dynamics_ros as dr
from dynamics_ros.errors import ModelWarning
from dynamics_ros.flexible.control import CubicSplineTrajectory, \
    PIDController
from dynamics_ros.flexible.examples import (
    mackay_joint_mass_link, mackay_link, mackay_pendulum,
    mackay_three_link_arm)
from dynamics_ros.flexible.model import FlexibleModel
from dynamics_ros.flexible.simulate import mean_period, simulate
from dynamics_ros.sim.simulator import Simulator
import numpy as np
import pytest

ROOT = REPO_ROOT
PLANAR_URDF = os.path.join(ROOT, 'urdf', 'two_link_planar.urdf')
CONFIG = os.path.join(ROOT, 'config', 'flexible_two_link_planar.yaml')
DT = 1e-3


@pytest.fixture(scope='module')
def pendulum_run():
    """FPEN as FLX runs it: phi0 = 0.4 rad, varsigma0 = 0.012, 10 s, RK4."""
    fm = mackay_pendulum(1)
    simulator = Simulator(fm, dt=DT, integrator_name='rk4',
                          q0=[0.4, 0.012])
    return fm, simulator.run(10.0)


def test_flexible_pendulum_periods_of_the_thesis(pendulum_run):
    """
    Flexural period 47 +- 1 ms, joint period 3.307 +- 0.001 s (Mackay).

    The joint period is read after a moving average over one flexural
    period, which takes out the 47 ms ripple (as test_flexible_mackay).
    """
    _, log = pendulum_run
    assert log.z.shape == (10001, 2) and log.q.shape == (10001, 1)
    flexural = mean_period(log.time, log.z[:, 1])
    assert abs(flexural - 0.047) <= 0.001
    window = 47
    smooth = np.convolve(log.q[:, 0], np.ones(window) / window, 'valid')
    time = log.time[window // 2:window // 2 + smooth.size]
    assert abs(mean_period(time, smooth, 0.0) - 3.307) <= 0.001
    # Still vibrating at the end: RK4 at 1 ms keeps the flexure.
    assert np.ptp(log.z[-200:, 1]) > 0.02


def test_flexible_pendulum_matches_the_flexible_package(pendulum_run):
    """The same RK4 steps as dynamics_ros.flexible.simulate, to rounding."""
    fm, log = pendulum_run
    result = simulate(fm, [0.4, 0.012], [0.0, 0.0], 2.0, DT)
    steps = result.time.size
    assert_close(log.time[:steps], result.time, rtol=1e-12)
    assert_close(log.z[:steps], result.z, what='z')
    assert_close(log.zd[:steps], result.zd, what='zd')


def test_a_driven_flexible_arm_matches_the_flexible_package():
    """
    Mackay's 3-link arm (7 coordinates, continuous joints) under a PID.

    The flexible package samples its controller once per step and holds
    the torque; so does a Simulator stepped with an effort array.
    """
    fm = mackay_three_link_arm(1)
    q0, q1 = np.array([0.0, 0.3, -0.6]), np.array([1.0, 0.8, -1.2])

    def controller():
        return PIDController(CubicSplineTrajectory([0.0, 0.3], [q0, q1]),
                             kp=[2e4, 4e4, 1e4], ki=[1e4, 4e4, 1e4],
                             kd=[1500, 2000, 500], dt=DT)

    result = simulate(fm, fm.join(q0, fm.static_deflection(q0)),
                      np.zeros(fm.nz), 0.2, DT, controller())
    simulator = Simulator(fm, dt=DT, q0=q0)   # modes: static deflection
    assert_close(simulator.z, result.z[0], rtol=1e-12)
    drive = controller()
    for k in range(1, result.time.size):
        simulator.step(drive(simulator.t, simulator.q, simulator.qd))
        assert_close(simulator.z, result.z[k], what='z at step %d' % k)
        assert_close(simulator.zd, result.zd[k], what='zd at step %d' % k)
        assert_close(simulator.applied_effort, result.tau[k - 1],
                     what='effort at step %d' % k)
    assert np.abs(result.z[-1, :3] - q0).max() > 0.05     # it moved
    assert np.abs(result.z[:, 3:]).max() > 1e-4          # and bent


def test_without_modes_the_run_equals_the_rigid_run():
    """
    A flexible config with no modes: the rigid Simulator's run, to 1e-9.

    Damping, Coulomb friction, a position limit that is hit and effort
    saturation act on both; the rigid model is rigid_model(), whose
    inertias are the declared beams'.
    """
    model = dr.load_urdf(PLANAR_URDF).copy(
        damping=np.array([0.3, 0.1]), friction=np.array([0.5, 0.2]),
        lower_limit=np.array([-3.0, -0.2]), upper_limit=np.array([3.0, 0.4]))
    fm = dr.load_flexible({'flexible_links': {
        'upper_link': {'length': 1.0, 'mass': 2.0, 'EI': 300.0, 'modes': 0},
        'fore_link': {'length': 0.8, 'mass': 1.5, 'EI': 120.0, 'modes': 0}}},
        model=model)
    assert fm.nz == fm.nq == 2

    def effort(t, q, qd):
        assert q.shape == qd.shape == (2,)    # controllers see the joints
        return np.array([40.0 * np.cos(3.0 * t), 80.0 * np.sin(5.0 * t)])

    for integrator_name in ('rk4', 'semi_implicit_euler'):
        logs = [Simulator(m, dt=DT, integrator_name=integrator_name,
                          q0=[-1.0, 0.0]).run(1.0, effort)
                for m in (fm, fm.rigid_model())]
        flexible, rigid = logs
        assert_close(flexible.q, rigid.q, what=integrator_name)
        assert_close(flexible.qd, rigid.qd, what=integrator_name)
        assert_close(flexible.effort, rigid.effort)
        assert np.any(rigid.q[:, 1] == 0.4) and np.all(rigid.q[:, 1] <= 0.4)
        assert np.abs(rigid.effort[:, 1]).max() == 30.0     # saturated


def held_by_friction(fm, link):
    """Return ``fm`` with Coulomb friction far above any joint torque."""
    return FlexibleModel(fm.model.copy(friction=np.array([1e4])),
                         {'link1': link})


def test_a_joint_held_by_friction_leaves_a_clamped_beam():
    """
    Joint stuck by static friction: the link vibrates as clamped-free.

    Mackay's Table 3.1 link, no gravity: 275 ms clamped (thesis; 275.40 ms
    exact), against 47.2 ms with the joint free.  The friction impulse acts
    on the joint with the modes free to respond (joint block of I^-1); it is
    applied once per step, so the period is 1 ms-accurate (0.2 ms here).
    """
    free = mackay_joint_mass_link(0.0, 0.0, 1, 0)
    held = held_by_friction(free, mackay_link(1, 0))
    runs = {}
    for name, fm in (('free', free), ('held', held)):
        runs[name] = Simulator(fm, dt=DT, q0=[0.0, 0.012]).run(0.9)
    assert abs(mean_period(runs['held'].time, runs['held'].z[:, 1])
               - 0.275) <= 0.001
    assert np.all(runs['held'].q == 0.0) and np.all(runs['held'].qd == 0.0)
    assert abs(mean_period(runs['free'].time, runs['free'].z[:, 1])
               - 0.0472) <= 0.001
    assert np.ptp(runs['free'].q) > 0.01


def test_modes_start_at_rest_under_gravity():
    """
    Joint positions only: the modes start at the static deflection.

    The pendulum held by friction at 0.4 rad then stays put (the residual
    ripple, 1 % of the deflection, is the once-per-step friction impulse);
    started undeformed it swings about the same deflection.
    """
    fm = held_by_friction(mackay_pendulum(1), mackay_link(
        1, 0, y_axis=(0.0, -1.0, 0.0)))
    at_rest = Simulator(fm, dt=DT, q0=[0.4])
    deflection = fm.static_deflection([0.4])[0]
    assert deflection > 1e-3
    assert_close(at_rest.z, [0.4, deflection], rtol=1e-15)
    assert_close(at_rest.zd, [0.0, 0.0], rtol=1e-15)
    log = at_rest.run(0.3)
    assert np.ptp(log.z[:, 1]) < 0.01 * deflection
    undeformed = Simulator(fm, dt=DT, q0=[0.4, 0.0]).run(0.3)
    assert np.ptp(undeformed.z[:, 1]) > 1.8 * deflection
    # reset: the same rules (joint values, or every coordinate).
    at_rest.reset(q=[0.4, 0.0], qd=[0.0])
    assert_close(at_rest.z, [0.4, 0.0], rtol=1e-15)
    at_rest.reset(q=[0.4])
    assert_close(at_rest.z, [0.4, deflection], rtol=1e-15)


def test_rk4_converges_to_the_adaptive_solution_at_fourth_order():
    """
    solve_ivp (DOP853, rtol 1e-10) across 10 ms steps as the reference.

    RK4's error over 0.2 s falls about 16-fold when its step halves (20.6
    measured: 1 ms is not quite asymptotic); a second-order error would
    fall 4-fold.
    """
    fm = mackay_pendulum(1)
    adaptive = Simulator(fm, dt=0.01, integrator_name='adaptive',
                         q0=[0.4, 0.012], rtol=1e-10, atol=1e-13)
    adaptive.run(0.2)
    errors = []
    for dt in (DT, DT / 2):
        rk4 = Simulator(fm, dt=dt, q0=[0.4, 0.012])
        rk4.run(0.2)
        errors.append(np.abs(np.concatenate((rk4.z - adaptive.z,
                                             rk4.zd - adaptive.zd))).max())
    # At 1 ms (1/47 of the flexural period): 3e-5 of the rates (1.6).
    assert errors[0] < 1e-4
    assert 12.0 < errors[0] / errors[1] < 24.0
    assert abs(adaptive.z[1] - 0.012) > 0.005      # the flexure moved


def test_flexible_state_and_names():
    """flexible_state: modes, then tip deflections; rigid: None."""
    fm = dr.load_flexible(CONFIG)
    simulator = Simulator(fm, dt=2.5e-4, q0=[-1.2, 0.5])
    simulator.run(0.05, effort=[10.0, 5.0])
    names, positions, velocities = simulator.flexible_state()
    assert names == ['upper_link/xz1', 'upper_link/xz2', 'fore_link/xz1',
                     'fore_link/xz2', 'upper_link/tip_y', 'upper_link/tip_z',
                     'fore_link/tip_y', 'fore_link/tip_z']
    assert simulator.coordinate_names == ['shoulder', 'elbow'] + names[:4]
    assert_close(positions[:4], simulator.z[2:], rtol=0.0)
    assert_close(velocities[:4], simulator.zd[2:], rtol=0.0)
    expected = fm.flexible_state(simulator.z, simulator.zd)
    assert_close(positions, expected[1], rtol=0.0)
    # Normalization 'tip': a tip deflection is the sum of the amplitudes.
    assert_close(positions[5], simulator.z[2] + simulator.z[3])
    assert abs(positions[5]) > 1e-4 and positions[4] == 0.0
    assert Simulator(fm.rigid_model()).flexible_state() is None


def test_a_long_step_is_warned_about_and_bad_starts_refused():
    fm = mackay_pendulum(1)
    with pytest.warns(ModelWarning, match='1/20 of the shortest natural '
                      r'period .*\(47\.15 ms'):
        Simulator(fm, dt=0.01)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        Simulator(fm, dt=DT)
        Simulator(fm, dt=0.01, integrator_name='adaptive')
    with pytest.raises(ValueError, match='1 or 2 finite values'):
        Simulator(fm, q0=[0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match='1 or 2 finite values'):
        Simulator(fm, qd0=[0.1, np.nan])
