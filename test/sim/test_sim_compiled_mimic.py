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
The compiled step of a model with mimic joints against its Python step.

The Panda with its hand (example-robot-data: panda_finger_joint2 mimics
panda_finger_joint1) is a MimicModel: 8 independent coordinates over a
tree of 9 joints.  Both steps compute the accelerations with the same
``coupled_acceleration`` (M_r = G^T M G, h_r = G^T h, Cholesky) and do the
integrator's arithmetic in the same order, so the states are compared for
exact equality, as test_sim_compiled does for the rigid arm; and against
the numpy mimic dynamics (compiled path off) to 1e-9.
"""

import os

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros import fast
from dynamics_ros.model.mimic_model import MimicModel
from dynamics_ros.sim.controllers import default_gains, JointCommands
from dynamics_ros.sim.simulator import Simulator
import numpy as np
from oracle import robots_directory
import pytest
from sim_twins import (assert_same_state, run_commanded, Spy,
                       step_near)

pytestmark = pytest.mark.skipif(not fast.ENABLED,
                                reason='the compiled path is off')

STEPS = 1000


@pytest.fixture(scope='module')
def panda_with_hand():
    """Return the Panda with its hand: a MimicModel (fingers coupled)."""
    model = dr.load_urdf(os.path.join(
        robots_directory(), 'panda_description', 'urdf', 'panda.urdf'))
    assert isinstance(model, MimicModel) and model.nq == 8
    return model


def start_and_target(model):
    """Return a start pose inside the limits and a target 0.3 rad away."""
    q0 = 0.5 * (np.clip(model.lower_limit, -2.0, 2.0)
                + np.clip(model.upper_limit, -2.0, 2.0))
    target = q0 + 0.3
    target[-1] = 0.03   # the fingers open from 0.02 m to 0.03 m
    return q0, target


def twins(model, integrator, q0):
    """Return a compiled simulator (spied on) and a Python one."""
    compiled = Simulator(model, dt=1e-3, integrator_name=integrator, q0=q0)
    python = Simulator(model, dt=1e-3, integrator_name=integrator, q0=q0)
    assert compiled.compiled is not None
    compiled.compiled = Spy(compiled.compiled)
    python.compiled = None
    return compiled, python


@pytest.mark.parametrize('integrator', ['rk4', 'semi_implicit_euler'])
def test_panda_with_hand_steps_as_in_python_to_the_bit(
        panda_with_hand, integrator):
    model = panda_with_hand
    q0, target = start_and_target(model)
    compiled, python = twins(model, integrator, q0)
    run_commanded((compiled, python), model, q0, target, STEPS,
                  assert_same_state)
    kernel = compiled.compiled.kernel
    assert len(compiled.compiled.statuses) == STEPS
    assert set(compiled.compiled.statuses) <= {kernel.DONE,
                                               kernel.CONSTRAIN}
    # The arm and the fingers moved toward the target (a step that did
    # nothing would stay at q0), and the mimic finger follows its master.
    assert np.all(np.abs(compiled.q - q0) > 1e-3)
    assert abs(compiled.q[-1] - 0.03) < abs(q0[-1] - 0.03)
    positions, _, _ = compiled.full_state()
    names = model.full_joint_names
    assert positions[names.index('panda_finger_joint2')] == \
        positions[names.index('panda_finger_joint1')]


def test_a_position_hold_of_the_hand_steps_as_its_effort(panda_with_hand):
    model = panda_with_hand
    q0, target = start_and_target(model)
    compiled, python = twins(model, 'rk4', q0)
    held, commanded = (JointCommands(model, *default_gains(model, q0))
                       for _ in range(2))
    for commands in (held, commanded):
        commands.command_position(target)
    for _ in range(200):
        compiled.hold_step(*held.hold(), held.damping)
        python.step(commanded(python.t, python.q, python.qd, python.dt),
                    commanded.damping)
        assert_same_state(compiled, python)
    assert len(compiled.compiled.statuses) == 200


@pytest.mark.parametrize('hold', [False, True])
def test_the_closed_hand_on_its_limit_steps_in_the_kernel(panda_with_hand,
                                                          hold):
    # The fingers closed, at their lower limit (0 m: where simulation.launch
    # starts them), squeezed shut by the hold while the arm moves: every
    # step ends in the stop's impulse, solved in the kernel (Cholesky)
    # as in Python (np.linalg.inv): equal to rounding from the same state.
    model = panda_with_hand
    q0, target = start_and_target(model)
    q0[-1], target[-1] = 0.0, -0.01
    compiled, python = twins(model, 'rk4', q0)
    held, commanded = (JointCommands(model, *default_gains(model, q0))
                       for _ in range(2))
    for commands in (held, commanded):
        commands.command_position(target)
    for _ in range(200):
        step_near(compiled, python, held, commanded, hold)
        assert compiled.q[-1] == 0.0   # on the stop, pushed into it
    assert set(compiled.compiled.statuses) == {compiled.compiled.kernel.DONE}
    assert np.all(np.abs(compiled.q[:-1] - q0[:-1]) > 1e-3)


def test_the_coupled_step_agrees_with_the_numpy_mimic_dynamics(
        panda_with_hand):
    # The Python step with the compiled path off runs
    # dynamics/mimic_dynamics.py (numpy G^T M G and a LAPACK solve): the
    # same dynamics in another arithmetic, equal to rounding.
    model = panda_with_hand
    q0, _ = start_and_target(model)
    qd0 = np.linspace(-0.5, 0.5, model.nq)
    qd0[-1] = 0.01
    compiled = Simulator(model, dt=1e-3, q0=q0, qd0=qd0)
    numpy_step = Simulator(model, dt=1e-3, q0=q0, qd0=qd0)
    effort = np.linspace(-2.0, 2.0, model.nq)
    for _ in range(20):
        compiled.step(effort)
    previous = fast.enable(False)
    try:
        for _ in range(20):
            numpy_step.step(effort)
    finally:
        fast.enable(previous)
    assert_close(compiled.z, numpy_step.z, what='positions')
    assert_close(compiled.zd, numpy_step.zd, what='velocities')
