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
A node started on a cold kernel cache says why it is silent.

A node loads the kernels the cache's marker lists before it exists
(nodes/shared/entry_point.py): from a real filled cache it says nothing of
kernels; from a cache marked as holding kernels it does not hold (files
touched after ``python -m dynamics_ros.fast``) it says that it compiles.
A kernel module the marker does not list (``make venv`` compiles only
what a user needs first) compiles on first use, one line before and one
after, and the marker lists it from then on.

How long the first start takes is measured by
benchmarks/bench_first_start.py, not asserted here.
"""

import os
import re
import subprocess
import sys

from dynamics_ros.fast import compiler
import pytest
from ros_harness import NodeProcess, reserve_domain_id, TIMEOUT

COMPILE_TIMEOUT = 900.0   # s


def test_the_ready_marker_follows_the_cache_folder_and_the_sources(
        tmp_path, monkeypatch):
    monkeypatch.setenv('NUMBA_CACHE_DIR', str(tmp_path))
    marker = compiler.ready_marker()
    assert os.path.dirname(marker) == str(tmp_path)
    assert compiler.SOURCES_DIGEST[:16] in os.path.basename(marker)
    assert not compiler.kernels_cached()
    assert compiler.mark_cached(compiler.ALL_MODULES)
    assert compiler.kernels_cached()
    # Another version of the sources has another marker.
    monkeypatch.setattr(compiler, 'SOURCES_DIGEST', '0' * 64)
    assert not compiler.kernels_cached()


def test_the_marker_lists_the_modules_cached(tmp_path, monkeypatch):
    monkeypatch.setenv('NUMBA_CACHE_DIR', str(tmp_path))
    assert compiler.cached_modules() == frozenset()
    assert compiler.mark_cached(['bias', 'rnea'])
    assert compiler.mark_cached(['crba'])
    assert compiler.cached_modules() == {'bias', 'rnea', 'crba'}
    assert compiler.kernels_cached(['bias', 'crba'])
    assert not compiler.kernels_cached()
    assert compiler.mark_cached(compiler.FIRST_USE_MODULES)
    assert compiler.kernels_cached(compiler.FIRST_USE_MODULES)
    assert not compiler.kernels_cached()   # motor_step, regressor missing
    # An empty marker (a write that failed half way) lists nothing.
    open(compiler.ready_marker(), 'w').close()
    assert compiler.cached_modules() == frozenset()


def test_an_unlisted_module_compiles_on_first_use_and_says_so(tmp_path):
    """
    The regressor's kernels (the smallest) compile once, said on stderr.

    A fresh process each time: this one holds the module already.
    """
    environment = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    code = ('from dynamics_ros import fast; fast.regressor; '
            'from dynamics_ros.fast import compiler; '
            'print(sorted(compiler.cached_modules()))')
    first = subprocess.run([sys.executable, '-c', code], env=environment,
                           capture_output=True, text=True,
                           timeout=COMPILE_TIMEOUT)
    assert first.returncode == 0, first.stderr
    assert "compiling kernel module 'regressor' on its first use" in \
        first.stderr, first.stderr
    assert re.search(r"kernel module 'regressor' compiled in \d+\.\d s",
                     first.stderr), first.stderr
    assert first.stdout.strip() == "['regressor']"
    again = subprocess.run([sys.executable, '-c', code], env=environment,
                           capture_output=True, text=True,
                           timeout=COMPILE_TIMEOUT)
    assert again.returncode == 0 and 'kernel module' not in again.stderr, \
        again.stderr


def test_first_use_compiles_what_a_user_needs_first_only(tmp_path):
    """--first-use leaves the motor plant and the regressor; a no-op here."""
    assert set(compiler.ALL_MODULES) - set(compiler.FIRST_USE_MODULES) == {
        'motor_step', 'regressor'}
    environment = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    with open(os.path.join(str(tmp_path), os.path.basename(
            compiler.ready_marker())), 'w') as stream:
        stream.write('\n'.join(compiler.FIRST_USE_MODULES) + '\n')
    done = subprocess.run(
        [sys.executable, '-m', 'dynamics_ros.fast', '--first-use'],
        env=environment, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0 and 'compiled and cached' in done.stdout, \
        done.stdout + done.stderr


def test_a_node_on_an_empty_cache_says_it_is_compiling(tmp_path,
                                                       monkeypatch):
    monkeypatch.setenv('NUMBA_CACHE_DIR', str(tmp_path))
    node = NodeProcess('linearization_node', reserve_domain_id('first start'))
    try:
        output = node.wait_for_output('compiling kernels', TIMEOUT)
        assert 'compiling kernels (first start, about' in output
    finally:
        node.stop()


def test_a_node_on_the_filled_cache_says_nothing_of_it():
    # This environment's own cache: make test fills it before the tests.
    if not compiler.kernels_cached():
        pytest.skip('the kernel cache is not filled here (python -m '
                    'dynamics_ros.fast has not run)')
    node = NodeProcess('linearization_node', reserve_domain_id('first start'))
    try:
        # It waits for a model: its log says so once it runs.
        output = node.wait_for_output('robot_description', TIMEOUT)
        assert 'robot_description' in output, output
        assert 'compiling kernels' not in output
        # A load that took long on a busy machine is said (kernels from
        # the cache, the rest waiting): only a compile would be wrong.
        assert 'it was compiled' not in output, output
    finally:
        node.stop()


def test_a_cache_marked_full_but_empty_is_said_to_compile(tmp_path,
                                                          monkeypatch):
    monkeypatch.setenv('NUMBA_CACHE_DIR', str(tmp_path))
    # Marked as holding the smallest module that a node loads at start
    # (bias: seconds to compile; the whole set would take minutes).
    assert compiler.mark_cached(['bias'])
    node = NodeProcess('linearization_node', reserve_domain_id('first start'))
    try:
        # The module compiles (a minute on a loaded machine) before the
        # warning: an upper bound, the wait ends at it.
        output = node.wait_for_output('to load', COMPILE_TIMEOUT)
        assert re.search(r"kernel module 'bias' took \d+ s to load: it was "
                         r'compiled', output), output
        assert 'compiling kernels (first start' not in output
    finally:
        node.stop()
