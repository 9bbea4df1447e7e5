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
What lockstep costs: the Panda under computed torque at 1 kHz control.

simulator_node (RK4 at 1 kHz, joint_states every step) and
inverse_dynamics_node (computed_torque, holding the start pose) run as
processes over DDS, as fast as they can (``real_time_factor: 0``), twice
in the same run:

1. free-running: the controller's ``effort_commands`` go to the
   simulator's ``effort_controller/commands``, and the simulator steps on
   whether or not an answer came;
2. lockstep: the simulator waits after every state for the controller's
   stamped ``feedforward`` and applies it (doc/theory/lockstep.md).

Each run's real-time factor is the one simulator_node logs when stopped
(simulated seconds per wall second from its first step); the wall time per
step is its inverse at 1000 steps per simulated second.  Goal: lockstep at
most 2x the free-running wall time per step.

Run: ``.venv/bin/python benchmarks/bench_lockstep.py [seconds] [--rounds
N]``.  DDS stays on loopback in domains no other run on this machine
holds.
"""

import argparse
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'test'))

from oracle import example_arm_xml  # noqa: E402
from ros_harness import NodeProcess, reserve_domain_id  # noqa: E402

RATE = 1000.0
GOAL = 2.0


def logged_factor(output):
    """Return the real-time factor a stopped simulator_node logged."""
    lines = [line for line in output.splitlines()
             if 'real-time factor' in line]
    if not lines:
        raise RuntimeError('simulator_node logged no real-time factor:\n'
                           + output[-2000:])
    return float(lines[-1].rsplit(' ', 1)[1])


def run(xml, seconds, lockstep):
    """Run the pair for ``seconds`` of wall time; return the factor."""
    domain_id = reserve_domain_id('bench_lockstep')
    simulator = {'robot_description': xml, 'rate': RATE,
                 'publish_rate': 0.0, 'real_time_factor': 0.0}
    controller = {'robot_description': xml, 'mode': 'computed_torque',
                  'use_sim_time': True}
    remaps = None
    if lockstep:
        simulator.update(lockstep=True, lockstep_peers=['feedforward'],
                         lockstep_effort_peer='feedforward')
        controller.update(lockstep=True)
    else:
        remaps = {'effort_commands': 'effort_controller/commands'}
    nodes = [NodeProcess('simulator_node', domain_id, simulator),
             NodeProcess('inverse_dynamics_node', domain_id, controller,
                         remaps=remaps)]
    try:
        # Both started and the controller answering: the simulator's first
        # step is where its logged factor counts from.
        for node in nodes:
            node.wait_for_output('loaded model')
        time.sleep(seconds)
        nodes[0].process.send_signal(signal.SIGINT)
        nodes[0].process.wait(30.0)
        return logged_factor(nodes[0].output())
    finally:
        for node in nodes:
            node.stop()


def main():
    """Measure both runs, ``--rounds`` times, alternating; print ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('seconds', type=float, nargs='?', default=10.0,
                        help='wall time of each run, s')
    parser.add_argument('--rounds', type=int, default=2)
    args = parser.parse_args()
    xml = example_arm_xml('panda')
    print('Panda (7 joints), computed torque at %g Hz, real_time_factor 0, '
          '%g s a run' % (RATE, args.seconds), flush=True)
    factors = {False: [], True: []}
    for k in range(args.rounds):
        for lockstep in (False, True):
            factor = run(xml, args.seconds, lockstep)
            factors[lockstep].append(factor)
            print('  round %d %-12s real-time factor %6.3f  (%6.1f us of '
                  'wall time per step)' % (
                      k + 1, 'lockstep' if lockstep else 'free-running',
                      factor, 1e6 / (factor * RATE)), flush=True)
    free = sum(factors[False]) / len(factors[False])
    lock = sum(factors[True]) / len(factors[True])
    print('mean: free-running %.3f, lockstep %.3f simulated s per wall s; '
          'lockstep costs %.2fx the free-running wall time per step '
          '(goal <= %g)' % (free, lock, free / lock, GOAL))


if __name__ == '__main__':
    main()
