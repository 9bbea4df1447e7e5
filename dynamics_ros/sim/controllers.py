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
Joint controllers of the simulator: what turns a command into joint effort.

The shapes are ros2_control's: an effort command goes straight to the joint;
a position or velocity command goes through a per-joint PID on effort, with
the gains gazebo_ros2_control uses for its ``position_pid`` /
``velocity_pid`` interfaces (``pos_kp``, ``pos_ki``, ``pos_kd``,
``pos_max_integral_error``, and ``vel_*`` likewise); a trajectory is sampled
as joint_trajectory_controller samples it and followed by the position PID,
with the trajectory's effort added as feed-forward (JTC's effort interface
from Jazzy on).  Everything is in model joint order and ROS-free.

The PID runs once per simulator step on the state at its start (a
sampled-data controller, as in gazebo_ros2_control).  Its damper - the D
term of the position loop on the measured velocity error, the P term of
the velocity loop - can be far too stiff for that: kd (M^-1)_ii dt above
about 2 makes the sampled loop diverge.  ``JointCommands.hand_over_damping``
takes those dampers out of the held effort, joint by joint, and offers them
as ``damping`` (gains, reference velocity) for the simulator to integrate
implicitly with the joint damping (sim/simulator.py), as MuJoCo integrates
the ``kv`` of its position and velocity actuators implicitly (MuJoCo
documentation, Modeling > Actuators and Numerical integration: implicitfast).
Joints not handed over keep the sampled PID, operation for operation.
"""

from dataclasses import dataclass, field

import numpy as np

from ..control.computed_torque import position_error
from ..control.trajectory import segment_polynomial, waypoint_state
from ..dynamics.bias import gravity_torques
from ..dynamics.crba import mass_matrix

MODES = ('effort', 'position', 'velocity', 'trajectory', 'hold', 'gravity')
# What holds the joints before the first command (hold_still).
HOLD_MODES = ('gravity', 'position', 'none')


@dataclass
class PidGains:
    """Per-joint PID gains; the integral of the error is clamped."""

    p: np.ndarray
    i: np.ndarray
    d: np.ndarray
    max_integral_error: np.ndarray = field(default=None)

    def __post_init__(self):
        """Make every gain a float array of one size."""
        self.p = np.asarray(self.p, dtype=float)
        n = self.p.size
        self.i = np.broadcast_to(np.asarray(self.i, dtype=float), n).copy()
        self.d = np.broadcast_to(np.asarray(self.d, dtype=float), n).copy()
        limit = np.inf if self.max_integral_error is None else \
            self.max_integral_error
        self.max_integral_error = np.broadcast_to(
            np.asarray(limit, dtype=float), n).copy()


def default_gains(model, q, bandwidth_hz=10.0, damping_ratio=1.0):
    """
    Position and velocity PID gains scaled by each joint's own inertia.

    With the diagonal of M(q) (armature included) as the inertia each joint
    sees, the position loop is a critically damped second-order system of
    natural frequency ``bandwidth_hz`` and the velocity loop a first-order
    one of that bandwidth.  No integral action: set ``i`` to remove the
    steady-state error gravity leaves.
    """
    inertia = np.diag(mass_matrix(model, q))
    omega = 2.0 * np.pi * bandwidth_hz
    zero = np.zeros(model.nq)
    position = PidGains(p=inertia * omega ** 2,
                        i=zero, d=2.0 * damping_ratio * omega * inertia)
    velocity = PidGains(p=inertia * omega, i=zero, d=zero)
    return position, velocity


class JointPid:
    """
    Independent PID per joint: p e + i integral(e) + d de/dt.

    ``error_rate`` is given when it is measured (the velocity error of a
    position loop); otherwise it is the error's finite difference between
    calls, as control_toolbox's Pid computes it.
    """

    def __init__(self, gains):
        self.gains = gains
        # Without integral gains the integral cannot act: skip it per step.
        self.integrating = bool(np.any(gains.i != 0.0))
        self.use()
        self.reset()

    def use(self, p=None, d=None):
        """
        Compute with P and D gains ``p``, ``d`` (None: the gains').

        Zero where the simulator integrates that term itself
        (JointCommands.hand_over_damping).
        """
        self.p = self.gains.p if p is None else p
        self.d = self.gains.d if d is None else d

    def reset(self):
        """Forget the integral and the previous error."""
        self.integral = np.zeros_like(self.gains.p)
        self.last_error = None

    def __call__(self, error, dt, error_rate=None):
        """Return the effort for ``error`` held over the next ``dt``."""
        error = np.asarray(error, dtype=float)
        if error_rate is None:
            error_rate = np.zeros_like(error) if self.last_error is None \
                else (error - self.last_error) / dt
        self.last_error = error
        effort = self.p * error + self.d * error_rate
        if not self.integrating:
            return effort
        limit = self.gains.max_integral_error
        self.integral = np.clip(self.integral + error * dt, -limit, limit)
        return effort + self.gains.i * self.integral


# Powers 0..5 of the time into a segment, for quintic coefficients.
EXPONENTS = np.arange(6.0)


def held_piece(begin, end, positions):
    """Return a piece of a trajectory that holds ``positions`` still."""
    zero = np.zeros_like(positions)
    return (begin, end, None, (np.array(positions, dtype=float), zero,
                               zero.copy()))


def segment_piece(begin, end, state_a, state_b):
    """
    Return a segment piece: matrices of position, velocity, acceleration.

    As control.trajectory.interpolate chooses the degree and fills missing
    velocities and accelerations with zeros; row k of the (6, n) position
    matrix is c_k (zero above the degree), rows of the velocity (5, n) and
    acceleration (4, n) matrices are the derivatives' coefficients.
    """
    coefficients, degree = segment_polynomial(end - begin, state_a, state_b)
    position = np.zeros((6, state_a[0].size))
    position[:degree + 1] = coefficients
    velocity = position[1:] * EXPONENTS[1:, None]
    acceleration = velocity[1:] * EXPONENTS[1:5, None]
    return begin, end, (position, velocity, acceleration), None


@dataclass
class FollowedTrajectory:
    """
    A trajectory (dynamics_ros.control.trajectory) with optional efforts.

    ``efforts`` (k, n) are feed-forward torques at the waypoints, linearly
    interpolated between them and held before the first and after the last;
    None when the trajectory carries none.
    """

    trajectory: object
    efforts: np.ndarray = None
    # The piece of the trajectory the last sample fell in (see ``sample``).
    piece: tuple = field(default=None, repr=False)

    def sample(self, time):
        """
        Return (q, qd, qdd) at absolute ``time``: control.trajectory.sample.

        The same pieces - a hold before the trajectory began and after it
        ended, the segment from the state at receipt to the first
        waypoint, then linear, cubic or quintic segments as
        joint_trajectory_controller interpolates them - with the same
        coefficients (``polynomial_coefficients``), computed once per
        segment instead of every step, and evaluated in three small matrix
        products: at 1 kHz the sampler cost the simulator more than its
        dynamics (about 150 of 190 us a step on a 7-joint arm).  Agrees
        with ``sample`` to rounding (1e-15 relative).
        """
        piece = self.piece
        if piece is None or not piece[0] <= time < piece[1]:
            piece = self.piece = self._piece_at(time)
        begin, _, matrices, held = piece
        if matrices is None:
            return held
        position, velocity, acceleration = matrices
        powers = np.power(time - begin, EXPONENTS)
        return (powers @ position, powers[:5] @ velocity,
                powers[:4] @ acceleration)

    def _piece_at(self, time):
        """Return (begin, end, coefficient matrices or None, hold state)."""
        trajectory = self.trajectory
        first = trajectory.start_time + float(trajectory.times[0])
        if time < first:
            if trajectory.initial is None or \
                    trajectory.received_time is None:
                return held_piece(-np.inf, first, trajectory.positions[0])
            q0, qd0 = (np.asarray(x, dtype=float)
                       for x in trajectory.initial)
            begin = min(trajectory.received_time, first)
            if first - begin <= 0.0:
                return held_piece(-np.inf, first, q0)
            if time < begin:
                return held_piece(-np.inf, begin, q0)
            return segment_piece(begin, first, (q0, qd0, np.zeros_like(q0)),
                                 waypoint_state(trajectory, 0))
        times = trajectory.start_time + trajectory.times
        if time >= times[-1]:
            return held_piece(times[-1], np.inf, trajectory.positions[-1])
        k = int(np.searchsorted(times, time, side='right')) - 1
        return segment_piece(times[k], times[k + 1],
                             waypoint_state(trajectory, k),
                             waypoint_state(trajectory, k + 1))

    def feedforward(self, time):
        """Return the feed-forward effort at absolute ``time`` (or zeros)."""
        n = self.trajectory.positions.shape[1]
        if self.efforts is None:
            return np.zeros(n)
        times = self.trajectory.start_time + self.trajectory.times
        return np.array([np.interp(time, times, self.efforts[:, j])
                         for j in range(n)])


class JointCommands:
    """
    The last command of any shape, turned into joint efforts every step.

    The most recent command decides the mode (as switching ros2_control
    controllers would); a new mode starts its PID afresh.  Until a command
    arrives the joints get zero effort, like a Gazebo joint no controller
    has claimed.
    """

    def __init__(self, model, position_gains, velocity_gains):
        self.model = model
        self.wrapping = bool(np.any(model.continuous))
        self.position_pid = JointPid(position_gains)
        self.velocity_pid = JointPid(velocity_gains)
        self.hand_over_damping(None, None)
        self.reset()

    def hand_over_damping(self, position, velocity):
        """
        Leave the stiff dampers of the PIDs to the simulator.

        ``position``: joints (bool mask) whose position-loop D term,
        ``velocity``: joints whose velocity-loop P term, the simulator
        integrates implicitly (Simulator.stiff_joints of those gains); None
        or no joint: all in the held effort.  From then on ``damping`` holds
        (gains, reference velocity) of the handed-over dampers for the step
        the last call computed the effort for, or None.
        """
        self.damping = None
        self.handed = {}
        for loop, pid, gain, mask in (
                ('position', self.position_pid, 'd', position),
                ('velocity', self.velocity_pid, 'p', velocity)):
            pid.use()
            if mask is None or not np.any(mask):
                continue
            gains = getattr(pid.gains, gain)
            mask = np.broadcast_to(np.asarray(mask, dtype=bool), gains.shape)
            self.handed[loop] = (np.where(mask, 0.0, gains),
                                 np.where(mask, gains, 0.0))
            pid.use(**{gain: self.handed[loop][0]})
        # The gains of the dampers handed over (None: none), per loop.
        self.position_damper = self.handed.get('position', (None, None))[1]
        self.velocity_damper = self.handed.get('velocity', (None, None))[1]

    def reset(self):
        """Go back to zero effort and forget the controllers' history."""
        self.mode = 'effort'
        self.zero = np.zeros(self.model.nq)
        self.target = np.zeros(self.model.nq)
        self.followed = None
        self.hold_effort = self.zero
        self.position_pid.reset()
        self.velocity_pid.reset()

    def _switch(self, mode):
        if mode != self.mode:
            self.position_pid.reset()
            self.velocity_pid.reset()
            self.mode = mode

    def command_effort(self, effort):
        """Apply ``effort`` (model order) until the next command."""
        self._switch('effort')
        self.target = np.array(effort, dtype=float)

    def command_position(self, position):
        """Hold ``position`` (model order) with the position PID."""
        self._switch('position')
        self.target = np.array(position, dtype=float)

    def command_velocity(self, velocity):
        """Track ``velocity`` (model order) with the velocity PID."""
        self._switch('velocity')
        self.target = np.array(velocity, dtype=float)

    def hold_pose(self, position, feedforward):
        """
        Hold ``position`` with the position PID plus ``feedforward`` effort.

        What a command falls back to when it times out (simulator_node's
        ``command_timeout``): the pose where the timeout struck, held by
        the position loop, with the gravity torques of that pose as
        feed-forward so the loop has no sag to fight (model order).
        """
        self._switch('hold')
        self.target = np.array(position, dtype=float)
        self.hold_effort = np.array(feedforward, dtype=float)

    def compensate_gravity(self):
        """
        Apply the gravity torques g(q) of the model at the current q.

        Every step, until the next command: the arm floats where it is
        (qdd = M^-1 (g(q) - g(q)) = 0 at rest, whatever q), and a push
        moves it freely - a gravity-compensated arm.  A constant g(q0)
        would balance q0 only, an unstable equilibrium for most poses that
        rounding alone tips over within seconds.
        """
        self._switch('gravity')
        self.target = self.zero

    def follow(self, trajectory, efforts=None):
        """Follow a control.trajectory.Trajectory in model joint order."""
        self._switch('trajectory')
        self.followed = FollowedTrajectory(trajectory, efforts)

    def reference(self, t, q):
        """Return the desired (q, qd, effort feed-forward) at time ``t``."""
        if self.mode == 'position':
            return self.target, self.zero, self.zero
        if self.mode == 'hold':
            return self.target, self.zero, self.hold_effort
        if self.mode == 'trajectory':
            q_desired, qd_desired, _ = self.followed.sample(t)
            return q_desired, qd_desired, self.followed.feedforward(t)
        return q, self.zero, self.zero

    def hold(self):
        """
        Return (p, target, d) while holding a position, else None.

        The effort of this step is then p (target - q) - d qd (what
        ``__call__`` returns, for Simulator.hold_step to compute in its
        compiled step), and ``damping`` is set as ``__call__`` sets it.
        None: call ``__call__``.
        """
        pid = self.position_pid
        if self.mode != 'position' or self.wrapping or pid.integrating:
            return None
        self.damping = None if self.position_damper is None else \
            (self.position_damper, self.zero)
        return pid.p, self.target, pid.d

    def __call__(self, t, q, qd, dt):
        """
        Return the joint effort to hold over [t, t + dt].

        Without the dampers handed over to the simulator
        (``hand_over_damping``); those are in ``damping`` afterwards.
        """
        if self.mode == 'effort':
            self.damping = None
            return self.target.copy()
        if self.mode == 'gravity':
            self.damping = None
            return gravity_torques(self.model, q)
        if self.mode == 'velocity':
            self.damping = None if self.velocity_damper is None else \
                (self.velocity_damper, self.target)
            return self.velocity_pid(self.target - qd, dt)
        hold = self.hold()
        if hold is not None:
            # Holding a position, every step of a simulator_node that was
            # sent one: the PID's sum without its bookkeeping, the same
            # numbers (p (q* - q) + d (0 - qd), negation being exact).
            p, target, d = hold
            return p * (target - q) - d * qd
        q_desired, qd_desired, feedforward = self.reference(t, q)
        error = position_error(self.model, q_desired, q) if self.wrapping \
            else q_desired - q
        self.damping = None if self.position_damper is None else \
            (self.position_damper, qd_desired)
        effort = self.position_pid(error, dt, qd_desired - qd)
        # A position command has no feed-forward (adding its zeros would
        # cost a numpy call a step).
        return effort if self.mode == 'position' else effort + feedforward


def hold_still(commands, model, position, mode):
    """
    Make ``commands`` hold ``position`` (model order) until a command comes.

    What a simulated arm does before anyone commands it (at start, after a
    reset, for a new model): ``'gravity'``: the gravity torques g(q) of
    ``model`` at the current q, every step (``compensate_gravity``) - at
    rest the forward dynamics give qdd = M^-1 (tau - g(q)) = 0, so a rigid
    plant of that model stays put, and a push moves it freely (a
    gravity-compensated arm); ``'position'``: the position PID at
    ``position`` with the gravity torques there as feed-forward
    (``hold_pose``, as after a command timeout), which also pulls the arm
    back after a push; ``'none'``: zero effort (an unclaimed Gazebo joint:
    the arm falls).  The controllers' history is forgotten either way.
    Returns the effort at ``position``.

    Gravity torques that are not finite (a broken model: a gravity of
    1e308) leave zero effort and raise ArithmeticError: the simulation
    then diverges, or not, as it would have without a hold.
    """
    if mode not in HOLD_MODES:
        raise ValueError('hold mode %r is not one of %s'
                         % (mode, ', '.join(HOLD_MODES)))
    commands.reset()
    if mode == 'none':
        return commands.target.copy()
    with np.errstate(all='ignore'):
        held = np.asarray(gravity_torques(model, position), dtype=float)
    if not np.all(np.isfinite(held)):
        raise ArithmeticError('the gravity torques at the pose are not '
                              'finite: zero effort instead')
    if mode == 'gravity':
        commands.compensate_gravity()
    else:
        commands.hold_pose(position, held)
    return held.copy()
