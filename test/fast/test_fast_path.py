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
The compiled fast path (dynamics_ros.fast): Pinocchio, batches, fallback.

The oracle tests run whichever path is on (the compiled one when numba is
installed); here the compiled path is held to Pinocchio on the same robots
in batches and one state at a time, the numpy reference path is held to
Pinocchio too, batches to single calls, and the package is run without
numba in a subprocess.  No timing: benchmarks/compare.py measures speed.
"""

import os
import subprocess
import sys
import warnings

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros import fast
from dynamics_ros.dynamics.aba import reference_forward_dynamics
from dynamics_ros.dynamics.bias import reference_bias_forces, \
    reference_gravity_torques
from dynamics_ros.dynamics.crba import MASS_MATRIX, reference_mass_matrix
from dynamics_ros.dynamics.rnea import INVERSE_DYNAMICS, \
    reference_inverse_dynamics
from dynamics_ros.fast import compiler, crba
from dynamics_ros.fast.compiler import direct, kernel, VECTOR
from dynamics_ros.resources import robot_urdf
import numpy as np
from oracle import example_arm_xml, EXAMPLE_ARMS, oracle_for, random_state
import pytest
from robot_sets import breadth_first, generated_robots, long_robots

pytest.importorskip('numba')

STATES = 40
ROBOTS = ([(name, None) for name in EXAMPLE_ARMS] + generated_robots()
          + long_robots())


@pytest.fixture(scope='module', params=ROBOTS, ids=[r[0] for r in ROBOTS])
def robot(request):
    """(model, oracle) for one robot of test_dynamics_oracle."""
    name, xml = request.param
    return oracle_for(xml if xml is not None else example_arm_xml(name))


@pytest.fixture(autouse=True)
def compiled_path_on():
    """Run every test with the compiled path on, whatever came before."""
    previous = fast.enable(True)
    yield
    fast.enable(previous)


def random_batch(model, seed, count=STATES):
    """Return q, qd, qdd, tau, f_ext of ``count`` random states, stacked."""
    rng = np.random.default_rng(seed)
    states = [random_state(model, rng) for _ in range(count)]
    q, qd, qdd, tau = (np.array(column) for column in zip(*states))
    return q, qd, qdd, tau, rng.normal(size=(count, model.nq, 6))


def test_numba_is_used():
    """With numba installed (requirements.txt) the compiled path is on."""
    assert fast.AVAILABLE and fast.ENABLED
    model = dr.load_urdf(robot_urdf('puma560'))
    dr.inverse_dynamics(model, np.zeros(6), np.zeros(6), np.zeros(6))
    assert model.packed_model is not None


def test_batches_match_pinocchio(robot):
    """All five functions on (N, nq) batches equal Pinocchio per state."""
    model, oracle = robot
    q, qd, qdd, tau, f_ext = random_batch(model, 1)
    results = {
        'tau': dr.inverse_dynamics(model, q, qd, qdd, f_ext),
        'M': dr.mass_matrix(model, q),
        'qdd': dr.forward_dynamics(model, q, qd, tau, f_ext),
        'g': dr.gravity_torques(model, q),
        'h': dr.bias_forces(model, q, qd),
    }
    assert results['M'].shape == (STATES, model.nq, model.nq)
    for k in range(STATES):
        expected = {
            'tau': oracle.rnea(q[k], qd[k], qdd[k], f_ext[k]),
            'M': oracle.crba(q[k]),
            'qdd': oracle.aba(q[k], qd[k], tau[k], f_ext[k]),
            'g': oracle.gravity(q[k]),
            'h': oracle.bias(q[k], qd[k]),
        }
        for name, value in expected.items():
            assert_close(results[name][k], value,
                         what='%s state %d' % (name, k))


def test_single_states_match_pinocchio(robot):
    """One state at a time, with and without external wrenches."""
    model, oracle = robot
    q, qd, qdd, tau, f_ext = random_batch(model, 2, count=5)
    for k in range(5):
        assert_close(dr.inverse_dynamics(model, q[k], qd[k], qdd[k]),
                     oracle.rnea(q[k], qd[k], qdd[k]), what='tau')
        assert_close(dr.inverse_dynamics(model, q[k], qd[k], qdd[k],
                                         f_ext[k]),
                     oracle.rnea(q[k], qd[k], qdd[k], f_ext[k]),
                     what='tau f_ext')
        assert_close(dr.mass_matrix(model, q[k]), oracle.crba(q[k]),
                     what='M')
        assert_close(dr.forward_dynamics(model, q[k], qd[k], tau[k]),
                     oracle.aba(q[k], qd[k], tau[k]), what='qdd')
        assert_close(dr.forward_dynamics(model, q[k], qd[k], tau[k],
                                         f_ext[k]),
                     oracle.aba(q[k], qd[k], tau[k], f_ext[k]),
                     what='qdd f_ext')
        assert_close(dr.gravity_torques(model, q[k]), oracle.gravity(q[k]),
                     what='g')
        assert_close(dr.bias_forces(model, q[k], qd[k]),
                     oracle.bias(q[k], qd[k]), what='h')


def test_reference_path_matches_pinocchio(robot):
    """The numpy reference functions stay correct beside the fast path."""
    model, oracle = robot
    q, qd, qdd, tau, f_ext = random_batch(model, 3, count=3)
    for k in range(3):
        assert_close(reference_inverse_dynamics(model, q[k], qd[k], qdd[k],
                                                f_ext[k]),
                     oracle.rnea(q[k], qd[k], qdd[k], f_ext[k]), what='tau')
        assert_close(reference_mass_matrix(model, q[k]), oracle.crba(q[k]),
                     what='M')
        assert_close(reference_forward_dynamics(model, q[k], qd[k], tau[k],
                                                f_ext[k]),
                     oracle.aba(q[k], qd[k], tau[k], f_ext[k]), what='qdd')
        assert_close(reference_gravity_torques(model, q[k]),
                     oracle.gravity(q[k]), what='g')
        assert_close(reference_bias_forces(model, q[k], qd[k]),
                     oracle.bias(q[k], qd[k]), what='h')


@pytest.fixture(scope='module')
def puma():
    """Return the shipped PUMA 560 and a batch of its states."""
    model = dr.load_urdf(robot_urdf('puma560'))
    return model, random_batch(model, 4, count=7)


def test_batch_equals_single_calls_and_broadcasts(puma):
    """Row k of a batch is the single call; (nq,) arguments are shared."""
    model, (q, qd, qdd, tau, f_ext) = puma
    tau_batch = dr.inverse_dynamics(model, q, qd, qdd[0], f_ext[0])
    qdd_batch = dr.forward_dynamics(model, q[2], qd, tau)
    h_batch = dr.bias_forces(model, q, qd[3])
    for k in range(len(q)):
        assert_close(tau_batch[k], dr.inverse_dynamics(
            model, q[k], qd[k], qdd[0], f_ext[0]), what='tau %d' % k)
        assert_close(qdd_batch[k], dr.forward_dynamics(
            model, q[2], qd[k], tau[k]), what='qdd %d' % k)
        assert_close(h_batch[k], dr.bias_forces(model, q[k], qd[3]),
                     what='h %d' % k)
    # The batch gives different rows for different states.
    assert np.abs(tau_batch[0] - tau_batch[1]).max() > 1e-3


@pytest.mark.parametrize('numbering', ['depth-first', 'breadth-first'])
def test_interleaved_batches_equal_single_calls(numbering):
    """
    Batches that interleave states (``fast/lanes.py``) are the single calls.

    Inverse dynamics, bias, gravity, mass matrix, forward dynamics and
    linearization batches run LANES states step by step: each state has
    its own work rows and base row.  A tree with
    prismatic joints and armature, numbered two ways (parents before or
    far from their children), and more states than two blocks hold, the
    last one partly filled; per-state and shared wrenches.
    """
    from dynamics_ros.fast.lanes import LANES
    model = dr.load_urdf(dict(generated_robots())['tree_mixed'])
    model = model.copy(armature=np.linspace(0.1, 0.4, model.nq),
                       damping=np.linspace(0.5, 2.0, model.nq))
    if numbering == 'breadth-first':
        model = breadth_first(model)[1]
    count = 2 * LANES + 5
    q, qd, qdd, tau, f_ext = random_batch(model, 8, count=count)
    tau = dr.inverse_dynamics(model, q, qd, qdd, f_ext)
    tau_shared = dr.inverse_dynamics(model, q, qd, qdd, f_ext[3])
    h = dr.bias_forces(model, q, qd)
    g = dr.gravity_torques(model, q)
    M = dr.mass_matrix(model, q)
    qdd_batch = dr.forward_dynamics(model, q, qd, tau, f_ext)
    A, B = dr.linearize(model, q, qd, tau)
    for k in range(count):
        assert_close(tau[k], dr.inverse_dynamics(model, q[k], qd[k], qdd[k],
                                                 f_ext[k]),
                     rtol=1e-14, what='tau state %d' % k)
        assert_close(tau_shared[k], dr.inverse_dynamics(
            model, q[k], qd[k], qdd[k], f_ext[3]), rtol=1e-14,
            what='tau shared wrenches state %d' % k)
        assert_close(h[k], dr.bias_forces(model, q[k], qd[k]), rtol=1e-14,
                     what='h state %d' % k)
        assert_close(g[k], dr.gravity_torques(model, q[k]), rtol=1e-14,
                     what='g state %d' % k)
        assert_close(M[k], dr.mass_matrix(model, q[k]), rtol=1e-14,
                     what='M state %d' % k)
        assert_close(qdd_batch[k], dr.forward_dynamics(
            model, q[k], qd[k], tau[k], f_ext[k]), rtol=1e-14,
            what='qdd state %d' % k)
        # 1e-12: M^-1 and dtau/dq carry the last-bit differences of the
        # batch's vector sines and fused multiply-adds further.
        A_k, B_k = dr.linearize(model, q[k], qd[k], tau[k])
        assert_close(A[k], A_k, rtol=1e-12, what='A state %d' % k)
        assert_close(B[k], B_k, rtol=1e-12, what='B state %d' % k)
    # The states differ, so a mixed-up lane could not pass unseen.
    assert np.abs(np.diff(g, axis=0)).min(axis=0).max() > 1e-6


def test_batch_shapes(puma):
    """(N, nq) in, (N, nq) or (N, nq, nq) out, for N = 0, 1 and more."""
    model, (q, qd, qdd, tau, _) = puma
    n = model.nq
    for count in (0, 1, 3):
        assert dr.inverse_dynamics(model, q[:count], qd[:count],
                                   qdd[:count]).shape == (count, n)
        assert dr.mass_matrix(model, q[:count]).shape == (count, n, n)
        assert dr.forward_dynamics(model, q[:count], qd[:count],
                                   tau[:count]).shape == (count, n)
        assert dr.gravity_torques(model, q[:count]).shape == (count, n)
        assert dr.bias_forces(model, q[:count], qd[:count]).shape == (
            count, n)
    M = dr.coriolis_matrix(model, q[:2], qd[:2])
    assert_close(M[1], dr.coriolis_matrix(model, q[1], qd[1]))


def test_any_array_like_input(puma):
    """Lists, ints, strided and read-only arrays give the same results."""
    model, (q, qd, qdd, tau, f_ext) = puma
    expected = dr.inverse_dynamics(model, q[0], qd[0], qdd[0])
    strided = np.repeat(q[0], 2)[::2]
    frozen = qd[0].copy()
    frozen.flags.writeable = False
    assert_close(dr.inverse_dynamics(model, list(q[0]), frozen, qdd[0]),
                 expected)
    assert_close(dr.inverse_dynamics(model, strided, qd[0], tuple(qdd[0])),
                 expected)
    zero = np.zeros(model.nq, dtype=int)
    assert_close(dr.gravity_torques(model, zero),
                 dr.gravity_torques(model, np.zeros(model.nq)))
    assert_close(dr.mass_matrix(model, np.asfortranarray(q)),
                 dr.mass_matrix(model, q.copy()))
    assert_close(dr.forward_dynamics(model, q[0], qd[0], tau[0],
                                     f_ext[0].tolist()),
                 dr.forward_dynamics(model, q[0], qd[0], tau[0], f_ext[0]))


class Float64View(np.ndarray):
    """An ndarray subclass: not a plain ndarray, so not the hot path's."""


