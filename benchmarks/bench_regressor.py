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
Time the joint torque regressor against Pinocchio's, in one run.

Panda (7 DoF) and UR5: one state of ``dr.joint_torque_regressor`` (the
compiled kernel; ``--numpy`` for the reference path) against
``pinocchio.computeJointTorqueRegressor`` on the same URDF, and a batch of
1000 states against 1000 Pinocchio calls.  Prints times and ratios (no
ROS: nothing to set a domain for).  ``.venv/bin/python
benchmarks/bench_regressor.py [--calls N] [--numpy]``.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'test'))

import dynamics_ros as dr  # noqa: E402
import numpy as np  # noqa: E402
from oracle import example_arm_xml, oracle_for  # noqa: E402
import pinocchio as pin  # noqa: E402
from timing import per_call  # noqa: E402

BATCH = 1000


def compare(name, calls):
    """Print one robot's single-state and batch times and ratios."""
    model, oracle = oracle_for(example_arm_xml(name))
    rng = np.random.default_rng(0)
    q, qd, qdd = (rng.uniform(-1, 1, model.nq) for _ in range(3))
    pm, data = oracle.pin_model, oracle.data
    pq, pv, pa = oracle.q(q), oracle.v(qd), oracle.v(qdd)
    dr.joint_torque_regressor(model, q, qd, qdd)   # load the kernel
    ours = per_call(lambda: dr.joint_torque_regressor(model, q, qd, qdd),
                    calls)
    theirs = per_call(lambda: pin.computeJointTorqueRegressor(
        pm, data, pq, pv, pa), calls * 10)
    print('%-6s one state   %10.2f us   pinocchio %8.2f us   ratio %6.1fx'
          % (name, ours * 1e6, theirs * 1e6, ours / theirs))
    Q, QD, QDD = (rng.uniform(-1, 1, (BATCH, model.nq)) for _ in range(3))
    PQ = [oracle.q(row) for row in Q]
    PV = [oracle.v(row) for row in QD]
    PA = [oracle.v(row) for row in QDD]
    best_ours = best_theirs = np.inf
    for _ in range(5):
        start = time.perf_counter()
        dr.joint_torque_regressor(model, Q, QD, QDD)
        best_ours = min(best_ours, time.perf_counter() - start)
        start = time.perf_counter()
        for k in range(BATCH):
            pin.computeJointTorqueRegressor(pm, data, PQ[k], PV[k], PA[k])
        best_theirs = min(best_theirs, time.perf_counter() - start)
    print('%-6s batch of %d %8.2f us/state   pinocchio loop %8.2f us/state'
          '   ratio %6.1fx' % (name, BATCH, best_ours / BATCH * 1e6,
                               best_theirs / BATCH * 1e6,
                               best_ours / best_theirs))


def main():
    """Parse the options and run the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--calls', type=int, default=2000,
                        help='calls per timing run (default 2000)')
    parser.add_argument('--numpy', action='store_true',
                        help='time the numpy reference path instead')
    args = parser.parse_args()
    if args.numpy:
        dr.fast.enable(False)
        args.calls = max(args.calls // 100, 10)
    print('joint torque regressor, %s path'
          % ('numpy' if args.numpy else 'compiled'))
    for name in ('panda', 'ur5'):
        compare(name, args.calls)


if __name__ == '__main__':
    from results_file import record
    sys.exit(record('bench_regressor', 'Joint torque regressor against Pinocchio',
                    main))
