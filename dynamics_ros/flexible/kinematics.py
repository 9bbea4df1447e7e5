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
Forward recursion of Book's 4x4 transforms and their time derivatives.

Mackay (1988) eqs. 2.13-2.19, for a tree.  Body i hangs from body p by

    W_i = W_p X_i,   X_i = D_i T_i,   T_i = O_i J_i(q_i),
    D_i = I + sum_k delta_pk N_pk(eta_i)

where O_i is the joint origin, J_i the joint motion (Mackay's A_i), and D_i
the deflection of the parent's section eta_i that carries joint i (Mackay's
L_p = H_p + sum delta M with the constant part moved into O_i).  With
dT/dq = T Omega:

    Wd_i  = Wd_p X_i + W_p Xd_i
    Wdd_i = Wdd_p X_i + 2 Wd_p Xd_i + W_p Xdd_i
    Xd  = Dd T + D T Omega qd
    Xdd = Ddd T + 2 Dd T Omega qd + D T (Omega^2 qd^2 + Omega qdd)

Gravity enters as the base "acceleration" Wdd_0 = [[0, -g], [0, 0]]: it
adds -g to the acceleration of every material point (h_4 = 1), the 4x4 form
of the RNEA's fictitious upward acceleration.
"""

import numpy as np

from ..model.robot_model import REVOLUTE


EYE4 = np.eye(4)
EYE4.setflags(write=False)


class Pass:
    """Workspace of one forward pass: per-body transforms and rates."""

    def __init__(self, n):
        """Allocate per-body lists for ``n`` bodies."""
        self.T = [None] * n
        self.X = [None] * n
        self.W = [None] * n
        self.Wd = [None] * n
        self.Wdd = [None] * n
        self.G = None
        self.D = None


def joint_transform(fm, i, qi):
    """T_i = O_i J_i(q_i): joint frame of body i in its parent's section."""
    if fm.model.joint_type[i] == REVOLUTE:
        # Rodrigues: R = I + sin(q) K + (1 - cos(q)) K^2, K = skew(axis).
        motion = EYE4 + np.sin(qi) * fm.generator[i] + (
            1.0 - np.cos(qi)) * fm.generator_squared[i]
    else:
        motion = EYE4 + fm.generator[i] * qi
    return fm.origin[i].dot(motion)


def base_acceleration(fm, gravity):
    """Wdd_0: zero, or [[0, -g], [0, 0]] to stand in for gravity."""
    base = np.zeros((4, 4))
    if gravity:
        base[:3, 3] = -fm.model.gravity
    return base


def deflection(N, delta):
    """Return sum_k delta_k N_k (4x4) for section matrices N (m, 4, 4)."""
    return (delta @ N.reshape(-1, 16)).reshape(4, 4)


def forward_pass(fm, z, zd, zdd, gravity=True):
    """Return a Pass with W, Wd, Wdd of every body (Mackay eqs. 2.13-2.19)."""
    # ndarray.dot rather than @: half the call overhead on 4x4 matrices.
    model = fm.model
    n, nq = model.nq, fm.nq
    q, qd, qdd = z[:nq], zd[:nq], zdd[:nq]
    out = Pass(n)
    base = base_acceleration(fm, gravity)
    for i in range(n):
        T = joint_transform(fm, i, q[i])
        TOmega = T.dot(fm.generator[i])
        Td = TOmega * qd[i]
        Tdd = TOmega.dot(fm.generator[i]) * qd[i] ** 2
        if qdd[i]:
            Tdd = Tdd + TOmega * qdd[i]
        N = fm.attachment[i]
        if N is None:
            X, Xd, Xdd = T, Td, Tdd
        else:
            s = fm.mode_slices[model.parent[i]]
            D = EYE4 + deflection(N, z[s])
            Dd = deflection(N, zd[s])
            Ddd = deflection(N, zdd[s])
            X = D.dot(T)
            Xd = Dd.dot(T) + D.dot(Td)
            Xdd = Ddd.dot(T) + 2.0 * Dd.dot(Td) + D.dot(Tdd)
        p = model.parent[i]
        if p < 0:
            W, Wd, Wdd = X, Xd, base.dot(X) + Xdd
        else:
            Wp, Wdp = out.W[p], out.Wd[p]
            W = Wp.dot(X)
            Wd = Wdp.dot(X) + Wp.dot(Xd)
            Wdd = out.Wdd[p].dot(X) + 2.0 * Wdp.dot(Xd) + Wp.dot(Xdd)
        out.T[i], out.X[i] = T, X
        out.W[i], out.Wd[i], out.Wdd[i] = W, Wd, Wdd
    return out


def body_transforms(fm, z):
    """World transforms W_i (4x4) of every body frame at z."""
    model = fm.model
    W = [None] * model.nq
    for i in range(model.nq):
        X = joint_transform(fm, i, z[i])
        N = fm.attachment[i]
        if N is not None:
            X = (EYE4 + deflection(
                N, z[fm.mode_slices[model.parent[i]]])) @ X
        p = model.parent[i]
        W[i] = X if p < 0 else W[p] @ X
    return W


def frame_pose(fm, z, link_name):
    """World 4x4 transform of a URDF link frame, deflection included."""
    z = fm.check(z, 'z')
    body, N, frame = fm.frame_section(link_name)
    if body < 0:
        return frame.copy()
    W = body_transforms(fm, z)[body]
    if N is not None:
        W = W @ (EYE4 + deflection(N, z[fm.mode_slices[body]]))
    return W @ frame


def frame_deflection(fm, z, link_name):
    """World displacement of a link frame from where the rigid arm puts it."""
    z = fm.check(z, 'z')
    rigid = fm.join(z[:fm.nq])
    return frame_pose(fm, z, link_name)[:3, 3] - frame_pose(
        fm, rigid, link_name)[:3, 3]