def test_arrays_the_machine_code_entry_would_misread(puma):
    """
    The hot path hands the kernel's entry only plain float64 vectors.

    The entry checks just the item size: an int64 or a byte-swapped float64
    vector would be read as float64 bits.  Each such argument must give the
    result of its float64 copy, in any position, for every hot path.
    """
    model, batch = puma
    # Whole numbers: exact as int64 and float32 too.
    q, qd, qdd, tau = (np.round(column[0] * 2.0) for column in batch[:4])
    calls = [(dr.inverse_dynamics, (q, qd, qdd)),
             (dr.forward_dynamics, (q, qd, tau)),
             (dr.mass_matrix, (q,)), (dr.gravity_torques, (q,)),
             (dr.bias_forces, (q, qd)), (dr.coriolis_matrix, (q, qd))]
    for function, arguments in calls:
        expected = function(model, *arguments)
        for k in range(len(arguments)):
            for odd in (arguments[k].astype(np.int64),
                        arguments[k].astype('>f8'),
                        arguments[k].astype(np.float32),
                        arguments[k].view(Float64View),
                        arguments[k].reshape(1, -1)):
                changed = list(arguments)
                changed[k] = odd
                what = '%s, argument %d as %s %s' % (
                    function.__name__, k, type(odd).__name__, odd.dtype)
                assert_close(function(model, *changed).reshape(
                    expected.shape), expected, what=what)
    A, B = dr.linearize(model, q, qd, tau)
    for odd in (q.astype(np.int64), q.astype('>f8'), q.reshape(1, -1)):
        A_odd, B_odd = dr.linearize(model, odd, qd, tau)
        assert_close(A_odd.reshape(A.shape), A, what='A, q %s' % odd.dtype)
        assert_close(B_odd.reshape(B.shape), B, what='B, q %s' % odd.dtype)
    # The damping is the kernel's input too: a list assigned to the model.
    damped = model.copy(damping=np.full(model.nq, 2.0))
    A, B = dr.linearize(damped, q, qd, tau)
    for odd in ([2] * model.nq, np.full(model.nq, 2, dtype=np.int64),
                np.full((1, model.nq), 2.0)):
        damped.damping = odd
        for call in ('packs the model', 'finds it packed'):
            assert_close(dr.linearize(damped, q, qd, tau)[0], A,
                         what='A, damping %r, the call that %s' % (odd, call))


