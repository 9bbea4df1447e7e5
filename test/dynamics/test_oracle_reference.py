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
The dynamics core against Pinocchio's stored values, in every environment.

test/data/oracle_reference.npz holds what Pinocchio computed in the
development venv (scripts/write_oracle_reference.py) for example-robot-data's
arms and the generated test robots: a few states each, every quantity the
oracle tests compare. Here dynamics_ros computes the same from the same
URDFs at the versions installed - in `make test-distro` (numpy 1.26,
Pinocchio's answers replayed) as in `make test` - and must agree to 1e-9
relative. Where Pinocchio answers live, the stored values must also be
what it computes today (the file is current).
"""

import os

from conftest import assert_close, script_module
import dynamics_ros as dr
import numpy as np
import pytest

SCRIPT = os.path.join('scripts', 'write_oracle_reference.py')
WRITER = script_module(SCRIPT)
ROBOTS = WRITER.robots()


@pytest.fixture(scope='module')
def stored():
    """{'robot/quantity': array} of the stored file."""
    with np.load(WRITER.OUTPUT, allow_pickle=False) as data:
        return {key: data[key] for key in data.files}


def ours(model, row):
    """dynamics_ros' values of one stored state, keyed as the file."""
    q, qd, qdd, tau, f_ext = (row[k] for k in ('q', 'qd', 'qdd', 'tau',
                                               'f_ext'))
    values = {
        'rnea': dr.inverse_dynamics(model, q, qd, qdd),
        'rnea_f_ext': dr.inverse_dynamics(model, q, qd, qdd, f_ext),
        'crba': dr.mass_matrix(model, q),
        'aba': dr.forward_dynamics(model, q, qd, tau),
        'aba_f_ext': dr.forward_dynamics(model, q, qd, tau, f_ext),
        'gravity': dr.gravity_torques(model, q),
        'bias': dr.bias_forces(model, q, qd),
        'coriolis': dr.coriolis_matrix(model, q, qd),
    }
    values.update(zip(('dtau_dq', 'dtau_dqd', 'rnea_M'),
                      dr.inverse_dynamics_derivatives(model, q, qd, qdd)))
    values.update(zip(('dqdd_dq', 'dqdd_dqd', 'Minv'),
                      dr.forward_dynamics_derivatives(model, q, qd, tau)))
    return values


@pytest.mark.parametrize('name, xml', ROBOTS, ids=[r[0] for r in ROBOTS])
def test_dynamics_match_stored_pinocchio_values(stored, name, xml):
    """Every quantity of every stored state, to 1e-9 relative."""
    assert str(stored[name + '/urdf_sha256']) == WRITER.digest(xml), (
        '%s: the URDF changed since the values were stored; run %s'
        % (name, SCRIPT))
    model = dr.load_urdf(xml)
    prefix = name + '/'
    keys = {k[len(prefix):] for k in stored if k.startswith(prefix)} - {
        'urdf_sha256', 'q', 'qd', 'qdd', 'tau', 'f_ext'}
    states = len(stored[prefix + 'q'])
    assert states == WRITER.STATES
    for k in range(states):
        row = {key: stored[prefix + key][k]
               for key in ('q', 'qd', 'qdd', 'tau', 'f_ext')}
        values = ours(model, row)
        # The file holds what this test compares, and nothing is left out.
        assert set(values) == keys, sorted(keys ^ set(values))
        for key in sorted(keys):
            assert_close(values[key], stored[prefix + key][k],
                         what='%s %s state %d' % (name, key, k))


def test_stored_values_are_current(stored):
    """Pinocchio today computes the stored values (else: regenerate)."""
    pytest.importorskip(
        'pinocchio', reason='Pinocchio is not installed; the stored values '
        'are checked where it is (make test)')
    fresh = WRITER.reference_values()
    assert set(fresh) == set(stored), sorted(set(fresh) ^ set(stored))
    for key in sorted(fresh):
        if fresh[key].dtype.kind == 'U':
            if key != 'pinocchio_version':
                assert str(fresh[key]) == str(stored[key]), key
            continue
        # The same Pinocchio on the same inputs: equal but for the last
        # bits another Pinocchio build or CPU may round differently.
        assert_close(fresh[key], stored[key], rtol=1e-12, what=key)
