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
An arm driven by geared DC motors: voltage in (Freeman 1985, eqs. 2-228 to 2-252).

State x = [q; qd; i] (3 nq: Freeman's 3M states), input u = V (nq), with
the motors of ``model.actuators.DCMotors`` (gear ratio n, rotor J_m and
b_m, k_t, k_e, R, L per joint):

    d/dt q  = qd
    d/dt qd = FD(model_r, q, qd, n k_t i - damping_r qd)
    d/dt i  = (V - R i - k_e n qd) / L

where ``model_r`` is the arm with the rotors reflected to the joints
(armature + n^2 J_m, damping + n^2 b_m: eqs. 2-232 to 2-236).  Linearized
(eqs. 2-241 to 2-252):

    A = [[0, I, 0], [F21, F22, F23], [0, F32, F33]],   B = [0; 0; G31],
    F21, F22 the torque-input blocks of ``linearize`` on model_r,
    F23 = M_r^-1 n k_t, F32 = -L^-1 k_e n, F33 = -L^-1 R, G31 = L^-1.

``nominal_voltage`` is Freeman's feed-forward (eqs. 2-237 to 2-240): the
current that gives the torque of the motion and the voltage that drives
that current, which needs the nominal jerk (``dr.point_jerk``,
``dr.resolved_jerk``).  ``hand_state_model`` moves the linkage states of
the 3M-state model to perturbations of a hand point (eqs. 3-48 to 3-53);
the motor states stay.
"""

import numpy as np

from .aba import forward_dynamics
from .jerk import third_order_coefficients
from .linearize import linearize
from .rnea import inverse_dynamics
from .rnea_derivatives import inverse_dynamics_derivatives
from ..errors import ModelError
from ..model.actuators import DCMotors
from ..model.mimic_model import MimicModel


def _check(model, motors):
    if isinstance(model, MimicModel):
        raise ModelError('actuated dynamics take a RobotModel; model %r has '
                         'mimic joints' % model.name)
    if not isinstance(motors, DCMotors):
        raise TypeError('motors must be DCMotors (load_actuators), got %s'
                        % type(motors).__name__)
    if list(motors.joint_names) != list(model.joint_names):
        raise ModelError('the motors are for joints %s, the model %r has %s'
                         % (motors.joint_names, model.name,
                            model.joint_names))


def reflected_model(model, motors):
    """Return the model with the rotors seen at the joints (2-232..2-236)."""
    _check(model, motors)
    n2 = motors.gear_ratio ** 2
    return model.copy(armature=model.armature + n2 * motors.rotor_inertia,
                      damping=model.damping + n2 * motors.damping)


def split_state(model, x, nstates=3):
    """Return (q, qd, i) of x = [q; qd; i]."""
    x = np.asarray(x, dtype=float)
    n = model.nq
    if x.shape != (nstates * n,) or not np.all(np.isfinite(x)):
        raise ValueError('x must be %d finite numbers [q; qd; i], got '
                         'shape %s' % (nstates * n, x.shape))
    return x[:n], x[n:2 * n], x[2 * n:]


def actuated_state_derivative(model, motors, x, voltage, reflected=None):
    """
    Return dx/dt of the arm with its motors for the voltages (nq,).

    ``reflected``: ``reflected_model(model, motors)``, to reuse it.
    """
    model_r = reflected if reflected is not None else reflected_model(
        model, motors)
    q, qd, i = split_state(model, x)
    voltage = np.asarray(voltage, dtype=float)
    if voltage.shape != (model.nq,):
        raise ValueError('voltage must have %d values, got shape %s'
                         % (model.nq, voltage.shape))
    tau = motors.gear_ratio * motors.torque_constant * i \
        - model_r.damping * qd
    qdd = forward_dynamics(model_r, q, qd, tau)
    return np.concatenate((qd, qdd, winding_rate(motors, i, voltage, qd)))


def winding_rate(motors, current, voltage, qd):
    """Return di/dt = (V - R i - k_e n qd) / L (Freeman eq. 2-228)."""
    return (voltage - motors.resistance * current
            - motors.back_emf * motors.gear_ratio * qd) / motors.inductance


def linearize_actuated(model, motors, q, qd, i):
    """
    Return (A, B) of the 3M-state model about (q, qd, i), u = V.

    Continuous time, d(dx)/dt = A dx + B dV (Freeman eqs. 2-241..2-252);
    the voltage enters linearly, so A and B do not depend on it.
    """
    model_r = reflected_model(model, motors)
    n = model.nq
    gain = motors.gear_ratio * motors.torque_constant
    A_r, B_r = linearize(model_r, q, qd, gain * np.asarray(i, dtype=float))
    A = np.zeros((3 * n, 3 * n))
    A[:2 * n, :2 * n] = A_r
    A[n:2 * n, 2 * n:] = B_r[n:] * gain                       # F23
    A[2 * n:, n:2 * n] = np.diag(-motors.back_emf * motors.gear_ratio
                                 / motors.inductance)          # F32
    A[2 * n:, 2 * n:] = np.diag(-motors.resistance / motors.inductance)
    B = np.zeros((3 * n, n))
    B[2 * n:] = np.diag(1.0 / motors.inductance)               # G31
    return A, B


def nominal_voltage(model, motors, q, qd, qdd, qddd):
    """
    Return (V, i): feed-forward voltages and currents of a motion.

    The joint torque of the motion with the rotors and their damping,
    tau = ID_r(q, qd, qdd) + damping_r qd, needs i = tau / (n k_t); its
    rate tau_dot = dID/dq qd + dID/dqd qdd + M_r qddd + damping_r qdd
    (the jerk term of eq. 2-240) gives V = L i_dot + R i + k_e n qd.
    """
    model_r = reflected_model(model, motors)
    qd, qdd, qddd = (np.asarray(v, dtype=float) for v in (qd, qdd, qddd))
    gain = motors.gear_ratio * motors.torque_constant
    tau = inverse_dynamics(model_r, q, qd, qdd) + model_r.damping * qd
    dq, dqd, M = inverse_dynamics_derivatives(model_r, q, qd, qdd)
    tau_dot = dq @ qd + dqd @ qdd + M @ qddd + model_r.damping * qdd
    i = tau / gain
    voltage = (motors.inductance * tau_dot / gain + motors.resistance * i
               + motors.back_emf * motors.gear_ratio * qd)
    return voltage, i


def hand_state_model(model, motors, q, qd, i, voltage, link, point=None):
    """
    Return (A_hat, B_hat): the 3M-state model in hand perturbations.

    The hand is the position of ``point`` in ``link`` (root axes); it must
    have as many coordinates as the arm has joints (3 joints, J = G^u_phi
    square: position coordinates have a symmetric H, so that K = phi_dot^T
    H^T is also dJ/dt).  State (du, du_dot, di), input dV (eqs. 3-48 to
    3-53, with L_v = du_ddot/dphi_dot, L_p = du_ddot/dphi):

        F21_hat = [(J F21 + L_p) - (J F22 + L_v) J^-1 K] J^-1,
        F22_hat = (J F22 + L_v) J^-1,   F23_hat = J F23,
        F31_hat = -F32 J^-1 K J^-1,     F32_hat = F32 J^-1,
        F33_hat = F33, G31_hat = G31.
    """
    n = model.nq
    if n != 3:
        raise ValueError('the hand point has 3 coordinates; the arm must '
                         'have 3 joints for a square J, it has %d' % n)
    model_r = reflected_model(model, motors)
    qd = np.asarray(qd, dtype=float)
    x = np.concatenate((np.asarray(q, dtype=float), qd,
                        np.asarray(i, dtype=float)))
    qdd = actuated_state_derivative(model, motors, x, voltage,
                                    model_r)[n:2 * n]
    A, B = linearize_actuated(model, motors, q, qd, i)
    G, H, D = third_order_coefficients(model, q, link, point)
    J, H, D = G[3:], H[3:], D[3:]
    J_inv = np.linalg.inv(J)
    K = np.einsum('pnm,m->pn', H, qd)                     # d u_dot/d phi
    L_v = np.einsum('pmn,m->pn', H + H.transpose(0, 2, 1), qd)
    L_p = (np.einsum('pln,n->pl', H, qdd)
           + np.einsum('plmn,m,n->pl', D, qd, qd))
    F21, F22, F23 = A[n:2 * n, :n], A[n:2 * n, n:2 * n], A[n:2 * n, 2 * n:]
    F32, F33 = A[2 * n:, n:2 * n], A[2 * n:, 2 * n:]
    A_hat = np.zeros_like(A)
    A_hat[:n, n:2 * n] = np.eye(n)
    second = (J @ F22 + L_v) @ J_inv
    A_hat[n:2 * n, :n] = ((J @ F21 + L_p) - second @ K) @ J_inv
    A_hat[n:2 * n, n:2 * n] = second
    A_hat[n:2 * n, 2 * n:] = J @ F23
    A_hat[2 * n:, :n] = -F32 @ J_inv @ K @ J_inv
    A_hat[2 * n:, n:2 * n] = F32 @ J_inv
    A_hat[2 * n:, 2 * n:] = F33
    return A_hat, B.copy()
