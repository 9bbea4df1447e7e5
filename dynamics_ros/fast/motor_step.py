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
One fixed simulator step of an arm driven by DC motors, compiled.

The smooth part of ``sim.motor_plant.MotorDrivenPlant.motor_step`` in one
call: (q, qd, current) advanced over a step at voltages held over it (given, or
made from a held effort by the ideal drive ``sim.actuated.drive_voltage``),
the winding current by the plant's 'exponential' update
(``sim.actuated.CurrentOverStep``: one ABA call for the speed's ramp, then
the integrator's stages under n k_t times the smoothed current) or its
'coupled' one (the winding equation as a coordinate of the integrator), by
rk4 or semi-implicit Euler.  The arithmetic is the Python step's, operation
for operation (as ``sim_step`` is the rigid step's), so the two give the
same numbers: the stages run ``sim_step.stage_acceleration``, the ABA the
Python step's forward dynamics calls.

The exponentials of the exponential update depend on the motors and dt
only; they are computed by numpy (``motor_table``), as the Python step
computes them, not here: numpy's exp and libm's may differ in the last bit.

What is left to the Python step: the friction and limit impulses, the
implicit damping, the current of a joint an impulse stopped, the wrap of
continuous joints, and the error messages (the kernel says which steps need
them: ``sim_step``'s statuses).  Joint friction set on the simulator and an
external wrench act inside the integration: those steps are Python.
"""

import numpy as np

from .compiler import compiled, INPUT_VECTOR, kernel, MATRIX, VECTOR
from .sim_step import (BAD_EFFORT, BAD_SHAPES, CONSTRAIN, DIVERGED, DONE,
                       FRICTION, JOINT_ROWS, K1V, K2Q, K2V, K3Q, K3V, K4V,
                       LOWER_LIMIT, RK4, rk4_sum, saturate,
                       stage_acceleration, STAGE_Q, STAGE_QD, STAGE_ROWS,
                       UPPER_LIMIT)

# Rows of the motor table (``motor_table``), per joint.
GAIN = 0            # n k_t: joint torque per ampere
EMF = 1             # k_e n: back-EMF volts per joint rad/s
RESISTANCE = 2      # R
INDUCTANCE = 3      # L
STEP_RATE = 4       # x = dt R / L
MEAN_DECAY = 5      # 1 - exp(-x), as -expm1(-x)
END_DECAY = 6       # exp(-R dt / L)
VOLTAGE_LIMIT = 7   # the drive's supply
MOTOR_ROWS = 8

# The winding's integration (sim/actuated.py, MOTOR_INTEGRATIONS).
EXPONENTIAL = 0
COUPLED = 1
MOTOR_INTEGRATION_CODES = {'exponential': EXPONENTIAL, 'coupled': COUPLED}

# Rows of the scratch ``motor_scratch``: the torque n k_t i of the stage,
# the coefficients of CurrentOverStep (i(s) = steady + slope s + offset
# exp(-R s / L), its decay's mean over the step: mean), the stage current
# and the winding rates di/dt of the four stages of the coupled update.
EFFORT = 0
STEADY = 1
SLOPE = 2
OFFSET = 3
MEAN = 4
STAGE_CURRENT = 5
W1 = 6
W2 = 7
W3 = 8
W4 = 9
MOTOR_SCRATCH_ROWS = 10

# Beyond this size a sum of the state could overflow where numpy's order
# and the kernel's differ: the Python step then decides (DIVERGED).
SAFE_MAGNITUDE = 1e300


def motor_table(motors, dt):
    """
    Return the (MOTOR_ROWS, nq) motor constants for a step of ``dt``.

    Each in the operations of sim/actuated.py (CurrentOverStep,
    drive_voltage) and dynamics/actuated.py (winding_rate), so that the
    kernel multiplies by the same numbers.
    """
    table = np.empty((MOTOR_ROWS, motors.nq))
    rate = motors.resistance / motors.inductance
    x = rate * dt
    table[GAIN] = motors.gear_ratio * motors.torque_constant
    table[EMF] = motors.back_emf * motors.gear_ratio
    table[RESISTANCE] = motors.resistance
    table[INDUCTANCE] = motors.inductance
    table[STEP_RATE] = x
    table[MEAN_DECAY] = -np.expm1(-x)
    table[END_DECAY] = np.exp(-rate * dt)
    table[VOLTAGE_LIMIT] = motors.voltage_limit
    return table


def motor_scratch(model):
    """Return the scratch rows ``motor_fixed_step`` needs for ``model``."""
    return np.zeros((MOTOR_SCRATCH_ROWS, model.nq))


@compiled
def current_over_step(motors, scratch, current, voltage, qd, acceleration,
                      held_speed):
    """
    Write CurrentOverStep's coefficients to ``scratch``.

    The speed a ramp qd + acceleration s over the step (``held_speed``:
    a = 0, the acceleration not read).  slope = -k_e n a / R, steady =
    (V - k_e n qd - L slope) / R, offset = i_0 - steady, mean = steady +
    offset (1 - exp(-x)) / x, each as numpy evaluates it.
    """
    for i in range(current.shape[0]):
        emf = motors[EMF, i]
        resistance = motors[RESISTANCE, i]
        a = 0.0 if held_speed else acceleration[i]
        slope = -emf * a / resistance
        steady = (voltage[i] - emf * qd[i]
                  - motors[INDUCTANCE, i] * slope) / resistance
        offset = current[i] - steady
        scratch[SLOPE, i] = slope
        scratch[STEADY, i] = steady
        scratch[OFFSET, i] = offset
        scratch[MEAN, i] = steady + offset * motors[MEAN_DECAY, i] \
            / motors[STEP_RATE, i]


@compiled
def exponential_ramp(table, work, joints, motors, damped, q, qd, current,
                     voltage, stages, scratch, coupling):
    """
    Write the step's CurrentOverStep to ``scratch`` ('exponential').

    The ramp's slope is the acceleration at the mean current of the held
    speed (MotorDrivenPlant.motor_step).
    """
    Q, QD = stages[STAGE_Q], stages[STAGE_QD]
    current_over_step(motors, scratch, current, voltage, qd, qd, True)
    for i in range(q.shape[0]):
        scratch[EFFORT, i] = motors[GAIN, i] * scratch[MEAN, i]
        Q[i] = q[i]
        QD[i] = qd[i]
    stage_acceleration(table, work, joints, damped, scratch[EFFORT], stages,
                       K1V, coupling)
    current_over_step(motors, scratch, current, voltage, qd, stages[K1V],
                      False)


@compiled
def motor_stage(table, work, joints, motors, integration, damped, voltage,
                scratch, stages, out, rate, s, coupling):
    """
    Write qdd at the stage state to ``stages[out]``.

    Under n k_t times the current: CurrentOverStep.smooth at ``s``
    seconds into the step ('exponential'), or the stage current (row
    STAGE_CURRENT, 'coupled'), whose winding_rate (V - R i - k_e n qd) / L
    then goes to ``scratch[rate]``.
    """
    qd = stages[STAGE_QD]
    current = scratch[STAGE_CURRENT]
    for i in range(qd.shape[0]):
        if integration == EXPONENTIAL:
            scratch[EFFORT, i] = motors[GAIN, i] * (
                scratch[MEAN, i] + scratch[SLOPE, i] * s)
        else:
            scratch[EFFORT, i] = motors[GAIN, i] * current[i]
            scratch[rate, i] = (
                voltage[i] - motors[RESISTANCE, i] * current[i]
                - motors[EMF, i] * qd[i]) / motors[INDUCTANCE, i]
    stage_acceleration(table, work, joints, damped, scratch[EFFORT], stages,
                       out, coupling)


@compiled
def motor_integrate(table, work, joints, motors, method, integration,
                    damped, t, dt, q, qd, current, voltage, stages, scratch,
                    q_next, qd_next, current_next, coupling):
    """
    Integrate over ``motor_stage``: integrators.rk4 or semi_implicit_euler.

    Over (q, qd) and, coupled, the winding's charge and current.  The
    current is the velocity of the charge, so the stage currents are
    the integrator's stage velocities of that coordinate (the charge itself
    is never read); ``current_next`` is only meaningful when coupled.
    """
    n = q.shape[0]
    Q, QD = stages[STAGE_Q], stages[STAGE_QD]
    stage = scratch[STAGE_CURRENT]
    for i in range(n):
        Q[i] = q[i]
        QD[i] = qd[i]
        stage[i] = current[i]
    motor_stage(table, work, joints, motors, integration, damped, voltage,
                scratch, stages, K1V, W1, t - t, coupling)
    if method != RK4:
        for i in range(n):
            qd_next[i] = qd[i] + dt * stages[K1V, i]
            q_next[i] = q[i] + dt * qd_next[i]
            current_next[i] = current[i] + dt * scratch[W1, i]
        return
    h = 0.5 * dt
    for i in range(n):
        QD[i] = qd[i] + h * stages[K1V, i]
        stages[K2Q, i] = QD[i]
        Q[i] = q[i] + h * qd[i]
        stage[i] = current[i] + h * scratch[W1, i]
    motor_stage(table, work, joints, motors, integration, damped, voltage,
                scratch, stages, K2V, W2, (t + h) - t, coupling)
    for i in range(n):
        QD[i] = qd[i] + h * stages[K2V, i]
        stages[K3Q, i] = QD[i]
        Q[i] = q[i] + h * stages[K2Q, i]
        stage[i] = current[i] + h * scratch[W2, i]
    motor_stage(table, work, joints, motors, integration, damped, voltage,
                scratch, stages, K3V, W3, (t + h) - t, coupling)
    for i in range(n):
        QD[i] = qd[i] + dt * stages[K3V, i]   # k4q
        Q[i] = q[i] + dt * stages[K3Q, i]
        stage[i] = current[i] + dt * scratch[W3, i]
    motor_stage(table, work, joints, motors, integration, damped, voltage,
                scratch, stages, K4V, W4, (t + dt) - t, coupling)
    rk4_sum(dt, q, qd, stages, q_next, qd_next)
    sixth = dt / 6.0
    for i in range(n):
        current_next[i] = current[i] + sixth * (
            scratch[W1, i] + 2.0 * scratch[W2, i] + 2.0 * scratch[W3, i]
            + scratch[W4, i])


@compiled
def safe(values):
    """Return True if every value is finite and below SAFE_MAGNITUDE."""
    for i in range(values.shape[0]):
        if not abs(values[i]) < SAFE_MAGNITUDE:   # nan too
            return False
    return True


@kernel('int64', MATRIX, MATRIX, MATRIX, MATRIX, 'int64', 'int64',
        'boolean', 'boolean', 'float64', 'float64', INPUT_VECTOR,
        INPUT_VECTOR, INPUT_VECTOR, INPUT_VECTOR, MATRIX, MATRIX, VECTOR,
        VECTOR, VECTOR, VECTOR, VECTOR, MATRIX)
def motor_fixed_step(table, work, joints, motors, method, integration,
                     damped, drive, t, dt, z, zd, current, effort_or_voltage,
                     stages, scratch, voltage, z_next, zd_next,
                     current_next, applied, coupling):
    """
    Advance (q, qd, current) by one step of ``dt`` from ``t``; a status.

    ``table``, ``work``: the packed (reflected) model; ``joints``: its
    ``sim_step.joint_table``; ``motors``: ``motor_table``; ``method``:
    sim_step.RK4 or SEMI_IMPLICIT_EULER; ``integration``: EXPONENTIAL or
    COUPLED; ``damped``: whether any joint has explicit viscous damping;
    ``stages``: ``sim_step.stage_scratch``; ``scratch``: ``motor_scratch``.
    ``drive``: ``effort_or_voltage`` is a joint effort, saturated and
    turned into voltages by the ideal drive, R tau / (n k_t) + k_e n qd
    clipped to the supply (drive_voltage); else it is the voltages.
    Writes the voltages applied, the state and the currents at the end,
    and the motor torque n k_t i there (``applied``).  ``coupling``:
    sim_step.NO_COUPLING (the motors drive a RobotModel's joints).
    Statuses as sim_step's: DONE, CONSTRAIN (impulses to apply: friction
    or a limit), DIVERGED (not finite, or so large that the Python step
    must say), BAD_EFFORT, BAD_SHAPES.
    """
    n = z.size
    if not (zd.size == current.size == effort_or_voltage.size
            == voltage.size == z_next.size == zd_next.size
            == current_next.size == applied.size == joints.shape[1] == n
            and table.shape[0] == n + 1 and work.shape[0] == n + 2
            and joints.shape[0] == JOINT_ROWS
            and motors.shape[0] == MOTOR_ROWS and motors.shape[1] == n
            and stages.shape[0] == STAGE_ROWS and stages.shape[1] == n
            and scratch.shape[0] == MOTOR_SCRATCH_ROWS
            and scratch.shape[1] == n and coupling.shape[0] == 0):
        return BAD_SHAPES
    if drive:
        # The effort saturated into ``voltage``, then the drive law there.
        if not saturate(joints, effort_or_voltage, voltage):
            return BAD_EFFORT
        for i in range(n):
            value = motors[RESISTANCE, i] * voltage[i] / motors[GAIN, i] \
                + motors[EMF, i] * zd[i]
            # np.clip as numpy computes it (sim_step.saturate).
            limit = motors[VOLTAGE_LIMIT, i]
            value = value if value > -limit else -limit
            voltage[i] = value if value < limit else limit
    else:
        for i in range(n):
            voltage[i] = effort_or_voltage[i]
    if integration == EXPONENTIAL:
        exponential_ramp(table, work, joints, motors, damped, z, zd, current,
                         voltage, stages, scratch, coupling)
    motor_integrate(table, work, joints, motors, method, integration, damped,
                    t, dt, z, zd, current, voltage, stages, scratch, z_next,
                    zd_next, current_next, coupling)
    if integration == EXPONENTIAL:
        for i in range(n):   # CurrentOverStep at dt
            current_next[i] = scratch[STEADY, i] + scratch[SLOPE, i] * dt \
                + scratch[OFFSET, i] * motors[END_DECAY, i]
    for i in range(n):
        applied[i] = motors[GAIN, i] * current_next[i]
    if not (safe(current_next) and safe(z_next) and safe(zd_next)):
        return DIVERGED
    for i in range(n):
        if joints[FRICTION, i] > 0.0 or z_next[i] >= joints[UPPER_LIMIT, i] \
                or z_next[i] <= joints[LOWER_LIMIT, i]:
            return CONSTRAIN
    return DONE
