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
``out=``: batch results written into the caller's arrays.

Every public batch function takes ``out`` (an array, or a tuple of arrays
for several results): the results are written there and returned, equal
to those of a call without ``out``; every entry is written (the arrays are
NaN-filled first); a wrong shape, dtype or layout is refused before
anything is computed; without ``out`` two calls never share memory.  On
the compiled path, the numpy path and for a MimicModel.
"""

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros import fast
from dynamics_ros.model.mimic_model import MimicModel
import numpy as np
from oracle import example_arm_xml, oracle_for, random_state
import pytest

COUNT = 5


@pytest.fixture(params=[True, False], ids=['compiled', 'numpy'])
def path(request):
    """Run a test on the compiled path and on the numpy path."""
    if request.param and not fast.AVAILABLE:
        pytest.skip('numba is not installed')
    previous = fast.enable(request.param)
    yield request.param
    fast.enable(previous)


@pytest.fixture(scope='module')
def panda():
    """Return the Panda model."""
    return oracle_for(example_arm_xml('panda'))[0]


def states(model, seed, count=COUNT):
    """Return q, qd, qdd, tau of ``count`` random states, stacked."""
    rng = np.random.default_rng(seed)
    rows = [random_state(model, rng) for _ in range(count)]
    return [np.array(column) for column in zip(*rows)]


def calls(model, q, qd, qdd, tau):
    """Return {name: (function of out, number of results)}."""
    return {
        'inverse_dynamics': (lambda out=None: dr.inverse_dynamics(
            model, q, qd, qdd, out=out), 1),
        'forward_dynamics': (lambda out=None: dr.forward_dynamics(
            model, q, qd, tau, out=out), 1),
        'mass_matrix': (lambda out=None: dr.mass_matrix(model, q, out=out),
                        1),
        'gravity_torques': (lambda out=None: dr.gravity_torques(
            model, q, out=out), 1),
        'bias_forces': (lambda out=None: dr.bias_forces(
            model, q, qd, out=out), 1),
        'coriolis_matrix': (lambda out=None: dr.coriolis_matrix(
            model, q, qd, out=out), 1),
        'inverse_dynamics_derivatives': (
            lambda out=None: dr.inverse_dynamics_derivatives(
                model, q, qd, qdd, out=out), 3),
        'forward_dynamics_derivatives': (
            lambda out=None: dr.forward_dynamics_derivatives(
                model, q, qd, tau, out=out), 3),
        'linearize': (lambda out=None: dr.linearize(
            model, q, qd, tau, out=out), 2),
    }


def nan_like(result):
    """Return NaN-filled arrays shaped like a result (or each of a tuple)."""
    if isinstance(result, tuple):
        return tuple(np.full(np.shape(part), np.nan) for part in result)
    return np.full(np.shape(result), np.nan)


def parts(result):
    """Return a result's arrays as a tuple."""
    return result if isinstance(result, tuple) else (result,)


@pytest.mark.parametrize('batch', [True, False], ids=['batch', 'one state'])
def test_results_are_written_into_out(panda, path, batch):
    """Every function fills every entry of ``out`` and returns it."""
    q, qd, qdd, tau = states(panda, 1)
    if not batch:
        q, qd, qdd, tau = q[0], qd[0], qdd[0], tau[0]
    for name, (call, count) in calls(panda, q, qd, qdd, tau).items():
        expected = call()
        assert len(parts(expected)) == count
        out = nan_like(expected)
        returned = call(out)
        for given, got, want in zip(parts(out), parts(returned),
                                    parts(expected)):
            assert got is given, name
            assert np.all(np.isfinite(given)), name
            assert_close(given, want, what=name)


def test_out_on_a_mimic_model(path):
    """A MimicModel's results (in independent coordinates) go to ``out``."""
    arm = oracle_for(example_arm_xml('panda'))[0]
    model = MimicModel(arm, {'panda_joint7': ('panda_joint5', -0.5, 0.1)})
    rng = np.random.default_rng(2)
    q, qd, qdd, tau = rng.uniform(-1.0, 1.0, (4, COUNT, model.nq))
    for name, (call, _) in calls(model, q, qd, qdd, tau).items():
        expected = call()
        out = nan_like(expected)
        call(out)
        for given, want in zip(parts(out), parts(expected)):
            assert_close(given, want, what=name)


def test_linearize_discrete_into_out(panda, path):
    """``linearize(dt=...)`` writes the discrete (A, B) into ``out``."""
    q, qd, _, tau = states(panda, 3)
    A, B = dr.linearize(panda, q, qd, tau, dt=0.01)
    out = (np.empty_like(A), np.empty_like(B))
    assert dr.linearize(panda, q, qd, tau, dt=0.01, out=out) == out
    assert_close(out[0], A)
    assert_close(out[1], B)


@pytest.mark.parametrize('bad, reason', [
    (lambda shape: np.empty(shape[:-1] + (shape[-1] + 1,)), 'shape'),
    (lambda shape: np.empty(shape, dtype=np.float32), 'float32'),
    (lambda shape: np.empty(shape[::-1]).T, 'not contiguous'),
    (lambda shape: np.zeros(shape).tolist(), 'numpy array'),
], ids=['shape', 'dtype', 'layout', 'list'])
def test_a_wrong_out_is_refused(panda, path, bad, reason):
    """A wrong ``out`` raises ValueError naming it, and is not written."""
    q, qd, qdd, _ = states(panda, 4)
    out = bad((COUNT, panda.nq, panda.nq))
    with pytest.raises(ValueError, match='out') as error:
        dr.mass_matrix(panda, q, out=out)
    assert reason in str(error.value) or reason == 'shape'
    assert '(%d, 7, 7)' % COUNT in str(error.value) or reason == 'numpy array'
    with pytest.raises(ValueError, match=r'out\[1\]'):
        M = np.empty((COUNT, 7, 7))
        dr.inverse_dynamics_derivatives(
            panda, q, qd, qdd, out=(M, bad(M.shape), np.empty_like(M)))


def test_out_needs_one_array_per_result(panda, path):
    """Several results need as many arrays, not overlapping."""
    q, qd, _, tau = states(panda, 5)
    A = np.empty((COUNT, 14, 14))
    with pytest.raises(ValueError, match='tuple of 2'):
        dr.linearize(panda, q, qd, tau, out=A)
    M = np.empty((COUNT, 7, 7))
    with pytest.raises(ValueError, match='overlaps'):
        dr.forward_dynamics_derivatives(panda, q, qd, tau, out=(M, M, M))


def test_without_out_calls_share_no_memory(panda, path):
    """Results of two calls without ``out`` are separate arrays."""
    q, qd, qdd, tau = states(panda, 6)
    first = calls(panda, q, qd, qdd, tau)
    kept = {name: tuple(part.copy() for part in parts(call()))
            for name, (call, _) in first.items()}
    held = {name: parts(call()) for name, (call, _) in first.items()}
    q2, qd2, qdd2, tau2 = states(panda, 7)
    second = {name: parts(call()) for name, (call, _) in
              calls(panda, q2, qd2, qdd2, tau2).items()}
    for name in first:
        for old, copy, new in zip(held[name], kept[name], second[name]):
            assert not np.shares_memory(old, new), name
            assert np.array_equal(old, copy), name
            assert not np.allclose(old, new), name
