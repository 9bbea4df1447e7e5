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
Time the momentum observer per joint_states message, beside Pinocchio.

One observer update (dynamics_ros.estimation.MomentumObserver: M by CRBA,
h by RNEA, the Tustin step) per message of a stream of states, next to
what the same update costs in Pinocchio's two calls, crba (M) and
nonLinearEffects (h), timed in the same run and printed as ratios.  Also
the wrench at the tool (Jacobian and damped least squares) next to
Pinocchio's computeFrameJacobian, and the Coriolis matrix both ways (what
the observer would need per message for C^T qd, and does not).  Panda
(7 joints), UR5 (6) and the Panda with its hand (8 independent joints,
mimic fingers).  No ROS: nothing to set a domain for.

    .venv/bin/python benchmarks/bench_observer.py [--calls N]
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'test'))

import dynamics_ros as dr  # noqa: E402
from dynamics_ros.estimation.momentum_observer import (  # noqa: E402
    MomentumObserver)
from dynamics_ros.estimation.wrench import external_wrench  # noqa: E402
import numpy as np  # noqa: E402
from oracle import (example_arm_xml, PinocchioOracle,  # noqa: E402
                    robots_directory)
import pinocchio as pin  # noqa: E402
from timing import per_call  # noqa: E402

ARMS = [
    # (name, URDF text, tool link)
    ('Panda', lambda: example_arm_xml('panda'), 'panda_hand'),
    ('UR5', lambda: example_arm_xml('ur5'), 'tool0'),
    ('Panda + hand', lambda: open(os.path.join(
        robots_directory(), 'panda_description', 'urdf', 'panda.urdf'),
        encoding='utf-8').read(), 'panda_hand'),
]


class Stream:
    """A stream of joint states along a sinusoid, one per call."""

    def __init__(self, model, count=1000, dt=1e-3):
        rng = np.random.default_rng(0)
        phase = rng.uniform(0, 2 * np.pi, model.nq)
        center = np.clip(np.zeros(model.nq), model.lower_limit + 0.3,
                         model.upper_limit - 0.3)
        t = np.arange(count) * dt
        self.q = center + 0.3 * np.sin(2 * t[:, None] + phase)
        self.qd = 0.6 * np.cos(2 * t[:, None] + phase)
        self.tau = rng.uniform(-5, 5, (count, model.nq))
        self.dt, self.count, self.k, self.t = dt, count, 0, 0.0

    def next(self):
        """Return the following sample t, q, qd, tau (t always advances)."""
        k = self.k % self.count
        self.k += 1
        self.t += self.dt
        return self.t, self.q[k], self.qd[k], self.tau[k]


def pinocchio_for(model, xml):
    """Return (pin model, data, q map) of the model's joints."""
    if isinstance(model, dr.MimicModel):
        oracle = PinocchioOracle(model, xml, mimic=True)
    else:
        oracle = PinocchioOracle(model, xml)
    return oracle


def time_arm(name, xml, link, calls):
    """Print one arm's rows: ours, Pinocchio's, ratio."""
    model = dr.load_urdf(xml)
    oracle = pinocchio_for(model, xml)
    pm, data = oracle.pin_model, oracle.data
    stream = Stream(model)
    observer = MomentumObserver(model)
    t, q, qd, tau = stream.next()
    pq, pv = oracle.q(q), oracle.v(qd)
    frame = pm.getFrameId(link)
    torques = np.ones(model.nq)

    def update():
        observer.update(*stream.next())

    rows = [
        ('observer update', per_call(update, calls),
         'crba + nonLinearEffects', per_call(
             lambda: (pin.crba(pm, data, pq), pin.nonLinearEffects(
                 pm, data, pq, pv)), calls * 10)),
        ('  of which M', per_call(lambda: dr.mass_matrix(model, q), calls),
         'crba', per_call(lambda: pin.crba(pm, data, pq), calls * 10)),
        ('  of which h', per_call(lambda: dr.bias_forces(model, q, qd),
                                  calls),
         'nonLinearEffects', per_call(
             lambda: pin.nonLinearEffects(pm, data, pq, pv), calls * 10)),
        ('wrench at the tool', per_call(
            lambda: external_wrench(model, q, torques, link), calls),
         'computeFrameJacobian', per_call(
             lambda: pin.computeFrameJacobian(pm, data, pq, frame,
                                              pin.LOCAL), calls * 10)),
        ('coriolis_matrix', per_call(
            lambda: dr.coriolis_matrix(model, q, qd), max(calls // 10, 5)),
         'computeCoriolisMatrix', per_call(
             lambda: pin.computeCoriolisMatrix(pm, data, pq, pv),
             calls * 10)),
    ]
    print('\n%s (%d joints%s), per message / call, median of 5 runs' % (
        name, model.nq, ', mimic fingers: Pinocchio mimic=True'
        if isinstance(model, dr.MimicModel) else ''))
    print('%-20s %11s   %-24s %11s %8s' % (
        'dynamics_ros', 'time [us]', 'pinocchio', 'time [us]', 'ratio'))
    for ours, ours_time, theirs, their_time in rows:
        print('%-20s %11.2f   %-24s %11.3f %7.1fx' % (
            ours, ours_time * 1e6, theirs, their_time * 1e6,
            ours_time / their_time))
    return rows


def main():
    """Time every arm."""
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        epilog='Prints, per arm, our time per message and call next to '
        "Pinocchio's, and the ratio.")
    parser.add_argument('--calls', type=int,
                        default=int(os.environ.get('BENCH_CALLS', '500')),
                        help='calls per timing (default $BENCH_CALLS or 500)')
    calls = parser.parse_args().calls
    print('momentum observer per joint_states message vs Pinocchio '
          '(pin %s), %d calls per timing' % (pin.__version__, calls))
    for name, xml, link in ARMS:
        time_arm(name, xml(), link, calls)
    print('\n(the observer needs M and h per message; C^T qd comes from '
          'them, M dot qd - C qd, not from the Coriolis matrix)')
    return 0


if __name__ == '__main__':
    from results_file import record
    sys.exit(record('bench_observer', 'External-torque observer: update cost per message',
                    main))
