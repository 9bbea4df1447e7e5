#!/usr/bin/env python3
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
Time the dynamics API against Pinocchio on Panda, in one run.

Prints per-call times (median of repeats) and the ratio to Pinocchio, then
the time per call for serial chains of 8, 16, 32 and 64 links with the
per-link cost, which is flat for an O(n) algorithm.  Run with
``make bench`` or ``.venv/bin/python benchmarks/bench_core.py [--calls N]``
(no ROS: nothing to set a domain for).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'test'))

import dynamics_ros as dr  # noqa: E402
import numpy as np  # noqa: E402
from oracle import example_arm_xml, oracle_for  # noqa: E402
import pinocchio as pin  # noqa: E402
from timing import per_call  # noqa: E402
from urdf_factory import serial_chain_urdf  # noqa: E402


def compare_with_pinocchio(calls):
    """Print our time, Pinocchio's and the ratio for each API function."""
    model, oracle = oracle_for(example_arm_xml('panda'))
    rng = np.random.default_rng(0)
    q, qd, qdd, tau = (rng.uniform(-1, 1, model.nq) for _ in range(4))
    pm, data = oracle.pin_model, oracle.data
    pq, pv, pa, pt = oracle.q(q), oracle.v(qd), oracle.v(qdd), oracle.v(tau)
    cases = [
        ('inverse_dynamics', lambda: dr.inverse_dynamics(model, q, qd, qdd),
         'rnea', lambda: pin.rnea(pm, data, pq, pv, pa)),
        ('mass_matrix', lambda: dr.mass_matrix(model, q),
         'crba', lambda: pin.crba(pm, data, pq)),
        ('forward_dynamics', lambda: dr.forward_dynamics(model, q, qd, tau),
         'aba', lambda: pin.aba(pm, data, pq, pv, pt)),
        ('gravity_torques', lambda: dr.gravity_torques(model, q),
         'computeGeneralizedGravity',
         lambda: pin.computeGeneralizedGravity(pm, data, pq)),
        ('bias_forces', lambda: dr.bias_forces(model, q, qd),
         'nonLinearEffects',
         lambda: pin.nonLinearEffects(pm, data, pq, pv)),
        ('coriolis_matrix', lambda: dr.coriolis_matrix(model, q, qd),
         'computeCoriolisMatrix',
         lambda: pin.computeCoriolisMatrix(pm, data, pq, pv)),
    ]
    print('Panda (7 DoF), per call, median of 5 runs of %d calls' % calls)
    print('%-18s %12s %28s %12s %9s' % (
        'dynamics_ros', 'time [us]', 'pinocchio', 'time [us]', 'ratio'))
    for ours, our_call, theirs, their_call in cases:
        ours_time = per_call(our_call, calls)
        their_time = per_call(their_call, calls * 10)
        print('%-18s %12.2f %28s %12.3f %8.1fx' % (
            ours, ours_time * 1e6, theirs, their_time * 1e6,
            ours_time / their_time))


def scaling(calls):
    """Print the time per call and per link for 8..64-link chains."""
    print()
    print('Serial revolute chains: time per call and per link [us]')
    print('%6s %14s %10s %14s %10s %14s %10s' % (
        'links', 'inverse_dyn', '/link', 'forward_dyn', '/link',
        'mass_matrix', '/link'))
    for links in (8, 16, 32, 64):
        model = dr.load_urdf(serial_chain_urdf(links, seed=links))
        rng = np.random.default_rng(1)
        q, qd, qdd = (rng.uniform(-1, 1, links) for _ in range(3))
        t_id = per_call(lambda: dr.inverse_dynamics(model, q, qd, qdd),
                        calls)
        t_fd = per_call(lambda: dr.forward_dynamics(model, q, qd, qdd),
                        calls)
        t_m = per_call(lambda: dr.mass_matrix(model, q), calls)
        print('%6d %14.1f %10.2f %14.1f %10.2f %14.1f %10.2f' % (
            links, t_id * 1e6, t_id * 1e6 / links, t_fd * 1e6,
            t_fd * 1e6 / links, t_m * 1e6, t_m * 1e6 / links))
    print('(inverse and forward dynamics are O(n): flat per-link cost; the '
          'mass matrix is O(n^2) in general, O(n d) for depth d)')


def main():
    """Run both benchmarks."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--calls', type=int,
                        default=int(os.environ.get('BENCH_CALLS', '200')),
                        help='calls per timing (default $BENCH_CALLS or 200)')
    calls = parser.parse_args().calls
    compare_with_pinocchio(calls)
    scaling(max(calls // 4, 10))
    return 0


if __name__ == '__main__':
    from results_file import record
    sys.exit(record('bench_core', 'Core algorithms against Pinocchio (make bench)',
                    main))
