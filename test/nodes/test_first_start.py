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

With the cache marked complete, a node loads every kernel before it
exists (nodes/entry_point.py): from a real filled cache it says nothing of
kernels; from a cache marked complete that does not hold them (files
touched after ``python -m dynamics_ros.fast``) it says that it compiles.

How long the first start takes is measured by
benchmarks/bench_first_start.py, not asserted here.
"""

import os
import re

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
    open(marker, 'w').close()
    assert compiler.kernels_cached()
    # Another version of the sources has another marker.
    monkeypatch.setattr(compiler, 'SOURCES_DIGEST', '0' * 64)
    assert not compiler.kernels_cached()


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
    open(compiler.ready_marker(), 'w').close()
    node = NodeProcess('linearization_node', reserve_domain_id('first start'))
    try:
        # The first kernel module compiles (a minute or more on a loaded
        # machine) before the warning: an upper bound, the wait ends at it.
        output = node.wait_for_output('to load', COMPILE_TIMEOUT)
        assert re.search(r"kernel module 'aba' took \d+ s to load: it was "
                         r'compiled', output), output
        assert 'compiling kernels (first start' not in output
    finally:
        node.stop()
