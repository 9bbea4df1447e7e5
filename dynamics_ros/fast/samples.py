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
Arguments of the dynamics functions: one state or a batch of N states.

Each per-joint argument is either (nq,) or (N, nq); in a call with at least
one (N, nq) argument the (nq,) ones are shared by all N samples (numpy
broadcasting).  External wrenches are (nq, 6), shared, or (N, nq, 6).
The compiled kernels take float64 arrays of exactly these shapes
(wrenches C-contiguous); ``per_sample`` runs a one-state numpy function
over a batch when the compiled path is off.
"""

import numpy as np


def float_array(value):
    """Return ``value`` as a float64 array (no copy if it is one)."""
    return np.asarray(value, dtype=float)


def shape_error(model, name, array):
    """Return the ValueError for a per-joint argument of the wrong shape."""
    n = model.nq
    return ValueError(
        '%s must have %d values (one per joint of %r, in model.joint_names '
        'order), or shape (N, %d) for a batch of N states, got shape %s'
        % (name, n, model.name, n, np.shape(array)))


def batch_size(model, names, arrays):
    """Return N if any argument is (N, nq), None if all are (nq,)."""
    n = model.nq
    size = None
    for name, array in zip(names, arrays):
        shape = np.shape(array)
        if shape == (n,):
            continue
        if len(shape) != 2 or shape[1] != n:
            raise shape_error(model, name, array)
        if size is not None and shape[0] != size:
            raise ValueError('%s has %d samples, the other arguments %d: a '
                             'batch needs the same N in every (N, %d) array'
                             % (name, shape[0], size, n))
        size = shape[0]
    return size


def samples(model, names, arrays):
    """
    Check per-joint arguments; return them for a kernel, and N.

    N is None for one state: the arrays are (nq,).  For a batch they are
    (N, nq), the (nq,) ones repeated (read-only broadcast views, no copy).
    Raises ValueError naming a bad one.
    """
    arrays = [float_array(array) for array in arrays]
    size = batch_size(model, names, arrays)
    if size is None:
        return arrays, None
    return [np.broadcast_to(array, (size, model.nq)) for array in arrays], \
        size


def wrenches(model, f_ext, size=None):
    """
    Check external wrenches; return them for a kernel.

    One state (``size`` None): (nq, 6), or (0, 6) for none.  A batch:
    (N, nq, 6), (1, nq, 6) shared by all samples, or (1, 0, 6) for none
    (each state's ``f_ext[min(k, len - 1)]`` is then (0, 6) as one state's).
    """
    n = model.nq
    if f_ext is None:
        return np.zeros((0, 6)) if size is None else np.zeros((1, 0, 6))
    f_ext = np.require(f_ext, dtype=float, requirements=('C', 'W'))
    if f_ext.shape == (n, 6):
        return f_ext if size is None else f_ext.reshape(1, n, 6)
    if size is not None and f_ext.shape == (size, n, 6):
        return f_ext
    raise ValueError('f_ext must have shape (%d, 6): one wrench [moment; '
                     'force] per body, in the body frame%s, got %s' % (
                         n, '' if size is None else
                         ', or (%d, %d, 6) for the batch' % (size, n),
                         f_ext.shape))


def per_sample(function, model, names, arrays, f_ext=None, forces=False):
    """
    Evaluate a one-state numpy ``function`` on one state or a batch.

    ``function(model, *arrays)`` (with ``f_ext`` last if ``forces``) takes
    (nq,) arrays; a batch is evaluated row by row and the results stacked,
    each member on its own when the function returns a tuple.
    """
    if all(np.ndim(array) <= 1 for array in arrays):
        if forces:
            return function(model, *arrays, f_ext)
        return function(model, *arrays)
    arrays, size = samples(model, names, arrays)
    f_ext = wrenches(model, f_ext, size) if forces else None
    results = []
    for k, row in enumerate(zip(*arrays)):
        if forces:
            wrench = f_ext[min(k, len(f_ext) - 1)]
            wrench = None if wrench.size == 0 else wrench
            row = row + (wrench,)
        results.append(function(model, *row))
    if size == 0:  # the shape of one result, from the zero state
        zero = function(model, *[np.zeros(model.nq)] * len(arrays))
        if isinstance(zero, tuple):
            return tuple(np.zeros((0,) + np.shape(part)) for part in zero)
        return np.zeros((0,) + np.shape(zero))
    if isinstance(results[0], tuple):
        return tuple(np.array(part) for part in zip(*results))
    return np.array(results)


def outputs(out, shapes):
    """
    Return arrays for results of ``shapes``: ``out``'s, checked, or new ones.

    ``out`` is None, one array (one result) or a tuple of arrays (several),
    each float64, C-contiguous, writeable and of its result's shape, and
    not overlapping another; a wrong one raises ValueError naming it.
    """
    if out is None:
        return [np.empty(shape) for shape in shapes]
    if len(shapes) == 1 and isinstance(out, np.ndarray):
        given = [out]
    elif isinstance(out, (tuple, list)) and len(out) == len(shapes):
        given = list(out)
    else:
        raise ValueError('out must be %s, got %s' % (
            'a numpy array' if len(shapes) == 1 else
            'a tuple of %d numpy arrays' % len(shapes),
            type(out).__name__))
    for k, (array, shape) in enumerate(zip(given, shapes)):
        name = 'out' if len(shapes) == 1 else 'out[%d]' % k
        if not isinstance(array, np.ndarray):
            raise ValueError('%s must be a numpy array, got %s'
                             % (name, type(array).__name__))
        if array.dtype != np.float64 or array.shape != tuple(shape) or \
                not array.flags.c_contiguous or not array.flags.writeable:
            raise ValueError(
                '%s must be a writeable C-contiguous float64 array of shape '
                '%s, got %s %s%s%s' % (
                    name, tuple(shape), array.dtype, array.shape,
                    '' if array.flags.c_contiguous else ' (not contiguous)',
                    '' if array.flags.writeable else ' (read-only)'))
        for other in given[:k]:
            if np.shares_memory(array, other):
                raise ValueError('%s overlaps an earlier out array' % name)
    return given


def deliver(out, result):
    """Return ``result``, or write it into the ``out`` arrays and return them."""
    if out is None:
        return result
    several = isinstance(result, tuple)
    given = outputs(out, [np.shape(part) for part in result] if several
                    else [np.shape(result)])
    for array, part in zip(given, result if several else (result,)):
        array[...] = part
    return tuple(given) if several else given[0]
