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

"""Operation counting: the counting rules and the shape of the counts."""

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.formulations.newton_euler_links import \
    newton_euler_inverse_dynamics
from dynamics_ros.formulations.op_counts import Count, count_call, \
    count_formulations, count_source, Counted, generic_chain
from dynamics_ros.resources import robot_urdf
import numpy as np


def test_counting_rules():
    """Constants fold, 0 and +-1 are free, the rest is counted."""
    count = Count()
    x, y = Counted(2.0, count), Counted(3.0, count)
    assert (x * 0.0) == 0.0 and count == Count()
    assert (x * 1.0) is x and (x + 0.0) is x and (0.0 - x).value == -2.0
    assert count == Count()
    z = (x * y + 2.5 * x - y) / y + x ** 3
    assert count == Count(mults=1 + 1 + 1 + 2, adds=3, divs=1)
    assert abs(float(z) - ((6.0 + 5.0 - 3.0) / 3.0 + 8.0)) < 1e-15
    np.cos(x)
    assert count.trig == 1


def test_counted_run_computes_the_same_torques():
    """A counted run is the float run: same values, ops on the side."""
    chain = generic_chain(5, seed=2)
    rng = np.random.default_rng(2)
    q, qd, qdd = rng.uniform(-1, 1, (3, 5))
    count, tau = count_call(
        lambda a, b, c: newton_euler_inverse_dynamics(chain, a, b, c),
        q, qd, qdd)
    assert_close(tau, newton_euler_inverse_dynamics(chain, q, qd, qdd),
                 1e-15)
    assert count.mults > 400 and count.trig == 10


def test_count_source_of_generated_code():
    """Generated code is counted from its syntax tree."""
    source = ('def f(q):\n    c0 = cos(q[0])\n'
              '    return [2*c0**3 + c0/q[1] - 1, -c0]\n')
    assert count_source(source, ('f',)) == Count(mults=4, adds=2, divs=1,
                                                 trig=1)


def test_recursive_counts_are_linear_and_lagrange_cubic():
    """
    Recursive counts grow by a constant per link, Lagrange's as n^3.

    Newton-Euler (both) and Nasser: constant first differences; Lagrange:
    constant third differences (O(n^3), Turney's Table 1).
    """
    counts = [count_formulations(n, kane=False) for n in range(3, 9)]
    for name in ('newton_euler', 'modified_newton_euler', 'nasser'):
        mults = np.array([c[name].mults for c in counts])
        assert len(set(np.diff(mults))) == 1, (name, mults)
    lagrange = np.array([c['lagrange'].mults for c in counts])
    third = np.diff(lagrange, 3)
    assert len(set(third[1:])) == 1 and third[-1] > 0, lagrange
    six = counts[3]
    # Orders of magnitude of Turney's Table 1 at n = 6 (636 / 513 / 5916).
    assert 500 < six['newton_euler'].mults < 800
    assert six['modified_newton_euler'].mults < six['newton_euler'].mults
    assert six['lagrange'].mults > 5 * six['newton_euler'].mults


def test_kane_counts_on_the_stanford_arm():
    """Kane's generated inverse dynamics: hundreds of ops, as in the paper."""
    model = dr.load_urdf(robot_urdf('stanford_arm'))
    counts = count_formulations(model)
    kane = counts['kane']
    # Kane & Levinson: 646 multiplications, 394 additions.
    assert 300 < kane.mults < 1300 and 200 < kane.adds < 800
    assert kane.mults < counts['lagrange'].mults
