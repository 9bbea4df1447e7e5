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
What holds a simulated arm nobody commands yet (``hold_still``).

simulator_node used to step at zero effort until the first command, so
every launch started with a fall.  ROS-free here: a Panda off any
equilibrium, held by each ``hold_mode`` for 5 s of simulated time.
The gravity torques of the plant's own model at the current pose leave
no acceleration at rest anywhere (the arm stays to rounding, 1e-9 rad:
what rounding leaves is a velocity of ~1e-17 rad/s, not amplified, where
a constant g(q0) balances an unstable equilibrium that rounding tips
over: 2.9 rad off in 5 s); the position hold stays too, and pulls back
after a push, where the gravity hold lets the pushed arm drift; zero
effort falls.
"""

import dynamics_ros as dr
from dynamics_ros.sim.controllers import (default_gains, HOLD_MODES,
                                          hold_still, JointCommands)
from dynamics_ros.sim.simulator import Simulator
import numpy as np
import oracle
import pytest

MODEL = dr.load_urdf(oracle.example_arm_xml('panda'))
Q0 = np.array([0.0, -0.3, 0.0, -2.0, 0.0, 1.8, 0.8])
HELD = 1e-9   # rad (see the module)


def held_run(mode, seconds=5.0, push=None):
    """Hold Q0 by ``mode``; return the largest and the last deviation."""
    simulator = Simulator(MODEL, dt=1e-3, q0=Q0)
    commands = JointCommands(MODEL, *default_gains(MODEL, Q0))
    simulator.hand_over(commands, warn=False)
    held = hold_still(commands, MODEL, simulator.q.copy(), mode)
    if push is not None:   # 0.1 s of an extra effort, then the hold again
        simulator.set_external_wrench(None)
    worst = 0.0
    while simulator.t < seconds - 1e-9:
        effort = commands(simulator.t, simulator.q, simulator.qd,
                          simulator.dt)
        if push is not None and simulator.t < 0.1:
            effort = effort + push
        simulator.step(effort, commands.damping)
        worst = max(worst, float(np.max(np.abs(simulator.q - Q0))))
    return held, worst, float(np.max(np.abs(simulator.q - Q0)))


def test_the_gravity_hold_is_an_exact_equilibrium():
    held, worst, _ = held_run('gravity')
    assert np.allclose(held, dr.gravity_torques(MODEL, Q0), rtol=0.0,
                       atol=0.0)
    assert worst < HELD, worst


def test_a_constant_gravity_effort_tips_over():
    """Why the hold follows q: g(q0) held constant does not hold."""
    simulator = Simulator(MODEL, dt=1e-3, q0=Q0)
    effort = dr.gravity_torques(MODEL, Q0)
    while simulator.t < 5.0 - 1e-9:
        simulator.step(effort)
    assert np.max(np.abs(simulator.q - Q0)) > 1e-3


def test_the_position_hold_stays_and_pulls_back_after_a_push():
    held, worst, _ = held_run('position')
    assert worst < HELD, worst
    push = np.array([0.0, 5.0, 0.0, 5.0, 0.0, 0.0, 0.0])
    _, pushed, last = held_run('position', push=push)
    assert pushed > 1e-3    # the push moved it
    assert last < 1e-3      # and the hold brought it back
    # The gravity hold only compensates: the pushed arm does not return.
    assert held_run('gravity', push=push)[2] > 1e-2


def test_zero_effort_falls():
    held, worst, _ = held_run('none', seconds=1.0)
    assert not np.any(held)
    assert worst > 0.1, worst


def test_a_hold_forgets_the_command_before_it():
    commands = JointCommands(MODEL, *default_gains(MODEL, Q0))
    commands.command_velocity(np.ones(MODEL.nq))
    for mode in HOLD_MODES:
        hold_still(commands, MODEL, Q0, mode)
        assert commands.mode == {'gravity': 'gravity', 'position': 'hold',
                                 'none': 'effort'}[mode]


def test_non_finite_gravity_torques_leave_zero_effort():
    commands = JointCommands(MODEL, *default_gains(MODEL, Q0))
    commands.command_effort(np.ones(MODEL.nq))
    with pytest.raises(ArithmeticError, match='not finite'):
        hold_still(commands, MODEL, [np.nan] * MODEL.nq, 'gravity')
    assert commands.mode == 'effort' and not np.any(commands.target)
    with pytest.raises(ValueError, match='hold mode'):
        hold_still(commands, MODEL, Q0, 'float')
