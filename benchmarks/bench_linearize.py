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
Time dr.linearize and the dynamics derivatives against Pinocchio on Panda.

Prints per-call times (median of repeats) and the ratio to Pinocchio's
computeRNEADerivatives / computeABADerivatives measured in the same run,
the cost of the same (A, B) by central differences of our forward dynamics
for comparison, a batch of 1,000 states against Pinocchio looped, and the
time of ``linearize`` on longer serial chains.
Run with ``.venv/bin/python benchmarks/bench_linearize.py [calls]`` (no
ROS: nothing to set a domain for).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'test'))

import dynamics_ros as dr  # noqa: E402
import numpy as np  # noqa: E402
from oracle import example_arm_xml, oracle_for  # noqa: E402
import pinocchio as pin  # noqa: E402
from scipy.linalg import expm  # noqa: E402
from timing import per_call  # noqa: E402
from urdf_factory import serial_chain_urdf  # noqa: E402


def finite_difference_linearize(model, q, qd, tau, eps=1e-6):
    """Return (A, B) by central differences of forward_dynamics."""
    n = model.nq
    x = np.concatenate((q, qd))

    def f(y, u):
        return dr.forward_dynamics(model, y[:n], y[n:], u)

    A = np.zeros((2 * n, 2 * n))
    A[:n, n:] = np.eye(n)
    for j, e in enumerate(np.eye(2 * n)):
        A[n:, j] = (f(x + eps * e, tau) - f(x - eps * e, tau)) / (2 * eps)
    B = np.zeros((2 * n, n))
    for j, e in enumerate(np.eye(n)):
        B[n:, j] = (f(x, tau + eps * e) - f(x, tau - eps * e)) / (2 * eps)
    return A, B


def pinocchio_zoh(pm, data, pq, pv, pt, dt):
    """Pinocchio's derivatives plus the same augmented-matrix exponential."""
    dq, dv, Minv = pin.computeABADerivatives(pm, data, pq, pv, pt)
    n = dq.shape[0]
    augmented = np.zeros((3 * n, 3 * n))
    augmented[:n, n:2 * n] = np.eye(n)
    augmented[n:2 * n, :n] = dq
    augmented[n:2 * n, n:2 * n] = dv
    augmented[n:2 * n, 2 * n:] = Minv
    return expm(augmented * dt)


def compare_with_pinocchio(calls):
    """Print our time, Pinocchio's and the ratio for each derivative call."""
    model, oracle = oracle_for(example_arm_xml('panda'))
    rng = np.random.default_rng(0)
    q, qd, qdd, tau = (rng.uniform(-1, 1, model.nq) for _ in range(4))
    pm, data = oracle.pin_model, oracle.data
    pq, pv, pa, pt = oracle.q(q), oracle.v(qd), oracle.v(qdd), oracle.v(tau)
    cases = [
        ('inverse_dynamics_derivatives',
         lambda: dr.inverse_dynamics_derivatives(model, q, qd, qdd),
         'computeRNEADerivatives',
         lambda: pin.computeRNEADerivatives(pm, data, pq, pv, pa)),
        ('forward_dynamics_derivatives',
         lambda: dr.forward_dynamics_derivatives(model, q, qd, tau),
         'computeABADerivatives',
         lambda: pin.computeABADerivatives(pm, data, pq, pv, pt)),
        ('linearize', lambda: dr.linearize(model, q, qd, tau),
         'computeABADerivatives',
         lambda: pin.computeABADerivatives(pm, data, pq, pv, pt)),
        ('linearize(dt=1e-3)',
         lambda: dr.linearize(model, q, qd, tau, dt=1e-3),
         'computeABADerivatives+expm',
         lambda: pinocchio_zoh(pm, data, pq, pv, pt, 1e-3)),
        ('central differences',
         lambda: finite_difference_linearize(model, q, qd, tau),
         'computeABADerivatives',
         lambda: pin.computeABADerivatives(pm, data, pq, pv, pt)),
    ]
    print('Panda (7 DoF), per call, median of 5 runs of %d calls' % calls)
    print('%-30s %11s %28s %11s %9s' % (
        'dynamics_ros', 'time [us]', 'pinocchio', 'time [us]', 'ratio'))
    for ours, our_call, theirs, their_call in cases:
        ours_time = per_call(our_call, calls)
        their_time = per_call(their_call, calls * 10)
        print('%-30s %11.1f %28s %11.2f %8.1fx' % (
            ours, ours_time * 1e6, theirs, their_time * 1e6,
            ours_time / their_time))


def batches(calls):
    """Print linearize on a batch of 1,000 Panda states, per state."""
    model, oracle = oracle_for(example_arm_xml('panda'))
    rng = np.random.default_rng(1)
    q, qd, tau = (rng.uniform(-1, 1, (1000, model.nq)) for _ in range(3))
    pm, data = oracle.pin_model, oracle.data
    states = [(oracle.q(a), oracle.v(b), oracle.v(c))
              for a, b, c in zip(q, qd, tau)]

    def looped():
        for pq, pv, pt in states:
            pin.computeABADerivatives(pm, data, pq, pv, pt)
    ours = per_call(lambda: dr.linearize(model, q, qd, tau),
                    max(calls // 100, 3)) / 1000
    theirs = per_call(looped, max(calls // 100, 3)) / 1000
    print('\nPanda, batch of 1000 states: linearize in one call %.2f us per '
          'state, computeABADerivatives looped %.2f us, ratio %.2fx'
          % (ours * 1e6, theirs * 1e6, ours / theirs))


def scaling(calls):
    """Print the time of linearize on serial chains of growing length."""
    print('\nlinearize on random serial chains (analytic, O(n^2) pass + '
          'O(n^3) M^-1 and products)')
    print('%6s %14s %18s' % ('links', 'time [us]', 'per link^2 [us]'))
    for n in (8, 16, 32):
        model = dr.load_urdf(serial_chain_urdf(n))
        rng = np.random.default_rng(n)
        q, qd, tau = (rng.uniform(-1, 1, n) for _ in range(3))
        elapsed = per_call(lambda: dr.linearize(model, q, qd, tau),
                           max(calls // n, 5))
        print('%6d %14.1f %18.3f' % (n, elapsed * 1e6, elapsed * 1e6 / n ** 2))


def main():
    """Run the comparison and the scaling table."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('calls', nargs='?', type=int, default=200,
                        help='calls per timing (default 200)')
    calls = parser.parse_args().calls
    compare_with_pinocchio(calls)
    batches(calls)
    scaling(calls)


if __name__ == '__main__':
    from results_file import record
    sys.exit(record('bench_linearize', "Linearization against Pinocchio's derivatives",
                    main))
