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
Retiming against an independent time-optimal reference, on other arms.

The reference: toppra's own JointVelocity, JointAcceleration and
JointTorque constraints with Pinocchio's RNEA (``oracle``) on a grid of
4000 intervals, the same waypoint path (toppra's SplineInterpolator over
the chord length) and the same limits.  retime must come within 0.5 % of
its duration (and not below it by more than the reference's own
discretization, 0.1 %), and its output, replayed at 1 kHz as
joint_trajectory_controller plays it, must keep every limit to 1e-6 with
Pinocchio's torques.
"""

import subprocess
import sys

import dynamics_ros as dr
from dynamics_ros.control.feasibility import limits_in_use, sample_times, \
    trajectory_of
from dynamics_ros.control.retime import chord_parameters, retime
from dynamics_ros.control.trajectory import sample_many
import numpy as np
from oracle import example_arm_xml, PinocchioOracle
import pytest
import toppra
import toppra.algorithm
import toppra.constraint

REFERENCE_INTERVALS = 4000


def reference_duration(oracle, positions, limits):
    """Return toppra's time-optimal duration with Pinocchio's torques."""
    constraint = toppra.constraint
    interpolation = constraint.DiscretizationType.Interpolation
    path = toppra.SplineInterpolator(chord_parameters(positions), positions)
    constraints = [constraint.JointVelocityConstraint(
        np.column_stack([-limits.velocity, limits.velocity]))]
    if np.all(np.isfinite(limits.acceleration)):
        constraints.append(constraint.JointAccelerationConstraint(
            np.column_stack([-limits.acceleration, limits.acceleration]),
            discretization_scheme=interpolation))
    constraints.append(constraint.JointTorqueConstraint(
        oracle.rnea, np.column_stack([-limits.effort, limits.effort]),
        np.zeros(len(limits.effort)), discretization_scheme=interpolation))
    grid = np.linspace(0.0, path.duration, REFERENCE_INTERVALS + 1)
    solver = toppra.algorithm.TOPPRA(constraints, path, gridpoints=grid,
                                     solver_wrapper='seidel')
    return solver.compute_trajectory(0.0, 0.0).duration


def arm(name):
    """Return (model, Pinocchio oracle) of an example-robot-data arm."""
    xml = example_arm_xml(name)
    model = dr.load_urdf(xml)
    return model, PinocchioOracle(model, xml)


def paths(model, seed):
    """Return {label: waypoints}: 7 and 10 random ones, a short and a tiny move."""
    rng = np.random.default_rng(seed)
    lower = np.maximum(model.lower_limit, -2.5) + 0.3
    upper = np.minimum(model.upper_limit, 2.5) - 0.3
    middle = 0.5 * (lower + upper)
    found = {'%d waypoints' % k: lower + rng.uniform(size=(k, model.nq))
             * (upper - lower) for k in (7, 10)}
    found['short move'] = np.array([middle, middle + 0.1])
    found['tiny move'] = np.array([middle, middle + 1e-4])
    return found


CASES = [
    # Velocity and acceleration limits bind (the URDF's velocities).
    ('kinova', dict(acceleration_limits=8.0)),
    ('ur10', dict(acceleration_limits=8.0)),
    # Efforts bind: the UR10's at 40 % with a high acceleration limit.
    ('ur10', dict(acceleration_limits=40.0, effort_scale=0.4)),
]


@pytest.mark.parametrize('name, options', CASES)
def test_retime_is_within_half_a_percent_of_the_optimum(name, options):
    model, oracle = arm(name)
    limits = limits_in_use(model, **options)
    binding = set()
    for label, positions in paths(model, seed=len(options)).items():
        result = retime(model, positions, limits)
        reference = reference_duration(oracle, positions, limits)
        ratio = result.duration / reference
        assert 0.999 < ratio < 1.005, (label, result.duration, reference)
        # Replayed at 1 kHz (and at every point), Pinocchio's torques.
        trajectory = trajectory_of(result.times, result.positions,
                                   result.velocities, result.accelerations)
        q, qd, qdd = sample_many(trajectory, sample_times(trajectory,
                                                          1000.0))
        tau = np.array([oracle.rnea(*state) for state in zip(q, qd, qdd)])
        for kind, values in (('effort', tau), ('velocity', qd),
                             ('acceleration', qdd)):
            use = np.max(np.abs(values) / limits.of(kind))
            assert use <= 1.0 + 1e-6, (label, kind, use)
            if use > 0.99:
                binding.add(kind)
    expected = {'effort'} if 'effort_scale' in options else {
        'velocity', 'acceleration'}
    assert expected <= binding, binding


def test_loading_toppra_leaves_pyplot_unloaded():
    # toppra imports matplotlib.pyplot for its plots (1.2 s of a first
    # retime's 2 s); retime defers it until something uses it.
    code = ('import sys\n'
            'from dynamics_ros.control.retime import load_toppra\n'
            'toppra = load_toppra()\n'
            'import toppra.parametrizer as p\n'
            'print(sorted(m for m in sys.modules if m.startswith('
            '"matplotlib")))\n'
            'print(p.plt.figure.__module__)\n')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert out[0] == '[]'
    assert out[1] == 'matplotlib.pyplot'    # still there when used
