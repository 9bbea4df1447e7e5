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
How a node process starts and ends.

Start: the cached kernels are loaded before the node exists.  A kernel
module otherwise loads on first use; in the launch of simulation.launch.py
linearization_node's first state loaded three of them, its executor stood
still for 2.7 s with its simulated clock, and every fresh state meanwhile
was refused as "ahead of the node clock".

End: a second SIGINT during exit must not kill the process.

Between the two: what exists once the node is made is frozen out of the
cyclic collector (a
full collection walks the 150 000 objects of a node with its kernels
loaded in about 80 ms: a stall of 80 steps at 1 kHz).

``entry_point.run`` stops on the first SIGINT/SIGTERM and shuts down in
order.  The interpreter's finalization that follows resets every signal
Python handles to the default action, so a second signal then (a second
Ctrl-C; a test or launch signalling again while the process still exits)
killed a node that had stopped cleanly: CI saw ``linearization_node`` end
with status -2 after such a pair of SIGINTs.  After the shutdown both
signals are ignored; SIGKILL still ends the process.
"""

import subprocess
import sys

from dynamics_ros import fast
import pytest
from ros_harness import node_environment, reserve_domain_id

DOMAIN_ID = reserve_domain_id(__name__)

# A node that asks to stop as soon as it exists (the signal is handled by
# run()'s handler, installed before the node is created), then reports
# run()'s status and the signal dispositions left for finalization.
STOPPING_AT_ONCE = """
import gc
import os
import signal
import sys
from rclpy.node import Node
from dynamics_ros import fast
from dynamics_ros.fast.compiler import kernels_cached
from dynamics_ros.nodes.shared.entry_point import run

class StopAtOnce(Node):
    def __init__(self):
        super().__init__('stop_at_once')
        global made
        made = len(gc.get_objects())
        names = fast.KERNEL_MODULES + fast.DERIVATIVE_MODULES
        print('cached', fast.ENABLED and kernels_cached())
        print('loaded before the node', sorted(
            n for n in names if 'dynamics_ros.fast.' + n in sys.modules))
        os.kill(os.getpid(), signal.SIGINT)

status = run(StopAtOnce)
print('status', status)
# Frozen: what existed when the node was made, less the node and what
# went with it (0 without the freeze).
print('frozen', gc.get_freeze_count() >= 0.9 * made)
print('ignored', signal.getsignal(signal.SIGINT) is signal.SIG_IGN,
      signal.getsignal(signal.SIGTERM) is signal.SIG_IGN)
# Signalled again on the way out: ignored, the exit status stays 0.
os.kill(os.getpid(), signal.SIGINT)
os.kill(os.getpid(), signal.SIGTERM)
"""


@pytest.fixture(scope='module')
def done():
    """Run the node that stops at once, in a process of its own."""
    return subprocess.run(
        [sys.executable, '-c', STOPPING_AT_ONCE], capture_output=True,
        text=True, timeout=300, env=node_environment(DOMAIN_ID))


def test_the_cached_kernels_are_loaded_before_the_node(done):
    if 'cached True' not in done.stdout:
        pytest.skip('kernels not cached here: a first start compiles each '
                    'on first use, by design (%s)' % done.stdout[:200])
    every = sorted(fast.KERNEL_MODULES + fast.DERIVATIVE_MODULES)
    assert 'loaded before the node %r' % every in done.stdout, done.stdout


def test_after_an_orderly_stop_further_signals_are_ignored(done):
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    assert 'status 0' in done.stdout, done.stdout
    # Without the fix the handlers left are run()'s own (False False), and
    # finalization would reset them to "die of the signal".
    assert 'ignored True True' in done.stdout, done.stdout


def test_what_the_node_holds_is_frozen_out_of_the_collector(done):
    assert 'frozen True' in done.stdout, done.stdout


def test_every_console_script_runs_the_module_nodes_names():
    """setup.py's console scripts and nodes.NODE_MODULES say the same."""
    from importlib.metadata import distribution
    from dynamics_ros.nodes import NODE_MODULES
    scripts = {entry.name: entry.value.split(':')[0]
               for entry in distribution('dynamics_ros').entry_points
               if entry.group == 'console_scripts'}
    assert scripts == NODE_MODULES
