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

from .. import fast
from ..fast.samples import deliver, per_sample, samples
from ..model.massless import refuse_massless
from ..model.mimic_model import MimicModel
from ..model.robot_model import DERIVED_CACHE, RobotModel

# How a result maps to independent coordinates.
TORQUE = 'torque'    # (nq,): G^T tau
MATRIX = 'matrix'    # (nq, nq): G^T X G
ROWS = 'rows'        # (nq, p): G^T Y, a regressor's rows (per joint)


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
        self._compiled = None

    def compiled(self):
        """Return the compiled function (raises fast.Unavailable)."""
        if self._compiled is None:
            module, function = self.kernel.split('.')
            self._compiled = getattr(getattr(fast, module), function)
        return self._compiled

    def public(self, function):
        """
        Decorate the public ``function`` with the compiled call in front.

        ``function`` itself calls ``dispatch`` (the whole decision); the
        wrapper only inlines its most frequent outcome, a plain RobotModel
        on the compiled path, because one more Python call costs 15 % of a
        7-joint inverse dynamics.  It falls back to ``function`` for
        anything else.
        """
        run = HOT_PATHS.get((len(self.arguments), self.forces,
                             self.inverts_inertia), no_hot_path)(self, function)
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


# The hot paths take ``out`` as a positional parameter (a keyword-only one
# costs a dictionary look-up per call); the public functions' own
# signatures make it keyword-only.

def hot_path_1(operation, function):
    """Hot path of an operation of q alone."""
    def run(model, q, out=None):
        kernel = operation._compiled
        if kernel is not None and fast.ENABLED and \
                model.__class__ is RobotModel:
            return kernel(model, q, out)
        return function(model, q, out=out)
    return run


def hot_path_2(operation, function):
    """Hot path of an operation of (q, qd)."""
    def run(model, q, qd, out=None):
        kernel = operation._compiled
        if kernel is not None and fast.ENABLED and \
                model.__class__ is RobotModel:
            return kernel(model, q, qd, out)
        return function(model, q, qd, out=out)
    return run


def hot_path_3_forces(operation, function):
    """Hot path of an operation of three per-joint arguments and f_ext."""
    def run(model, a, b, c, f_ext=None, out=None):
        kernel = operation._compiled
        if kernel is not None and fast.ENABLED and \
                model.__class__ is RobotModel:
            return kernel(model, a, b, c, f_ext, out)
        return function(model, a, b, c, f_ext, out=out)
    return run


def hot_path_3_forces_inverting(operation, function):
    """As ``hot_path_3_forces``, for a model known to have no massless joint."""
    def run(model, a, b, c, f_ext=None, out=None):
        kernel = operation._compiled
        if kernel is not None and fast.ENABLED and \
                model.__class__ is RobotModel and \
                model.__dict__.get(DERIVED_CACHE) == []:
            return kernel(model, a, b, c, f_ext, out)
        return function(model, a, b, c, f_ext, out=out)
    return run


def hot_path_3_inverting(operation, function):
    """
    Hot path of (q, qd, tau) that inverts M, with options after them.

    Only a call without the options (``linearize`` without ``dt`` or
    ``out``) is inlined; the kernel gives the continuous (A, B).
    """
    def run(model, a, b, c, *options, **named):
        kernel = operation._compiled
        if kernel is not None and fast.ENABLED and not options and \
                not named and model.__class__ is RobotModel and \
                model.__dict__.get(DERIVED_CACHE) == []:
            return kernel(model, a, b, c)
        return function(model, a, b, c, *options, **named)
    return run


def no_hot_path(operation, function):
    """Operations not called often enough to need one: ``function``."""
    def run(*args, **kwargs):
        return function(*args, **kwargs)
    return run


HOT_PATHS = {(1, False, False): hot_path_1, (2, False, False): hot_path_2,
             (3, True, False): hot_path_3_forces,
             (3, True, True): hot_path_3_forces_inverting,
             (3, False, True): hot_path_3_inverting}


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
