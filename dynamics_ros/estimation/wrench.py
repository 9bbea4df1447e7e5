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
The external wrench at a link from external joint torques.

A wrench w = [moment; force] acting on ``link`` gives the joint torques
tau_ext = J^T w, J the link's geometric Jacobian at the point where the
moment is taken (Haddadin, De Luca and Albu-Schaeffer 2017, collision
identification: the contact wrench from the momentum residual, r = J^T w
once r has converged).  Solved for w by damped least squares,

    w = (J J^T + lambda^2 I)^-1 J tau_ext = U diag(s / (s^2 + lambda^2)) V^T tau,

with J = U diag(s) V^T, and lambda nonzero only near a singularity: when
the smallest singular value s_min of J falls below ``damping``,
lambda^2 = damping^2 (1 - (s_min / damping)^2) (the variable damping of
Maciejewski and Klein, 1988).  Where J has full rank 6 with s_min above
``damping`` the solution is exact: the wrench that produced tau_ext.  With
fewer than 6 joints moving the link, or at a singularity, it is the
least-squares wrench of smallest size, and the directions the joints do
not feel are not identified.

Frames (ROS REP-103 / geometry_msgs/WrenchStamped convention): the wrench
is expressed in the axes of ``frame`` (default: ``link``) and its moment is
taken about the origin of ``frame``.  Rows are ordered [moment; force],
the project's spatial order (``dr.link_jacobian``).
"""

import numpy as np

from ..checks import number_reason
from ..dynamics.jacobians import link_jacobian
from ..dynamics.kinematics import link_pose

# Default damping: singular values of J below this (J mixes 1 for angular
# rows with metres for linear ones) are damped.
DEFAULT_DAMPING = 0.02


def check_damping(value):
    """Return a reason unless ``value`` is a damping >= 0, else None."""
    return number_reason(
        value, 'damping', lambda damping: damping >= 0.0
        and np.isfinite(damping), 'finite and >= 0')


def wrench_jacobian(model, q, link, frame=None):
    """
    Return J (6, nq): J^T [moment; force] are the joint torques.

    The wrench acts on ``link``, expressed in ``frame``'s axes with its
    moment about ``frame``'s origin (``frame`` None: ``link`` itself).
    """
    if frame is None or frame == link:
        return link_jacobian(model, q, link, frame='local')
    link_rotation, link_origin = link_pose(model, q, link)
    frame_rotation, frame_origin = link_pose(model, q, frame)
    # The frame's origin as a point fixed in the link at this instant.
    point = link_rotation.T @ (frame_origin - link_origin)
    J = link_jacobian(model, q, link, point=point, frame='world')
    return np.vstack((frame_rotation.T @ J[:3], frame_rotation.T @ J[3:]))


def damped_least_squares(J, tau, damping=DEFAULT_DAMPING):
    """
    Return w minimizing |J^T w - tau|^2 + lambda^2 |w|^2 (module docstring).

    ``J`` (m, n), ``tau`` (n,); lambda is 0 where every singular value of
    J (m of them) is at least ``damping``.
    """
    J = np.asarray(J, dtype=float)
    U, s, Vt = np.linalg.svd(J, full_matrices=False)
    singular = np.zeros(J.shape[0])
    singular[:s.size] = s
    smallest = singular.min()
    lam2 = 0.0
    if smallest < damping:
        lam2 = damping ** 2 * (1.0 - (smallest / damping) ** 2)
    denominator = s ** 2 + lam2
    with np.errstate(divide='ignore', invalid='ignore'):
        gains = np.where(denominator > 0.0, s / denominator, 0.0)
    return U @ (gains * (Vt @ np.asarray(tau, dtype=float)))


def external_wrench(model, q, torques, link, frame=None,
                    damping=DEFAULT_DAMPING):
    """
    Return the wrench [moment; force] (6,) on ``link`` giving ``torques``.

    ``torques``: external joint torques (model order), e.g. a
    MomentumObserver's.  Expressed in ``frame`` (default ``link``), moment
    about its origin; ``link`` and ``frame`` are URDF link names of the
    model (``model.frames``).  See the module docstring for the damping.
    """
    J = wrench_jacobian(model, q, link, frame)
    return damped_least_squares(J, torques, damping)
