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
The momentum observer with the identified friction, on real friction.

A Panda (with rotor inertia, as geared joints have) with sign-sharp
Coulomb friction and stiction plus viscous friction in the simulator
(sim/plant_friction.py) follows a Fourier trajectory with many direction
reversals; its efforts carry 0.2 N m of noise.  Acceptance:
with the friction the identification gives (its tanh formula, the
plant's levels) the observer raises no flag at 3x the noise during free
motion, where without it every reversal is a "contact"; a 3 N m push on
one joint is still found, on that joint only.
"""

import dynamics_ros as dr
from dynamics_ros.dynamics.friction import JointFriction
from dynamics_ros.estimation.momentum_observer import observe
from dynamics_ros.identification.excitation import limits, trajectory_of
from dynamics_ros.sim.plant_friction import SharpFriction
import numpy as np
from oracle import example_arm_xml
import pytest

NOISE = 0.2
DT = 1e-3
PUSH = (2.0, 2.4, 3, 3.0)        # from, to (s), joint, N m
VISCOUS = np.array([0.6, 0.6, 0.5, 0.5, 0.3, 0.3, 0.2])
COULOMB = np.array([1.5, 1.5, 1.2, 1.2, 0.8, 0.8, 0.6])


@pytest.fixture(scope='module')
def run():
    """Simulate 3.5 s: free, pushed from 2.0 to 2.4 s, free again."""
    model = dr.load_urdf(example_arm_xml('panda')).copy(
        armature=np.full(7, 0.1))
    plant, extra = SharpFriction(VISCOUS, COULOMB).plant(model)
    x = np.random.default_rng(3).normal(size=2 * 7 * 4)
    # A 2 s period: every joint reverses several times.
    trajectory = trajectory_of(x, 7, 5, 2.0, limits(model))
    steps = int(3.5 / DT)
    Q, QD, QDD = trajectory.evaluate(np.arange(steps + 1) * DT)
    simulator = dr.Simulator(plant, dt=DT, q0=Q[0], qd0=QD[0])
    inertia = np.diag(dr.mass_matrix(plant, Q[0]))
    omega = np.minimum(0.5 / DT, np.sqrt(2000.0 / inertia))
    rng = np.random.default_rng(4)
    start, stop, joint, push = PUSH
    times, positions, velocities, efforts = [], [], [], []
    for k in range(steps):
        q, qd = simulator.q, simulator.qd
        effort = dr.inverse_dynamics(model, q, qd, QDD[k] + 400.0 * (
            Q[k] - q) + 40.0 * (QD[k] - qd)) + inertia * omega ** 2 * (
            Q[k] - q) + 2.0 * inertia * omega * (QD[k] - qd)
        times.append(simulator.t)
        positions.append(q.copy())
        velocities.append(qd.copy())
        external = np.zeros(7)
        if start <= simulator.t < stop:
            external[joint] = push
        # The push acts on the arm; the drive reports its own effort.
        simulator.step(effort + external)
        efforts.append(np.array(simulator.applied_effort) - external)
    efforts = np.array(efforts)
    efforts[1:] = 0.5 * (efforts[1:] + efforts[:-1])
    efforts += rng.normal(0.0, NOISE, efforts.shape)
    t = np.array(times)
    arguments = (model, t, np.array(positions), np.array(velocities),
                 efforts)
    identified = JointFriction(model.joint_names, VISCOUS, COULOMB)
    return dict(t=t, with_friction=observe(*arguments, friction=identified),
                without=observe(*arguments),
                reversals=int(np.sum(np.diff(np.sign(velocities), axis=0)
                                     != 0)))


def test_free_motion_raises_no_flag_with_the_identified_friction(run):
    """Below 3x the noise everywhere outside the push (and its decay)."""
    t = run['t']
    start, stop, joint, push = PUSH
    free = (t > 0.1) & ((t < start) | (t > stop + 0.15))
    with_friction = np.abs(run['with_friction'][free]).max(axis=0)
    without = np.abs(run['without'][free]).max(axis=0)
    print('\n%d reversals; largest |r| in free motion per joint, with the '
          'friction %s, without %s (threshold %.2f)' % (
              run['reversals'], np.array2string(with_friction, precision=2),
              np.array2string(without, precision=2), 3 * NOISE))
    assert run['reversals'] >= 14
    assert np.all(with_friction < 3 * NOISE), with_friction
    # Not by accident: without the friction the reversals are contacts.
    assert np.all(without > 3 * NOISE)


def test_a_push_is_still_found_on_its_joint(run):
    """The push crosses the threshold on its joint within 0.1 s, only there."""
    t = run['t']
    start, stop, joint, push = PUSH
    during = (t > start + 0.1) & (t < stop)
    estimate = run['with_friction'][during]
    assert np.all(np.abs(estimate[:, joint] - push) < 0.25 * push)
    others = np.delete(np.abs(estimate), joint, axis=1)
    assert np.all(others < 3 * NOISE)
