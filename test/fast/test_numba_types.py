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

"""fast.compiler.numba_type: the kernels' type names, read without eval."""

from dynamics_ros.fast import compiler
import pytest

numba = pytest.importorskip('numba')
types = numba.types


@pytest.mark.parametrize('name, expected', [
    (compiler.VECTOR, types.Array(types.float64, 1, 'C')),
    (compiler.MATRIX, types.Array(types.float64, 2, 'C')),
    (compiler.STACK, types.Array(types.float64, 3, 'C')),
    (compiler.INPUT_VECTOR,
     types.Array(types.float64, 1, 'A', readonly=True)),
    (compiler.INPUT_MATRIX,
     types.Array(types.float64, 2, 'A', readonly=True)),
    (compiler.INPUT_STACK,
     types.Array(types.float64, 3, 'A', readonly=True)),
    ('float64[:, :]', types.Array(types.float64, 2, 'A')),
    ('int64', types.int64),
    ('boolean', types.boolean),
    ('float64', types.float64),
])
def test_names_give_the_numba_types(name, expected):
    """Every name the kernels use gives the type numba spells so."""
    found = compiler.numba_type(name)
    assert found == expected
    assert found.mutable == expected.mutable


@pytest.mark.parametrize('name', [
    'float64[::1, :]', 'float64[', 'float64[]', 'readonly int64',
    '__import__', 'numba', 'float64[:]; import os', 'Array', 'no_such_type',
])
def test_other_text_is_refused(name):
    """Anything else is a ValueError naming it; nothing of it runs."""
    with pytest.raises(ValueError, match='not a numba'):
        compiler.numba_type(name)
