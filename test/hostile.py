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
Hostile values for the fuzz tests, from a seeded generator.

``values(rng, count)`` yields what an attacker or a careless user gives:
deep nesting, huge sizes, huge and tiny numbers, NaN and infinities, wrong
types, unicode, control characters, paths, empty values.  The fuzz tests
feed them to every CLI option (test/cli/test_cli_fuzz.py) and to node
parameters and topics (test/nodes/test_fuzz_nodes.py).

``FUZZ_SECONDS``: how long the fuzz runs, 0 (one pass per test) in the
normal suite.  The long run (``make fuzz``, doc/development.md) sets
``DYNAMICS_ROS_FUZZ_SECONDS`` to its length: the node fuzz loops that
long, and the command fuzz tests, in the other worker, share it.
"""

import os

import numpy as np

FUZZ_SECONDS = float(os.environ.get('DYNAMICS_ROS_FUZZ_SECONDS', '0') or 0)
SEED = int(os.environ.get('DYNAMICS_ROS_FUZZ_SEED', '39'))

NUMBERS = ['nan', '-nan', 'inf', '-inf', '1e308', '-1e308', '1e-308',
           '5e-324', '0', '-0', '1e-9', '2147483647', '-2147483648',
           '9223372036854775808', '1e999', '0x10', '1_000', ' 1 ', '',
           '1e', '--1', '+', '.', '١٢٣']
TEXTS = ['', ' ', '\x00', '\n', '\t\r', '[' * 200000, '{' * 1000,
         '../' * 50 + 'etc/passwd', '/dev/zero', '/proc/self/mem', '~',
         '$(touch /tmp/pwned)', '`id`', "'; rm -rf / #", '%s%s%n', '%(x)s',
         '\u202e\u0627\u0644\u00e9\U0001F600', '\ud800'.encode(
             'utf-8', 'surrogatepass').decode('utf-8', 'replace'),
         'a' * 100000, 'tcp://', 'http://localhost:1', 'tcp://[::1]:0',
         '!!python/object:os.system', '- - - -', '&a [*a]', 'null', 'NaN']


def hostile_number_text(rng):
    """Return one hostile number as command-line text."""
    if rng.random() < 0.6:
        return NUMBERS[rng.integers(len(NUMBERS))]
    return '%.6ge%d' % (rng.standard_normal(), rng.integers(-330, 330))


def hostile_text(rng):
    """Return one hostile string."""
    if rng.random() < 0.7:
        return TEXTS[rng.integers(len(TEXTS))]
    size = int(10 ** rng.uniform(0, 5))
    return ''.join(chr(c) for c in rng.integers(1, 0x2FFF, size)
                   if not 0xD800 <= c <= 0xDFFF)


def hostile_value(rng):
    """Return a hostile Python value of any type (for parameters)."""
    kind = rng.integers(7)
    if kind == 0:
        text = hostile_number_text(rng)
        return float(text) if _is_float(text) else float('nan')
    if kind == 1:
        return hostile_text(rng)
    if kind == 2:
        return bool(rng.integers(2))
    if kind == 3:
        return int(rng.choice([0, -1, 1, 2 ** 31 - 1, -2 ** 63, 2 ** 63 - 1]))
    if kind == 4:
        size = int(rng.choice([0, 1, 2, 7, 100, 100000]))
        return [float(x) for x in rng.choice(
            [np.nan, np.inf, -np.inf, 1e308, 0.0, 1e-320, -1.0], size)]
    if kind == 5:
        return [hostile_text(rng) for _ in range(int(rng.integers(0, 4)))]
    return [int(x) for x in rng.integers(-2 ** 62, 2 ** 62,
                                         int(rng.integers(0, 10)))]


def _is_float(text):
    """Return True if ``text`` parses as a float."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def values(rng, count):
    """Yield ``count`` hostile strings (numbers or texts), mixed."""
    for _ in range(count):
        yield hostile_number_text(rng) if rng.random() < 0.5 else \
            hostile_text(rng)