def test_the_hot_path_follows_the_switch(puma):
    """The hot path holds the kernel's entry only while the path is on."""
    model, (q, _, _, _, _) = puma
    expected = dr.mass_matrix(model, q[0])
    assert MASS_MATRIX.hot_kernel.one_state is \
        direct(crba.mass_matrix_kernel)
    assert MASS_MATRIX.hot_kernel.one_state is not \
        crba.mass_matrix_kernel  # no type dispatch
    fast.enable(False)
    assert MASS_MATRIX.hot_kernel is None
    assert_close(dr.mass_matrix(model, q[0]), expected)
    fast.enable(True)
    assert MASS_MATRIX.hot_kernel.one_state is \
        direct(crba.mass_matrix_kernel)


def test_direct_needs_exactly_one_signature():
    """A kernel of several overloads keeps the dispatcher that picks one."""
    import numba

    @numba.njit
    def twice(x):
        return 2 * x

    twice(1.0)
    twice(1)
    assert direct(twice) is twice
    twice_float = numba.njit('float64(float64)')(lambda x: 2 * x)
    assert direct(twice_float)(3.0) == 6.0


def test_bad_shapes_name_the_argument(puma):
    """Wrong sizes raise ValueError naming the argument, batches too."""
    model, (q, qd, qdd, tau, f_ext) = puma
    with pytest.raises(ValueError, match='qdd must have 6 values'):
        dr.inverse_dynamics(model, q[0], qd[0], qdd[0, :3])
    with pytest.raises(ValueError, match='tau'):
        dr.forward_dynamics(model, q[0], qd[0], np.zeros((2, 3)))
    with pytest.raises(ValueError, match='q must have'):
        dr.mass_matrix(model, np.zeros((2, 3, 6)))
    with pytest.raises(ValueError, match='qd has 3 samples'):
        dr.bias_forces(model, q, qd[:3])
    with pytest.raises(ValueError, match='f_ext'):
        dr.inverse_dynamics(model, q[0], qd[0], qdd[0], np.zeros((2, 6)))
    with pytest.raises(ValueError, match='f_ext'):
        dr.forward_dynamics(model, q, qd, tau, f_ext[:2])


