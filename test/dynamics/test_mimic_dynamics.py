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
Dynamics in independent coordinates of models with mimic joints.

Pinocchio (``mimic=True``) is the oracle for M and inverse dynamics of the
Panda with its hand; the rest is held to what must hold whatever the
implementation: M qdd + h = tau, derivatives equal to central differences,
C qd = h - g with dM/dt - 2C skew, batches equal single calls and the
compiled path equal to the numpy one.  A mimic chain (a mimic of a mimic,
declared before its master) couples arm joints so that the map G has
entries other than 1.
"""

import os
import xml.etree.ElementTree as ElementTree

from conftest import assert_close, central_difference
import dynamics_ros as dr
from dynamics_ros import fast
from dynamics_ros.model.mimic_model import MimicModel
import numpy as np
from oracle import pin, robots_directory
import oracle_record
import pytest

PANDA = os.path.join('panda_description', 'urdf', 'panda.urdf')
FINGERS = {'panda_finger_joint2': ('panda_finger_joint1', 1.0, 0.0)}
# joint7 follows joint5, which follows joint3: a chain, declared first.
CHAIN = {'panda_joint7': ('panda_joint5', -0.5, 0.1),
         'panda_joint5': ('panda_joint3', 2.0, -0.2),
         'panda_finger_joint2': ('panda_finger_joint1', 1.0, 0.0)}


def panda_xml(mimic=None):
    """Panda with hand; ``mimic`` replaces the URDF's own mimic tags."""
    with open(os.path.join(robots_directory(), PANDA),
              encoding='utf-8') as stream:
        tree = ElementTree.fromstring(stream.read())
    for joint in tree.findall('joint'):
        for tag in joint.findall('mimic'):
            joint.remove(tag)
        if mimic and joint.get('name') in mimic:
            master, multiplier, offset = mimic[joint.get('name')]
            ElementTree.SubElement(joint, 'mimic', joint=master,
                                   multiplier=repr(multiplier),
                                   offset=repr(offset))
    return ElementTree.tostring(tree, encoding='unicode')


def coupled(mimic):
    """Return a MimicModel built from the tree, whatever the loader does."""
    return MimicModel(dr.load_urdf(panda_xml()), mimic)


@pytest.fixture(params=['fingers', 'chain'])
def model(request):
    """Panda with coupled fingers; and with a mimic chain in the arm."""
    return coupled(FINGERS if request.param == 'fingers' else CHAIN)


def random_states(model, count, seed=7):
    """(q, qd, qdd, tau) rows inside the joint limits."""
    rng = np.random.default_rng(seed)
    lower = np.where(np.isfinite(model.lower_limit), model.lower_limit, -1)
    upper = np.where(np.isfinite(model.upper_limit), model.upper_limit, 1)
    q = rng.uniform(lower, upper, (count, model.nq))
    return (q, rng.uniform(-1, 1, (count, model.nq)),
            rng.uniform(-2, 2, (count, model.nq)),
            rng.uniform(-5, 5, (count, model.nq)))


def test_coordinates_of_the_chain():
    """Independent joints, G and offset composed along the chain."""
    model = coupled(CHAIN)
    assert model.joint_names == [
        'panda_joint1', 'panda_joint2', 'panda_joint3', 'panda_joint4',
        'panda_joint6', 'panda_finger_joint1']
    assert model.full_joint_names == model.tree.joint_names
    q = np.arange(1.0, 7.0) / 10
    full = dict(zip(model.full_joint_names, model.full_positions(q)))
    assert full['panda_joint5'] == pytest.approx(2.0 * 0.3 - 0.2)
    assert full['panda_joint7'] == pytest.approx(-0.5 * (0.4) + 0.1)
    assert full['panda_finger_joint2'] == full['panda_finger_joint1'] == 0.6
    assert model.full_velocities(q)[model.tree.joint_index(
        'panda_joint7')] == pytest.approx(-0.5 * 2.0 * 0.3)


