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
Joint friction: viscous, Coulomb smoothed near zero velocity, and offset.

tau_f = viscous qd + coulomb tanh(qd / smoothing) + offset, per joint: the
model identified from data (Swevers et al. 1997 sec. 3; Khalil and Dombre
2002 eq. 12.3 with sign(qd) smoothed), which the feed-forward adds to the
rigid-body torques and the simulator applies.  tanh keeps the torque a
smooth function of the state (a controller fed sign(qd) chatters around
zero velocity); ``smoothing`` is the velocity at which Coulomb friction
reaches 76 % of its level.  The regressor columns are the same formula's
derivatives, so what is identified is what is applied.
"""

import numpy as np

# The friction terms in the order of their regressor columns (per joint).
FRICTION_TERMS = ('viscous', 'coulomb', 'offset')
# Velocity (rad/s or m/s) at which Coulomb friction reaches tanh(1).
DEFAULT_SMOOTHING = 0.01


def coulomb_shape(qd, smoothing=DEFAULT_SMOOTHING):
    """Return tanh(qd / smoothing): the smoothed sign of the velocity."""
    if not smoothing > 0.0:
        raise ValueError('friction smoothing must be a positive velocity, '
                         'got %r' % (smoothing,))
    return np.tanh(np.asarray(qd, dtype=float) / smoothing)


def friction_torque(qd, viscous, coulomb, offset=0.0,
                    smoothing=DEFAULT_SMOOTHING):
    """
    Return the joint friction torque viscous qd + coulomb tanh(qd/eps) + offset.

    The torque the joint takes to move at ``qd`` (it opposes the motion:
    the motor supplies it, so it adds to the feed-forward).  Per-joint
    arrays, (nq,) or (N, nq) velocities.
    """
    qd = np.asarray(qd, dtype=float)
    return (np.asarray(viscous, dtype=float) * qd
            + np.asarray(coulomb, dtype=float) * coulomb_shape(qd, smoothing)
            + np.asarray(offset, dtype=float))


def friction_regressor(qd, smoothing=DEFAULT_SMOOTHING):
    """
    Return Y_f with friction_torque = Y_f phi, phi = [v, c, o] per joint.

    qd (nq,) gives (nq, 3 nq), (N, nq) gives (N, nq, 3 nq); joint j's
    columns are 3 j + (viscous, coulomb, offset).
    """
    qd = np.asarray(qd, dtype=float)
    n = qd.shape[-1]
    Y = np.zeros(qd.shape + (3 * n,))
    joints = np.arange(n)
    Y[..., joints, 3 * joints] = qd
    Y[..., joints, 3 * joints + 1] = coulomb_shape(qd, smoothing)
    Y[..., joints, 3 * joints + 2] = 1.0
    return Y
