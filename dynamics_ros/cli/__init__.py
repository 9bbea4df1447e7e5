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
Subcommands of ``python -m dynamics_ros``: one module per command.

A command module (``flex_demo`` for ``flex-demo``) defines ``HELP`` (its
line in ``--help``), ``add_arguments(parser)`` and ``run(args) -> exit
code``; ``options`` and ``figures`` hold what several commands share.
Adding a command is adding a module; nothing else changes.
"""

import importlib
import pkgutil


def register_all(subparsers):
    """Import every command module of this package and add its parser."""
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module('%s.%s' % (__name__, info.name))
        if hasattr(module, 'add_arguments'):
            parser = subparsers.add_parser(info.name.replace('_', '-'),
                                           help=module.HELP)
            module.add_arguments(parser)
            parser.set_defaults(run=module.run)
