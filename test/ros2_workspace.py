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
The package built with colcon beside the real ros2 tools, as a user has it.

``build_workspace(folder)`` installs ``../shared/ros2-tools`` into this
venv (its ``install.sh``), builds dynamics_ros with ``colcon build
--symlink-install`` into ``folder`` and returns the bash line that sources
the venv, the tools and the workspace.  The ros2 tier
(test/ros2_tools) and benchmarks/bench_simulation_graph.py use it.
"""

import os
import shlex
import subprocess
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(os.path.dirname(REPO_ROOT), 'shared', 'ros2-tools')


def run(command, **kwargs):
    """Run ``command``; raise with its output if it fails."""
    result = subprocess.run(command, capture_output=True, text=True,
                            timeout=900, **kwargs)
    if result.returncode != 0:
        raise RuntimeError('%s failed:\n%s%s' % (
            ' '.join(command[:2]), result.stdout, result.stderr))


def build_workspace(folder):
    """Install the tools, build the package into ``folder``; return setup."""
    venv = sys.prefix
    run(['bash', os.path.join(TOOLS, 'install.sh'), venv])
    run([os.path.join(venv, 'bin', 'colcon'), 'build', '--base-paths',
         REPO_ROOT, '--packages-select', 'dynamics_ros', '--symlink-install',
         '--build-base', os.path.join(folder, 'build'), '--install-base',
         os.path.join(folder, 'install'), '--event-handlers',
         'console_direct-'], cwd=folder,
        env=dict(os.environ, COLCON_LOG_PATH=os.path.join(folder, 'log'),
                 DYNAMICS_ROS_COMPILE_KERNELS='0'))
    return ' && '.join('source %s' % shlex.quote(path) for path in (
        os.path.join(venv, 'bin', 'activate'),
        os.path.join(venv, 'share', 'ros2-tools', 'setup.sh'),
        os.path.join(folder, 'install', 'setup.bash')))
