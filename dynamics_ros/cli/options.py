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
The command-line options several commands share, declared once.

A command that reads a URDF takes the same four (the file, ``--xacro-arg``,
``--root``, ``--tip``) and loads it the same way; numeric options are
declared from a table of (flag, default, help[, (low, high)]) rows, their
help saying the default and the bounds; a value outside them, or NaN, is
refused by the parser (one line, exit status 2) before anything runs.  A
command that draws a figure takes ``--output-dir`` and
``--output`` for the PNG.
"""

import argparse
import math
import os

from ..model.urdf import load_urdf


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr, status 2."""

    def error(self, message):
        """Print 'PROG: error: MESSAGE (see PROG --help)'; exit 2."""
        self.exit(2, '%s: error: %s (see %s --help)\n' % (
            self.prog, ' '.join(str(message).split()), self.prog))


def number(kind, flag, low=None, high=None):
    """
    Return an argparse type: ``kind`` (int or float) within [low, high].

    NaN is never a value; infinity only when no bound excludes it.  The
    refusal names the flag, the bound and the value given (cut short).
    """
    def parse(text):
        try:
            value = kind(text)
        except (TypeError, ValueError, OverflowError):
            raise argparse.ArgumentTypeError('%s must be %s, got %r' % (
                flag, 'an integer' if kind is int else 'a number',
                str(text)[:40]))
        if isinstance(value, float) and math.isnan(value):
            raise argparse.ArgumentTypeError('%s must be a number, got NaN'
                                             % flag)
        if (low is not None and value < low) or \
                (high is not None and value > high):
            raise argparse.ArgumentTypeError(
                '%s must be within [%s, %s] (its documented bound), got %r'
                % (flag, '-inf' if low is None else '%g' % low,
                   'inf' if high is None else '%g' % high, str(text)[:40]))
        return value
    parse.__name__ = kind.__name__   # argparse names the type by it
    return parse


def add_model_options(parser, urdf_help, flag=True, required=False):
    """
    Add the URDF argument, ``--xacro-arg``, ``--root`` and ``--tip``.

    ``flag``: ``--urdf`` (``required`` or not) rather than a positional
    ``urdf``.
    """
    if flag:
        parser.add_argument('--urdf', required=required, help=urdf_help)
    else:
        parser.add_argument('urdf', help=urdf_help)
    parser.add_argument('--xacro-arg', action='append', default=[],
                        metavar='NAME:=VALUE',
                        help='argument of a .xacro file (repeatable)')
    parser.add_argument('--root', help='root link (default: the URDF root)')
    parser.add_argument('--tip', help='tip link: keep the chain root -> tip')


def load_model(args, default=None):
    """Load ``args.urdf`` (else ``default``) as the options above say."""
    return load_urdf(args.urdf or default, root_link=args.root or None,
                     tip_link=args.tip or None, xacro_args=args.xacro_arg)


def add_options(parser, rows):
    """
    Add one option per (flag, default, help[, (low, high)]) row.

    The type is the default's (str, int or float); a list default (one
    value per joint, or one for all) takes one or more floats.  Numbers
    are refused outside (low, high) (inclusive; None: unbounded) and when
    NaN.  The help says the default and the bounds.
    """
    for row in rows:
        flag, default, text = row[:3]
        low, high = row[3] if len(row) > 3 else (None, None)
        many = isinstance(default, list)
        shown = ' '.join(value if isinstance(value, str) else '%g' % value
                         for value in (default if many else [default]))
        kind = float if many else type(default)
        if kind in (int, float):
            kind = number(kind, flag, low, high)
            if low is not None or high is not None:
                text = '%s, within [%s, %s]' % (
                    text, '-inf' if low is None else '%g' % low,
                    'inf' if high is None else '%g' % high)
        parser.add_argument(flag, default=default, type=kind,
                            nargs='+' if many else None,
                            help='%s (default %s)' % (text, shown))


def add_figure_options(parser, png):
    """Add ``--output-dir`` (demo_output) and ``--output`` (``png``)."""
    parser.add_argument('--output-dir', default='demo_output',
                        help='folder of the PNG (default demo_output)')
    parser.add_argument('--output', default=png,
                        help='PNG file name (default %s)' % png)


def figure_path(args):
    """Return the PNG path of ``add_figure_options``; make its folder."""
    os.makedirs(args.output_dir, exist_ok=True)
    return os.path.join(args.output_dir, args.output)
