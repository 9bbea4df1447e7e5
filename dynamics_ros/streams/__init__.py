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
Time-stamped input streams: freshness, clock jumps, merged joint states.

ROS-free (numpy only), so the nodes stay thin and every rule has a unit
test.  ``log_throttle``: warnings at most once per period per kind, the
repeats counted into the next line.  ``clock_jumps``: is a stamp fresh on
the node's clock, and did a time stream go back or leap ahead.
``joint_state_merger``: the latest value of each joint from several
``joint_states`` publishers, answered only when all are fresh.
``command_timeout``: when a held command has gone stale.
"""
