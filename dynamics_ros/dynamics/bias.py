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
Bias and gravity torques: RNEA with parts of the motion switched off.

These are Turney et al.'s (1980) "strobing" runs of Newton-Euler: C + G with
zero acceleration, G with zero velocity and acceleration.
"""

import numpy as np

from .dispatch import dispatch, Operation, TORQUE
from .rnea import reference_inverse_dynamics


def reference_bias_forces(model, q, qd):
    """Bias torques of one state in numpy: the reference path."""
    return reference_inverse_dynamics(model, q, qd, np.zeros(model.nq))


def reference_gravity_torques(model, q):
    """Gravity torques of one state in numpy: the reference path."""
    zero = np.zeros(model.nq)
    return reference_inverse_dynamics(model, q, zero, zero)


BIAS_FORCES = Operation(
    reference=reference_bias_forces, kernel='bias.bias_forces',
    arguments=('q', 'qd'), results=(TORQUE,))
GRAVITY_TORQUES = Operation(
    reference=reference_gravity_torques, kernel='bias.gravity_torques',
    arguments=('q',), results=(TORQUE,))


@BIAS_FORCES.public
def bias_forces(model, q, qd, *, out=None):
    """
    Return h(q, qd) = C(q, qd) qd + g(q): the torques for zero qdd.

    h is (N, nq) for a batch (``dynamics_ros.dynamics``: batches, out=).
    """
    return dispatch(BIAS_FORCES, model, (q, qd), out=out)


@GRAVITY_TORQUES.public
def gravity_torques(model, q, *, out=None):
    """
    Return g(q): the torques that hold the arm still against gravity.

    g is (N, nq) for a batch of q (batches and ``out``: see the package).
    """
    return dispatch(GRAVITY_TORQUES, model, (q,), out=out)