def test_limits_in_independent_coordinates():
    """A mimic joint's limits narrow its master's through the map."""
    tree = dr.load_urdf(panda_xml())
    model = coupled(CHAIN)
    k = model.joint_index('panda_joint3')
    j5, j7 = tree.joint_index('panda_joint5'), tree.joint_index(
        'panda_joint7')
    # joint5 = 2 q3 - 0.2 and joint7 = -q3 + 0.2 stay inside their limits.
    lower = max(tree.lower_limit[j5 - 2], (tree.lower_limit[j5] + 0.2) / 2,
                0.2 - tree.upper_limit[j7])
    upper = min(tree.upper_limit[j5 - 2], (tree.upper_limit[j5] + 0.2) / 2,
                0.2 - tree.lower_limit[j7])
    assert model.lower_limit[k] == pytest.approx(lower)
    assert model.upper_limit[k] == pytest.approx(upper)
    assert model.effort_limit[k] == tree.effort_limit[j5 - 2]


def test_mass_matrix_and_inverse_dynamics_equal_pinocchio():
    """Pinocchio's reduced model of the Panda with hand (mimic=True)."""
    model = coupled(FINGERS)
    xml = panda_xml(FINGERS)
    gravity = np.asarray(model.gravity, dtype=float)
    # Pinocchio's answers through oracle_record: stored where it is missing.
    identity = (oracle_record.digest(xml) + ' mimic', gravity)
    reduced = {}

    def build():
        reduced['model'] = pin.buildModelFromXML(xml, mimic=True)
        reduced['model'].gravity = pin.Motion(gravity, np.zeros(3))
        reduced['data'] = reduced['model'].createData()
        return reduced['model'].nv
    assert oracle_record.call('build', identity, build) == model.nq == 8
    for q, qd, qdd, _ in zip(*random_states(model, 4)):
        # Pinocchio's q holds the independent joints in the same order.
        def answers():
            pin_model, data = reduced['model'], reduced['data']
            M = pin.crba(pin_model, data, q)
            return (np.triu(M) + np.triu(M, 1).T,
                    pin.rnea(pin_model, data, q, qd, qdd),
                    pin.computeGeneralizedGravity(pin_model, data, q))
        M, tau, g = oracle_record.call('crba, rnea, gravity',
                                       identity + (q, qd, qdd), answers)
        assert_close(dr.mass_matrix(model, q), M, what='M')
        assert_close(dr.inverse_dynamics(model, q, qd, qdd), tau,
                     what='rnea')
        assert_close(dr.gravity_torques(model, q), g, what='g')


def test_forward_dynamics_solves_the_equations_of_motion(model):
    """M qdd + h = tau in independent coordinates, external forces too."""
    rng = np.random.default_rng(3)
    f_ext = rng.uniform(-2, 2, (model.tree.nq, 6))
    for q, qd, _, tau in zip(*random_states(model, 3)):
        for wrenches in (None, f_ext):
            qdd = dr.forward_dynamics(model, q, qd, tau, wrenches)
            assert_close(dr.inverse_dynamics(model, q, qd, qdd, wrenches),
                         tau, what='ID(FD)')
        M = dr.mass_matrix(model, q)
        qdd = dr.forward_dynamics(model, q, qd, tau)
        assert_close(M @ qdd + dr.bias_forces(model, q, qd) - tau,
                     np.zeros(model.nq), scale=np.abs(tau).max(),
                     what='M qdd + h')
        assert np.all(np.linalg.eigvalsh(M) > 0)


def test_derivatives_equal_central_differences(model):
    """Analytic Jacobians against differences of the functions themselves."""
    q, qd, qdd, tau = (row[0] for row in random_states(model, 1))
    dtau_dq, dtau_dqd, M = dr.inverse_dynamics_derivatives(model, q, qd, qdd)
    # Differences of smooth functions: 1e-6 steps leave ~1e-8 error.
    tolerance = 1e-6
    assert_close(dtau_dq, central_difference(
        lambda x: dr.inverse_dynamics(model, x, qd, qdd), q), tolerance)
    assert_close(dtau_dqd, central_difference(
        lambda x: dr.inverse_dynamics(model, q, x, qdd), qd), tolerance)
    assert_close(M, dr.mass_matrix(model, q))
    dqdd_dq, dqdd_dqd, Minv = dr.forward_dynamics_derivatives(
        model, q, qd, tau)
    assert_close(dqdd_dq, central_difference(
        lambda x: dr.forward_dynamics(model, x, qd, tau), q), tolerance)
    assert_close(dqdd_dqd, central_difference(
        lambda x: dr.forward_dynamics(model, q, x, tau), qd), tolerance)
    assert_close(Minv, np.linalg.inv(dr.mass_matrix(model, q)))


