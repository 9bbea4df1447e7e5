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

"""Command line: ``python -m dynamics_ros <command>`` (see dynamics_ros.cli)."""

import os
import sys

from .cli import register_all
from .cli.options import OneLineParser
from .errors import ModelError

# Set to 1 to see the traceback of an unexpected error (a bug to report).
TRACEBACK_VARIABLE = 'DYNAMICS_ROS_TRACEBACK'


def build_parser():
    """Return the parser of every command (a OneLineParser)."""
    parser = OneLineParser(prog='python -m dynamics_ros')
    register_all(parser.add_subparsers(dest='command', required=True))
    return parser


def main(argv=None):
    """
    Entry point of ``python -m dynamics_ros``.

    Every error ends in one line on stderr and exit status 2: a wrong
    option (the parser), a refused input (the command), and anything
    unexpected (its type and message; the traceback only with
    DYNAMICS_ROS_TRACEBACK=1).
    """
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except ModelError as error:
        print('error: %s' % ' '.join(str(error).split()), file=sys.stderr)
        return 2
    except Exception as error:   # noqa: B902 - one line, never a traceback
        if os.environ.get(TRACEBACK_VARIABLE) == '1':
            raise
        print('error: %s: %s (%s=1 shows the traceback)' % (
            type(error).__name__, ' '.join(str(error).split())[:300],
            TRACEBACK_VARIABLE), file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
