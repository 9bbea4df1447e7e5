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
The joint torque regressor: tau = Y(q, qd, qdd) pi, linear in the inertias.

Inverse dynamics is linear in each body's ten inertial parameters (Atkeson,
An and Hollerbach 1986, "Estimation of inertial parameters of manipulator
loads and links", eq. 9; Khalil and Dombre 2002, sec. 12.3).  The order and
frame of the ten parameters of body i are Pinocchio's
(``InertiaTpl::toDynamicParameters``), so its ``computeJointTorqueRegressor``
is the same matrix column for column:

    pi_i = [m, m c_x, m c_y, m c_z, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]

with c the centre of mass and I the rotational inertia about the *body
frame origin* (I = I_c + m [c]x^T [c]x), all in body i's URDF frame (the
frame of the joint that moves it, fixed-joint children merged in).  The
first moment m c and the origin inertia, not c and I_c, because only these
enter the dynamics linearly (Featherstone 2008, eq. 2.63).

Armature is not an inertial parameter: ``inverse_dynamics`` adds
``armature * qdd``, which ``Y pi`` leaves out (zero in URDF models).
"""

import numpy as np

from .dispatch import dispatch, Operation, ROWS
from .rnea import body_motion
from ..model.joints import as_vector, parent_transforms
from ..spatial import skew

# The ten inertial parameters of a body, in the regressor's column order.
PARAMETER_NAMES = ('m', 'm_cx', 'm_cy', 'm_cz', 'Ixx', 'Ixy', 'Iyy', 'Ixz',
                   'Iyz', 'Izz')
PARAMETERS_PER_BODY = len(PARAMETER_NAMES)


def bodies(model):
    """Return the RobotModel whose bodies own the parameters (a mimic's tree)."""
    return getattr(model, 'tree', model)


def parameter_names(model):
    """Return 'body.parameter' for every column of the regressor."""
    model = bodies(model)
    return ['%s.%s' % (body, name) for body in model.body_names
            for name in PARAMETER_NAMES]


def inertia_vector(inertia):
    """Return [Ixx, Ixy, Iyy, Ixz, Iyz, Izz] of a symmetric 3x3 matrix."""
    return np.array([inertia[0, 0], inertia[0, 1], inertia[1, 1],
                     inertia[0, 2], inertia[1, 2], inertia[2, 2]])


def inertia_matrix(vector):
    """Return the symmetric 3x3 matrix of [Ixx, Ixy, Iyy, Ixz, Iyz, Izz]."""
    xx, xy, yy, xz, yz, zz = vector
    return np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])


def pseudo_inertia(parameters):
    """
    Return the pseudo-inertia J (4, 4) of ten parameters [m, h, I].

    J = [[tr(I) 1 / 2 - I, h], [h^T, m]] with I the inertia about the body
    origin; a body is physically consistent exactly when J is positive
    semidefinite (Wensing, Kim and Slotine 2017, "Linear Matrix Inequalities
    for Physically Consistent Inertial Parameter Identification").
    """
    m, h = parameters[0], parameters[1:4]
    inertia = inertia_matrix(parameters[4:10])
    J = np.empty((4, 4))
    J[:3, :3] = 0.5 * np.trace(inertia) * np.eye(3) - inertia
    J[:3, 3] = J[3, :3] = h
    J[3, 3] = m
    return J


def parameters_of_pseudo_inertia(J):
    """Return the ten parameters of a pseudo-inertia J (I = tr(S) 1 - S)."""
    sigma = J[:3, :3]
    inertia = np.trace(sigma) * np.eye(3) - sigma
    return np.concatenate(([J[3, 3]], J[:3, 3], inertia_vector(inertia)))


def body_parameters(mass, com, inertia_com):
    """Return the ten parameters of one body (mass, c, I about c given)."""
    com = np.asarray(com, dtype=float)
    C = skew(com)
    origin_inertia = np.asarray(inertia_com, dtype=float) + mass * C.T @ C
    return np.concatenate(([mass], mass * com, inertia_vector(origin_inertia)))


def inertial_parameters(model):
    """Return pi (10 nq,) of a RobotModel: tau = Y pi + armature qdd."""
    model = bodies(model)
    return np.concatenate([
        body_parameters(model.mass[i], model.com[i], model.inertia_com[i])
        for i in range(model.nq)])