def test_linearize_is_the_jacobian_of_the_damped_dynamics(model):
    """A, B against differences of [qd; FD(q, qd, tau - D qd)]."""
    model = model.copy(damping=np.linspace(0.1, 0.9, model.tree.nq))
    n = model.nq
    q, qd, _, tau = (row[0] for row in random_states(model, 1))

    def flow(x, u):
        return np.concatenate((x[n:], dr.forward_dynamics(
            model, x[:n], x[n:], u - model.damping * x[n:])))
    x = np.concatenate((q, qd))
    A, B = dr.linearize(model, q, qd, tau)
    assert_close(A, central_difference(lambda y: flow(y, tau), x), 1e-6)
    assert_close(B, central_difference(lambda u: flow(x, u), tau), 1e-6)
    A_d, B_d = dr.linearize(model, q, qd, tau, dt=0.01)
    assert A_d.shape == (2 * n, 2 * n) and B_d.shape == (2 * n, n)


def test_coriolis_matrix(model):
    """C qd = h - g and dM/dt - 2C skew-symmetric."""
    q, qd, _, _ = (row[0] for row in random_states(model, 1))
    C = dr.coriolis_matrix(model, q, qd)
    assert_close(C @ qd, dr.bias_forces(model, q, qd)
                 - dr.gravity_torques(model, q))
    step = 1e-6
    M_dot = (dr.mass_matrix(model, q + step * qd)
             - dr.mass_matrix(model, q - step * qd)) / (2 * step)
    N = M_dot - 2 * C
    assert_close(N + N.T, np.zeros_like(N), scale=np.abs(M_dot).max(),
                 rtol=1e-6)


FUNCTIONS = {
    'inverse_dynamics': (dr.inverse_dynamics, 'q qd qdd'),
    'mass_matrix': (dr.mass_matrix, 'q'),
    'bias_forces': (dr.bias_forces, 'q qd'),
    'gravity_torques': (dr.gravity_torques, 'q'),
    'forward_dynamics': (dr.forward_dynamics, 'q qd tau'),
    'inverse_dynamics_derivatives': (dr.inverse_dynamics_derivatives,
                                     'q qd qdd'),
    'forward_dynamics_derivatives': (dr.forward_dynamics_derivatives,
                                     'q qd tau'),
    'linearize': (dr.linearize, 'q qd tau'),
}


@pytest.mark.parametrize('name', sorted(FUNCTIONS))
def test_batches_equal_single_calls_and_numpy(model, name):
    """(N, nq) arguments, compiled or not, give the single-call results."""
    function, arguments = FUNCTIONS[name]
    q, qd, qdd, tau = random_states(model, 4)
    values = {'q': q, 'qd': qd, 'qdd': qdd, 'tau': tau}
    batch = function(model, *(values[a] for a in arguments.split()))
    batch = batch if isinstance(batch, tuple) else (batch,)
    previous = fast.enable(False)
    try:
        numpy_batch = function(model, *(values[a] for a in arguments.split()))
    finally:
        fast.enable(previous)
    numpy_batch = numpy_batch if isinstance(numpy_batch, tuple) else (
        numpy_batch,)
    for k in range(4):
        single = function(model, *(values[a][k] for a in arguments.split()))
        single = single if isinstance(single, tuple) else (single,)
        for b, s, r in zip(batch, single, numpy_batch):
            assert_close(b[k], s, rtol=1e-12, what=name)
            assert_close(r[k], s, rtol=1e-12, what=name + ' numpy')


