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
Twin simulators, compiled and Python, for the tests that compare them.

A spy on the compiled step, the exact comparison of their states, and a
run of both under position PIDs (test_sim_compiled,
test_sim_compiled_mimic, test_sim_compiled_motors).
"""

from dynamics_ros.sim.controllers import default_gains, JointCommands
import numpy as np


class Spy:
    """Stand in for a simulator's CompiledStep; record the statuses."""

    def __init__(self, compiled):
        self.compiled = compiled
        self.statuses = []

    @property
    def kernel(self):
        """Return the kernel module (loaded by the first call)."""
        return self.compiled.kernel

    def set_damping(self, *arguments):
        """Pass a new explicit damping on to the compiled step."""
        self.compiled.set_damping(*arguments)

    def __call__(self, *arguments):
        """Run the compiled step and note its status."""
        result = self.compiled(*arguments)
        self.statuses.append(int(result[0]))
        return result

    def hold(self, *arguments):
        """Run the compiled position hold and note its status."""
        result = self.compiled.hold(*arguments)
        self.statuses.append(int(result[0]))
        return result


def assert_same_state(compiled, python):
    """Assert both simulators hold exactly the same state and effort."""
    assert compiled.t == python.t
    for field in ('z', 'zd', 'applied_effort'):
        a, b = getattr(compiled, field), getattr(python, field)
        assert np.array_equal(a, b), '%s differs by %g' % (
            field, np.max(np.abs(a - b)))


def assert_near_state(compiled, python, tolerance=1e-12):
    """
    Assert both simulators agree to rounding (a Cholesky against an LU).

    Where the compiled step solves with M by Cholesky and the Python step
    by np.linalg.inv (the implicit damping, the impulses): the same
    numbers to about 1e-15 relative, ``tolerance`` relative to the
    largest entry (at least 1).
    """
    assert compiled.t == python.t
    for field in ('z', 'zd', 'applied_effort'):
        a, b = getattr(compiled, field), getattr(python, field)
        scale = max(1.0, np.max(np.abs(b)))
        assert np.max(np.abs(a - b)) <= tolerance * scale, \
            '%s differs by %g' % (field, np.max(np.abs(a - b)))


def take_state(simulator, source):
    """
    Put ``simulator`` in the state of ``source`` (after a near comparison).

    So that the next step of both starts from the same numbers: rounding
    does not add up, and a stop or a stick-slip decision taken on a
    rounded velocity cannot part them.
    """
    simulator.z = source.z.copy()
    simulator.zd = source.zd.copy()
    simulator.applied_effort = source.applied_effort.copy()


def step_near(compiled, python, held, commanded, hold):
    """
    Step both under a position PID each; compare to rounding; re-align.

    The compiled twin under ``held`` (``hold_step`` with ``hold``, else
    ``step`` with its effort), the Python one under ``commanded``'s
    effort, both with the PID's dampers; then the compiled twin takes the
    Python one's state (``take_state``).
    """
    if hold:
        compiled.hold_step(*held.hold(), held.damping)
    else:
        compiled.step(held(compiled.t, compiled.q, compiled.qd, compiled.dt),
                      held.damping)
    python.step(commanded(python.t, python.q, python.qd, python.dt),
                commanded.damping)
    assert_near_state(compiled, python)
    take_state(compiled, python)


def run_commanded(simulators, model, q0, target, steps, check,
                  damping=None):
    """
    Step each simulator under a position PID of its own toward ``target``.

    The gains of ``default_gains(model, q0)``; ``check(*simulators)``
    after every step; ``damping(k)``: the controller damper handed to
    step k (None: none).
    """
    controllers = [JointCommands(model, *default_gains(model, q0))
                   for _ in simulators]
    for commands in controllers:
        commands.command_position(target)
    for k in range(steps):
        for simulator, commands in zip(simulators, controllers):
            simulator.step(commands(simulator.t, simulator.q, simulator.qd,
                                    simulator.dt),
                           None if damping is None else damping(k))
        check(*simulators)
