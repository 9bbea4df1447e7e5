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
Spatial (6D) vector algebra in Featherstone's convention.

Motion vectors are ordered [angular; linear] and force vectors
[moment; force], as in Featherstone, "Rigid Body Dynamics Algorithms" (2008),
ch. 2.  A motion transform ``X`` from frame A to frame B is built from the
rotation ``E`` (B coordinates of A's axes, i.e. ``E = R_AB.T``) and the
position ``r`` of B's origin in A coordinates.
"""

import numpy as np


def skew(v):
    """Return the 3x3 matrix ``S`` with ``S @ w == np.cross(v, w)``."""
    return np.array([[0.0, -v[2], v[1]],
                     [v[2], 0.0, -v[0]],
                     [-v[1], v[0], 0.0]])


def motion_transform(rotation, translation):
    """
    Motion transform into a child frame placed at (rotation, translation).

    ``rotation`` is the child frame's orientation in the parent (columns are
    the child's axes in parent coordinates) and ``translation`` its origin in
    parent coordinates (Featherstone eq. 2.24 with E = rotation.T).
    """
    E = rotation.T
    X = np.zeros((6, 6))
    X[:3, :3] = E
    X[3:, 3:] = E
    X[3:, :3] = -E @ skew(translation)
    return X


def force_transform_to_parent(X):
    """Return X^T, which maps a child-frame force to the parent frame."""
    return X.T


def cross_motion(v):
    """Return the 6x6 matrix of ``v x`` acting on motion vectors."""
    C = np.zeros((6, 6))
    w = skew(v[:3])
    C[:3, :3] = w
    C[3:, 3:] = w
    C[3:, :3] = skew(v[3:])
    return C


def cross_force(v):
    """Return the 6x6 matrix of ``v x*`` acting on force vectors."""
    return -cross_motion(v).T


def spatial_inertia(mass, com, inertia_com):
    """
    Spatial inertia about a frame origin (Featherstone eq. 2.63).

    ``com`` is the centre of mass and ``inertia_com`` the rotational inertia
    about it, both in the frame's coordinates.
    """
    C = skew(com)
    inertia = np.zeros((6, 6))
    inertia[:3, :3] = inertia_com + mass * C @ C.T
    inertia[:3, 3:] = mass * C
    inertia[3:, :3] = mass * C.T
    inertia[3:, 3:] = mass * np.eye(3)
    return inertia


def rpy_to_matrix(rpy):
    """Rotation of URDF roll-pitch-yaw angles: Rz(yaw) Ry(pitch) Rx(roll)."""
    roll, pitch, yaw = rpy
    cr, sr = np.cos(roll), np.sin(roll)
    cp, sp = np.cos(pitch), np.sin(pitch)
    cy, sy = np.cos(yaw), np.sin(yaw)
    return np.array([
        [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
        [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
        [-sp, cp * sr, cp * cr],
    ])


def axis_angle_to_matrix(axis, angle):
    """Rodrigues' rotation of ``angle`` about the unit vector ``axis``."""
    K = skew(axis)
    return np.eye(3) + np.sin(angle) * K + (1.0 - np.cos(angle)) * K @ K
