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
Compiled computed-torque law with the effort limits, for one state.

The law of ``control/computed_torque.py``: the commanded acceleration
v = qdd_d + Kp e + Kd (qd_d - qd), e = q_d - q wrapped to [-pi, pi) on
continuous joints, then tau = RNEA(q, qd, v), then tau clipped to +-limits
(``control/saturation.py``), in one kernel call.  A node answering at 1 kHz
runs this one call instead of a dozen numpy operations: between two
messages the other threads and processes evict the caches, and every numpy
operation's code and data must be loaded again (measured in one process,
the caches flushed before each message: 70 -> 37 us per answer, Panda).
"""

import math

import numpy as np

from .compiler import INPUT_VECTOR, kernel, MATRIX, VECTOR
from .packing import CONTINUOUS
from .rnea import rnea_sample


@kernel('int64', MATRIX, MATRIX, INPUT_VECTOR, INPUT_VECTOR, INPUT_VECTOR,
        INPUT_VECTOR, INPUT_VECTOR, INPUT_VECTOR, INPUT_VECTOR, INPUT_VECTOR,
        VECTOR, VECTOR)
def computed_torque_kernel(table, work, q, qd, q_desired, qd_desired,
                           qdd_desired, kp, kd, limits, tau, clipped):
    """
    Write tau and tau clipped to +-limits; return how many were clipped.

    Returns -1 (nothing written) if an array does not have nq values.  A NaN
    in tau is not clipped (the caller refuses to publish it).
    """
    n = table.shape[0] - 1
    if not (q.size == qd.size == q_desired.size == qd_desired.size
            == qdd_desired.size == kp.size == kd.size == limits.size
            == tau.size == clipped.size == n and work.shape[0] == n + 2):
        return -1
    # ``clipped`` holds v until tau is known.
    for i in range(n):
        error = q_desired[i] - q[i]
        if table[i, CONTINUOUS] != 0.0:
            error = (error + math.pi) % (2.0 * math.pi) - math.pi
        clipped[i] = (qdd_desired[i] + kp[i] * error
                      + kd[i] * (qd_desired[i] - qd[i]))
    rnea_sample(table, q, qd, clipped, np.empty((0, 6)), tau, work)
    count = 0
    for i in range(n):
        if abs(tau[i]) > limits[i]:
            clipped[i] = math.copysign(limits[i], tau[i])
            count += 1
        else:
            clipped[i] = tau[i]
    return count
