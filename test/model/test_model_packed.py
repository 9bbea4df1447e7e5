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
The packed model a RobotModel keeps, and its read-only arrays.

The compiled path packs a RobotModel once (``fast.packing.PackedModel`` in
``model.packed_model``).  Writing into a model array in place used to
leave that copy stale, so the arrays are read-only; assigning a field
stores a copy and drops the packed model, so the next call packs anew.
"""

import copy
import pickle

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros import fast
from dynamics_ros.fast.packing import PackedModel
from dynamics_ros.model.robot_model import ARRAY_FIELDS
from dynamics_ros.resources import robot_urdf
import numpy as np
import pytest


@pytest.fixture
def puma():
    """Return a fresh Puma 560 and a state."""
    model = dr.load_urdf(robot_urdf('puma560'))
    rng = np.random.default_rng(11)
    return model, rng.normal(size=(3, model.nq))


def test_every_model_array_is_read_only(puma):
    model, _ = puma
    for name in list(ARRAY_FIELDS) + ['spatial_inertia', 'motion_subspace']:
        array = getattr(model, name)
        with pytest.raises(ValueError, match='read-only'):
            array[...] = 0
    assert model.mass.flags.writeable is False


def test_the_model_does_not_freeze_the_callers_arrays(puma):
    model, _ = puma
    damping = np.full(model.nq, 0.5)
    model.damping = damping
    damping[0] = 7.0   # the caller's array stays theirs, writeable
    assert model.damping[0] == 0.5
    copied = model.copy(mass=model.mass * 2.0)
    assert copied.mass.flags.writeable is False
    assert model.mass.flags.writeable is False


@pytest.mark.parametrize('how', ['pickle', 'deepcopy'])
def test_a_pickled_or_deep_copied_model_stays_read_only(puma, how):
    model, _ = puma
    copied = (pickle.loads(pickle.dumps(model)) if how == 'pickle'
              else copy.deepcopy(model))
    for name in list(ARRAY_FIELDS) + ['spatial_inertia', 'motion_subspace']:
        with pytest.raises(ValueError, match='read-only'):
            getattr(copied, name)[...] = 0
    q = np.linspace(0.1, 0.6, model.nq)
    assert_close(dr.inverse_dynamics(copied, q, q, q),
                 dr.inverse_dynamics(model, q, q, q))


@pytest.mark.skipif(not fast.ENABLED, reason='the compiled path is off')
def test_assigning_a_field_repacks_the_model(puma):
    model, (q, qd, qdd) = puma
    tau = dr.inverse_dynamics(model, q, qd, qdd)
    assert isinstance(model.packed_model, PackedModel)
    assert model.packed_model.nq == model.nq
    model.mass = model.mass * 3.0
    assert model.packed_model is None   # dropped with the old mass
    # The spatial inertias follow the assigned mass: the same as a model
    # built with it, both through the kernels and the numpy reference.
    built = dr.load_urdf(robot_urdf('puma560'))
    built = built.copy(mass=built.mass * 3.0)
    heavier = dr.inverse_dynamics(model, q, qd, qdd)
    assert np.array_equal(heavier, dr.inverse_dynamics(built, q, qd, qdd))
    assert not np.allclose(heavier, tau)
    previous = fast.enable(False)
    try:
        assert_close(dr.inverse_dynamics(model, q, qd, qdd), heavier)
    finally:
        fast.enable(previous)


def test_in_place_writes_raise_instead_of_running_stale(puma):
    model, (q, qd, qdd) = puma
    before = dr.gravity_torques(model, q)
    for write in (lambda: model.gravity.__setitem__(2, -1.62),
                  lambda: model.com.__setitem__((0, 0), 1.0),
                  lambda: np.multiply(model.mass, 2.0, out=model.mass)):
        with pytest.raises(ValueError, match='read-only'):
            write()
    assert np.array_equal(dr.gravity_torques(model, q), before)
    model.gravity = [0.0, 0.0, -1.62]
    assert_close(dr.gravity_torques(model, q), before * 1.62 / 9.81)
