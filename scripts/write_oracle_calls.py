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
Record what every test asks Pinocchio, for the run without its oracle.

The distro environment (`make test-distro`: Python 3.12, numpy 1.26) cannot
install the oracle's Pinocchio (pin >= 3's cp312 wheels need numpy >= 2;
its pin 2.7.0 answers only the modules not stored, NOT_RECORDED in
test/oracle_record.py). This runs the tests that may ask Pinocchio and are
not `ros`-marked, in the development venv, with
``DYNAMICS_ROS_ORACLE=record``: each question a test asks Pinocchio
(test/oracle.py, test/oracle_record.py), its inputs and Pinocchio's
answer, by test and call order, is written to
test/data/oracle_calls/<folder>__<module>.npz. There
(``DYNAMICS_ROS_ORACLE=replay``) the same tests get the stored answers,
after a check that they ask the same (1e-9 relative), and compare exactly
what they compare here.

Run it again when a test asks Pinocchio something else (a replayed test
then fails, naming this script), when the robots change, or with another
Pinocchio; test/dynamics/test_oracle_calls.py checks the files are current.
Any failing test fails the recording, and nothing is written then.

Usage (from the repository root, development venv; a few minutes):
    .venv/bin/python scripts/write_oracle_calls.py [pytest arguments]

Extra arguments go to pytest (default: ``-n 2 --dist loadfile``); with
test paths only those modules' files are rewritten.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIRECTORY = os.path.join(REPO_ROOT, 'test', 'data', 'oracle_calls')
# Left out: the node tests (`ros`, not run by `make test-distro`).
SKIPPED = ('nodes', 'ros2_tools')


def asking_modules():
    """
    Return the test modules that may ask Pinocchio, sorted.

    Those naming the oracle (test/oracle.py, oracle_record.py) or a helper
    module of test/ that does (test/payload_plant.py): the others cannot
    reach Pinocchio, and running them too would only take longer.
    """
    test = os.path.join(REPO_ROOT, 'test')

    def text(path):
        with open(path, encoding='utf-8') as stream:
            return stream.read()

    def imports(names):
        return re.compile(r'^\s*(import|from) (%s)\b' % '|'.join(
            sorted(names)), re.MULTILINE)
    # conftest.py only attributes the calls (it imports oracle_record).
    helpers = [path for path in glob.glob(os.path.join(test, '*.py'))
               if os.path.basename(path) != 'conftest.py']
    names = {'oracle', 'oracle_record'}
    while True:
        more = {os.path.splitext(os.path.basename(path))[0]
                for path in helpers if imports(names).search(text(path))}
        if more <= names:
            break
        names |= more
    pattern = imports(names)
    return sorted(
        os.path.relpath(path, REPO_ROOT)
        for path in glob.glob(os.path.join(test, '*', 'test_*.py'))
        if os.path.basename(os.path.dirname(path)) not in SKIPPED
        and pattern.search(text(path))
        # Its tests check the files being written.
        and os.path.basename(path) != 'test_oracle_calls.py')


def main(arguments):
    """Run the tests recording, then replace the stored files."""
    def is_path(argument):
        return os.path.exists(os.path.join(REPO_ROOT,
                                           argument.split('::')[0]))
    paths = [a for a in arguments if is_path(a)]
    options = [a for a in arguments if not is_path(a)] or [
        '-n', '2', '--dist', 'loadfile']
    command = [sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider'
               ] + options + ['-m', 'not ros'] + (paths or asking_modules())
    with tempfile.TemporaryDirectory() as scratch:
        environment = dict(os.environ, DYNAMICS_ROS_ORACLE='record',
                           DYNAMICS_ROS_ORACLE_DIRECTORY=scratch)
        print(' '.join(command))
        status = subprocess.call(command, cwd=REPO_ROOT, env=environment)
        if status != 0:
            print('pytest failed (%d): nothing written' % status)
            return status
        if not paths:
            # The whole run: files of modules that no longer ask go too.
            for old in glob.glob(os.path.join(DIRECTORY, '*.npz')):
                os.remove(old)
        os.makedirs(DIRECTORY, exist_ok=True)
        total = 0
        for path in sorted(glob.glob(os.path.join(scratch, '*.npz'))):
            target = os.path.join(DIRECTORY, os.path.basename(path))
            shutil.copyfile(path, target)
            total += os.path.getsize(target)
            print('%8d  %s' % (os.path.getsize(target),
                               os.path.relpath(target, REPO_ROOT)))
    print('%d bytes in %s' % (total, os.path.relpath(DIRECTORY, REPO_ROOT)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
