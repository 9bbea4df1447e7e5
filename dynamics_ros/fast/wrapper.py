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
The one Python entry of the compiled kernels, for one state or a batch.

A kernel module declares its kernels with an ``Entry`` (the one-state and
the batch kernel, the per-joint arguments, the shapes of the results) and
exports it; ``dynamics.dispatch`` loads it on first use.  Where the
arguments are (q, qd, qdd or tau) and wrenches, ``sample_entry`` makes both
kernels and the Entry from the function of one state.  Of an Entry,

1. ``one_state`` is the machine-code entry of the one-state kernel: the
   public function's hot path (``dynamics.dispatch``, the one place that
   decides what the frequent call is) calls it, or ``one_state_results``
   for an entry of several results, for one state of float64 vectors
   without wrenches or ``out``;
2. ``function`` takes any accepted arguments: it checks and converts them
   (``samples``), takes the caller's ``out`` arrays (checked) or new ones,
   and runs the one-state or the batch kernel.

Every kernel follows one convention:

- one state: ``single(table, work, *arrays, *inputs, *results)`` with
  (nq,) arrays returns DONE, BAD_SHAPES (nothing written: the arguments are
  converted and the call made again) or NOT_POSITIVE_DEFINITE;
- a batch: ``batch(table, work, *arrays, *inputs, *results)`` with (N, nq)
  arrays and stacked (N, ...) results returns -1, or the first state whose
  mass matrix is not positive definite;
- ``inputs``: the external wrenches for an entry with ``forces`` (one
  state: (nq, 6), or (0, 6) for none; a batch: (N, nq, 6), (1, nq, 6)
  shared, or (1, 0, 6) for none), else what the entry's ``inputs(model)``
  returns (``linearize``: the joint damping).
"""

import numpy as np

from .compiler import compiled, direct, INPUT_MATRIX, INPUT_VECTOR, kernel, MATRIX, \
    STACK, VECTOR
from .packing import packed
from .samples import outputs, samples, wrenches

# What one-state kernels return.
DONE = 0
BAD_SHAPES = 1
NOT_POSITIVE_DEFINITE = 2
# No external wrenches in one state (the hot path passes it as is).
NO_FORCES = np.zeros((0, 6))


def no_inputs(model):
    """Return the inputs of an entry that takes nothing but the arrays."""
    return ()


class Entry:
    """
    A compiled quantity: its kernels, arguments and result shapes.

    ``results`` gives each result's shape in multiples of nq: ``(1,)`` a
    vector, ``(1, 1)`` an (nq, nq) matrix, ``(2, 1)`` (2 nq, nq).
    ``inputs(model)`` returns the inputs after the arrays of an entry
    without ``forces``.
    """

    def __init__(self, single, batch, arguments, results, forces=False,
                 inputs=no_inputs):
        """Describe the kernels; ``function`` is what dispatch calls."""
        self.single = single
        self.batch = batch
        self.arguments = tuple(arguments)
        self.results = tuple(tuple(shape) for shape in results)
        self.forces = forces
        self.inputs = no_forces if forces else inputs
        # The shapes of one state's results, per nq (one_state_results).
        self.one_state_shapes = {}
        # The one-state kernel's machine-code entry: ``dynamics.dispatch``
        # calls it itself for the frequent call, else ``function``.
        self.one_state = direct(single)
        if len(self.results) == 1 and self.results[0] in ((1,), (1, 1)):
            self.function = self.call
        elif len(self.arguments) == 3:
            self.function = results_tuple(self, self.results[0] == (1,))
        else:
            raise ValueError('no entry point for %d arguments and results %s'
                             % (len(self.arguments), self.results))

    def shapes(self, n, size):
        """Return the shapes of the results for nq = n and N = size."""
        batch = () if size is None else (size,)
        return [batch + tuple(k * n for k in shape)
                for shape in self.results]

    def one_state_results(self, model, pack, a, b, c):
        """
        Return the results of one state of float64 vectors; None: failed.

        The hot path's call (``dynamics.dispatch``) for an entry of three
        per-joint arguments, once it has checked the arguments and found
        the model packed (``pack``, a PackedModel).  None when the kernel
        did not finish (bad sizes, M not positive definite): the caller
        then takes the general path, which says why.
        """
        n = pack.nq
        try:
            shapes = self.one_state_shapes[n]
        except KeyError:  # the first call for this n
            shapes = self.one_state_shapes[n] = self.shapes(n, None)
        results = tuple(map(np.empty, shapes))
        if self.one_state(pack.table, pack.work, a, b, c,
                          *self.inputs(model), *results):
            return None
        return results if len(results) > 1 else results[0]

    def call(self, model, *arguments, out=None):
        """
        Evaluate any accepted arguments: the per-joint arrays, then f_ext.

        f_ext (None for none) comes last for an entry with ``forces``.
        """
        if self.forces:
            return self.general(model, arguments[:-1], arguments[-1], out)
        return self.general(model, arguments, None, out)

    def general(self, model, arrays, f_ext, out):
        """
        Evaluate any accepted arguments; the results, ``out`` if given.

        Raises ValueError naming a bad argument or ``out``, and the numpy
        path's ModelError for a state whose M is not positive definite.
        """
        pack = packed(model)
        table, work, n = pack.table, pack.work, pack.nq
        arrays, size = samples(model, self.arguments, arrays)
        if self.forces:
            inputs = (wrenches(model, f_ext, size),)
        else:
            inputs = self.inputs(model)
        results = outputs(out, self.shapes(n, size))
        if size is None:
            failed = -1 if self.single(
                table, work, *arrays, *inputs, *results) == DONE else None
        else:
            failed = self.batch(table, work, *arrays, *inputs, *results)
        if failed != -1:
            from ..model.massless import singular_inertia_error
            raise singular_inertia_error(model, failed)
        return results[0] if len(results) == 1 else tuple(results)


def no_forces(model):
    """Return the inputs of one state without external wrenches."""
    return NO_FORCES,


def results_tuple(entry, vector):
    """
    Entry point of three per-joint arguments and any results.

    Several results (Jacobians, A and B), or one of another shape than
    (nq,) or (nq, nq) (the regressor); with f_ext if the entry takes
    ``forces``.  The frequent call does not come here: the public
    function's hot path (``dynamics.dispatch``) calls
    ``Entry.one_state_results``.
    """
    general = entry.general

    def run(model, a, b, c, f_ext=None, out=None):
        if f_ext is not None and not entry.forces:
            raise TypeError('this function takes no external wrenches')
        return general(model, (a, b, c), f_ext, out)
    return run


@compiled
def shapes_fit(table, work, q, qd, third, f_ext):
    """Return True if one state's arrays fit the packed model."""
    n = table.shape[0] - 1
    return (q.size == qd.size == third.size == n and work.shape[0] == n + 2
            and f_ext.shape[0] in (0, n) and f_ext.shape[1] == 6)


