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
Large batch outputs reuse their memory only once the caller has let go.

``dynamics_ros/fast/outputs.py`` hands a dropped output's buffer to the next
call of the same function.  Here: results the caller keeps are never
written over, dropped ones are reused, a view keeps its buffer, threads
get their own outputs, and every kernel writes every entry of a reused
(NaN-filled) buffer, so stale numbers cannot leak into a result.
"""

import threading

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros import fast
from dynamics_ros.fast import outputs
import numpy as np
from oracle import oracle_for, random_state
import pytest
from test_dynamics_oracle import long_robots

pytest.importorskip('numba')

# Outputs of every size reuse memory in these tests (fast, small batches).
SLOTS = ('mass_matrix', 'inverse_dynamics_derivatives',
         'forward_dynamics_derivatives', 'linearize A', 'linearize B')


@pytest.fixture(autouse=True)
def reuse_every_size(monkeypatch):
    """Reuse from 0 bytes on, the compiled path on, no buffers kept before."""
    monkeypatch.setattr(outputs, 'REUSE_FROM', 0)
    previous = fast.enable(True)
    outputs.release()
    yield
    outputs.release()
    fast.enable(previous)


@pytest.fixture(scope='module', params=[long_robots()[2]],
                ids=[long_robots()[2][0]])
def model(request):
    """Return the 16-joint tree: BLAS products, zeros off the ancestor rows."""
    return oracle_for(request.param[1])[0]


def states(model, seed, count=12):
    """Return q, qd, qdd, tau of ``count`` random states, stacked."""
    rng = np.random.default_rng(seed)
    rows = [random_state(model, rng) for _ in range(count)]
    return [np.array(column) for column in zip(*rows)]


def address(array):
    """Return where an array's data starts."""
    return array.__array_interface__['data'][0]


def test_kept_buffer_is_reused_only_when_free():
    """Held outputs get new memory; dropped ones are used again."""
    first = outputs.batch_empty('test', (3, 4))
    start = address(first)
    second = outputs.batch_empty('test', (3, 4))
    assert address(second) != start
    kept = address(second)  # the slot now holds the second buffer
    del first, second
    third = outputs.batch_empty('test', (3, 4))
    assert address(third) == kept
    row = third[1]
    del third
    newest = address(outputs.batch_empty('test', (3, 4)))
    assert newest != kept  # a view held the kept buffer
    del row
    # A smaller output fits the slot's (newest) buffer.
    assert address(outputs.batch_empty('test', (2, 5))) == newest
    # Larger than the kept buffer: new memory.
    assert outputs.batch_empty('test', (5, 5)).shape == (5, 5)


def test_small_outputs_are_plain_arrays(monkeypatch):
    """Below REUSE_FROM bytes an output owns its memory, as np.empty's do."""
    monkeypatch.setattr(outputs, 'REUSE_FROM', 1000)
    small = outputs.batch_empty('test', (10, 10))
    assert small.flags.owndata and small.shape == (10, 10)
    assert not outputs.batch_empty('test', (20, 10)).flags.owndata


def fill_slots_with_nan(model, count):
    """Leave every slot holding a free buffer full of NaN; return where."""
    n = model.nq
    shapes = {'mass_matrix': (count, n, n),
              'inverse_dynamics_derivatives': (3, count, n, n),
              'forward_dynamics_derivatives': (3, count, n, n),
              'linearize A': (count, 2 * n, 2 * n),
              'linearize B': (count, 2 * n, n)}
    starts = {}
    for slot in SLOTS:
        buffer = outputs.batch_empty(slot, shapes[slot])
        buffer.fill(np.nan)
        starts[slot] = address(buffer)
    return starts


def test_every_entry_written_into_a_reused_buffer(model):
    """Batches written over NaN-filled kept buffers equal single calls."""
    q, qd, qdd, tau = states(model, 1)
    starts = fill_slots_with_nan(model, len(q))
    M = dr.mass_matrix(model, q)
    dtau = dr.inverse_dynamics_derivatives(model, q, qd, qdd)
    dqdd = dr.forward_dynamics_derivatives(model, q, qd, tau)
    A, B = dr.linearize(model, q, qd, tau)
    assert [address(M), address(dtau[0]), address(dqdd[0]), address(A),
            address(B)] == [starts[slot] for slot in SLOTS]
    for k in range(len(q)):
        assert_close(M[k], dr.mass_matrix(model, q[k]))
        for batch, single in zip(
                dtau, dr.inverse_dynamics_derivatives(model, q[k], qd[k],
                                                      qdd[k])):
            assert_close(batch[k], single)
        for batch, single in zip(
                dqdd, dr.forward_dynamics_derivatives(model, q[k], qd[k],
                                                      tau[k])):
            assert_close(batch[k], single)
        single_A, single_B = dr.linearize(model, q[k], qd[k], tau[k])
        assert_close(A[k], single_A)
        assert_close(B[k], single_B)


def test_kept_results_are_not_written_over(model):
    """A second call while the first results are alive leaves them as they are."""
    q, qd, _, tau = states(model, 2)
    A, B = dr.linearize(model, q, qd, tau)
    A_copy, B_copy = A.copy(), B.copy()
    M = dr.mass_matrix(model, q)
    M_copy = M.copy()
    other_q, other_qd, _, other_tau = states(model, 3)
    other_A, other_B = dr.linearize(model, other_q, other_qd, other_tau)
    other_M = dr.mass_matrix(model, other_q)
    assert np.array_equal(A, A_copy) and np.array_equal(B, B_copy)
    assert np.array_equal(M, M_copy)
    assert not np.shares_memory(A, other_A)
    assert not np.shares_memory(M, other_M)
    assert_close(other_A[0], dr.linearize(model, other_q[0], other_qd[0],
                                          other_tau[0])[0])


def test_dropped_results_give_their_memory_to_the_next_call(model):
    """After del, the next batch of the same function lands in the same memory."""
    q, qd, _, tau = states(model, 4)
    A, B = dr.linearize(model, q, qd, tau)
    start = address(A)
    del A, B
    A, B = dr.linearize(model, q[::-1].copy(), qd[::-1].copy(),
                        tau[::-1].copy())
    assert address(A) == start
    assert_close(A[0], dr.linearize(model, q[-1], qd[-1], tau[-1])[0])


def test_threads_get_their_own_outputs(model):
    """Threads calling the same function at once each get their own results."""
    batches = [states(model, 10 + thread) for thread in range(4)]
    expected = [dr.linearize(model, q, qd, tau)[0].copy()
                for q, qd, _, tau in batches]
    failures = []

    def work(thread):
        q, qd, _, tau = batches[thread]
        for _ in range(20):
            A, _ = dr.linearize(model, q, qd, tau)
            if not np.array_equal(A, expected[thread]):
                failures.append(thread)

    threads = [threading.Thread(target=work, args=(thread,))
               for thread in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
