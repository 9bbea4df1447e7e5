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
FLX's independent joint PIDs (Mackay 1988, sec. 3.1), term by term.

The three-link closure test cannot see the controller's terms (inverse
dynamics returns whatever torques were applied); here the integral is held
to its definition, and to what it is for: removing the offset that
gravity leaves a PD loop with.
"""

from dynamics_ros.flexible.control import CubicSplineTrajectory, \
    PIDController
from dynamics_ros.flexible.examples import MACKAY_GRAVITY, MACKAY_LENGTH, \
    MACKAY_MASS, mackay_pendulum
from dynamics_ros.flexible.simulate import simulate
import numpy as np


def holding(position):
    """Return a trajectory that holds ``position`` (one joint)."""
    return CubicSplineTrajectory([0.0, 1.0], [[position], [position]])


def test_pid_terms_on_a_known_error_history():
    """
    Each term: tau = kp e + ki sum(e dt) + kd (qd_ref - qd), e = q_ref - q.

    Five calls at a constant error of 0.1 rad: the integral is 5 x 0.1 x
    0.01 after the fifth, and each term has the sign that drives q
    toward q_ref.  After the cut-off the torques are zero.
    """
    controller = PIDController(holding(0.5), kp=[30.0], ki=[200.0],
                               kd=[4.0], dt=0.01, cutoff=2.0)
    for step in range(1, 6):
        tau = controller(0.01 * step, [0.4], [0.25])
        integral = step * 0.1 * 0.01
        assert abs(tau[0] - (30.0 * 0.1 + 200.0 * integral
                             + 4.0 * (0.0 - 0.25))) < 1e-12
    assert abs(controller.integral[0] - 0.005) < 1e-15
    # An error of the other sign winds the integral back down.
    tau = controller(0.06, [0.6], [0.0])
    assert abs(controller.integral[0] - 0.004) < 1e-15
    assert abs(tau[0] - (-3.0 + 200.0 * 0.004)) < 1e-12
    assert controller(2.0, [0.4], [0.0])[0] == 0.0


def test_integral_removes_the_gravity_offset_of_the_rigid_pendulum():
    """
    SRPEN held at 0.3 rad: PD stops short by the gravity torque over kp.

    The 4 m rigid pendulum (Mackay's standard link) without the integral
    settles where kp e = m g (a/2) sin(0.3 - e): e = 0.0288 rad (statics,
    a spring against gravity).  With it the offset decays: the loop J s^3
    + kd s^2 + (kp + gravity's stiffness) s + ki has its slowest root at
    -1.32 1/s (time constant 0.76 s), so after 4 s exp(-5.3) = 0.5 % of
    that mode is left; the simulation leaves 1.2 % of the offset (the mode
    starts larger than the offset), held here to 2 %.  A wrong integral
    sign drives the arm off (0.39 rad after 4 s).
    """
    target, kp, kd, ki = 0.3, 2000.0, 600.0, 2000.0
    fm = mackay_pendulum(0)
    finals = {}
    for integral_gain in (0.0, ki):
        controller = PIDController(holding(target), kp=[kp],
                                   ki=[integral_gain], kd=[kd], dt=1e-3)
        result = simulate(fm, [target], [0.0], 4.0, 1e-3, controller,
                          record_every=100)
        finals[integral_gain] = target - result.z[-1, 0]
    # The static offset e solves kp e = m g (a/2) sin(target - e).
    offset = 0.0
    for _ in range(50):
        offset = (MACKAY_MASS * MACKAY_GRAVITY * MACKAY_LENGTH / 2
                  * np.sin(target - offset)) / kp
    assert 0.028 < offset < 0.029
    assert abs(finals[0.0] - offset) < 1e-4 * offset
    assert abs(finals[ki]) < 0.02 * offset
    # Linear analysis of the loop (J = m a^2 / 3; gravity's stiffness at
    # the target adds to kp): every root stable, the slowest 0.76 s.
    inertia = MACKAY_MASS * MACKAY_LENGTH ** 2 / 3
    stiffness = kp + MACKAY_MASS * MACKAY_GRAVITY * MACKAY_LENGTH / 2 * \
        np.cos(target)
    roots = np.roots([inertia, kd, stiffness, ki])
    assert np.all(roots.real < 0)
    assert 0.7 < -1 / roots.real.max() < 0.8
