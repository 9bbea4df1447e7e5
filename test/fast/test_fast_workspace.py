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
The work array's columns: one declared layout per kernel row, checked.

Numba does not check bounds, so every kernel module declares the columns
it uses with ``packing.work_columns``, which refuses at import a layout
that would end past WORK_COLUMNS; a name means one quantity, of one width,
in every layout.
"""

import importlib

from dynamics_ros import fast
from dynamics_ros.fast import packing
import numpy as np
from oracle import example_arm_xml, oracle_for
import pytest

pytest.importorskip('numba')
# Modules whose kernels address the work array by declared columns.
DECLARING = ('rnea', 'aba', 'bias', 'crba', 'rnea_derivatives')


@pytest.fixture(scope='module')
def layouts():
    """Import the kernel modules; return every declared layout."""
    for name in fast.KERNEL_MODULES + fast.DERIVATIVE_MODULES:
        importlib.import_module('dynamics_ros.fast.' + name)
    return packing.LAYOUTS


def test_every_layout_ends_by_work_columns(layouts):
    """Each kernel module declared its rows, all within WORK_COLUMNS."""
    assert set(DECLARING) <= set(layouts)
    for owner, fields in layouts.items():
        end = max(first + width for first, width in fields.values())
        assert end <= packing.WORK_COLUMNS, owner
        # Laid end to end: no two fields share a column.
        taken = [first + k for first, width in fields.values()
                 for k in range(width)]
        assert len(taken) == len(set(taken)), owner


def test_a_name_has_one_width_everywhere(layouts):
    """FRAME, VELOCITY, COMPOSITE ... are the same quantity in every row."""
    widths = {}
    for owner, fields in layouts.items():
        for name, (_, width) in fields.items():
            if width:
                widths.setdefault(name, {})[owner] = width
    for name, owners in widths.items():
        assert len(set(owners.values())) == 1, (name, owners)
    assert widths['FRAME']['rnea'] == 12 and widths['COMPOSITE']['crba'] == 13


def test_a_layout_past_work_columns_is_refused():
    """Declaring one column too many raises, naming the layout."""
    with pytest.raises(RuntimeError, match='too wide.*WORK_COLUMNS = %d'
                       % packing.WORK_COLUMNS):
        packing.work_columns('too wide', A=100,
                             B=packing.WORK_COLUMNS - 99)
    assert 'too wide' not in packing.LAYOUTS
    first, second = packing.work_columns('fits', A=100,
                                         B=packing.WORK_COLUMNS - 100)
    assert (first, second) == (0, 100)
    del packing.LAYOUTS['fits']


def test_the_packed_work_array_has_work_columns():
    """The scratch every kernel gets is (nq + 2, WORK_COLUMNS)."""
    model = oracle_for(example_arm_xml('ur5'))[0]
    pack = packing.packed(model)
    work, n = pack.work, pack.nq
    assert work.shape == (n + 2, packing.WORK_COLUMNS)
    assert work.dtype == np.float64 and work.flags.c_contiguous
