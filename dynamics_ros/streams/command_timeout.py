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
When a held command has gone stale.

A forward command (an effort, a velocity) acts until the next one; if its
sender dies, the last value acts forever - a held torque swung a
simulated arm 4.11 rad.  joint_trajectory_controller's ``cmd_timeout``
answers this in ros2_control: a command older than the timeout is
replaced by a hold.  ``CommandTimeout`` is that clock: ``received(t)`` on
every command, ``expired(t)`` each control step returns True once, at the
step the timeout strikes; the caller then falls back to its hold.  Times
are the caller's clock (the simulator's simulated time, as the
controller manager counts ``cmd_timeout`` in sim time under Gazebo).
Timeout 0 turns it off.
"""

import math

# Default timeout, s: JTC users set cmd_timeout of this order; a command
# stream at 10 Hz or faster never trips it.
DEFAULT_COMMAND_TIMEOUT = 0.5
# Longest timeout accepted, s.
MAX_COMMAND_TIMEOUT = 3600.0


def check_command_timeout(value):
    """Return a reason unless ``value`` is 0 (off) or a time in (0, 3600] s."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) \
            or not 0.0 <= value <= MAX_COMMAND_TIMEOUT:
        return 'command_timeout must be a number of s from 0 (no timeout) ' \
            'to %g, got %r' % (MAX_COMMAND_TIMEOUT, value)
    return None


class CommandTimeout:
    """
    The deadline of the command in force.

    ``timeout``: s, 0 = never.  ``deadline`` is None while no command is
    timed (none yet, a command that needs no timeout, or it struck).
    """

    def __init__(self, timeout=DEFAULT_COMMAND_TIMEOUT):
        self.timeout = float(timeout)
        self.deadline = None

    def received(self, t):
        """Time a command that goes stale, received at time ``t``."""
        self.deadline = t + self.timeout if self.timeout > 0.0 else None

    def cancel(self):
        """Stop timing: the command in force needs none (a hold)."""
        self.deadline = None

    def expired(self, t):
        """Return True once, at the first ``t`` past the deadline."""
        deadline = self.deadline
        if deadline is None or t < deadline:
            return False
        self.deadline = None
        return True
