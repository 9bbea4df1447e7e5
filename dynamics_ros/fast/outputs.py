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
Batch outputs whose memory is used again once the caller has let go of them.

A fresh array of more than 32 MiB (the most that glibc's mmap threshold
grows to) is new memory from the kernel in every call, and the kernel
zeroes each of its pages at the first write.  For the 48 KB a state that
``linearize`` returns for a 32-joint chain that took 4 us a state here,
and 25-60 us when the machine was short of free pages, against 22 us for
computing them (measured with ``benchmarks/compare.py``).  NumPy keeps small
data buffers for the next array for the same reason.

So a large batch output is a view of a buffer kept per ``slot`` (one per
output of each function), and the same buffer backs the next call's output
only when no array made from it is alive.  Every view of the buffer holds
a reference to the buffer itself (NumPy points ``base`` at the array that
owns the memory), so its reference count tells whether one is.  A caller
who keeps the results gets new memory, as from ``np.empty``.  One buffer a
slot stays allocated after its arrays are gone; ``release()`` frees them.
"""

import sys
import threading

import numpy as np

# Below this many bytes glibc can keep freed memory for the next array.
REUSE_FROM = 32 * 2 ** 20

_buffers = {}
_lock = threading.Lock()


def references(slot):
    """Return the reference count of the buffer kept for ``slot``, 0 if none."""
    buffer = _buffers.get(slot)
    return 0 if buffer is None else sys.getrefcount(buffer)


# What ``references`` gives for a buffer no array uses, measured rather than
# assumed: interpreters count a function's own references differently (3.14
# borrows some).  A view adds one that every interpreter counts.
_buffers[None] = np.empty(0)
UNUSED = references(None)
del _buffers[None]


def batch_empty(slot, shape):
    """
    Return an uninitialized float64 array of ``shape``, as ``np.empty`` does.

    From ``REUSE_FROM`` bytes on it is a view of the buffer kept for
    ``slot``, if no array from that buffer is alive and it is large enough;
    otherwise of a new buffer, which the slot keeps from then on (an old
    one in use goes when its last view does).
    """
    size = 1
    for extent in shape:
        size *= extent
    if size * 8 < REUSE_FROM:
        return np.empty(shape)
    with _lock:  # one thread's outputs must not be handed to another
        if references(slot) != UNUSED or _buffers[slot].size < size:
            _buffers[slot] = np.empty(size)
        return _buffers[slot][:size].reshape(shape)


def release():
    """Drop the kept buffers (those still in use live on with their arrays)."""
    with _lock:
        _buffers.clear()