def rigid_body(parameters):
    """
    Return (mass, com, inertia about the com) of ten parameters.

    The inverse of ``body_parameters``; a body of zero mass keeps c = 0 and
    its origin inertia (a massless body cannot have a first moment).
    """
    parameters = np.asarray(parameters, dtype=float)
    mass, first_moment = parameters[0], parameters[1:4]
    origin_inertia = inertia_matrix(parameters[4:10])
    if mass == 0.0:
        return 0.0, np.zeros(3), origin_inertia
    com = first_moment / mass
    C = skew(com)
    return mass, com, origin_inertia - mass * C.T @ C


def with_parameters(model, parameters):
    """Return a copy of ``model`` with the inertias of ``parameters``."""
    parameters = np.asarray(parameters, dtype=float).reshape(
        model.nq, PARAMETERS_PER_BODY)
    bodies = [rigid_body(row) for row in parameters]
    return model.copy(mass=np.array([b[0] for b in bodies]),
                      com=np.array([b[1] for b in bodies]),
                      inertia_com=np.array([b[2] for b in bodies]))


def inertia_columns(w):
    """Return L(w), (3, 6): I w = L(w) [Ixx, Ixy, Iyy, Ixz, Iyz, Izz]."""
    x, y, z = w
    return np.array([[x, y, 0.0, z, 0.0, 0.0],
                     [0.0, x, y, 0.0, z, 0.0],
                     [0.0, 0.0, 0.0, x, y, z]])


def body_regressor(v, a):
    """
    Return A (6, 10) with f = I a + v x* I v = A pi of one body.

    v = [w; u], a = [dw; du] in the body frame (a includes the fictitious
    base acceleration -g).  Written out from Featherstone eq. 2.63 with
    h = m c: n = I dw + w x I w + h x (du + w x u), f = m (du + w x u) +
    (dw x + w x w x) h (Atkeson et al. 1986 eq. 9 in spatial form).
    """
    w, u = v[:3], v[3:]
    dw, du = a[:3], a[3:]
    linear = du + np.cross(w, u)
    A = np.zeros((6, 10))
    A[3:, 0] = linear
    A[:3, 1:4] = -skew(linear)
    A[3:, 1:4] = skew(dw) + skew(w) @ skew(w)
    A[:3, 4:] = inertia_columns(dw) + skew(w) @ inertia_columns(w)
    return A


def reference_joint_torque_regressor(model, q, qd, qdd):
    """
    Regressor Y (nq, 10 nq) of one state in numpy: the reference path.

    The outward pass is RNEA's (velocities and accelerations, gravity as a
    base acceleration); body j's parameters reach joint i (an ancestor of
    j, or j itself) through the force transforms of the bodies between:
    Y[i, j] = S_i^T X_(i<-j)^T A_j (Khalil and Dombre 2002, eq. 12.17).
    """
    q = as_vector(model, q, 'q')
    qd = as_vector(model, qd, 'qd')
    qdd = as_vector(model, qdd, 'qdd')
    n = model.nq
    S, parent = model.motion_subspace, model.parent
    Xup = parent_transforms(model, q)
    v, a = body_motion(model, Xup, qd, qdd)
    Y = np.zeros((n, PARAMETERS_PER_BODY * n))
    for j in range(n):
        F = body_regressor(v[j], a[j])
        columns = slice(PARAMETERS_PER_BODY * j, PARAMETERS_PER_BODY * (j + 1))
        i = j
        while i >= 0:
            Y[i, columns] = S[i] @ F
            F = Xup[i].T @ F
            i = parent[i]
    return Y


JOINT_TORQUE_REGRESSOR = Operation(
    reference=reference_joint_torque_regressor,
    kernel='regressor.joint_torque_regressor',
    arguments=('q', 'qd', 'qdd'), results=(ROWS,))


@JOINT_TORQUE_REGRESSOR.public
def joint_torque_regressor(model, q, qd, qdd):
    """
    Joint torque regressor Y with inverse_dynamics = Y pi + armature qdd.

    pi = ``inertial_parameters(model)``: ten per body, Pinocchio's order and
    frame ([m, m c, Ixx, Ixy, Iyy, Ixz, Iyz, Izz] about the body origin, see
    the module docstring); ``parameter_names(model)`` names the columns.
    One state gives (nq, 10 nq); q, qd, qdd of shape (N, nq) give
    (N, nq, 10 nq).  A MimicModel gives G^T Y over its tree's bodies.
    """
    return dispatch(JOINT_TORQUE_REGRESSOR, model, (q, qd, qdd))
