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
compiling for seconds.
"""

import os
import sys
import time

from . import AVAILABLE, DERIVATIVE_MODULES, KERNEL_MODULES
from .compiler import kernels_cached, ready_marker

# Compiled first: the modules whose helpers the others reuse.
FIRST = ('rnea', 'bias', 'crba', 'aba', 'rnea_derivatives')


def main():
    """Import (compile or load) each kernel module and say how long it took."""
    if not AVAILABLE:
        print('numba is not installed: dynamics_ros uses its numpy '
              'reference path, nothing to compile')
        return 0
    if kernels_cached():
        print('every kernel is compiled and cached (%s)' % ready_marker())
        return 0
    import importlib
    total = time.perf_counter()
    # Then every other kernel module; sim_step is the simulator's compiled
    # integration step, motor_step that of a motor-driven arm (it calls
    # sim_step's helpers).
    order = FIRST + tuple(sorted(
        set(KERNEL_MODULES + DERIVATIVE_MODULES) - set(FIRST))) + (
        'sim_step', 'motor_step')
    for name in order:
        start = time.perf_counter()
        importlib.import_module('dynamics_ros.fast.' + name)
        print('%-16s kernels ready in %.2f s' % (
            name, time.perf_counter() - start))
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
