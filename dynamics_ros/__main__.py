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

import argparse
import sys

from .cli import register_all
from .errors import ModelError


def main(argv=None):
    """Entry point of ``python -m dynamics_ros``."""
    parser = argparse.ArgumentParser(prog='python -m dynamics_ros')
    register_all(parser.add_subparsers(dest='command', required=True))
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except ModelError as error:
        print('error: %s' % error, file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