@compiled(inline=True)
def state_wrench(f_ext, k):
    """Return the wrenches of state ``k`` of a batch: (N, nq, 6) or shared."""
    return f_ext[min(k, f_ext.shape[0] - 1)]


def sample_entry(name, sample, arguments, results, scratch=None,
                 lanes=None):
    """
    Return the Entry of three per-joint arguments and f_ext, from a sample.

    ``sample`` computes one state.  With one result, a vector:
    ``sample(table, a, b, c, f_ext, result, work)``.  With three (nq, nq)
    results: ``sample(table, a, b, c, f_ext, r, s, t, work,
    scratch(nq))``, True, or False if the mass matrix is not positive
    definite.  The one-state kernel checks every shape and calls the
    sample once; the batch kernel calls it per state (the scratch made
    once), or, given ``lanes(table, a, b, c, f_ext, result)`` (one
    vector result), runs that on the whole batch (``fast/lanes.py``).
    ``name`` names the kernels, and so their files in numba's disk
    cache.  The arguments are passed one by one, not as ``*args``: numba
    counts references to arrays gathered in a tuple (4 % of a batch of
    inverse dynamics).
    """
    if results == ((1,),):
        def single(table, work, a, b, c, f_ext, r):
            # Written out: through ``shapes_fit``, inlined or not, a
            # 7-joint inverse dynamics took 3 % longer.
            n = table.shape[0] - 1
            if not (a.size == b.size == c.size == r.size == n
                    and f_ext.shape[0] in (0, n) and f_ext.shape[1] == 6
                    and work.shape[0] == n + 2):
                return BAD_SHAPES
            sample(table, a, b, c, f_ext, r, work)
            return DONE

        def batch(table, work, a, b, c, f_ext, r):
            if lanes is not None:
                lanes(table, a, b, c, f_ext, r)
                return -1
            for k in range(a.shape[0]):
                sample(table, a[k], b[k], c[k], state_wrench(f_ext, k), r[k],
                       work)
            return -1
        result = VECTOR
    elif results == ((1, 1),) * 3:
        def single(table, work, a, b, c, f_ext, r, s, t):
            n = table.shape[0] - 1
            if not (shapes_fit(table, work, a, b, c, f_ext)
                    and r.shape == s.shape == t.shape == (n, n)):
                return BAD_SHAPES
            if sample(table, a, b, c, f_ext, r, s, t, work, scratch(a.size)):
                return DONE
            return NOT_POSITIVE_DEFINITE

        def batch(table, work, a, b, c, f_ext, r, s, t):
            extra = scratch(a.shape[1])
            for k in range(a.shape[0]):
                if not sample(table, a[k], b[k], c[k], state_wrench(f_ext, k),
                              r[k], s[k], t[k], work, extra):
                    return k
            return -1
        result = MATRIX
    else:
        raise ValueError('no kernels for results %s' % (results,))
    single.__name__ = single.__qualname__ = name + '_kernel'
    batch.__name__ = batch.__qualname__ = name + '_batch'
    count = len(results)
    single = kernel('int64', MATRIX, MATRIX, INPUT_VECTOR, INPUT_VECTOR,
                    INPUT_VECTOR, MATRIX, *(result,) * count)(single)
    batch = kernel('int64', MATRIX, MATRIX, INPUT_MATRIX, INPUT_MATRIX,
                   INPUT_MATRIX, STACK,
                   *(MATRIX if result == VECTOR else STACK,) * count)(batch)
    return Entry(single, batch, arguments, results, forces=True)