def test_model_changes_are_seen(puma):
    """Assigning a field is seen; writing into a model array raises."""
    model, (q, _, _, _, _) = puma
    model = model.copy()
    g_earth = dr.gravity_torques(model, q[0])
    model.gravity = model.gravity / 6.0
    assert_close(dr.gravity_torques(model, q[0]), g_earth / 6.0)
    # In place, the packed copy would go stale: the arrays are read-only.
    with pytest.raises(ValueError, match='read-only'):
        model.mass[:] *= 2.0
    model.mass = model.mass * 2.0
    model.inertia_com = model.inertia_com * 2.0
    assert_close(dr.gravity_torques(model, q[0]), g_earth / 3.0)
    heavy = model.copy(armature=np.full(model.nq, 0.5))
    assert_close(dr.mass_matrix(heavy, q[0]),
                 dr.mass_matrix(model, q[0]) + 0.5 * np.eye(model.nq))


def test_any_body_numbering():
    """Subtrees that are not runs of bodies take the general CRBA loop."""
    xml = generated_robots()[0][1]
    model = dr.load_urdf(xml)
    order, shuffled = breadth_first(model)
    assert list(shuffled.parent) == [-1, -1, -1, -1, 0, 1, 3, 5]
    q, qd, qdd, tau, _ = random_batch(model, 5, count=4)
    assert_close(dr.mass_matrix(shuffled, q[:, order]),
                 dr.mass_matrix(model, q)[:, order][:, :, order])
    assert_close(dr.mass_matrix(shuffled, q[0, order]),
                 dr.mass_matrix(model, q[0])[np.ix_(order, order)])
    assert_close(dr.forward_dynamics(shuffled, q[:, order], qd[:, order],
                                     tau[:, order]),
                 dr.forward_dynamics(model, q, qd, tau)[:, order])
    assert_close(dr.inverse_dynamics(shuffled, q[:, order], qd[:, order],
                                     qdd[:, order]),
                 dr.inverse_dynamics(model, q, qd, qdd)[:, order])


