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
Every option of every command fed hostile values: one line, status 2.

``python -m dynamics_ros COMMAND`` runs in this process (``main(argv)``)
with its inputs pointing at files that do not exist, so an accepted value
ends at the first read; each option in turn gets values from
``hostile.values`` (seeded).  Whatever the value: exit status 2 (or 0),
one line on stderr, no traceback, an answer within WAIT seconds (a hang
guard, not a speed check).  DYNAMICS_ROS_FUZZ_SECONDS lengthens the run:
the commands share it, each looping for its share (doc/development.md).
"""

import argparse
import time

from dynamics_ros.__main__ import build_parser, main
from hostile import FUZZ_SECONDS, SEED, values
import numpy as np
import pytest

MISSING = '/nonexistent/dynamics_ros_fuzz'
# Each command with inputs that cannot be read: it stops at the first.
BASE = {
    'demo': ['--urdf', MISSING + '.urdf'],
    'describe': [MISSING + '.urdf'],
    'excite': [MISSING + '.urdf'],
    'flex-demo': ['--config', MISSING + '.yaml'],
    'identify': [MISSING + '.bag', '--urdf', MISSING + '.urdf', '--out',
                 MISSING + '.out.urdf'],
    'observer-demo': ['--urdf', MISSING + '.urdf'],
}
WAIT = 60.0   # s: a hang guard; a refusal takes milliseconds
PER_OPTION = 6


def commands():
    """Return {command: its ArgumentParser}."""
    parser = build_parser()
    action = next(a for a in parser._actions
                  if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def options(parser):
    """Return the (flag, nargs) of every option that takes values."""
    found = []
    for action in parser._actions:
        if not action.option_strings or action.nargs == 0 or \
                isinstance(action, argparse._HelpAction):
            continue
        count = action.nargs if isinstance(action.nargs, int) else 1
        found.append((action.option_strings[-1], count))
    return found


def run(argv, capsys):
    """Return (status, stderr) of ``main(argv)``."""
    try:
        status = main(argv)
    except SystemExit as stop:
        status = stop.code
    return status, capsys.readouterr().err


def test_every_command_is_fuzzed():
    assert sorted(commands()) == sorted(BASE)


@pytest.mark.parametrize('command', sorted(BASE))
def test_hostile_option_values_end_in_one_line(command, capsys):
    parser = commands()[command]
    rng = np.random.default_rng([SEED, sorted(BASE).index(command)])
    end = time.monotonic() + FUZZ_SECONDS / len(BASE)
    tried = 0
    while True:
        for flag, count in options(parser):
            for value in values(rng, PER_OPTION):
                if flag in BASE[command] and not value.strip():
                    continue   # '' there: the shipped default, which runs
                argv = [command] + BASE[command] + [flag] + [value] * count
                started = time.monotonic()
                status, error = run(argv, capsys)
                assert time.monotonic() - started < WAIT, argv[:4]
                assert status == 2, (flag, value[:80], status, error)
                assert 'Traceback' not in error, (flag, value[:80], error)
                assert error.count('\n') == 1 and error.strip(), (
                    flag, value[:80], error)
                tried += 1
        if time.monotonic() > end:
            break
    assert tried >= len(options(parser)) * PER_OPTION // 2


BOUNDED = [
    ('identify', '--chunk-seconds', '0', '[1, 86400]'),
    ('identify', '--chunk-seconds', '1e-9', '[1, 86400]'),
    ('identify', '--workers', '100000', '[-1, 1024]'),
    ('excite', '--rate', '1e9', '[1, 10000]'),
    ('excite', '--harmonics', '-3', '[1, 100]'),
    ('observer-demo', '--dt', '1e-12', '[1e-05, 0.1]'),
    ('demo', '--duration', 'inf', '[0.1, 3600]'),
    ('flex-demo', '--dt', '0', '[1e-06, 0.01]'),
]


@pytest.mark.parametrize('command, flag, value, bound', BOUNDED)
def test_sizes_are_refused_naming_the_bound(command, flag, value, bound,
                                            capsys):
    status, error = run([command] + BASE[command] + [flag, value], capsys)
    assert status == 2
    assert '%s must be within %s' % (flag, bound) in error
    assert error.count('\n') == 1


def test_nan_is_refused_by_every_numeric_option(capsys):
    for command, parser in sorted(commands().items()):
        for action in parser._actions:
            kind = getattr(action.type, '__name__', '')
            if not action.option_strings or kind != 'float':
                continue
            flag = action.option_strings[-1]
            count = action.nargs if isinstance(action.nargs, int) else 1
            status, error = run([command] + BASE[command] + [flag] +
                                ['nan'] * count, capsys)
            assert status == 2 and 'got NaN' in error, (command, flag)


@pytest.mark.parametrize('address, reason', [
    ('not an address', 'is not a Dask scheduler address'),
    ('http://localhost:8786', 'is not a Dask scheduler address'),
    ('tcp://127.0.0.1:70000', 'port 70000 is not within 1-65535'),
])
def test_the_scheduler_is_checked_first(address, reason, capsys):
    status, error = run(['identify'] + BASE['identify'] +
                        ['--scheduler', address], capsys)
    assert status == 2 and reason in error
    assert 'nonexistent' not in error   # before the recordings are read
