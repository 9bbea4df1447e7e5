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
"""

import functools

import numpy as np
from numpy import ndarray

from .. import fast
from ..fast.samples import deliver, per_sample, samples
from ..fast.wrapper import NO_FORCES
from ..model.massless import refuse_massless
from ..model.mimic_model import MimicModel
from ..model.robot_model import DERIVED_CACHE, RobotModel

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
        # Loaded on first use: the compiled function, its one-state kernel
        # (``single``) and the namespace of the hot path that calls it.
        self._compiled = self.single = self.hot_scope = None
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
            self.single = getattr(loaded, 'one_state', None)
            self._compiled = getattr(loaded, 'function', loaded)
            self.arm()
        return self._compiled

    def arm(self):
        """Give the hot path the loaded kernel while the compiled path is on."""
        if self.hot_scope is not None:
            self.hot_scope['single'] = self.single if fast.ENABLED else None

    def public(self, function):
        """
        Decorate the public ``function`` with the compiled call in front.

        ``function`` itself calls ``dispatch`` (the whole decision); the
        wrapper only inlines its most frequent outcome, a plain RobotModel
        on the compiled path, because one more Python call costs 15 % of a
        7-joint inverse dynamics.  It falls back to ``function`` for
        anything else.
        """
        if self.inverts_inertia and not self.forces or \
                (len(self.arguments), self.forces) in ONE_STATE_CALLS and \
                len(self.results) == 1:
            run = hot_path(self, function)
        elif (len(self.arguments), self.forces) == (3, True):
            run = hot_path_3_results(self, function)
        else:
            run = no_hot_path(self, function)
        return functools.update_wrapper(run, function)


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


# The frequent call: one state of float64 vectors on a plain RobotModel,
# without f_ext or ``out``, straight to the one-state kernel.  A hot path
# tests exactly that and calls the kernel's machine-code entry
# (``fast.compiler.direct``) in one Python frame; anything else goes to the
# public function's own body.  The test and the call are written out for
# each number of arguments (a call with *args costs 15 % of a 7-joint
# inverse dynamics), from this one template, as the standard library's
# dataclasses writes ``__init__``.  The float64 and ndim tests are what the
# machine-code entry does not check itself.  ``single`` is a global of the
# hot path's own namespace, set by ``Operation.arm`` (an attribute look-up
# and a test of fast.ENABLED per call cost 6 % of a 7-joint mass matrix).
# ``out`` is a positional parameter here (a keyword-only one costs a
# dictionary look-up per call); the public functions' own signatures make
# it keyword-only.
HOT_PATH = """
def run(model, {parameters}):
    if single is not None and model.__class__ is RobotModel and \\
            {plain}ndarray is {classes} and \\
            FLOAT64 is {dtypes} and {dimensions} == 1:
        try:
            table, work, n = model._packed_model
        except (AttributeError, TypeError):  # not packed yet
            pass
        else:
            {allocate}
            if not single(table, work, {kernel_arguments}):
                return {results}
    return function(model, {arrays}, {passed})
"""
FLOAT64 = np.dtype(np.float64)
# (number of per-joint arguments, forces) of the operations that have one.
ONE_STATE_CALLS = ((1, False), (2, False), (3, True))


def hot_path(operation, function):
    """
    Return the public function with the one-state compiled call in front.

    Its ``single`` is None until the first call through ``dispatch`` loads
    the kernel (and stays None for a numpy-only operation or while the
    compiled path is off).  An operation that inverts M takes the hot path
    only for a model already known to have no massless joint.  Two kinds:
    one vector or (nq, nq) matrix of one to three per-joint arguments (and
    no f_ext), and ``linearize``: (A, B) of (q, qd, tau) without ``dt``,
    its kernel taking the joint damping after the (no) wrenches, checked
    as the arguments are.
    """
    names = ['a', 'b', 'c'][:len(operation.arguments)]
    arrays = ', '.join(names)
    checked = list(names)
    plain = 'out is None and '
    if operation.inverts_inertia:
        plain += 'model.__dict__.get(DERIVED_CACHE) == [] and '
    if operation.forces:
        fields = dict(parameters=arrays + ', f_ext=None, out=None',
                      passed='f_ext, out=out')
        plain = 'f_ext is None and ' + plain
    else:
        fields = dict(parameters=arrays + ', out=None', passed='out=out')
    if len(operation.results) == 1:
        fields.update(
            allocate='result = empty(%s)' % (
                'n' if operation.results == (TORQUE,) else '(n, n)'),
            kernel_arguments=arrays + (', NO_FORCES' if operation.forces
                                       else '') + ', result',
            results='result')
    else:   # linearize
        checked.append('model.damping')
        plain = 'dt is None and ' + plain
        fields.update(
            parameters=arrays + ', dt=None, out=None',
            passed='dt, out=out',
            allocate='A = empty((2 * n, 2 * n))\n            '
                     'B = empty((2 * n, n))',
            kernel_arguments=arrays + ', NO_FORCES, model.damping, A, B',
            results='A, B')
    source = HOT_PATH.format(
        arrays=arrays, plain=plain,
        classes=' is '.join(name + '.__class__' for name in checked),
        dtypes=' is '.join(name + '.dtype' for name in checked),
        dimensions=' == '.join(name + '.ndim' for name in checked),
        **fields)
    operation.hot_scope = dict(
        single=None, function=function, empty=np.empty, ndarray=ndarray,
        FLOAT64=FLOAT64, RobotModel=RobotModel, DERIVED_CACHE=DERIVED_CACHE,
        NO_FORCES=NO_FORCES)
    exec(compile(source, '<hot path of %s>' % function.__name__, 'exec'),
         operation.hot_scope)
    return operation.hot_scope['run']


def hot_path_3_results(operation, function):
    """
    Hot path of several results of (q, qd, qdd or tau) and f_ext.

    The derivatives: their compiled function (``fast.wrapper``) takes the
    one state itself.
    """
    def run(model, a, b, c, f_ext=None, out=None):
        kernel = operation._compiled
        if kernel is not None and fast.ENABLED and \
                model.__class__ is RobotModel and \
                (model.__dict__.get(DERIVED_CACHE) == [] or
                 not operation.inverts_inertia):
            return kernel(model, a, b, c, f_ext, out)
        return function(model, a, b, c, f_ext, out=out)
    return run


def no_hot_path(operation, function):
    """Operations not called often enough to need one: ``function``."""
    def run(*args, **kwargs):
        return function(*args, **kwargs)
    return run


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
    if model.__class__ is MimicModel:
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
