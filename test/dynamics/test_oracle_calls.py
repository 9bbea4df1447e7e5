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
The stored Pinocchio calls (test/data/oracle_calls/): sound and current.

scripts/write_oracle_calls.py records, in the development venv, every
question the tests ask Pinocchio and its answer; `make test-distro`
(numpy 1.26, where pin >= 3 cannot be installed) replays them
(test/oracle_record.py). Here, in both environments: the files name test
modules that exist, hold float64 values exactly and stay small, and a
replayed call that asks something else fails naming the script. Where
Pinocchio answers live, a sample of modules runs again with every answer
computed and checked against the stored one
(``DYNAMICS_ROS_ORACLE=verify``): the files are current.
"""

import glob
import json
import os
import subprocess
import sys

from conftest import REPO_ROOT
import numpy as np
import oracle_record
import pytest

FILES = sorted(glob.glob(os.path.join(oracle_record.DIRECTORY, '*.npz')))
# Compressed, all files: the repository carries them.
LIMIT_BYTES = 10_000_000
# Modules run again in verify mode: each folder's own Pinocchio calls
# (frames, free flyer, mimic models, derivatives), a minute on 2 cores.
SAMPLE = ['test/dynamics/test_derivatives.py',
          'test/dynamics/test_moving_base.py',
          'test/dynamics/test_mimic_dynamics.py',
          'test/control/test_task_space.py',
          'test/papers/test_influence.py',
          'test/identification/test_regressor.py']


def module_of_file(path):
    """Return the test module a stored file is of."""
    name = os.path.splitext(os.path.basename(path))[0]
    return 'test/%s.py' % name.replace('__', '/')


def test_files_are_of_test_modules_and_small():
    """Each file belongs to an existing module; all together stay small."""
    assert FILES, 'no stored Pinocchio calls: run %s' % oracle_record.SCRIPT
    for path in FILES:
        module = module_of_file(path)
        assert os.path.exists(os.path.join(REPO_ROOT, module)), (
            '%s: %s is gone; run %s' % (path, module, oracle_record.SCRIPT))
        assert oracle_record.file_of(module) == path
        with np.load(path, allow_pickle=False) as data:
            index = json.loads(str(data['index']))
            assert data['values'].dtype == np.float64
        assert all(oracle_record.module_of(context) == module
                   for context in index['contexts']), path
    assert sum(os.path.getsize(path) for path in FILES) < LIMIT_BYTES


def test_the_sample_is_stored():
    """The modules verified below have files."""
    for module in SAMPLE:
        assert os.path.exists(oracle_record.file_of(module)), module


def test_values_round_trip_exactly():
    """Arrays, numbers, strings and tuples come back as they were."""
    pool = oracle_record._Pool()
    value = (np.array([[1.0 / 3.0, -0.0], [1e-300, np.pi]]), 0.1, 7, True,
             None, 'panda', (np.arange(3), np.float64(2.5)))
    encoded = json.loads(json.dumps(oracle_record._encode(value, pool)))
    table = json.loads(json.dumps(pool.table))
    back = oracle_record._decode(encoded, table, np.concatenate(pool.chunks))
    assert back[0].tobytes() == value[0].tobytes()
    assert back[1:6] == (0.1, 7, True, None, 'panda')
    assert back[6][0].dtype == value[6][0].dtype
    assert back[6][0].tolist() == [0, 1, 2] and back[6][1] == 2.5
    assert not list(oracle_record._differences(value, back, 0.0))


def test_other_inputs_are_named():
    """A difference above 1e-9 relative, a shape or a string is reported."""
    recorded = (np.array([1.0, 2.0]), 'panda')
    assert not list(oracle_record._differences(
        (np.array([1.0, 2.0 + 1e-10]), 'panda'), recorded, 1e-9))
    problems = list(oracle_record._differences(
        (np.array([1.0, 2.0 + 1e-8]), 'ur5'), recorded, 1e-9))
    assert len(problems) == 2 and 'max difference' in problems[0]
    assert "'ur5'" in problems[1]
    assert list(oracle_record._differences(
        (np.zeros(3), 'panda'), recorded, 1e-9))[0].endswith(
            'shape (3,), recorded (2,)')


@pytest.mark.skipif(oracle_record.MODE == 'replay', reason=(
    'needs the Pinocchio the answers were recorded with (pin >= 4.1: its '
    'cp312 wheels need numpy >= 2): the stored answers are what it '
    'replays'))
@pytest.mark.skipif(oracle_record.MODE == 'record',
                    reason='the files are being written')
def test_stored_answers_are_current():
    """Pinocchio today gives the stored answers to the same questions."""
    environment = dict(os.environ, DYNAMICS_ROS_ORACLE='verify')
    result = subprocess.run(
        [sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider',
         '-m', 'not ros'] + SAMPLE,
        cwd=REPO_ROOT, env=environment, capture_output=True, text=True,
        timeout=1800)
    assert result.returncode == 0, (
        'stale Pinocchio calls, run %s:\n%s' % (
            oracle_record.SCRIPT, result.stdout[-3000:]))
