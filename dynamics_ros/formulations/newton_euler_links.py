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
Recursive Newton-Euler in link frames (Luh, Walker and Paul, 1980).

As restated by Turney, Mudge and Lee (1980), eqs. 3.15-3.21: an outward pass
of angular velocity, angular acceleration and origin/centre-of-mass
accelerations of each link in its own DH frame, an inward pass of the force
f_i and moment n_i that link i-1 exerts on link i (about origin i-1, in
frame i), and tau_i = (R_i^{i-1} z_{i-1}) . n_i.  Gravity is the base
acceleration a_0 = -g ("an upward acceleration of g, as in an elevator").
Prismatic joints follow Luh, Walker and Paul's own equations (the terms
2 omega x z qd and z qdd).  Eq. 3.16 uses omega_{i-1} in frame i-1 inside the
bracket, not the printed omega_i (docs/papers/turney_1980.md).
"""

import numpy as np

from .chain import as_joint_vector, cross, dh_chain, Z_AXIS


def outward_pass(chain, q, qd, qdd, base_acceleration):
    """
    Return per-link (R, omega, alpha, a, a_bar, r) of eqs. 3.15-3.18.

    R is R_{i-1}^i; omega, alpha, a (origin i) and a_bar (centre of mass)
    are in frame i; r is r_i.
    """
    z = Z_AXIS
    omega, alpha, accel = 0.0 * z, 0.0 * z, base_acceleration
    links = []
    for i in range(chain.n):
        c, s, d = chain.joint_values(i, q[i])
        R = chain.rotation(i, c, s)
        Rt = R.T
        r = chain.displacement(i, d)
        if chain.revolute(i):
            omega_i = Rt @ (omega + z * qd[i])                       # 3.15
            alpha_i = Rt @ (alpha + cross(omega, z * qd[i])
                            + z * qdd[i])                            # 3.16
            accel_i = (cross(omega_i, cross(omega_i, r))
                       + cross(alpha_i, r) + Rt @ accel)          # 3.17
        else:
            omega_i = Rt @ omega
            alpha_i = Rt @ alpha
            slide = Rt @ (z * qd[i])
            accel_i = (Rt @ (accel + z * qdd[i]) + cross(alpha_i, r)
                       + 2.0 * cross(omega_i, slide)
                       + cross(omega_i, cross(omega_i, r)))
        rbar = chain.com[i]
        accel_bar = (cross(omega_i, cross(omega_i, rbar))
                     + cross(alpha_i, rbar) + accel_i)            # 3.18
        links.append((R, omega_i, alpha_i, accel_i, accel_bar, r))
        omega, alpha, accel = omega_i, alpha_i, accel_i
    return links


def inward_pass(chain, links):
    """Return tau from eqs. 3.19-3.21, with f_{n+1} = n_{n+1} = 0."""
    z = Z_AXIS
    force, moment = 0.0 * z, 0.0 * z
    R_next = None
    tau = [None] * chain.n
    for i in range(chain.n - 1, -1, -1):
        R, omega, alpha, _, accel_bar, r = links[i]
        mass, rbar, inertia = chain.mass[i], chain.com[i], chain.inertia[i]
        if R_next is None:
            force_out, moment_out = force, moment
        else:
            force_out, moment_out = R_next @ force, R_next @ moment
        force = mass * accel_bar + force_out                         # 3.19
        moment = (inertia @ alpha + cross(omega, inertia @ omega)
                  + cross(mass * (rbar + r), accel_bar)
                  + cross(r, force_out) + moment_out)             # 3.20
        axis = R.T @ z   # z_{i-1} in frame i: the third row of R
        tau[i] = axis @ (moment if chain.revolute(i) else force)     # 3.21
        R_next = R
    return tau


def newton_euler_inverse_dynamics(model, q, qd, qdd, gravity=True):
    """
    Return joint torques by the link-frame Newton-Euler (LWP) recursion.

    ``model`` is a serial RobotModel, DHTable or DHChain; ``gravity=False``
    gives the velocity and acceleration terms only (for strobing).
    """
    chain = dh_chain(model)
    q = as_joint_vector(chain, q, 'q')
    qd = as_joint_vector(chain, qd, 'qd')
    qdd = as_joint_vector(chain, qdd, 'qdd')
    base = -chain.gravity if gravity else 0.0 * Z_AXIS
    tau = inward_pass(chain, outward_pass(chain, q, qd, qdd, base))
    return np.array([t + chain.armature[i] * qdd[i]
                     for i, t in enumerate(tau)])
