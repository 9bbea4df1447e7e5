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
The one dispatch of every public dynamics function.

Each public function names an ``Operation``: its numpy reference for one
state, its compiled counterpart in ``dynamics_ros.fast`` and its per-joint
arguments.  ``dispatch`` then picks, in this order:

1. a ``MimicModel``: the operation in independent coordinates, either its
   own ``coupled`` function or the generic map through q_tree = G q +
   offset (arguments) and G^T x, G^T X G (results, virtual work);
2. the compiled kernel, when numba is installed and the path is on;
3. the numpy reference, state by state for a batch.

In front of that, each public function with a one-state kernel has a hot
path (``hot_path_q``, ``hot_path_q_qd``, ``hot_path_state_and_forces``,
``hot_path_linearize``, ``hot_path_results_and_forces``,
``hot_path_results``): the frequent call (see ``FLOAT64`` below) straight
to the kernel's machine-code entry, anything else to the public function.
These are written out, one per argument shape, as plain functions a
debugger steps into; their bodies are alike on purpose (a duplicates check
lists them), since one generic hot path taking ``*args`` or calling a
shared test costs 15 % of a 7-joint inverse dynamics.  A change of the
frequent call's conditions is made in every one of them.
"""

import functools

import numpy as np
from numpy import empty, ndarray

from .. import fast
from ..fast.samples import deliver, per_sample, samples
from ..fast.wrapper import Entry, NO_FORCES
from ..model.massless import refuse_massless
from ..model.mimic_model import MimicModel
from ..model.robot_model import RobotModel

# How a result maps to independent coordinates.
TORQUE = 'torque'    # (nq,): G^T tau
MATRIX = 'matrix'    # (nq, nq): G^T X G
ROWS = 'rows'        # (nq, p): G^T Y, a regressor's rows (per joint)
# Every Operation: ``fast.enable`` arms or disarms their hot paths.
OPERATIONS = []


class Operation:
    """
    A public dynamics function: where its implementations are.

    - ``reference``: the numpy function of one state of a RobotModel (of a
      whole batch when ``batched``);
    - ``kernel``: 'module.function' of its compiled form in
      ``dynamics_ros.fast`` (None: numpy only), loaded on first use;
    - ``arguments``: names of the per-joint arguments, in call order;
    - ``results``: TORQUE or MATRIX per returned array (how it maps to
      independent coordinates);
    - ``forces``: takes ``f_ext`` (per-body wrenches) last;
    - ``coupled``: its own MimicModel version, where the generic map does
      not apply (forward dynamics: ABA cannot follow a coupling);
    - ``inverts_inertia``: refuse a model whose M is singular at every q.
    """

    def __init__(self, reference, kernel, arguments, results, forces=False,
                 coupled=None, batched=False, inverts_inertia=False):
        """Describe an operation; nothing is loaded yet."""
        self.reference = reference
        self.kernel = kernel
        self.arguments = tuple(arguments)
        self.results = tuple(results)
        self.forces = forces
        self.coupled = coupled
        self.batched = batched
        self.inverts_inertia = inverts_inertia
        # Loaded on first use: the compiled function and its Entry (None
        # for a plain function); ``hot``: the public function's hot path.
        self._compiled = self.entry = self.hot = None
        OPERATIONS.append(self)

    def compiled(self):
        """
        Return the compiled function (raises fast.Unavailable).

        A kernel module exports a ``fast.wrapper.Entry`` (its ``function``
        takes any arguments, ``one_state`` is the hot path's call) or, for a
        quantity without one-state kernels, a plain function.
        """
        if self._compiled is None:
            module, name = self.kernel.split('.')
            loaded = getattr(getattr(fast, module), name)
            self.entry = loaded if isinstance(loaded, Entry) else None
            self._compiled = getattr(loaded, 'function', loaded)
            self.arm()
        return self._compiled

    def arm(self):
        """Give the hot path the Entry while the compiled path is on."""
        if self.hot is not None:
            self.hot.arm(self.entry if fast.ENABLED else None)

    @property
    def hot_kernel(self):
        """Return the Entry the hot path calls (None: it calls nothing)."""
        return None if self.hot is None else self.hot.entry()

    @hot_kernel.setter
    def hot_kernel(self, entry):
        self.hot.arm(entry)

    def public(self, function):
        """
        Decorate the public ``function`` with the compiled call in front.

        ``function`` itself calls ``dispatch`` (the whole decision); the
        hot path in front only takes its most frequent outcome, the
        frequent call below, because one more Python call costs 15 % of a
        7-joint inverse dynamics.  It falls back to ``function`` for
        anything else.
        """
        make = hot_path_maker(self)
        if make is None:
            return function
        self.hot = make(function, self.inverts_inertia)
        return functools.update_wrapper(self.hot.run, function)


def hot_path_maker(operation):
    """
    Return the maker of ``operation``'s hot path, by argument shape.

    None for an operation without a one-state kernel (a batched one, or
    numpy only).
    """
    if operation.batched or operation.kernel is None:
        return None
    count, forces = len(operation.arguments), operation.forces
    if len(operation.results) == 1 and operation.results[0] != ROWS:
        one_result = {(1, False): hot_path_q, (2, False): hot_path_q_qd,
                      (3, True): hot_path_state_and_forces}
        return one_result[count, forces]
    if operation.results == (MATRIX, MATRIX) and not forces:
        return hot_path_linearize
    if forces:
        return hot_path_results_and_forces
    return hot_path_results


def evaluate(operation, model, arrays, f_ext=None, out=None):
    """
    Run ``operation`` on a RobotModel: compiled if possible, else numpy.

    ``out`` (arrays for the results) goes to the compiled function, which
    writes into it; the numpy path copies its results there.
    """
    extra = (f_ext,) if operation.forces else ()
    if fast.ENABLED and operation.kernel is not None:
        try:
            compiled = operation._compiled or operation.compiled()
            if out is None:
                return compiled(model, *arrays, *extra)
            return compiled(model, *arrays, *extra, out=out)
        except fast.Unavailable:
            pass
    if operation.batched:
        return deliver(out, operation.reference(model, *arrays, *extra))
    return deliver(out, per_sample(operation.reference, model,
                                   operation.arguments, arrays, f_ext,
                                   forces=operation.forces))


# The frequent call, decided here and nowhere else: one state of float64
# vectors on a plain RobotModel that is already packed, without f_ext,
# ``out`` or ``dt``, and for an operation that inverts M a model known to
# have no massless joint.  Its hot path calls the one-state kernel's
# machine-code entry (``fast.compiler.direct``) in one Python frame;
# anything else goes to the public function's own body (``dispatch``).
# One hot path is written out per argument shape below, their tests
# alike: a call with *args, or the test in a helper function, costs 15 %
# of a 7-joint inverse dynamics.  The float64 and ndim tests are what the
# machine-code entry does not check itself.  The kernel is a variable of
# the hot path's closure, set by ``arm`` (an attribute look-up and a test
# of fast.ENABLED per call cost 6 % of a 7-joint mass matrix).  ``out`` is
# a positional parameter here (a keyword-only one costs a dictionary
# look-up per call); the public functions' own signatures make it
# keyword-only.
FLOAT64 = np.dtype(np.float64)


class HotPath:
    """A public function's hot path: ``run``, and what arms it."""

    def __init__(self, run, arm, entry):
        """Keep the three closures of a hot path maker."""
        self.run = run
        self.arm = arm      # arm(Entry or None)
        self.entry = entry  # entry(): the armed Entry


def hot_path_q(function, inverts_inertia):
    """Hot path of one argument (q) and one vector or (nq, nq) result."""
    entry = single = None
    square = False

    def run(model, q, out=None):
        if single is not None and out is None and \
                isinstance(model, RobotModel) and \
                ndarray is q.__class__ and FLOAT64 is q.dtype and \
                q.ndim == 1:
            pack = model.packed_model
            if pack is not None:
                n = pack.nq
                result = empty((n, n)) if square else empty(n)
                if not single(pack.table, pack.work, q, result):
                    return result
        return function(model, q, out=out)

    def arm(kernel):
        nonlocal entry, single, square
        entry, single, square = armed(kernel)

    return HotPath(run, arm, lambda: entry)


def hot_path_q_qd(function, inverts_inertia):
    """Hot path of (q, qd) and one vector or (nq, nq) result."""
    entry = single = None
    square = False

    def run(model, q, qd, out=None):
        if single is not None and out is None and \
                isinstance(model, RobotModel) and \
                ndarray is q.__class__ is qd.__class__ and \
                FLOAT64 is q.dtype is qd.dtype and q.ndim == qd.ndim == 1:
            pack = model.packed_model
            if pack is not None:
                n = pack.nq
                result = empty((n, n)) if square else empty(n)
                if not single(pack.table, pack.work, q, qd, result):
                    return result
        return function(model, q, qd, out=out)

    def arm(kernel):
        nonlocal entry, single, square
        entry, single, square = armed(kernel)

    return HotPath(run, arm, lambda: entry)


def hot_path_state_and_forces(function, inverts_inertia):
    """
    Hot path of (q, qd, qdd or tau), f_ext and one vector result.

    Inverse and forward dynamics; the latter (``inverts_inertia``) only
    for a model already known to have no massless joint.
    """
    entry = single = None
    square = False

    def run(model, q, qd, third, f_ext=None, out=None):
        if single is not None and f_ext is None and out is None and \
                isinstance(model, RobotModel) and \
                ndarray is q.__class__ is qd.__class__ is third.__class__ \
                and FLOAT64 is q.dtype is qd.dtype is third.dtype and \
                q.ndim == qd.ndim == third.ndim == 1 and \
                (not inverts_inertia or
                 model.massless_joints_found == []):
            pack = model.packed_model
            if pack is not None:
                result = empty(pack.nq)
                if not single(pack.table, pack.work, q, qd, third, NO_FORCES,
                              result):
                    return result
        return function(model, q, qd, third, f_ext, out=out)

    def arm(kernel):
        nonlocal entry, single, square
        entry, single, square = armed(kernel)

    return HotPath(run, arm, lambda: entry)


def hot_path_linearize(function, inverts_inertia):
    """
    Hot path of ``linearize``: (A, B) of (q, qd, tau) without ``dt``.

    Its kernel takes the joint damping after the (no) wrenches, checked
    as the arguments are.
    """
    entry = single = None

    def run(model, q, qd, tau, dt=None, out=None):
        if single is not None and dt is None and out is None and \
                isinstance(model, RobotModel) and \
                model.massless_joints_found == []:
            damping = model.damping
            if ndarray is q.__class__ is qd.__class__ is tau.__class__ \
                    is damping.__class__ and \
                    FLOAT64 is q.dtype is qd.dtype is tau.dtype \
                    is damping.dtype and \
                    q.ndim == qd.ndim == tau.ndim == damping.ndim == 1:
                pack = model.packed_model
                if pack is not None:
                    n = pack.nq
                    A = empty((2 * n, 2 * n))
                    B = empty((2 * n, n))
                    if not single(pack.table, pack.work, q, qd, tau,
                                  NO_FORCES, damping, A, B):
                        return A, B
        return function(model, q, qd, tau, dt, out=out)

    def arm(kernel):
        nonlocal entry, single
        entry, single, _ = armed(kernel)

    return HotPath(run, arm, lambda: entry)


def hot_path_results_and_forces(function, inverts_inertia):
    """
    Hot path of (q, qd, qdd or tau), f_ext and several results.

    The derivatives: the Entry allocates its results
    (``Entry.one_state_results``).
    """
    entry = None

    def run(model, q, qd, third, f_ext=None, out=None):
        if entry is not None and f_ext is None and out is None and \
                isinstance(model, RobotModel) and \
                ndarray is q.__class__ is qd.__class__ is third.__class__ \
                and FLOAT64 is q.dtype is qd.dtype is third.dtype and \
                q.ndim == qd.ndim == third.ndim == 1 and \
                (not inverts_inertia or
                 model.massless_joints_found == []):
            pack = model.packed_model
            if pack is not None:
                results = entry.one_state_results(model, pack, q, qd, third)
                if results is not None:
                    return results
        return function(model, q, qd, third, f_ext, out=out)

    def arm(kernel):
        nonlocal entry
        entry = kernel

    return HotPath(run, arm, lambda: entry)


def hot_path_results(function, inverts_inertia):
    """Hot path of (q, qd, qdd) and a result of its own shape (regressor)."""
    entry = None

    def run(model, q, qd, qdd):
        if entry is not None and isinstance(model, RobotModel) and \
                ndarray is q.__class__ is qd.__class__ is qdd.__class__ \
                and FLOAT64 is q.dtype is qd.dtype is qdd.dtype and \
                q.ndim == qd.ndim == qdd.ndim == 1:
            pack = model.packed_model
            if pack is not None:
                results = entry.one_state_results(model, pack, q, qd, qdd)
                if results is not None:
                    return results
        return function(model, q, qd, qdd)

    def arm(kernel):
        nonlocal entry
        entry = kernel

    return HotPath(run, arm, lambda: entry)


def armed(entry):
    """
    Return (entry, its one-state entry point, whether it returns a matrix).

    (None, None, False) for no Entry: the hot path then calls nothing.
    """
    if entry is None:
        return None, None, False
    return entry, entry.one_state, entry.results == ((1, 1),)


def switched(enabled):
    """Arm or disarm every hot path when the compiled path is switched."""
    for operation in OPERATIONS:
        operation.arm()


fast.SWITCHED.append(switched)


def tree_arguments(model, names, arrays):
    """
    Independent-coordinate arguments of a MimicModel as tree arguments.

    ``q`` maps to G q + offset, every other per-joint argument (velocity,
    acceleration) to G x.  Shapes are checked against the independent
    coordinates first, so errors name the joints a user gives.
    """
    arrays, size = samples(model, names, arrays)
    expanded = []
    for name, array in zip(names, arrays):
        if name == 'q':
            expanded.append(model.full_positions(array))
        else:
            expanded.append(model.full_velocities(array))
    return expanded


def project(model, kind, value):
    """Map a tree result to independent coordinates (virtual work)."""
    G = model.G
    if kind == TORQUE:
        return value @ G
    if kind == ROWS:  # (..., nq_tree, p) -> (..., nq, p)
        return np.swapaxes(np.swapaxes(value, -1, -2) @ G, -1, -2)
    return G.T @ value @ G


def dispatch(operation, model, arrays, f_ext=None, out=None):
    """
    Evaluate ``operation`` for any model: the one place that decides.

    The frequent case, one compiled call on a plain model, is inlined in
    front of the public function by ``Operation.public``; this is the rest.
    ``out``: arrays the results are written into (and returned), checked
    (shape, float64, C order) before anything is computed on the compiled
    path.
    """
    if operation.inverts_inertia:
        refuse_massless(model)   # cached on the model: a look-up
    if isinstance(model, MimicModel):
        return deliver(out, dispatch_coupled(operation, model, arrays, f_ext))
    return evaluate(operation, model, arrays, f_ext, out)


def dispatch_coupled(operation, model, arrays, f_ext=None):
    """Evaluate ``operation`` on a MimicModel, in independent coordinates."""
    if operation.coupled is not None:
        return operation.coupled(model, *arrays,
                                 *((f_ext,) if operation.forces else ()))
    result = evaluate(operation, model.tree, tree_arguments(
        model, operation.arguments, arrays), f_ext)
    if len(operation.results) == 1:
        return project(model, operation.results[0], result)
    return tuple(project(model, kind, part)
                 for kind, part in zip(operation.results, result))
