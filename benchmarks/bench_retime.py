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
Time the retiming of 10-waypoint Panda paths under effort limits.

Five seeded paths of 10 waypoints (inside 20 % of each joint's half range
around mid-range; acceleration limits three times Franka's datasheet, so
that efforts bind), each retimed ``--repeats`` times by
``dynamics_ros.control.retime.retime`` (toppra with our batched torque
coefficients, the output checked at 1 kHz): the median CPU time of this
process (time.process_time, as compare.py) of a whole retiming (goal:
under 50 ms) and its median wall time, the solves it needed, and where the
CPU time of one retiming goes (toppra's solves, our inverse dynamics of
the grid, the 1 kHz checks of the output).  No ROS.

    .venv/bin/python benchmarks/bench_retime.py [--repeats 15]
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'test'))

import dynamics_ros as dr  # noqa: E402
from dynamics_ros.control import retime as retiming  # noqa: E402
from dynamics_ros.control.feasibility import limits_in_use  # noqa: E402
import numpy as np  # noqa: E402
from oracle import example_arm_xml  # noqa: E402

GOAL = 0.050
SEEDS = (1, 2, 3, 4, 5)
ACCELERATION = 3.0 * np.array([15, 7.5, 10, 12.5, 15, 20, 20.0])


def waypoints(model, seed, k=10, spread=0.2):
    """Return k waypoints within ``spread`` of each half range."""
    rng = np.random.default_rng(seed)
    middle = 0.5 * (model.lower_limit + model.upper_limit)
    half = 0.5 * (model.upper_limit - model.lower_limit)
    return middle + spread * half * rng.uniform(-1.0, 1.0, (k, model.nq))


class Stopwatch:
    """Accumulate the CPU time spent in wrapped functions of a module."""

    def __init__(self, names):
        self.totals = dict.fromkeys(names, 0.0)
        self.originals = {}

    def wrap(self, module, name):
        """Time ``module.name`` from now on."""
        original = getattr(module, name)
        self.originals[(module, name)] = original

        def timed(*args, **kwargs):
            start = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                self.totals[name] += time.process_time() - start
        setattr(module, name, timed)

    def restore(self):
        """Put the original functions back."""
        for (module, name), original in self.originals.items():
            setattr(module, name, original)


def main():
    """Parse the options, time the retimings, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--repeats', type=int, default=15,
                        help='retimings per path (default 15)')
    args = parser.parse_args()
    load = os.getloadavg()[0]
    model = dr.load_urdf(example_arm_xml('panda'))
    limits = limits_in_use(model, acceleration_limits=ACCELERATION)
    print('Panda, 10 waypoints, effort limits of the URDF, velocity limits '
          'of the URDF, acceleration limits 3x datasheet; %d retimings per '
          'path' % args.repeats)
    print('| seed | duration [s] | points | solves | CPU median [ms] | '
          'wall median [ms] | toppra [ms] | grid ID [ms] | '
          '1 kHz checks [ms] |')
    print('|---|---|---|---|---|---|---|---|---|')
    medians = []
    for seed in SEEDS:
        path = waypoints(model, seed)
        result = retiming.retime(model, path, limits)   # warm up
        times, walls = [], []
        for _ in range(args.repeats):
            start, wall = time.process_time(), time.perf_counter()
            retiming.retime(model, path, limits)
            times.append(time.process_time() - start)
            walls.append(time.perf_counter() - wall)
        watch = Stopwatch(['solve', 'PathDynamics', 'evaluate'])
        watch.wrap(retiming, 'solve')
        watch.wrap(retiming, 'PathDynamics')
        watch.wrap(retiming, 'evaluate')
        try:
            retiming.retime(model, path, limits)
        finally:
            watch.restore()
        medians.append(float(np.median(times)))
        print('| %d | %.3f | %d | %d | %.1f | %.1f | %.1f | %.1f | %.1f |' % (
            seed, result.duration, len(result.times), result.rounds,
            1e3 * medians[-1], 1e3 * float(np.median(walls)),
            1e3 * watch.totals['solve'], 1e3 * watch.totals['PathDynamics'],
            1e3 * watch.totals['evaluate']))
    worst = max(medians)
    print('\ngoal: a 10-waypoint Panda path retimed in under %.0f ms: '
          'slowest median %.1f ms CPU: %s' % (
              1e3 * GOAL, 1e3 * worst, 'met' if worst < GOAL else
              '**not met**'))
    print('load average before / after: %.2f / %.2f (2 cores shared: wall '
          'times are noisy, CPU times less so)' % (load, os.getloadavg()[0]))
    return 0


if __name__ == '__main__':
    from results_file import record
    sys.exit(record('bench_retime', 'Retiming under effort limits (Panda, '
                    '10 waypoints)', main))
