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
Velocity steps of points without velocities: reported, and retimed away.

Such points are checked as joint_trajectory_controller plays them:
linearly, so the velocity steps at every point (rest before the first,
hold after the last).  Against a finite acceleration limit a step is a
violation, and retime removes it.
"""

import dynamics_ros as dr
from dynamics_ros.control.feasibility import check, limits_in_use, \
    trajectory_of, velocity_steps
from dynamics_ros.control.retime import retime
import numpy as np
from oracle import example_arm_xml

UR10 = dr.load_urdf(example_arm_xml('ur10'))
TIMES = [0.0, 1.0, 2.0]
# What a script or a teleop tool sends: three poses, 1 s apart.
POSES = np.array([[0.0, -1.2, 1.0, -1.4, -1.5, 0.0],
                  [0.2, -1.1, 1.1, -1.3, -1.4, 0.2],
                  [0.5, -1.0, 1.3, -1.1, -1.2, 0.5]])


def test_the_steps_are_where_the_controller_plays_them():
    steps = velocity_steps(trajectory_of(TIMES, POSES))
    slopes = np.diff(POSES, axis=0)      # rad per 1 s segment
    np.testing.assert_allclose(steps, [slopes[0], slopes[1] - slopes[0],
                                       -slopes[1]], atol=1e-12)
    # With velocities at the points (cubic segments) nothing steps.
    smooth = trajectory_of(TIMES, POSES, np.zeros_like(POSES))
    assert not np.any(velocity_steps(smooth))


def test_a_velocity_step_against_an_acceleration_limit_is_reported():
    limits = limits_in_use(UR10, acceleration_limits=5.0)
    report = check(UR10, TIMES, POSES, limits=limits)
    assert not report.feasible
    first = report.first
    assert (first.kind, first.joint, first.time) == (
        'acceleration', 'shoulder_pan_joint', 0.0)
    assert first.value == np.inf and first.limit == 5.0
    assert 'velocity step' in report.text()
    # No acceleration limit: nothing to exceed (efforts and velocities of
    # the linear segments are within the URDF's).
    assert check(UR10, TIMES, POSES).feasible


def test_retime_removes_the_velocity_steps():
    limits = limits_in_use(UR10, acceleration_limits=5.0)
    result = retime(UR10, POSES, limits, times=TIMES)
    assert result.retimed and result.report.feasible
    again = check(UR10, result.times, result.positions, result.velocities,
                  result.accelerations, limits=limits)
    assert again.feasible
    assert not np.any(velocity_steps(trajectory_of(
        result.times, result.positions, result.velocities,
        result.accelerations)))
    # The retimed path still passes through the poses, at rest at its ends.
    np.testing.assert_allclose(result.positions[[0, -1]], POSES[[0, -1]],
                               atol=1e-9)
    np.testing.assert_allclose(result.velocities[[0, -1]], 0.0, atol=1e-9)