def test_non_unit_revolute_axis_is_refused():
    """The packed model turns frames to the joint axis: it must be unit."""
    model = dr.load_urdf(robot_urdf('two_link_planar'))
    bent = model.copy(axis=model.axis * 2.0)
    with pytest.raises(dr.ModelError, match='axis'):
        dr.mass_matrix(bent, np.zeros(model.nq))


def test_switching_the_compiled_path_off(puma):
    """enable(False) runs the numpy reference, batches included."""
    model, (q, qd, qdd, _, _) = puma
    compiled = dr.inverse_dynamics(model, q, qd, qdd)
    assert fast.enable(False) is True
    assert not fast.ENABLED
    reference = dr.inverse_dynamics(model, q, qd, qdd)
    assert_close(reference, compiled)
    assert_close(reference[1], reference_inverse_dynamics(
        model, q[1], qd[1], qdd[1]))


def test_a_failing_kernel_module_falls_back(puma, monkeypatch):
    """A kernel module that cannot load warns and the numpy path runs."""
    model, (q, qd, qdd, _, _) = puma
    expected = reference_inverse_dynamics(model, q[0], qd[0], qdd[0])
    monkeypatch.delattr(fast, 'rnea')
    monkeypatch.delitem(sys.modules, 'dynamics_ros.fast.rnea')
    # As in a new process: the dispatch has not looked the kernel up yet.
    monkeypatch.setattr(INVERSE_DYNAMICS, '_compiled', None)
    monkeypatch.setattr(INVERSE_DYNAMICS, 'hot_kernel', None)

    def broken(name, package=None):
        raise ImportError('simulated: no LLVM here')
    monkeypatch.setattr(compiler.importlib, 'import_module', broken)
    with pytest.warns(RuntimeWarning, match='no LLVM here'):
        tau = dr.inverse_dynamics(model, q[0], qd[0], qdd[0])
    assert_close(tau, expected)
    assert not fast.ENABLED


