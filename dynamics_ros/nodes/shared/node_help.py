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
A node's ``--help``: usage and its parameter tables, without ROS.

``ros2 run dynamics_ros <node> --help`` (or ``-h``, or ``--help`` after
``--ros-args``, which rcl would refuse with UnknownROSArgsError) prints the
usage, the node's first docstring line and its parameters (the node's
table, then the model parameters every node shares: the tables of
doc/nodes/<node>.md) and exits 0 before rclpy is initialized: no context,
no ROS graph, no wait for ``robot_description``.
"""

import re
import sys

HELP_FLAGS = ('--help', '-h')


def help_requested(args):
    """Return True if the command line ``args`` asks for help."""
    return any(arg in HELP_FLAGS for arg in (args or ()))


def node_name(node_class):
    """Return the executable name of ``node_class``: inverse_dynamics_node."""
    return re.sub(r'(?<!^)(?=[A-Z])', '_', node_class.__name__).lower()


def help_text(node_class):
    """Return the usage and the parameter tables of ``node_class``."""
    from .parameter_reference import MODEL_TABLE, table, TABLES

    name = node_name(node_class)
    module = sys.modules.get(node_class.__module__)
    summary = ((module.__doc__ if module is not None else None) or
               node_class.__doc__ or '').strip().split('\n')[0]
    lines = ['usage: ros2 run dynamics_ros %s [--ros-args -p NAME:=VALUE '
             '... | --params-file FILE]' % name, '', summary, '',
             'Parameters (doc/nodes/%s.md):' % name, '']
    if name in TABLES:
        lines += [table(name).markdown(), '']
    lines += ['Model parameters (every node):', '',
              table(MODEL_TABLE).markdown()]
    return '\n'.join(lines) + '\n'


def print_help(node_class, stream=None):
    """Write ``help_text`` to ``stream`` (stdout); return exit status 0."""
    (stream or sys.stdout).write(help_text(node_class))
    return 0
