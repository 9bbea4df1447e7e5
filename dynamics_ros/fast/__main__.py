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
Compile every kernel now, filling numba's disk cache: python -m dynamics_ros.fast.

Run it once after installing (or in a container build) so that the first
dynamics call of a node loads machine code in milliseconds instead of
compiling for seconds.  The kernel modules compile side by side in
``--jobs`` processes (default: one per CPU), the longest first: numba
compiles in one thread, so on two cores this halves the wait.
"""

import argparse
from concurrent.futures import as_completed, ProcessPoolExecutor
import multiprocessing
import os
import sys
import time

from . import AVAILABLE, DERIVATIVE_MODULES, KERNEL_MODULES
from .compiler import compile_module, kernels_cached, ready_marker

# Every kernel module, the longest to compile first (seconds on one core of
# the reference machine, benchmarks/results.md "Quick start"), so that two
# processes end together: sim_step (the simulator's compiled integration
# step, ~48 s), then linearize, aba, rnea_derivatives, coriolis, ... A
# module compiles the helpers it calls from the others itself when they
# are not cached yet, so the order changes the wait, never the result.
ORDER = ('sim_step', 'linearize', 'aba', 'rnea_derivatives', 'coriolis',
         'aba_derivatives', 'motor_step', 'crba', 'rnea', 'computed_torque',
         'bias', 'regressor')


def arguments(argv):
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog='python -m dynamics_ros.fast',
        description="Compile every dynamics_ros kernel into numba's disk "
        'cache (a no-op when the cache already holds them).')
    parser.add_argument(
        '--jobs', type=int, default=os.cpu_count() or 1,
        help='processes compiling side by side (default: one per CPU, %(default)s)')
    args = parser.parse_args(argv)
    if not 1 <= args.jobs <= 64:
        parser.error('--jobs must be from 1 to 64 (got %d)' % args.jobs)
    return args


def main(argv=None):
    """Compile (or load) each kernel module and say how long it took."""
    args = arguments(argv)
    if not AVAILABLE:
        print('numba is not installed: dynamics_ros uses its numpy '
              'reference path, nothing to compile')
        return 0
    if kernels_cached():
        print('every kernel is compiled and cached (%s)' % ready_marker())
        return 0
    assert sorted(ORDER) == sorted(set(
        KERNEL_MODULES + DERIVATIVE_MODULES) | {'sim_step', 'motor_step'})
    total = time.perf_counter()
    print('compiling the kernels of %d modules in %d process(es): the '
          'first time only, a few minutes' % (len(ORDER), args.jobs),
          flush=True)
    if args.jobs == 1:
        for name in ORDER:
            print('%-16s kernels ready in %.2f s' % (
                name, compile_module(name)), flush=True)
    else:
        # Fresh interpreters (spawn): a forked copy of this one would share
        # numba's state with its parent.
        with ProcessPoolExecutor(args.jobs, multiprocessing.get_context(
                'spawn')) as pool:
            futures = {pool.submit(compile_module, name): name
                       for name in ORDER}
            for future in as_completed(futures):
                print('%-16s kernels ready in %.2f s' % (
                    futures[future], future.result()), flush=True)
    print('all ready in %.2f s' % (time.perf_counter() - total))
    marker = ready_marker()
    try:
        os.makedirs(os.path.dirname(marker), exist_ok=True)
        with open(marker, 'w', encoding='utf-8') as stream:
            stream.write('every kernel compiled and cached\n')
    except OSError as error:   # a read-only install: nodes will say so
        print('cannot write %s: %s' % (marker, error))
    return 0


if __name__ == '__main__':
    sys.exit(main())
