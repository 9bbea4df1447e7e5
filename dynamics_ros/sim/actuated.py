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
Geared DC motors in the simulator: the winding currents beside (q, qd).

The plant is Freeman's 3M-state model (1985, eqs. 2-228 to 2-236;
``dynamics_ros.dynamics.actuated``): the arm with the rotors reflected to
the joints (armature + n^2 J_m, damping + n^2 b_m), driven by the joint
torque n k_t i, each winding obeying

    L di/dt = V - R i - k_e n qd.

Input.  A voltage per joint, held over the step (a drive is a sampled
device).  Either given directly (``Simulator.step_voltage``,
``Simulator.set_voltage``) or made from a joint torque tau by an ideal
voltage drive (``drive_voltage``), so that effort, position, velocity and
trajectory commands keep working through the motors:

    V = R tau / (n k_t) + k_e n qd,   clipped to +-voltage_limit,

qd at the start of the step.  With qd held it makes the steady current
tau / (n k_t): the joint torque follows the command with the winding's lag
L/R (first order), exactly in the steady state, and the supply limit caps
torque times speed through the back EMF, as on a real arm.

Integration of the current (``MOTOR_INTEGRATIONS``):

- ``exponential``: over a step with V held and the speed taken as a
  ramp qd_0 + a s the winding equation is linear in i with constant
  coefficients and a ramp forcing, so its solution is exact at any step
  (``CurrentOverStep``: exponential time differencing, Cox & Matthews,
  J. Comput. Phys. 176, 2002, for the one linear stiff term).  The ramp's
  slope a is the acceleration at the step's mean current with the speed
  held (one dynamics call more a step): qdd_0 where the winding is slow
  (second order in the back-EMF coupling), the acceleration at the
  steady current where it is fast (L/R well below dt: the winding has
  settled within the step, and the current's start value, from the
  speed of the step before, would make the back EMF lag a step and go
  unstable from dt * rate = 0.85).  The mechanical integrator sees the
  torque n k_t i(s) at each of its stages, the decay at its mean over
  the step (``smooth``).  No stability limit from L/R however short; the
  back EMF, a damper n^2 k_t k_e / R, is explicit (stable up to
  dt * rate = 2 with rk4: check_step warns from 1).
- ``coupled``: the 3M-state ODE [q; qd; i] by the simulator's integrator
  at every stage (rk4: fourth order in everything, stable while
  dt R / L < 2.785; check_step warns from half of that).  The winding
  current rides as the velocity of a coordinate, the charge through the
  winding, so every integrator of integrators.py takes it unchanged.

``auto`` (the default) takes ``coupled`` where the step is short enough
for the windings (dt R / L at most half the integrator's stability limit,
where check_step would start warning; always with the adaptive
integrator), else ``exponential``.  Measured on Panda with 50:1 motors
(L/R = 1.3 ms) over 0.1 s at 1 kHz against a 10 us reference: coupled
2e-10 rad, exponential 3e-6 rad (1.5e-6 at 2 kHz, 5e-7 at 4 kHz; speeds
and currents fall 3.5 to 3.8 times a halving: second order);
test/sim/test_actuated_simulator.py.

Joint effects (implicit damping, friction and limit impulses, wrapping)
act after the step as on any model.  Where an impulse stopped a joint (a
limit, static friction) its current is taken again by ``CurrentOverStep``
with the speed it really had, a ramp from the step's start to zero: a
motor stalled on a stop reaches V / R.
"""

import numpy as np

MOTOR_INTEGRATIONS = ('auto', 'exponential', 'coupled')


def clip_voltage(motors, voltage):
    """Return ``voltage`` clipped to the drives' +-voltage_limit."""
    limit = motors.voltage_limit
    return np.clip(voltage, -limit, limit)


def drive_voltage(motors, effort, qd):
    """
    Return the ideal voltage drive's V for joint torques ``effort``.

    V = R effort / (n k_t) + k_e n qd, clipped to +-voltage_limit (module
    notes): the voltage whose steady current gives ``effort`` at ``qd``.
    """
    n = motors.gear_ratio
    return clip_voltage(motors, motors.resistance * effort
                        / (n * motors.torque_constant)
                        + motors.back_emf * n * qd)


class CurrentOverStep:
    """
    The exact winding current over a step with V held, qd a ramp.

    ``current(s)`` at ``s`` seconds into the step solves
    L di/ds = V - R i - k_e n (qd_0 + a s) exactly:

        i(s) = alpha + beta s + (i_0 - alpha) exp(-R s / L),
        beta = -k_e n a / R,  alpha = (V - k_e n qd_0) / R - L beta / R.

    ``smooth(s)``: the same with the decaying term replaced by its mean
    over the step of ``dt`` (the torque the mechanical integrator sees:
    its stages would sample a decay much faster than the step badly, and
    the mean keeps the impulse of the step, the joint speed's change,
    exact).
    """

    __slots__ = ('rate', 'steady', 'slope', 'offset', 'mean')

    def __init__(self, motors, current, voltage, qd, a, dt):
        emf = motors.back_emf * motors.gear_ratio
        R = motors.resistance
        self.rate = R / motors.inductance
        self.slope = -emf * a / R
        self.steady = (voltage - emf * qd - motors.inductance
                       * self.slope) / R
        self.offset = current - self.steady
        # (1 - exp(-x)) / x, accurate also where x is tiny.
        x = self.rate * dt
        self.mean = self.steady + self.offset * -np.expm1(-x) / x

    def __call__(self, s):
        """Return the currents at ``s`` seconds into the step."""
        return self.steady + self.slope * s + self.offset * np.exp(
            -self.rate * s)

    def smooth(self, s):
        """Return the currents with the decay at its step mean."""
        return self.mean + self.slope * s


def resolve_integration(name, motors, dt, limit):
    """
    Return 'exponential' or 'coupled' for ``name`` (one of the three).

    ``limit``: the integrator's stability limit in dt * rate (inf for the
    adaptive one); 'auto' takes 'coupled' while dt R / L <= limit / 2.
    """
    if name not in MOTOR_INTEGRATIONS:
        raise ValueError('motor_integration must be one of %s, got %r'
                         % (', '.join(MOTOR_INTEGRATIONS), str(name)[:80]))
    if name != 'auto':
        return name
    fastest = float(np.max(dt * motors.resistance / motors.inductance))
    return 'coupled' if fastest <= 0.5 * limit else 'exponential'


def motor_rates(motors, inverse_inertia, dt, integration, limit):
    """
    Return {term: (dt * rate, joint index)} of the motors' explicit terms.

    ``inverse_inertia``: the largest (M^-1)_ii of the reflected arm per
    joint; ``limit``: the integrator's stability limit (dt * rate).  The
    back EMF damps a joint at n^2 k_t k_e / R (M^-1)_ii in the steady
    state; the exponential update holds it at the step's start speed, a
    forward-Euler term (stable up to 2), reported scaled to ``limit``.  The
    coupled update integrates the winding, R / L, in the integrator.
    """
    n = motors.gear_ratio
    emf = dt * n * n * motors.torque_constant * motors.back_emf \
        / motors.resistance * inverse_inertia
    rates = {}
    if integration == 'exponential':
        emf = emf * limit / 2.0
    else:
        winding = dt * motors.resistance / motors.inductance
        k = int(np.argmax(winding))
        rates['motor winding R / L'] = (float(winding[k]), k)
    if np.all(np.isfinite(emf)):
        k = int(np.argmax(emf))
        rates['motor back EMF damping (n^2 k_t k_e / R)'] = (float(emf[k]), k)
    return rates
