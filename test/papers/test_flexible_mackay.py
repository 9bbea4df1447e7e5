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
Mackay's verification cases (1988, sec. 3.3) simulated as FLX runs them.

Fixed-step RK4 at the thesis' steps; periods from interpolated crossings.
The thesis' own numbers are the expected values, with the thesis' stated
precision unless a comment gives the reason for another tolerance.
"""

from conftest import assert_close
from dynamics_ros.flexible.control import CubicSplineTrajectory, \
    PIDController
from dynamics_ros.flexible.energy import total_energy
from dynamics_ros.flexible.examples import (
    mackay_double_pendulum, MACKAY_EI, MACKAY_GRAVITY,
    mackay_joint_mass_link, MACKAY_LENGTH, MACKAY_MASS, mackay_pendulum,
    mackay_three_link_arm)
from dynamics_ros.flexible.modes import gauss_stations, ModeShapes
from dynamics_ros.flexible.simulate import crossing_times, mean_period, \
    simulate
import numpy as np
import pytest
from scipy.linalg import eigh
from scipy.special import ellipk


def energies(fm, result):
    """Total energy at every recorded sample."""
    return np.array([total_energy(fm, z, zd)
                     for z, zd in zip(result.z, result.zd)])


def elliptic_period(amplitude, a=MACKAY_LENGTH, g=MACKAY_GRAVITY):
    """Compound pendulum period 4 sqrt(2a/3g) K(k), k = sin(phi_max/2)."""
    k = np.sin(amplitude / 2)
    return 4 * np.sqrt(2 * a / (3 * g)) * ellipk(k * k)


# Table 3.2: amplitude -> (SRPEN, FLX, elliptic), s.
TABLE_3_2 = {0.05: (3.276, 3.276, 3.276), 0.1: (3.278, 3.278, 3.278),
             0.2: (3.284, 3.284, 3.284), 0.4: (3.308, 3.308, 3.309)}


@pytest.mark.parametrize('amplitude', sorted(TABLE_3_2))
def test_rigid_pendulum_periods_of_table_3_2(amplitude):
    """SRPEN/FLX at h = 1 ms against Table 3.2 and the elliptic integral."""
    fm = mackay_pendulum(0)
    result = simulate(fm, [amplitude], [0.0], 0.9, 1e-3)
    # Released from rest: the first zero crossing is a quarter period.
    period = 4 * crossing_times(result.time, result.z[:, 0], 0.0,
                                rising=False)[0]
    srpen, flx, elliptic = TABLE_3_2[amplitude]
    # The thesis' SRPEN/FLX periods: +-1 ms as it states, plus half a unit
    # of the printed third decimal.  At 0.4 rad its 3.308 s is 0.96 ms
    # below the exact 3.30896 s (its own elliptic column prints 3.309):
    # the thesis' measurement, not ours, uses up its stated precision.
    assert abs(period - flx) <= 0.001 + 0.0005
    assert srpen == flx
    # The elliptic column is computed: only its rounding.
    assert abs(period - elliptic) <= 0.0005
    # Ours against the exact period: RK4 at h = 1 ms (error ~ (w h)^4 per
    # unit time) and the crossing interpolated linearly where phi'' = 0
    # (third-order error) leave at most 2.3e-10 s at these amplitudes.
    assert abs(period - elliptic_period(amplitude)) < 1e-9


def test_double_pendulum_conserves_energy_to_eight_places():
    """DRPEN: 'total system energy remains constant within eight decimal places'."""
    fm = mackay_double_pendulum()
    result = simulate(fm, [0.4, 0.4], [0.0, 0.0], 2.0, 1e-3)
    energy = energies(fm, result)
    assert np.ptp(energy) < 0.5e-8 * max(1.0, abs(energy[0]))
    assert np.ptp(result.z[:, 1]) > 0.5                   # it did move


@pytest.fixture(scope='module')
def flexible_pendulum():
    """FPEN/FLX: phi0 = 0.4 rad, varsigma0 = 0.012, rest, 10 s at 1 ms."""
    fm = mackay_pendulum(1)
    return fm, simulate(fm, [0.4, 0.012], [0.0, 0.0], 10.0, 1e-3)


def test_flexible_pendulum_flexural_period_is_47_ms(flexible_pendulum):
    """Flexural period 47 +- 1 ms (thesis), linearized 47.15 ms (derived)."""
    fm, result = flexible_pendulum
    period = mean_period(result.time, result.z[:, 1])
    assert abs(period - 0.047) <= 0.001
    linear = fm.natural_periods([0.0, 0.0])[0]
    assert_close(linear, 0.04715, 1e-3)
    # The amplitude-dependent simulated period stays within 1 % of it.
    assert abs(period - linear) < 0.01 * linear


def fpen_accelerations(state, torque=0.0):
    """
    FPEN: eq. 3.11 and corrected 3.12 solved for (phi_dd, varsigma_dd).

    (m a^2/3 + m F s^2) phi_dd - m G a s_dd + 2 m F s s_d phi_d
      + m g ((a/2) sin phi - H s cos phi) = T,
    -m G a phi_dd + m F s_dd + (K EI / (4 a^3) - m F phi_d^2) s
      - m g H sin phi = 0,
    with F, G, H, K of eqs. 3.13-3.16 from the first clamped-free shape.
    """
    phi, s, phid, sd = state
    m, a, g = MACKAY_MASS, MACKAY_LENGTH, MACKAY_GRAVITY
    F, G, H, K = FPEN_CONSTANTS
    M = [[m * a * a / 3 + m * F * s * s, -m * G * a], [-m * G * a, m * F]]
    rhs = [torque - 2 * m * F * s * sd * phid -
           m * g * (a / 2 * np.sin(phi) - H * s * np.cos(phi)),
           -(K * MACKAY_EI / (4 * a ** 3) - m * F * phid ** 2) * s +
           m * g * H * np.sin(phi)]
    return np.linalg.solve(M, rhs)


def _fpen_constants():
    shapes = ModeShapes(MACKAY_LENGTH, 1, 'mackay')
    eta, w = gauss_stations(MACKAY_LENGTH, 64)
    V = shapes.shape(eta)[0]
    a = MACKAY_LENGTH
    return (V ** 2 @ w / a, eta * V @ w / a ** 2, V @ w / a,
            shapes.roots[0] ** 4 * shapes.shape(a)[0, 0] ** 2)


FPEN_CONSTANTS = _fpen_constants()


def fpen_history(varsigma0, duration=10.0, h=1e-3):
    """RK4 of FPEN from phi0 = 0.4 rad, varsigma0, rest: (t, (phi, s))."""
    x = np.array([0.4, varsigma0, 0.0, 0.0])

    def rate(x):
        return np.concatenate((x[2:], fpen_accelerations(x)))

    steps = int(round(duration / h))
    z = np.empty((steps + 1, 2))
    z[0] = x[:2]
    for i in range(steps):
        k1 = rate(x)
        k2 = rate(x + 0.5 * h * k1)
        k3 = rate(x + 0.5 * h * k2)
        k4 = rate(x + h * k3)
        x = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        z[i + 1] = x[:2]
    return np.arange(steps + 1) * h, z


def swing_periods(fm, time, z):
    """
    Periods of the swing: crossings of the pendulum mode's coordinate.

    The joint angle carries the flexural ripple (the link back-drives the
    joint), which moves its zero crossings by up to ~9 ms and adds
    spurious ones.  The coordinates of the modes linearized at rest (K v =
    w^2 M v, M-orthonormal v; K by central differences of the generalized
    forces, gravity included) separate the swing from the flexure: the
    slow mode's coordinate v_1^T M z crosses zero once a half swing, its
    crossings interpolated linearly.  No window to choose.
    """
    rest = np.zeros(fm.nz)
    M = fm.mass_matrix(rest)
    K = np.column_stack([
        (fm.inverse_dynamics(rest + d, rest, rest)
         - fm.inverse_dynamics(rest - d, rest, rest)) / 2e-7
        for d in 1e-7 * np.eye(fm.nz)])
    squares, shapes = eigh(K, M)
    swing = np.asarray(z) @ M @ shapes[:, np.argmin(squares)]
    return np.diff(crossing_times(time, swing, 0.0))


def test_flexible_pendulum_joint_period_is_3_307_s(flexible_pendulum):
    """
    Joint period: thesis 3.307 +- 0.001 s (FPEN and FLX alike).

    The initial state is the thesis' own: phi0 = 0.4 rad, varsigma0 =
    +0.012 in the variables of eq. 3.11 (which fixes the sign of varsigma
    by its coupling -m G a and its gravity term -m g H varsigma cos phi).
    The FLX-type model is first held to eqs. 3.11-3.12 at that state, then
    both are integrated.  The period is measured on the pendulum mode's
    coordinate (swing_periods): its two periods in 10 s agree to 1e-6 s,
    3.30790 s, against the thesis' 3.307 +- 0.001 (plus half a unit of
    the printed third decimal).  FPEN and FLX agree to 1e-6 s.  With the
    opposite deflection (varsigma0 = -0.012) the swing is 3.31023 s, 3.2
    ms from the thesis: the sign is physical, and eq. 3.11 states it.
    The flexible link swings 1.05 ms faster than the rigid one (3.30896
    s); the thesis' 3.307 against its FLX 3.308 says the same, 1 ms.
    """
    fm, result = flexible_pendulum
    state = np.array([0.4, 0.012, 0.0, 0.0])
    assert_close(fm.forward_dynamics(state[:2], state[2:], [0.0]),
                 fpen_accelerations(state))
    flx = swing_periods(fm, result.time, result.z)
    fpen = swing_periods(fm, *fpen_history(0.012))
    assert flx.size == 2 and np.ptp(flx) < 1e-6
    assert np.abs(fpen - flx).max() < 1e-6          # 'FPEN and FLX alike'
    assert abs(flx[0] - 3.307) <= 0.001 + 0.0005
    # The other sign (our number; the thesis does not run it).
    other = swing_periods(fm, *fpen_history(-0.012))
    assert np.ptp(other) < 1e-6 and abs(other[0] - 3.307) > 0.003
    # The flexible link swings a little faster than the rigid pendulum.
    assert 0.0009 < elliptic_period(0.4) - flx[0] < 0.0012


def test_flexible_pendulum_conserves_energy_at_1_ms(flexible_pendulum):
    """
    At h = 1 ms: 'a negligible decrease in total system energy'.

    The thesis says 'eight decimal places'; a reimplementation measured a
    relative drift of 3e-6 over 10 s (RK4 error at h = 1/47 of the
    flexural period), so the test holds 1e-5 relative and a loss below
    0.1 % of the flexural energy.
    """
    fm, result = flexible_pendulum
    energy = energies(fm, result)
    flexural = 0.5 * fm.stiffness[1] * 0.012 ** 2
    drift = np.max(np.abs(energy - energy[0]))
    assert drift < 1e-5 * abs(energy[0])
    assert drift < 1e-3 * flexural
    # Still vibrating at the end: no numerical damping at 1 ms.
    assert np.ptp(result.z[-200:, 1]) > 0.02


def test_flexible_pendulum_at_10_ms_damps_the_flexure():
    """
    At h = 10 ms the flexure is damped away within about 2 s (Fig. 3.14).

    'Only the quasi-static deflection remains after approximately 2 s'.
    """
    fm = mackay_pendulum(1)
    result = simulate(fm, [0.4, 0.012], [0.0, 0.0], 10.0, 1e-2)
    energy = energies(fm, result)
    flexural = 0.5 * fm.stiffness[1] * 0.012 ** 2
    at_2s = np.searchsorted(result.time, 2.0)
    assert energy[0] - energy[at_2s] > 0.9 * flexural
    # The joint still swings with the rigid period (3.31 +- 0.01 s).
    assert abs(mean_period(result.time, result.z[:, 0], 0.0) - 3.31) <= 0.01
    # What is left of the flexure: under 5 % of the initial 2 x 0.012.
    assert np.ptp(result.z[-100:, 1]) < 0.05 * 0.024


def test_joint_mass_link_flexural_periods():
    """
    JMFLX (no gravity): back-driven ~50 ms with no joint mass, toward 275 ms.

    'No joint mass' is J = 0 and, with no hub stated, R = 0: the thesis'
    49.6 ms cannot be reached from its stated data; we get 47.17 ms (the
    linearized eqs. 3.17-3.18 give 47.15 ms; 49.6 ms would need a hub
    radius R of about 0.05 m, which the thesis does not state).  The period
    tends to 275 ms as the joint inertia grows (Fig. 3.20) and is 275 ms
    for deflection in the plane of the joint axis (Fig. 3.21).  Tolerance
    1 ms, the thesis' reading precision.
    """
    cases = [  # J, modes xy, xz, expected period (s), span (s), joint ptp
        (0.0, 1, 0, 0.0472, 0.5, (1e-3, 1.0)),          # back-driven
        (1e4, 1, 0, 0.275, 1.2, (0.0, 2e-4)),           # nearly clamped
        (0.0, 0, 1, 0.275, 1.2, (0.0, 1e-12))]          # plane of axis
    for inertia, xy, xz, expected, span, joint in cases:
        fm = mackay_joint_mass_link(inertia, 0.0, xy, xz)
        result = simulate(fm, [0.0, 0.012], [0.0, 0.0], span, 1e-3)
        period = mean_period(result.time, result.z[:, 1])
        assert abs(period - expected) <= 0.001, (inertia, period)
        assert joint[0] <= np.ptp(result.z[:, 0]) <= joint[1]
    # The back-driven case, linearized (the thesis prints 49.6 ms).
    fm = mackay_joint_mass_link(0.0, 0.0, 1, 0)
    assert abs(fm.natural_periods([0.0, 0.0])[0] - 0.04715) < 0.00001


@pytest.fixture(scope='module')
def three_link_move():
    """Sec. 3.3.5: 7-DOF arm, PID on a cubic spline, off at 0.5 s."""
    fm = mackay_three_link_arm(1)
    q0 = np.array([0.0, 0.3, -0.6])
    q1 = np.array([1.0, 0.8, -1.2])
    trajectory = CubicSplineTrajectory([0.0, 1.0], [q0, q1])
    controller = PIDController(trajectory, kp=[2e4, 4e4, 1e4],
                               ki=[1e4, 4e4, 1e4], kd=[1500, 2000, 500],
                               dt=1e-3, cutoff=0.5)
    z0 = fm.join(q0, fm.static_deflection(q0))
    result = simulate(fm, z0, np.zeros(fm.nz), 1.0, 1e-3, controller)
    return fm, trajectory, result


def test_three_link_inverse_dynamics_closes_the_loop(three_link_move):
    """
    Closure (Figs. 3.28-3.29): inverse dynamics returns the PID torques.

    The state history fed to the inverse dynamics gives back the applied
    joint torques and zero modal forces.
    """
    fm, trajectory, result = three_link_move
    on = result.time < 0.5
    forces = np.array([fm.inverse_dynamics(z, zd, zdd) for z, zd, zdd in
                       zip(result.z, result.zd, result.zdd)])
    assert np.abs(result.tau[on]).max() > 100.0         # really driven
    assert_close(forces[:, :fm.nq], result.tau)
    assert np.abs(forces[:, fm.nq:]).max() < 1e-9 * np.abs(result.tau).max()
    # The arm followed the command and its links bent in both planes.
    index = np.searchsorted(result.time, 0.5)
    assert np.abs(result.z[index, :3] - trajectory(0.5)[0]).max() < 0.15
    assert np.abs(result.z[:, fm.nq:]).max(axis=0).min() > 1e-4


def test_three_link_energy_is_conserved_after_cutoff(three_link_move):
    """
    Controllers off at 0.5 s: 'the solutions ... are conservative'.

    Tolerance 1e-4 relative: after the cutoff the arm falls and spins
    (energy about 1 kJ) and RK4 at h = 1 ms, about 1/44 of the shortest
    period here, drifts by ~2e-5.
    """
    fm, _, result = three_link_move
    off = result.time > 0.5
    energy = energies(fm, result)
    assert np.ptp(energy[off]) < 1e-4 * np.abs(energy[off]).max()
    # While driven the energy changed by far more than that.
    assert np.ptp(energy[~off]) > 100.0
