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

"""Recordings the identification tests share (no simulator)."""

import dynamics_ros as dr
from dynamics_ros.identification.recording import Recording
import numpy as np


def moving_recording(model, seconds=6.0, rate=200.0, frozen=None, seed=1,
                     amplitude=0.6):
    """Return a recording of exact torques along sinusoids (no simulator)."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * rate)) / rate
    middle = 0.5 * (model.lower_limit + model.upper_limit)
    frequency = rng.uniform(0.2, 0.6, (3, model.nq))
    phase = rng.uniform(0, 2 * np.pi, (3, model.nq))
    q = middle + amplitude / 3 * np.sum(np.sin(
        2 * np.pi * frequency[:, None] * t[None, :, None] + phase[:, None]),
        axis=0)
    w = 2 * np.pi * frequency
    qd = amplitude / 3 * np.sum(w[:, None] * np.cos(
        2 * np.pi * frequency[:, None] * t[None, :, None] + phase[:, None]),
        axis=0)
    qdd = -amplitude / 3 * np.sum(w[:, None] ** 2 * np.sin(
        2 * np.pi * frequency[:, None] * t[None, :, None] + phase[:, None]),
        axis=0)
    if frozen is not None:
        q[:, frozen], qd[:, frozen], qdd[:, frozen] = middle[frozen], 0, 0
    effort = dr.inverse_dynamics(model, q, qd, qdd)
    return Recording(model.joint_names, t, q, effort, source='test')


def noisy(recording, seed, sigma=0.05):
    """Return the recording with effort noise (a well-posed fit)."""
    rng = np.random.default_rng(seed)
    return Recording(recording.joint_names, recording.times,
                     recording.positions, recording.efforts
                     + rng.normal(0.0, sigma, recording.efforts.shape),
                     source='noisy %d' % seed)
