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
The kernel-load warning says what the load did, from numba's own counters.

A node loads the cached kernels at start (nodes/shared/entry_point.py); a slow load
is either a compile (numba's cache did not hold the kernels) or a wait for
a busy machine (kernels from the cache, little CPU). These drive
SlowLoadWarning with kernel modules whose numba cache counters are known
and a CPU clock the test sets; test_first_start.py sees the compile case in
a real node.
"""

import sys
import types

from dynamics_ros import fast
from dynamics_ros.nodes.shared import entry_point
import pytest


class Logger:
    """Keeps the warnings."""

    def __init__(self):
        self.lines = []

    def warning(self, text):
        self.lines.append(text)


def dispatcher(hits, misses):
    """Return a stand-in with numba's ``stats`` counters."""
    return types.SimpleNamespace(stats=types.SimpleNamespace(
        cache_hits={'sig%d' % i: 1 for i in range(hits)},
        cache_misses={'sig%d' % i: 1 for i in range(misses)}))


@pytest.fixture
def kernel_module(monkeypatch):
    """Install a kernel module named 'demo' with the given counters."""
    def install(hits, misses):
        entry = types.SimpleNamespace(single=dispatcher(hits, 0),
                                      batch=dispatcher(0, misses))
        module = types.ModuleType(fast.__name__ + '.demo')
        module.quantity = entry
        module.same_kernel = entry.single   # counted once
        monkeypatch.setitem(sys.modules, module.__name__, module)
    return install


def cpu_clock(*readings):
    """Return a CPU clock reading ``readings`` in turn."""
    values = iter(readings)
    return lambda: next(values)


def test_a_compiled_module_is_said_to_be_compiled(kernel_module):
    kernel_module(hits=1, misses=1)
    logger = Logger()
    warn = entry_point.SlowLoadWarning(logger, cpu_clock(10.0, 16.5, 16.5))
    warn('demo', 6.2)
    assert len(logger.lines) == 1
    assert logger.lines[0].startswith(
        "kernel module 'demo' took 6 s to load: it was compiled (numba's "
        'cache did not hold 1 of its 2 kernels; 6.5 s of CPU)')


def test_a_compile_is_said_even_when_it_was_quick(kernel_module):
    kernel_module(hits=0, misses=2)
    logger = Logger()
    entry_point.SlowLoadWarning(logger, cpu_clock(0.0, 1.0, 1.0))('demo', 1.1)
    assert 'it was compiled' in logger.lines[0]
    assert 'did not hold 2 of its 2 kernels' in logger.lines[0]


def test_a_slow_load_from_the_cache_is_said_to_wait(kernel_module):
    # The case the old 5 s timer called a compile.
    kernel_module(hits=2, misses=0)
    logger = Logger()
    warn = entry_point.SlowLoadWarning(logger, cpu_clock(3.0, 3.4, 3.4))
    warn('demo', 6.0)
    assert logger.lines == [
        "kernel module 'demo' took 6 s to load: its 2 kernels came from "
        "numba's cache, nothing was compiled; the load used 0.4 s of CPU, "
        'the rest was waiting for a busy machine']


def test_a_quick_load_from_the_cache_says_nothing(kernel_module):
    kernel_module(hits=2, misses=0)
    logger = Logger()
    entry_point.SlowLoadWarning(logger, cpu_clock(0.0, 0.1, 0.1))('demo', 0.1)
    assert logger.lines == []


def test_real_cached_kernels_count_as_hits():
    # This environment's filled cache (make test fills it first): every
    # kernel of a module is a hit, none a miss.
    from dynamics_ros.fast import compiler
    if not (fast.ENABLED and compiler.kernels_cached()):
        pytest.skip('the kernel cache is not filled here')
    fast.__getattr__('crba')
    hits, misses = entry_point.kernel_cache_counts('crba')
    assert (hits, misses) == (2, 0)
