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
How a node process ends: a second SIGINT during exit must not kill it.

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

from ros_harness import node_environment, reserve_domain_id

DOMAIN_ID = reserve_domain_id(__name__)

# A node that asks to stop as soon as it exists (the signal is handled by
# run()'s handler, installed before the node is created), then reports
# run()'s status and the signal dispositions left for finalization.
STOPPING_AT_ONCE = """
import os
import signal
from rclpy.node import Node
from dynamics_ros.nodes.entry_point import run

class StopAtOnce(Node):
    def __init__(self):
        super().__init__('stop_at_once')
        os.kill(os.getpid(), signal.SIGINT)

status = run(StopAtOnce)
print('status', status)
print('ignored', signal.getsignal(signal.SIGINT) is signal.SIG_IGN,
      signal.getsignal(signal.SIGTERM) is signal.SIG_IGN)
# Signalled again on the way out: ignored, the exit status stays 0.
os.kill(os.getpid(), signal.SIGINT)
os.kill(os.getpid(), signal.SIGTERM)
"""


def test_after_an_orderly_stop_further_signals_are_ignored():
    done = subprocess.run(
        [sys.executable, '-c', STOPPING_AT_ONCE], capture_output=True,
        text=True, timeout=120, env=node_environment(DOMAIN_ID))
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    assert 'status 0' in done.stdout, done.stdout
    # Without the fix the handlers left are run()'s own (False False), and
    # finalization would reset them to "die of the signal".
    assert 'ignored True True' in done.stdout, done.stdout
