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
Run a node class as a console script: ``main = entry_point(MyNode)``.

Spins the node until SIGINT / SIGTERM (Ctrl-C, launch) and returns 0; a
node that cannot start (bad parameters: ``ModelError``/``ValueError`` from
its constructor) is reported on stderr and exits with status 1 instead of a
traceback; the reason is cut to ``MAX_REASON_CHARS`` (it may quote a
parameter value).

Before the node is created, the cached kernels are loaded
(``fast.load_kernels``): no first message waits 1-3 s for them while the
node's clock stands still.

``--help`` (or ``-h``, also after ``--ros-args``) prints the usage and the
node's parameter tables and exits 0 before rclpy starts (``node_help``).

Shutdown is orderly: rclpy's own signal handling is off, the executor
(rclpy's events executor) spins in a worker thread with a short timeout,
and the main thread waits for the signal, then stops the executor,
destroys the node (which stops any thread of its own, e.g. a
``DedicatedSubscription``) and only then shuts rclpy down.  So no
KeyboardInterrupt lands inside a callback and no context is shut down
under a thread still waiting on it.  Once rclpy is down, further
SIGINT / SIGTERM (a second Ctrl-C, a launch escalating) are ignored: the
interpreter's finalization resets Python-handled signals to their default
action, and a signal then would kill a node that already stopped cleanly
(exit status -2 instead of 0).  SIGKILL still ends it.
"""

import gc
import signal
import sys
import threading
import time
import traceback

import rclpy
from rclpy.exceptions import ParameterException
from rclpy.executors import ExternalShutdownException
from rclpy.experimental import EventsExecutor
from rclpy.logging import get_logger
from rclpy.signals import SignalHandlerOptions

from .node_help import help_requested, print_help
from ... import fast
from ...errors import ModelError
from ...fast.compiler import cached_modules, FIRST_START_SECONDS
from ...reasons import cut, LOG_CHARS


# A kernel module loads from the cache in well under a second; one that
# takes this long is worth a line, which says what it was waiting for.
SLOW_LOAD_SECONDS = 5.0


def kernel_cache_counts(name):
    """
    Return (hits, misses) of numba's disk cache for kernel module ``name``.

    Numba counts, per dispatcher, each signature it loaded from the cache
    (``stats.cache_hits``) or compiled because the cache did not hold it
    (``stats.cache_misses``). The kernels are the module's dispatchers and
    those of its compiled quantities (``single``, ``batch``).
    """
    module = sys.modules.get('%s.%s' % (fast.__name__, name))
    found = []
    for value in vars(module).values() if module else ():
        for candidate in (value, getattr(value, 'single', None),
                          getattr(value, 'batch', None)):
            if hasattr(getattr(candidate, 'stats', None), 'cache_misses') \
                    and all(candidate is not seen for seen in found):
                found.append(candidate)
    return (sum(sum(d.stats.cache_hits.values()) for d in found),
            sum(sum(d.stats.cache_misses.values()) for d in found))


class SlowLoadWarning:
    """
    Say, while kernels load at start, what a slow or compiling load was.

    Measured, not guessed from its duration: numba's cache counters say
    whether the module's kernels were compiled, and the process' CPU time
    against the wall time whether the load waited for a busy machine.
    """

    def __init__(self, logger, cpu_clock=time.process_time):
        """Warn through ``logger``; CPU time from ``cpu_clock``."""
        self.logger = logger
        self.warned = False
        self.cpu_clock = cpu_clock
        self.cpu = cpu_clock()

    def __call__(self, name, seconds):
        """Warn once: on a compiled module, or one slower than the limit."""
        cpu, self.cpu = self.cpu_clock() - self.cpu, self.cpu_clock()
        hits, misses = kernel_cache_counts(name)
        if self.warned or not (misses or seconds >= SLOW_LOAD_SECONDS):
            return
        self.warned = True
        if misses:
            self.logger.warning(
                'kernel module %r took %.0f s to load: it was compiled '
                "(numba's cache did not hold %d of its %d kernels; %.1f s of "
                'CPU) although the cache was marked ready (files touched '
                'since "python -m dynamics_ros.fast"? run it again); the '
                'other kernels follow before the node starts' % (
                    name, seconds, misses, hits + misses, cpu))
        else:
            self.logger.warning(
                'kernel module %r took %.0f s to load: its %d kernels came '
                "from numba's cache, nothing was compiled; the load used "
                '%.1f s of CPU, the rest was waiting for a busy machine' % (
                    name, seconds, hits, cpu))


def spin_until(executor, stop, failure):
    """Spin ``executor`` until ``stop`` is set; keep a callback's error."""
    try:
        while not stop.is_set():
            executor.spin_once(timeout_sec=0.1)
    except ExternalShutdownException:
        pass
    except Exception:  # noqa: B902 (a callback bug: report and stop)
        failure.append(traceback.format_exc())
    finally:
        stop.set()


def run(node_class, args=None):
    """Create ``node_class()`` and spin it; return the exit status."""
    if help_requested(sys.argv[1:] if args is None else args):
        return print_help(node_class)   # before rclpy: no ROS graph
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    stop = threading.Event()

    def on_signal(*_):
        # The first signal stops the node; later ones are ignored.  A second
        # signal handled while this one is inside stop.set() would run this
        # again on the same thread and deadlock on the Event's lock (seen:
        # SIGINT twice, payload_estimation_node hung until SIGABRT).
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, signal.SIG_IGN)
        stop.set()

    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, on_signal)
    node = None
    failure = []
    if fast.ENABLED and not cached_modules():
        # numba compiles each kernel on first use: say why nothing happens.
        get_logger(node_class.__name__).info(
            'compiling kernels (first start, about %d s, less for the '
            'kernels already cached; "python -m dynamics_ros.fast" compiles '
            'them all ahead of time, as make venv does)' % FIRST_START_SECONDS)
    # Loaded before the node exists: its first message is answered as fast
    # as the next (fast.load_kernels says what a lazy load cost).
    fast.load_kernels(SlowLoadWarning(get_logger(node_class.__name__)))
    try:
        node = node_class()
    # ParameterException: a value of the wrong type on the command line or in
    # a parameter file, e.g. [0, 0] (integers) where doubles are declared.
    except (ModelError, ValueError, ParameterException) as error:
        failure.append('[%s] cannot start: %s\n' % (
            node_class.__name__, cut(error, LOG_CHARS)))
    if node is not None:
        # What exists now (modules, numba's kernels, the model) lives as
        # long as the process: out of the cyclic collector's reach.  Else
        # each full collection walks those millions of objects again, in
        # the middle of a callback.
        gc.freeze()
        # rclpy's events executor (its event loop is C++): a node on
        # use_sim_time wakes for every /clock, and the stock executor's
        # Python wait set cost about twice the CPU per wake-up.
        executor = EventsExecutor()
        executor.add_node(node)
        spinner = threading.Thread(target=spin_until,
                                   args=(executor, stop, failure))
        spinner.start()
        while not stop.wait(0.5):  # short waits: signals get handled
            continue
        spinner.join()
        node.destroy_node()
        executor.shutdown()
    rclpy.try_shutdown()
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_IGN)   # finalization (docstring)
    for text in failure:
        sys.stderr.write(text)
    return 1 if failure else 0


def entry_point(node_class):
    """Return a ``main(args=None)`` that runs ``node_class``."""
    def main(args=None):
        return run(node_class, args)
    main.__doc__ = 'Run %s until shutdown.' % node_class.__name__
    return main