def test_trajectory_linearization(model):
    """linearize_trajectory equals linearize at each sample."""
    q, qd, qdd, _ = random_states(model, 3)
    A, B, tau = dr.linearize_trajectory(model, [0.0, 0.1, 0.2], q, qd, qdd)
    assert_close(tau, dr.inverse_dynamics(model, q, qd, qdd)
                 + model.damping * qd)
    for k in range(3):
        A_k, B_k = dr.linearize(model, q[k], qd[k], tau[k])
        assert_close(A[k], A_k)
        assert_close(B[k], B_k)


def test_refusals_name_the_joints():
    """Unknown masters, cycles and a zero multiplier are ModelErrors."""
    tree = dr.load_urdf(panda_xml())
    with pytest.raises(dr.ModelError, match=(
            "joint 'panda_finger_joint2' mimics joint 'gripper', which is "
            'not a movable joint of the model')):
        MimicModel(tree, {'panda_finger_joint2': ('gripper', 1.0, 0.0)})
    with pytest.raises(dr.ModelError, match=(
            'mimic joints panda_joint1 -> panda_joint2 -> panda_joint1 '
            'follow each other in a cycle')):
        MimicModel(tree, {'panda_joint1': ('panda_joint2', 1.0, 0.0),
                          'panda_joint2': ('panda_joint1', 1.0, 0.0)})
    with pytest.raises(dr.ModelError, match='multiplier 0 pins the joint'):
        MimicModel(tree, {'panda_joint1': ('panda_joint2', 0.0, 0.0)})
    with pytest.raises(KeyError, match='is a mimic joint of '
                                       "'panda_finger_joint1'"):
        coupled(FINGERS).joint_index('panda_finger_joint2')


def test_massless_fingers_refuse_forward_dynamics():
    """A coordinate that moves no mass: ModelError naming it, no NaN."""
    tree = dr.load_urdf(panda_xml())
    fingers = [tree.joint_index(n) for n in ('panda_finger_joint1',
                                             'panda_finger_joint2')]
    mass, inertia = tree.mass.copy(), tree.inertia_com.copy()
    mass[fingers], inertia[fingers] = 0.0, 0.0
    model = MimicModel(tree.copy(mass=mass, inertia_com=inertia), FINGERS)
    zero = np.zeros(model.nq)
    with pytest.raises(dr.ModelError, match='joints panda_finger_joint1 move '
                                            'no mass or inertia'):
        dr.forward_dynamics(model, zero, zero, zero)


def test_urdf_round_trip_keeps_the_coupling():
    """to_urdf writes <mimic>; loading it back gives the same dynamics."""
    model = coupled(CHAIN)
    again = dr.load_urdf(dr.to_urdf(model))
    assert isinstance(again, MimicModel)
    assert again.mimic == model.mimic
    q = random_states(model, 1)[0][0]
    assert_close(dr.mass_matrix(again, q), dr.mass_matrix(model, q))


def test_flexible_links_refuse_mimic_models():
    """Mackay's assumed modes are for a tree's own joints: said so."""
    with pytest.raises(dr.ModelError, match='with mimic joints '
                                            r'\(panda_finger_joint2\) are not '
                                            'supported'):
        dr.FlexibleModel(coupled(FINGERS), {})


def test_limits_that_would_freeze_the_master_are_not_kept():
    """PR2's gripper: a mirrored mimic range meets the master's in 0."""
    tree = dr.load_urdf(panda_xml())
    k = tree.joint_index('panda_finger_joint1')
    with pytest.warns(dr.ModelWarning, match=(
            "mimic joint 'panda_finger_joint2': its limits \\[0, 0.04\\] "
            "leave no motion to 'panda_finger_joint1' within \\[0, 0.04\\]; "
            'only the latter are kept')):
        model = MimicModel(tree, {'panda_finger_joint2': (
            'panda_finger_joint1', -1.0, 0.0)})
    index = model.joint_index('panda_finger_joint1')
    assert model.lower_limit[index] == tree.lower_limit[k] == 0.0
    assert model.upper_limit[index] == tree.upper_limit[k] == 0.04
