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
How the fast-path kernels become machine code: numba, cached on disk.

``kernel`` compiles an entry point for one signature at import and keeps the
machine code in numba's disk cache, so the compile cost (see
``FIRST_START_SECONDS``) is paid once per install, not per process; ``compiled`` marks the
helpers the kernels call.  Without numba both return the Python function
unchanged: the kernel modules still import, and the dynamics modules use
the numpy reference path (``dynamics_ros.fast.ENABLED`` is False).

Numba keys a cached kernel on its own source file only, so a kernel whose
helper in ``spatial.py`` changed would load stale machine code.  The cache
here also keys on a digest of every source file of this package.  It is
numba's own ``FunctionCache`` with one more key, installed the way
``njit(cache=True)`` installs it (``dispatcher._cache``; numba 0.60-0.69).
"""

import glob
import hashlib
import importlib
import os
import sys
import time

try:
    import numba
    from numba.core.caching import FunctionCache
except ImportError:  # e.g. a ROS machine without numba: numpy path only
    numba = None
    FunctionCache = object


def sources_digest():
    """Return the SHA-256 of every Python source of the fast path."""
    digest = hashlib.sha256()
    # But the command that compiles them all (__main__.py): it holds no
    # kernel, and a change to it should not make every cache stale.
    for path in sorted(glob.glob(os.path.join(os.path.dirname(__file__),
                                              '*.py'))):
        if os.path.basename(path) == '__main__.py':
            continue
        with open(path, 'rb') as source:
            digest.update(source.read())
    return digest.hexdigest()


SOURCES_DIGEST = sources_digest()

# Compiling every kernel on an empty cache (python -m dynamics_ros.fast)
# takes this long on the reference machine (benchmarks/results.md, "First
# start"): what a node says it will wait when the cache is cold.
FIRST_START_SECONDS = 60


def interpreter_tag():
    """Return 'py3XX-numbaA.B.C': what a compiled kernel is valid for."""
    return 'py%d%d-numba%s' % (sys.version_info[0], sys.version_info[1],
                               numba.__version__ if numba else 'none')


def ready_marker():
    """
    Return the file that lists the kernel modules of these sources cached.

    ``python -m dynamics_ros.fast`` writes it after compiling them, and a
    module compiled on first use adds its line (``import_kernels``), in
    the folder numba caches in first (``NUMBA_CACHE_DIR``, else this
    package's ``__pycache__``); its name carries the sources' digest, so an
    edited source or a new install has none.
    """
    folder = os.environ.get('NUMBA_CACHE_DIR') or os.path.join(
        os.path.dirname(__file__), '__pycache__')
    # numba's cache files carry the Python version (``.py311.nbi``), so one
    # source tree can hold the caches of two interpreters (make test and
    # make test-distro): each has its own marker.
    return os.path.join(folder, 'dynamics_ros-kernels-%s-%s.ready' % (
        SOURCES_DIGEST[:16], interpreter_tag()))


# The kernel modules, the longest to compile first (python -m
# dynamics_ros.fast, one core, quiet: sim_step 48 s ... regressor 2 s), so
# that two processes end together.  A module compiles the helpers it calls
# from the others itself when they are not cached yet, so the order
# changes the wait, never the result.
ALL_MODULES = ('sim_step', 'linearize', 'aba', 'rnea_derivatives',
               'coriolis', 'aba_derivatives', 'motor_step', 'crba', 'rnea',
               'computed_torque', 'bias', 'regressor')
# What a user needs first, compiled at install (make venv, colcon build):
# the rigid chain's dynamics, linearization and simulator step.  The motor
# plant's step and identification's regressor compile on first use.
FIRST_USE_MODULES = tuple(name for name in ALL_MODULES
                          if name not in ('motor_step', 'regressor'))


def cached_modules():
    """
    Return the names of the kernel modules the cache holds (a frozenset).

    The names the marker lists; all of them without numba (nothing to
    compile).
    """
    if numba is None:
        return frozenset(ALL_MODULES)
    try:
        with open(ready_marker(), encoding='utf-8') as stream:
            return frozenset(line.strip() for line in stream) & frozenset(
                ALL_MODULES)
    except OSError:
        return frozenset()


def kernels_cached(names=ALL_MODULES):
    """Return True when the cache holds the kernel modules ``names``."""
    return cached_modules().issuperset(names)


def mark_cached(names):
    """Add ``names`` to the marker; False if it cannot be written."""
    marker = ready_marker()
    try:
        os.makedirs(os.path.dirname(marker), exist_ok=True)
        # One short write per call in append mode: processes that compile
        # side by side add their lines without losing each other's.
        with open(marker, 'a', encoding='utf-8') as stream:
            stream.write(''.join(name + '\n' for name in names))
    except OSError:   # a read-only install: each start compiles again
        return False
    return True


def import_kernels(name):
    """
    Import kernel module ``name``, saying so when it compiles on first use.

    A module the marker does not list compiles (seconds to a minute): one
    line on stderr says which before, one how long it took after, and the
    marker then lists it.
    """
    # This package's own kernels, whatever name it was imported under
    # (benchmarks/compare.py --baseline imports another checkout as
    # dynamics_ros_baseline, beside this one).
    module_name = __package__ + '.' + name
    if module_name in sys.modules or name in cached_modules():
        return importlib.import_module(module_name)
    start = time.perf_counter()
    sys.stderr.write("dynamics_ros: compiling kernel module '%s' on its "
                     'first use (once: it is cached for later runs)\n'
                     % name)
    sys.stderr.flush()
    module = importlib.import_module(module_name)
    sys.stderr.write("dynamics_ros: kernel module '%s' compiled in %.1f s\n"
                     % (name, time.perf_counter() - start))
    sys.stderr.flush()
    mark_cached([name])
    return module


def compile_module(name):
    """
    Import (compile or load) kernel module ``name``; return its seconds.

    Here and not in ``__main__``: the processes of ``python -m
    dynamics_ros.fast --jobs`` find it by this module's name.
    """
    start = time.perf_counter()
    importlib.import_module(__package__ + '.' + name)
    return time.perf_counter() - start


def closure_names(function):
    """Name what ``function`` closes over: functions by module and name."""
    names = []
    for cell in function.__closure__ or ():
        value = getattr(cell.cell_contents, 'py_func', cell.cell_contents)
        if hasattr(value, '__code__'):
            names.append('%s.%s%s' % (value.__module__, value.__qualname__,
                                      closure_names(value)))
        else:
            names.append(repr(value))
    return '(%s)' % ', '.join(names)


class PackageCache(FunctionCache):
    """Numba's per-function disk cache, also keyed on the package sources."""

    def _index_key(self, sig, codegen):
        if self._py_func.__closure__ is None:
            return super()._index_key(sig, codegen) + (SOURCES_DIGEST,)
        # A kernel made by ``wrapper.sample_entry`` closes over compiled
        # functions.  Numba would key it on a pickle of them, which holds
        # an id drawn anew in every process (no later process would find
        # it): their names say the same, their sources are in the digest.
        return (sig, codegen.magic_tuple(), tuple(
            hashlib.sha256(text).hexdigest() for text in (
                self._py_func.__code__.co_code,
                closure_names(self._py_func).encode()))) + (SOURCES_DIGEST,)


def with_disk_cache(dispatcher):
    """
    Give a numba dispatcher the package-keyed disk cache if it can have one.

    Numba writes next to the module (``__pycache__``), else to the user's
    cache folder, else to ``NUMBA_CACHE_DIR`` first if that is set.  Where
    none is writable (a read-only install run by a user without a home
    folder) it raises; the kernel then compiles in every process instead.
    """
    try:
        dispatcher._cache = PackageCache(dispatcher.py_func)
    except RuntimeError:  # "cannot cache function ...: no locator available"
        pass
    return dispatcher


def compiled(function=None, inline=False, reassociate=False,
             contract=False):
    """
    Compile a helper with numba on first use, for the types it is called with.

    Identity without numba.  error_model='numpy': x / 0 gives inf or nan as
    numpy does (a massless subtree makes ABA divide by zero and its callers
    test for that) instead of raising ZeroDivisionError.  ``inline=True``
    (for the small spatial helpers) inlines the function into its callers
    before numba's reference-count pruning, which removes the bookkeeping
    of the array views they are passed (about 5 ns per view and call).
    ``reassociate=True`` (for the dense matrix loops) lets LLVM reorder
    sums and fuse multiply-adds, so that a dot product runs four lanes at a
    time: round-off changes in the last bits; NaN and inf still propagate
    and compare as IEEE says (no 'nnan'/'ninf' flags).  ``contract=True``
    (for the batch kernels, ``lanes``) lets LLVM fuse a * b + c into one
    multiply-add, rounded once instead of twice, but keeps the order of
    every sum: a batch's row then differs from the one-state result in
    the last bits, which one-state code, and the simulator step that must
    equal the Python step bit for bit, does not allow.
    """
    def decorate(function):
        if numba is None:
            return function
        return numba.njit(error_model='numpy',
                          inline='always' if inline else 'never',
                          fastmath=fast_math(reassociate, contract))(
                              function)
    return decorate if function is None else decorate(function)


def fast_math(reassociate, contract):
    """Return numba's fastmath flags for ``compiled`` and ``kernel``."""
    if reassociate:
        return {'reassoc', 'contract'}
    return {'contract'} if contract else False


def direct(dispatcher):
    """
    Return the machine-code entry of a one-signature kernel, or the kernel.

    Calling a numba dispatcher first resolves the numba type of every
    argument to choose an overload: 0.1 us of a 7-joint mass matrix that
    costs 1 us in all.  The entry of the one compiled overload skips that,
    and so checks less: it takes any ndarray whose items have the right size
    and copies as many shape and stride entries as the array has
    dimensions.  A caller of the entry must therefore pass float64 arrays
    of the declared number of dimensions (the layout may be any for an
    input declared ``readonly float64[:]``, since the kernel then reads the
    strides).  Where numba keeps it elsewhere (0.60-0.69 keep it as
    ``overloads[signature].entry_point``) the dispatcher itself is returned,
    which checks everything.
    """
    try:
        signature, = dispatcher.signatures
        return dispatcher.overloads[signature].entry_point
    except (AttributeError, KeyError, ValueError):
        return dispatcher


# Argument types of the kernels, all float64 arrays: outputs, the packed
# model and batches are C-contiguous; a state's vectors and wrenches may be
# any float64 array, strided or read-only, as users pass them.
VECTOR = 'float64[::1]'
MATRIX = 'float64[:, ::1]'
STACK = 'float64[:, :, ::1]'
INPUT_VECTOR = 'readonly float64[:]'
INPUT_MATRIX = 'readonly float64[:, :]'
INPUT_STACK = 'readonly float64[:, :, :]'


def numba_type(name):
    """
    Return the numba type a name above (or a result's) spells.

    A scalar is a name of ``numba.types`` ('int64', 'boolean', 'float64');
    an array is ``[readonly ]dtype[dims]``, its dims ':' each, the last one
    '::1' for a C-contiguous array.  ValueError for anything else (these
    names are read, never run).
    """
    readonly = name.startswith('readonly ')
    spelled = name[len('readonly '):] if readonly else name
    dtype, bracket, dims = spelled.partition('[')
    scalar = getattr(numba.types, dtype.strip(), None)
    if not isinstance(scalar, numba.types.Type) or \
            bool(bracket) != dims.endswith(']') or (readonly and not bracket):
        raise ValueError('not a numba type name: %r' % name)
    if not bracket:
        return scalar
    axes = [axis.strip() for axis in dims[:-1].split(',')]
    contiguous = axes[-1] == '::1'
    if contiguous:
        axes[-1] = ':'
    if any(axis != ':' for axis in axes):
        raise ValueError('not a numba array type name: %r' % name)
    return numba.types.Array(scalar, len(axes), 'C' if contiguous else 'A',
                             readonly=readonly)


def kernel(result, *arguments, contract=False):
    """
    Compile an entry point now, for exactly one signature.

    The kernel then refuses other argument types with a TypeError instead of
    compiling again for them (a list or an int array would each cost
    seconds): the Python wrapper converts those first.  Loading from the
    disk cache takes milliseconds, so kernel modules are imported on first
    use (``dynamics_ros.fast.__getattr__``).  ``contract`` as for
    ``compiled``.
    """
    def decorate(function):
        if numba is None:
            return function
        signature = numba_type(result)(*map(numba_type, arguments))
        dispatcher = with_disk_cache(numba.njit(
            error_model='numpy', fastmath=fast_math(False, contract))(
                function))
        dispatcher.compile(signature)
        dispatcher.disable_compile()
        return dispatcher
    return decorate