def test_kernel_without_a_disk_cache_still_compiles():
    """No writable cache location: compiled per process, no error."""
    source = compile('def twice(x, out):\n    out[0] = 2.0 * x[0]\n',
                     '<no file: numba has nowhere to cache>', 'exec')
    namespace = {}
    exec(source, namespace)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        twice = kernel('void', VECTOR, VECTOR)(namespace['twice'])
    out = np.zeros(1)
    twice(np.array([21.0]), out)
    assert out[0] == 42.0


FALLBACK = """
import sys
sys.modules['numba'] = None  # as on a machine without numba
import numpy as np
import dynamics_ros as dr
from dynamics_ros import fast
model = dr.load_urdf(sys.argv[1])
q = np.load(sys.argv[2])
print(fast.AVAILABLE, fast.ENABLED)
np.save(sys.argv[3], np.concatenate([
    dr.inverse_dynamics(model, q, 0.5 * q, q[::-1]).ravel(),
    dr.mass_matrix(model, q).ravel(),
    dr.forward_dynamics(model, q[0], q, q).ravel(),
    dr.gravity_torques(model, q[1]), dr.bias_forces(model, q, q).ravel()]))
"""


def test_without_numba_the_numpy_path_runs(puma, tmp_path):
    """The package imports and computes (batches too) when numba is absent."""
    model, (q, _, _, _, _) = puma
    np.save(tmp_path / 'q.npy', q)
    result = subprocess.run(
        [sys.executable, '-c', FALLBACK, robot_urdf('puma560'),
         str(tmp_path / 'q.npy'), str(tmp_path / 'out.npy')],
        capture_output=True, text=True, timeout=120,
        env=dict(os.environ, PYTHONWARNINGS='ignore'))
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ['False', 'False']
    expected = np.concatenate([
        dr.inverse_dynamics(model, q, 0.5 * q, q[::-1]).ravel(),
        dr.mass_matrix(model, q).ravel(),
        dr.forward_dynamics(model, q[0], q, q).ravel(),
        dr.gravity_torques(model, q[1]), dr.bias_forces(model, q, q).ravel()])
    assert_close(np.load(tmp_path / 'out.npy'), expected)
