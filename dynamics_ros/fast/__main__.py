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
Compile the kernels now, filling numba's disk cache: python -m dynamics_ros.fast.

Run it once after installing (or in a container build) so that the first
dynamics call of a node loads machine code in milliseconds instead of
compiling for seconds.  ``--first-use`` compiles what a user needs first
(the rigid chain's dynamics, linearization and simulator step: what
``make venv`` and ``colcon build`` compile); the motor plant's step and
identification's regressor then compile on their first use, saying so.
The kernel modules compile side by side in ``--jobs`` processes (default:
one per CPU), the longest first: numba compiles in one thread, so on two
cores this halves the wait.
"""

import argparse
from concurrent.futures import as_completed, ProcessPoolExecutor
import multiprocessing
import os
import sys
import time

from . import AVAILABLE, DERIVATIVE_MODULES, KERNEL_MODULES
from .compiler import (ALL_MODULES, cached_modules, compile_module,
                       FIRST_USE_MODULES, mark_cached, ready_marker)


def arguments(argv):
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog='python -m dynamics_ros.fast',
        description="Compile the dynamics_ros kernels into numba's disk "
        'cache (a no-op when the cache already holds them).')
    parser.add_argument(
        '--jobs', type=int, default=os.cpu_count() or 1,
        help='processes compiling side by side (default: one per CPU, %(default)s)')
    parser.add_argument(
        '--first-use', action='store_true',
        help='only the kernels a user needs first (%s); the others '
        'compile on first use' % ', '.join(FIRST_USE_MODULES))
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
    wanted = FIRST_USE_MODULES if args.first_use else ALL_MODULES
    cached = cached_modules()
    names = [name for name in wanted if name not in cached]
    if not names:
        print('the kernels are compiled and cached (%s)' % ready_marker())
        return 0
    assert sorted(ALL_MODULES) == sorted(set(
        KERNEL_MODULES + DERIVATIVE_MODULES) | {'sim_step', 'motor_step'})
    total = time.perf_counter()
    print('compiling the kernels of %d modules in %d process(es): once, '
          'a few minutes' % (len(names), min(args.jobs, len(names))),
          flush=True)
    if args.jobs == 1 or len(names) == 1:
        for name in names:
            print('%-16s kernels ready in %.2f s' % (
                name, compile_module(name)), flush=True)
    else:
        # Fresh interpreters (spawn): a forked copy of this one would share
        # numba's state with its parent.
        with ProcessPoolExecutor(args.jobs, multiprocessing.get_context(
                'spawn')) as pool:
            futures = {pool.submit(compile_module, name): name
                       for name in names}
            for future in as_completed(futures):
                print('%-16s kernels ready in %.2f s' % (
                    futures[future], future.result()), flush=True)
    print('all ready in %.2f s' % (time.perf_counter() - total))
    if not mark_cached(names):   # a read-only install: nodes will say so
        print('cannot write %s' % ready_marker())
    return 0


if __name__ == '__main__':
    sys.exit(main())
