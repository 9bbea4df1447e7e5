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
Compiled fast path of the dynamics core (numba), on when numba is installed.

``inverse_dynamics``, ``mass_matrix``, ``forward_dynamics``,
``gravity_torques``, ``bias_forces`` and ``coriolis_matrix`` run the
kernels of this package's modules ``rnea``, ``crba``, ``aba``, ``bias``
and ``coriolis``, and ``inverse_dynamics_derivatives``,
``forward_dynamics_derivatives`` and ``linearize`` those of
``rnea_derivatives``, ``aba_derivatives`` and ``linearize`` (the
README.md here lists them all, with their tests): the same quantities as
the numpy reference path (``reference_*`` in ``dynamics_ros.dynamics``),
compiled to machine code over a packed copy of the model, for one state
or a batch of N states in one call.  Without numba, with ``DYNAMICS_ROS_FAST=0`` in the
environment, or after ``enable(False)``, the reference path runs instead.

A kernel module is compiled on first use (seconds) and cached on disk by
numba, so later processes load it in milliseconds.
"""

import os
import time
import warnings

try:
    import numba  # noqa: F401
except Exception:  # noqa: B902 (absent, or broken against this numpy)
    numba = None

AVAILABLE = numba is not None
ENABLED = AVAILABLE and os.environ.get('DYNAMICS_ROS_FAST', '1') != '0'
KERNEL_MODULES = ('aba', 'bias', 'computed_torque', 'coriolis', 'crba',
                  'regressor', 'rnea')
# Kernels of the analytic derivatives and of the linearization.
DERIVATIVE_MODULES = ('aba_derivatives', 'linearize', 'rnea_derivatives')


# Called with the new setting after ``enable``: the public functions' hot
# paths (``dynamics.dispatch``) hold their kernels instead of testing
# ENABLED on every call.
SWITCHED = []


class Unavailable(RuntimeError):
    """The compiled path failed to load; the numpy path is used instead."""


def enable(flag=True):
    """
    Switch the compiled path on or off; return the previous setting.

    Switching it on without numba warns and leaves it off.
    """
    global ENABLED
    previous = ENABLED
    if flag and not AVAILABLE:
        warnings.warn('numba is not installed: dynamics_ros keeps its numpy '
                      'reference path', RuntimeWarning, stacklevel=2)
    ENABLED = bool(flag) and AVAILABLE
    for listener in SWITCHED:
        listener(ENABLED)
    return previous


def load_kernels(loaded=None):
    """
    Load every cached kernel module now; return how many.

    A module otherwise loads on first use (0.1-0.4 s each): a node whose
    first message loaded three of them held its executor for 1-3 s on a
    loaded machine, long enough for its simulated clock to stand still and
    fresh states to be refused as "ahead of the node clock".  Only the
    modules the cache's marker lists are loaded (``python -m
    dynamics_ros.fast`` writes it): the others are compiled on first use,
    and only those used.  ``loaded(name, seconds)``, if given, is called
    after each module: a module that takes seconds was compiled, not
    loaded (the sources were touched after the cache was filled).  A
    module that fails to load switches the compiled path off (as on first
    use) and the rest are not tried.
    """
    from .compiler import cached_modules
    cached = cached_modules()
    if not ENABLED or not cached:
        return 0
    names = [name for name in KERNEL_MODULES + DERIVATIVE_MODULES
             if name in cached]
    for count, name in enumerate(names):
        start = time.perf_counter()
        try:
            __getattr__(name)
        except Unavailable:
            return count
        if loaded is not None:
            loaded(name, time.perf_counter() - start)
    return len(names)


def __getattr__(name):
    """Import (compile or load from cache) a kernel module on first use."""
    if name not in KERNEL_MODULES + DERIVATIVE_MODULES:
        raise AttributeError('module %r has no attribute %r'
                             % (__name__, name))
    from .compiler import import_kernels
    try:
        return import_kernels(name)
    except Exception as error:  # noqa: B902 (any numba or LLVM failure)
        enable(False)
        warnings.warn('dynamics_ros: compiled kernels %r failed to load '
                      '(%s: %s); using the numpy reference path'
                      % (name, type(error).__name__, error), RuntimeWarning,
                      stacklevel=2)
        raise Unavailable(str(error)) from error
