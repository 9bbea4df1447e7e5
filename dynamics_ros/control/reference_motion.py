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
A smooth reference motion for any arm, and tracking-error statistics.

The motion q_d(t) = q0 + A (1 - cos(w t)) / 2 starts and ends at rest at
q0 (two full cycles in ``duration``); q0 and the amplitudes A keep every
joint inside its limits, so the same demo runs on any URDF.
"""

from dataclasses import dataclass

import numpy as np

from ..model.robot_model import PRISMATIC


@dataclass
class ReferenceMotion:
    """q_d(t) = start + amplitude (1 - cos(omega t)) / 2, t in [0, duration]."""

    start: np.ndarray
    amplitude: np.ndarray
    omega: float
    duration: float

    def state(self, t):
        """Return (q, qd, qdd) at times ``t`` (scalar or array), clamped."""
        t = np.clip(np.asarray(t, dtype=float), 0.0, self.duration)[..., None]
        half = 0.5 * self.amplitude
        phase = self.omega * t
        return (self.start + half * (1.0 - np.cos(phase)),
                half * self.omega * np.sin(phase),
                half * self.omega ** 2 * np.cos(phase))


def reference_motion(model, duration=10.0, cycles=2, angle=0.6,
                     stroke=0.1):
    """
    Return a ReferenceMotion that stays inside the model's joint limits.

    Each joint starts at 0 when 0 is inside its limits (else mid-range) and
    swings toward the roomier limit by at most ``angle`` rad (revolute) or
    ``stroke`` m (prismatic), and at most 80 % of the room there.
    """
    lower, upper = model.lower_limit, model.upper_limit
    start = np.where((lower < 0.0) & (upper > 0.0), 0.0,
                     np.where(np.isfinite(lower) & np.isfinite(upper),
                              0.5 * (lower + upper), 0.0))
    room_up = np.where(np.isfinite(upper), upper - start, np.inf)
    room_down = np.where(np.isfinite(lower), start - lower, np.inf)
    reach = np.where(model.joint_type == PRISMATIC, stroke, angle)
    up = room_up >= room_down
    amplitude = np.where(up, np.minimum(reach, 0.8 * room_up),
                         -np.minimum(reach, 0.8 * room_down))
    return ReferenceMotion(start=start, amplitude=amplitude,
                           omega=2.0 * np.pi * cycles / duration,
                           duration=float(duration))


def tracking_error(model, motion, times, positions):
    """
    Return the error q - q_d at each sample, (k, nq).

    ``times`` are seconds since the motion began; continuous joints are
    compared as angles (the simulator wraps them to (-pi, pi]).
    """
    desired = motion.state(times)[0]
    error = np.asarray(positions, dtype=float) - desired
    wrap = model.continuous
    error[:, wrap] = np.angle(np.exp(1j * error[:, wrap]))
    return error


def error_statistics(error):
    """Return (rms, max abs) per joint of an error history (k, nq)."""
    error = np.asarray(error, dtype=float)
    return np.sqrt(np.mean(error ** 2, axis=0)), np.max(np.abs(error), axis=0)
