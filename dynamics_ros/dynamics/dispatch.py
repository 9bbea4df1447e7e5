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

from dataclasses import dataclass
from typing import Callable, Optional, Tuple

import numpy as np

from .. import fast
from ..fast.samples import per_sample, samples, wrenches
from ..model.mimic_model import MimicModel

# How a result maps to independent coordinates.
TORQUE = 'torque'    # (nq,): G^T tau
MATRIX = 'matrix'    # (nq, nq): G^T X G


@dataclass(frozen=True)
class Operation:
    """A public dynamics function: where its implementations are."""

    reference: Callable          # one state of a RobotModel, numpy
    kernel: Optional[str]        # 'module.function' in dynamics_ros.fast
    arguments: Tuple[str, ...]   # per-joint arguments, in call order
    results: Tuple[str, ...]     # TORQUE / MATRIX per returned array
    forces: bool = False         # takes f_ext (per-body wrenches) last
    coupled: Optional[Callable] = None  # own MimicModel version
    batched: bool = False        # the reference takes the whole batch


def per_sample_results(function, model, names, arrays, f_ext=None,
                       forces=False):
    """
    Evaluate a one-state ``function`` returning a tuple, on a batch.

    As ``per_sample``, with each member of the tuple stacked to (N, ...).
    """
    if all(np.ndim(array) <= 1 for array in arrays):
        return function(model, *arrays, *((f_ext,) if forces else ()))
    arrays, size = samples(model, names, arrays)
    f_ext = wrenches(model, f_ext, size) if forces else None
    results = []
    for k in range(size):
        row = tuple(array[k] for array in arrays)
        if forces:
            row += (None if len(f_ext) == 0
                    else f_ext[min(k, len(f_ext) - 1)],)
        results.append(function(model, *row))
    if size == 0:  # the shapes of one result, from the zero state
        zero = function(model, *[np.zeros(model.nq)] * len(arrays))
        return tuple(np.zeros((0,) + np.shape(part)) for part in zero)
    return tuple(np.array(part) for part in zip(*results))


def evaluate(operation, model, arrays, f_ext=None):
    """Run ``operation`` on a RobotModel: compiled if possible, else numpy."""
    extra = (f_ext,) if operation.forces else ()
    if operation.kernel is not None and fast.ENABLED:
        module, function = operation.kernel.split('.')
        try:
            return getattr(getattr(fast, module), function)(
                model, *arrays, *extra)
        except fast.Unavailable:
            pass
    if operation.batched:
        return operation.reference(model, *arrays, *extra)
    sampler = per_sample if len(operation.results) == 1 else \
        per_sample_results
    return sampler(operation.reference, model, operation.arguments, arrays,
                   f_ext, forces=operation.forces)


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
    return G.T @ value @ G


def dispatch(operation, model, arrays, f_ext=None):
    """Evaluate ``operation`` for any model: the one place that decides."""
    if not isinstance(model, MimicModel):
        return evaluate(operation, model, arrays, f_ext)
    if operation.coupled is not None:
        return operation.coupled(model, *arrays,
                                 *((f_ext,) if operation.forces else ()))
    result = evaluate(operation, model.tree, tree_arguments(
        model, operation.arguments, arrays), f_ext)
    if len(operation.results) == 1:
        return project(model, operation.results[0], result)
    return tuple(project(model, kind, part)
                 for kind, part in zip(operation.results, result))
