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
Every question a test asks Pinocchio, answered live, recorded or replayed.

The oracle (test/oracle.py) and the tests' own Pinocchio computations go
through ``call(name, inputs, compute)``: ``compute`` is what asks Pinocchio,
``inputs`` everything its answer depends on (arrays, numbers, strings, the
model's URDF digest). The mode comes from the environment:

- live (the default where requirements.txt's Pinocchio is installed,
  ``make test``): ``compute()``. An older Pinocchio (.venv-distro's) is
  refused: it lacks what most calls use.
- record (``DYNAMICS_ROS_ORACLE=record``, scripts/write_oracle_calls.py):
  ``compute()``, and the inputs and answer are kept, by test and call
  order, and written at the end of the run into test/data/oracle_calls/,
  one compressed file per test module.
- replay (``DYNAMICS_ROS_ORACLE=replay``, ``make test-distro``: at numpy
  1.26 requirements.txt's Pinocchio cannot be installed, pin >= 3 needs
  numpy >= 2): the stored answer of the same call of the same test, after
  checking the inputs are those recorded (1e-9 relative), so the test
  compares what it compares where Pinocchio runs. The modules whose calls
  are not stored (``NOT_RECORDED``) get ``compute()`` from the Pinocchio
  installed there (pin 2.7.0 in .venv-distro, constraints-distro.txt),
  and their tests that ask it skip where there is none.
- verify (``DYNAMICS_ROS_ORACLE=verify``): ``compute()``, checked against
  the stored inputs and answer (test/dynamics/test_oracle_calls.py: the
  stored files are current).

A call belongs to the test being run (its node id, setup and teardown
included) or, when a fixture of wider scope asks it, to that fixture
(scope node, fixture name and parameter index): replayed tests need not run
in the recorded order, nor all of them.
"""

import hashlib
import importlib.util
import json
import os
import re

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRECTORY = os.path.join(REPO_ROOT, 'test', 'data', 'oracle_calls')
SCRIPT = os.path.join('scripts', 'write_oracle_calls.py')
# Inputs as recorded: a replayed test must ask what the recorded one asked,
# to the tolerance of the comparisons themselves.
RTOL = 1e-9
# The answers of a verify run: the same Pinocchio on the same inputs, equal
# but for the last bits another build or CPU may round differently.
VERIFY_RTOL = 1e-9

# Not stored: these modules' tests use Pinocchio as a simulated plant or
# inside toppra's grid, 58 000 to 270 000 calls each (7 to 36 MB
# compressed, 83 MB together). Replayed, their calls are computed by the
# Pinocchio installed (make test-distro: pin 2.7.0, whose cp312 wheels take
# numpy 1.26; these modules ask it only to build a URDF's model and for
# RNEA, which 2.7 has); where there is none, the tests that ask it skip,
# the rest of the module runs.
NOT_RECORDED = {
    'test/control/test_retime_reference.py':
        "Pinocchio's RNEA evaluates toppra's constraints on its grid "
        '(270 000 calls, 36 MB stored)',
    'test/estimation/test_payload_plants.py':
        'Pinocchio simulates the plant (132 000 calls, 27 MB stored)',
    'test/control/test_retime.py':
        "Pinocchio's RNEA along retimed paths (59 000 calls, 13 MB stored)",
    'test/estimation/test_payload_estimation.py':
        'Pinocchio simulates the plant (58 000 calls, 7 MB stored)',
}


SKIP_IMPORT = ("Pinocchio's answers are replayed here (make test-distro: "
               'pin >= 3 needs numpy >= 2) and this module asks Pinocchio '
               'when imported, or imports it itself, where no answer is '
               'stored')


def _oldest_oracle():
    """Return requirements.txt's lower bound of pin (the oracle), a str."""
    with open(os.path.join(REPO_ROOT, 'requirements.txt')) as stream:
        return re.search(r'^pin>=([0-9.]+)', stream.read(),
                         re.MULTILINE).group(1)


def _release(version):
    """Return the comparable (major, minor, patch) of a version string."""
    return tuple(int(part) for part in re.findall(r'\d+', version)[:3])


def _mode():
    chosen = os.environ.get('DYNAMICS_ROS_ORACLE', '')
    if chosen not in ('', 'record', 'verify', 'live', 'replay'):
        raise ValueError('DYNAMICS_ROS_ORACLE=%r: record, verify, live or '
                         'replay' % chosen)
    if chosen == 'replay':
        return chosen
    try:
        import pinocchio
    except ImportError:
        # Anywhere but replay a missing oracle is an install error
        # (test/oracle.py raises it).
        return chosen or 'missing'
    # .venv-distro's pin 2.7 is there for the modules not stored: asked
    # every call, it would fail on what it lacks (mimic models, ...).
    oldest = _oldest_oracle()
    if _release(pinocchio.__version__) < _release(oldest):
        raise RuntimeError(
            'Pinocchio %s is older than the oracle requirements.txt asks '
            '(pin>=%s): run the tests with DYNAMICS_ROS_ORACLE=replay, as '
            '`make test-distro` does, so that its stored answers stand in'
            % (pinocchio.__version__, oldest))
    return chosen or 'live'


MODE = _mode()
# Replay: whether a Pinocchio is installed to compute the calls of the
# NOT_RECORDED modules (looked up before test/oracle.py hides it from the
# tests, not imported: that is done on the first such call).
INSTALLED = MODE == 'replay' and importlib.util.find_spec(
    'pinocchio') is not None


class StaleRecording(AssertionError):
    """A replayed call is not the one recorded: the files need writing."""


# The context a call belongs to (set by test/conftest.py's hooks).
_context = [None]
# Record: {context: [event]}; replay and verify: {context: next index}.
_recorded = {}
_position = {}
# Replay and verify: {module file: (index, values)} loaded on first use.
_loaded = {}
# Record: the modules whose tests this process ran (an xdist worker writes
# only those: every worker imports every module).
_ran_modules = set()


def set_context(context):
    """Attribute the calls that follow to ``context``; return the old one."""
    old = _context[0]
    _context[0] = context
    return old


def start_test(nodeid):
    """Start a test's calls anew (a rerun asks its questions again)."""
    _ran_modules.add(module_of(nodeid))
    _recorded.pop(nodeid, None)
    _position.pop(nodeid, None)


def start_fixture(context):
    """Start the calls of a fixture of wider scope anew."""
    _recorded.pop(context, None)
    _position.pop(context, None)


def module_of(context):
    """Return the test module a context belongs to ('' for the session)."""
    return context.split('::', 1)[0]


def file_of(module, directory=DIRECTORY):
    """Return the stored file of a test module, in ``directory``."""
    name = module[len('test/'):] if module.startswith('test/') else module
    name = re.sub(r'\.py$', '', name).replace('/', '__') or 'session'
    return os.path.join(directory, name + '.npz')


def digest(text):
    """
    Short SHA-256 of a URDF text, numbers to 10 significant digits.

    Generated robots' inertias differ in the last digit between numpy
    releases: the same robot to the 1e-9 of the comparisons.
    """
    text = re.sub(r'-?\d+\.\d*(?:[eE][-+]?\d+)?',
                  lambda m: '%.10g' % float(m.group(0)), text)
    return hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]


# Encoding: JSON for the structure, arrays as indices into a pool of
# float64 values (exact), one pool per module file, equal arrays once.
class _Pool:

    def __init__(self):
        self.table = []       # [offset, shape, dtype]
        self.chunks = []
        self.size = 0
        self.seen = {}

    def add(self, array):
        # Not ascontiguousarray: it makes a 0-d array 1-d.
        array = np.asarray(array, order='C')
        kind = array.dtype.str
        if array.dtype.kind not in 'fiub':
            raise TypeError('cannot store a %s array' % array.dtype)
        values = array.astype(np.float64).ravel()
        key = (kind, array.shape, values.tobytes())
        if key not in self.seen:
            self.seen[key] = len(self.table)
            self.table.append([self.size, list(array.shape), kind])
            self.chunks.append(values)
            self.size += values.size
        return self.seen[key]


def _encode(value, pool):
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(
            value, np.bool_):
        return {'i': int(value)}
    if isinstance(value, (tuple, list)):
        return {'t': [_encode(item, pool) for item in value]}
    if isinstance(value, (float, np.floating, np.bool_, np.ndarray)):
        return {'a': pool.add(np.asarray(value)),
                'scalar': not isinstance(value, np.ndarray)}
    raise TypeError('cannot store %r' % type(value))


def _decode(value, table, values):
    if not isinstance(value, dict):
        return value
    if 'i' in value:
        return value['i']
    if 't' in value:
        return tuple(_decode(item, table, values) for item in value['t'])
    offset, shape, kind = table[value['a']]
    size = int(np.prod(shape, dtype=int))
    array = values[offset:offset + size].astype(np.dtype(kind)).reshape(
        tuple(shape))
    if value['scalar']:
        item = array.ravel()[0]
        return float(item) if array.dtype.kind == 'f' else item.item()
    return array


def _differences(actual, expected, rtol, where='value'):
    """Yield how ``actual`` differs from ``expected`` (decoded values)."""
    if isinstance(expected, np.ndarray) or isinstance(expected, float):
        if isinstance(actual, (tuple, list, str)) or actual is None:
            yield '%s: %r, recorded an array' % (where, type(actual))
            return
        actual = np.asarray(actual, dtype=float)
        expected = np.asarray(expected, dtype=float)
        if actual.shape != expected.shape:
            yield '%s: shape %s, recorded %s' % (where, actual.shape,
                                                 expected.shape)
            return
        if not np.array_equal(np.isnan(actual), np.isnan(expected)):
            yield '%s: NaN where the recorded one has none' % where
            return
        finite = ~np.isnan(expected)
        scale = max(float(np.max(np.abs(expected[finite]), initial=0.0)),
                    1e-12)
        error = float(np.max(np.abs(actual[finite] - expected[finite]),
                             initial=0.0))
        if not error <= rtol * scale:
            yield '%s: max difference %.3e > %.0e x %.3e' % (
                where, error, rtol, scale)
    elif isinstance(expected, tuple):
        if not isinstance(actual, (tuple, list)) or len(actual) != len(
                expected):
            yield '%s: %r, recorded %d items' % (where, type(actual),
                                                 len(expected))
            return
        for k, (a, e) in enumerate(zip(actual, expected)):
            yield from _differences(a, e, rtol, '%s[%d]' % (where, k))
    elif isinstance(actual, (np.integer, np.bool_)):
        if actual.item() != expected:
            yield '%s: %r, recorded %r' % (where, actual, expected)
    elif actual != expected or type(actual) is not type(expected):
        yield '%s: %r, recorded %r' % (where, actual, expected)


def _stored(context):
    """Return the recorded events of ``context`` (None: none were)."""
    module = module_of(context)
    if module not in _loaded:
        path = file_of(module)
        if not os.path.exists(path):
            _loaded[module] = None
        else:
            with np.load(path, allow_pickle=False) as data:
                index = json.loads(str(data['index']))
                _loaded[module] = (index, data['values'])
    if _loaded[module] is None:
        return None, None, None
    index, values = _loaded[module]
    return index['contexts'].get(context), index['table'], values


def call(name, inputs, compute):
    """
    Pinocchio's answer to ``name`` asked with ``inputs``.

    ``compute()`` asks Pinocchio (never called in replay); ``inputs`` holds
    everything the answer depends on. Arrays, numbers, strings, None and
    tuples of them, in and out.
    """
    if MODE == 'live':
        return compute()
    context = _context[0]
    if context is None and MODE == 'replay':
        # Asked while a module is imported (the node tests, `ros`, not run
        # where Pinocchio is missing): that module skips, as it did before.
        import pytest
        pytest.skip(SKIP_IMPORT, allow_module_level=True)
    if context is None:
        raise RuntimeError('Pinocchio asked outside a test or fixture (%s)'
                           % name)
    if MODE == 'record':
        answer = compute()
        _recorded.setdefault(context, []).append((name, inputs, answer))
        return answer
    if MODE == 'replay' and module_of(context) in NOT_RECORDED:
        if INSTALLED:
            return compute()
        import pytest
        pytest.skip('Pinocchio is not installed and its answers to this '
                    'test are not stored: %s' % NOT_RECORDED[
                        module_of(context)])
    events, table, values = _stored(context)
    k = _position.get(context, 0)
    _position[context] = k + 1
    rerun = 'run %s in the development venv (.venv) to record them' % SCRIPT
    if events is None:
        raise StaleRecording('%s: no Pinocchio calls stored for it; %s'
                             % (context, rerun))
    if k >= len(events):
        raise StaleRecording(
            '%s: Pinocchio call %d (%s) was not recorded (%d were); %s'
            % (context, k, name, len(events), rerun))
    stored_name, stored_inputs, stored_answer = events[k]
    problems = []
    if stored_name != name:
        problems.append('asks %s, recorded %s' % (name, stored_name))
    else:
        problems += _differences(inputs, _decode(stored_inputs, table,
                                                 values), RTOL, 'inputs')
    if problems:
        raise StaleRecording(
            '%s: Pinocchio call %d (%s) is not the one recorded: %s; %s'
            % (context, k, name, '; '.join(problems[:3]), rerun))
    expected = _decode(stored_answer, table, values)
    if MODE == 'replay':
        return expected
    answer = compute()
    problems = list(_differences(answer, expected, VERIFY_RTOL, 'answer'))
    if problems:
        raise StaleRecording(
            '%s: Pinocchio call %d (%s) answers otherwise than recorded: '
            '%s; %s' % (context, k, name, '; '.join(problems[:3]), rerun))
    return answer


def write():
    """Record mode: write the files of the modules this process ran."""
    if MODE != 'record':
        return []
    by_module = {}
    for context, events in _recorded.items():
        by_module.setdefault(module_of(context), {})[context] = events
    # The script records into a scratch folder, copied once all passed.
    directory = os.environ.get('DYNAMICS_ROS_ORACLE_DIRECTORY', DIRECTORY)
    written = []
    for module in sorted(by_module):
        if module not in _ran_modules or module in NOT_RECORDED:
            continue
        pool = _Pool()
        contexts = {
            context: [[name, _encode(inputs, pool), _encode(answer, pool)]
                      for name, inputs, answer in events]
            for context, events in sorted(by_module[module].items())}
        index = json.dumps({'table': pool.table, 'contexts': contexts},
                           separators=(',', ':'), sort_keys=True)
        values = np.concatenate(pool.chunks) if pool.chunks else np.zeros(0)
        path = file_of(module, directory)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        np.savez_compressed(path, index=np.array(index), values=values)
        written.append(path)
    return written
