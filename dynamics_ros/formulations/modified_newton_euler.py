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
Turney, Mudge and Lee's modified Newton-Euler (1980, section 5).

The operator A_i = omega omega^T - (omega^T omega) E + [alpha x] does both
cross products of a rigid-body acceleration at once (A_i b = omega x (omega
x b) + alpha x b), so the recursion becomes eq. 5.1

    f_i = m_i A_i (r_i + r-bar_i) + m_i R_i^{i-1} a_{i-1} + R_i^{i+1} f_{i+1}

and the inertia moment I alpha + omega x I omega is the vector Tr{A_i K_i
sigma^t} with K_i = Tr(I_i)/2 E - I_i (eq. 5.2; for principal axes
K = diag((-Ixx+Iyy+Izz)/2, ...)).  Corrections applied (misprints 1 and 2
of docs/papers/turney_1980.md): entry (3, 2) of A_i is omega_z omega_y +
alpha_x, and the x component of Tr{A K sigma^t} is (A K)_zy - (A K)_yz.
Prismatic joints add R(z qdd) + 2 omega x R z qd to the transported
acceleration, as in newton_euler_links.
"""

import numpy as np

from .chain import as_joint_vector, cross, dh_chain, Z_AXIS


def acceleration_operator(omega, alpha):
    """Return A_i of section 5 (entry (3, 2) corrected to +alpha_x)."""
    wx, wy, wz = omega
    ax, ay, az = alpha
    xx, yy, zz = wx * wx, wy * wy, wz * wz
    xy, xz, yz = wx * wy, wx * wz, wy * wz
    return np.array([[-(yy + zz), xy - az, xz + ay],
                     [xy + az, -(zz + xx), yz - ax],
                     [xz - ay, yz + ax, -(xx + yy)]])


def k_matrix(inertia):
    """Return K_i = Tr(I)/2 E - I about the mass centre (not origin i-1)."""
    return 0.5 * np.trace(inertia) * np.eye(3) - inertia


def trace_vector(AK):
    """Return Tr{A K sigma^t} = ((AK)_zy - (AK)_yz, ...), eq. 5.2."""
    return np.array([AK[2, 1] - AK[1, 2], AK[0, 2] - AK[2, 0],
                     AK[1, 0] - AK[0, 1]])


def trace_vector_of(A, K):
    """
    Return Tr{A K sigma^t} forming only the six entries of A K it needs.

    The diagonal of A K does not enter eq. 5.2: with a diagonal K
    (principal axes) this is Turney's 6 multiplications, with a full K 18.
    """
    def entry(r, c):
        return A[r][0] * K[0][c] + A[r][1] * K[1][c] + A[r][2] * K[2][c]
    return np.array([entry(2, 1) - entry(1, 2), entry(0, 2) - entry(2, 0),
                     entry(1, 0) - entry(0, 1)])


def modified_newton_euler_inverse_dynamics(model, q, qd, qdd, gravity=True):
    """
    Return joint torques by Turney's modified Newton-Euler (eqs. 5.1-5.2).

    ``model`` is a serial RobotModel, DHTable or DHChain.
    """
    chain = dh_chain(model)
    q = as_joint_vector(chain, q, 'q')
    qd = as_joint_vector(chain, qd, 'qd')
    qdd = as_joint_vector(chain, qdd, 'qdd')
    z = Z_AXIS
    n = chain.n
    omega, alpha = 0.0 * z, 0.0 * z
    accel = -chain.gravity if gravity else 0.0 * z
    links = []
    for i in range(n):
        c, s, d = chain.joint_values(i, q[i])
        R = chain.rotation(i, c, s)
        Rt = R.T
        r = chain.displacement(i, d)
        if chain.revolute(i):
            omega_i = Rt @ (omega + z * qd[i])
            alpha_i = Rt @ (alpha + cross(omega, z * qd[i]) + z * qdd[i])
            carried = Rt @ accel
        else:
            omega_i, alpha_i = Rt @ omega, Rt @ alpha
            carried = Rt @ (accel + z * qdd[i]) + 2.0 * cross(
                omega_i, Rt @ (z * qd[i]))
        A = acceleration_operator(omega_i, alpha_i)
        # m a-bar = m A (r + r-bar) + m R a_{i-1}   (eq. 5.1, first terms)
        mass = chain.mass[i]
        inertial_force = mass * (A @ (r + chain.com[i]) + carried)
        links.append((R, A, r, inertial_force))
        if i < n - 1:
            accel = A @ r + carried   # a_i = A_i r_i + R_i^{i-1} a_{i-1}
        omega, alpha = omega_i, alpha_i
    force, moment = 0.0 * z, 0.0 * z
    tau = [None] * n
    R_next = None
    for i in range(n - 1, -1, -1):
        R, A, r, inertial_force = links[i]
        if R_next is None:
            force_out, moment_out = force, moment
        else:
            force_out, moment_out = R_next @ force, R_next @ moment
        force = inertial_force + force_out                            # 5.1
        moment = (trace_vector_of(A, k_matrix(chain.inertia[i]))
                  + cross(r + chain.com[i], inertial_force)
                  + cross(r, force_out) + moment_out)              # 5.2
        axis = R.T @ z
        tau[i] = axis @ (moment if chain.revolute(i) else force)
        R_next = R
    return np.array([t + chain.armature[i] * qdd[i]
                     for i, t in enumerate(tau)])
