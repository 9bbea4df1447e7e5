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
The joint torque regressor against inverse dynamics and Pinocchio.

Y pi must reproduce inverse dynamics (our RNEA, itself held to Pinocchio
elsewhere) and equal Pinocchio's ``computeJointTorqueRegressor`` column for
column: same bodies (matched by joint name), same parameter order and frame.
Robots: Panda (cut at the hand), UR5 and generated branched trees with
prismatic, continuous, rotated and fixed-joint bodies.
"""

import os
import xml.etree.ElementTree as ElementTree

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros import fast
from dynamics_ros.dynamics.regressor import inertial_parameters, \
    joint_torque_regressor, parameter_names, \
    reference_joint_torque_regressor, rigid_body, with_parameters
from dynamics_ros.model.mimic_model import MimicModel
import numpy as np
from oracle import example_arm_xml, oracle_for, pin, random_state, \
    robots_directory
import pytest
from urdf_factory import random_urdf

STATES = 20


def robots():
    """(id, xml) of the robots of the acceptance."""
    return [('panda', example_arm_xml('panda')),
            ('ur5', example_arm_xml('ur5')),
            ('tree', random_urdf(11, n_movable=8, tree=True)),
            ('tree_fixed_chains', random_urdf(14, n_movable=7, tree=True,
                                              fixed_chains=True))]


@pytest.fixture(params=robots(), ids=[name for name, _ in robots()])
def loaded(request):
    """(model, Pinocchio oracle) of one robot."""
    return oracle_for(request.param[1])


def states(model, count=STATES, seed=3):
    """Random (q, qd, qdd) rows."""
    rng = np.random.default_rng(seed)
    rows = [random_state(model, rng)[:3] for _ in range(count)]
    return [np.array(part) for part in zip(*rows)]


def pinocchio_regressor(oracle, q, qd, qdd):
    """Pinocchio's regressor, rows and body blocks in our joint order."""
    def regressor():
        Y = pin.computeJointTorqueRegressor(
            oracle.pin_model, oracle.data, oracle.q(q), oracle.v(qd),
            oracle.v(qdd))
        rows = Y[oracle.idx_v]
        blocks = []
        for name in oracle.model.joint_names:
            first = 10 * (oracle.pin_model.getJointId(name) - 1)
            blocks.append(rows[:, first:first + 10])
        return np.hstack(blocks)
    return oracle.ask('joint torque regressor', (q, qd, qdd), regressor)


def test_regressor_times_parameters_is_inverse_dynamics(loaded):
    """Y pi = tau of RNEA to 1e-10, numpy and compiled, one state and N."""
    model, _ = loaded
    q, qd, qdd = states(model)
    pi = inertial_parameters(model)
    tau = dr.inverse_dynamics(model, q, qd, qdd)
    Y = joint_torque_regressor(model, q, qd, qdd)
    assert Y.shape == (STATES, model.nq, 10 * model.nq)
    assert_close(Y @ pi, tau, 1e-10, 'Y pi (batch)')
    for k in range(3):
        reference = reference_joint_torque_regressor(model, q[k], qd[k],
                                                     qdd[k])
        assert_close(reference @ pi, tau[k], 1e-10, 'numpy Y pi')
        assert_close(joint_torque_regressor(model, q[k], qd[k], qdd[k]) @ pi,
                     tau[k], 1e-10, 'Y pi')


def test_regressor_equals_pinocchio(loaded):
    """Pinocchio's computeJointTorqueRegressor, column for column, 1e-10."""
    model, oracle = loaded
    q, qd, qdd = states(model, seed=5)
    Y = joint_torque_regressor(model, q, qd, qdd)
    for k in range(STATES):
        expected = pinocchio_regressor(oracle, q[k], qd[k], qdd[k])
        assert_close(Y[k], expected, 1e-10, 'regressor vs Pinocchio')
        assert_close(reference_joint_torque_regressor(
            model, q[k], qd[k], qdd[k]), expected, 1e-10,
            'numpy vs Pinocchio')


def test_parameters_equal_pinocchio(loaded):
    """Our pi is Pinocchio's dynamic parameters, body by body."""
    model, oracle = loaded
    pi = inertial_parameters(model).reshape(model.nq, 10)
    for i, name in enumerate(model.joint_names):
        theirs = oracle.ask('dynamic parameters', (name,), lambda: np.array(
            oracle.pin_model.inertias[oracle.pin_model.getJointId(
                name)].toDynamicParameters()))
        assert_close(pi[i], theirs, 1e-12, name)


@pytest.mark.skipif(not fast.AVAILABLE, reason='numba is not installed')
def test_kernel_equals_reference(loaded):
    """The compiled kernel is the numpy reference to 1e-12."""
    model, _ = loaded
    q, qd, qdd = states(model, seed=9)
    Y = joint_torque_regressor(model, q, qd, qdd)
    one = joint_torque_regressor(model, q[0], qd[0], qdd[0])
    previous = fast.enable(False)
    try:
        numpy_batch = joint_torque_regressor(model, q, qd, qdd)
    finally:
        fast.enable(previous)
    assert_close(Y, numpy_batch, 1e-12, 'kernel vs numpy')
    assert_close(one, numpy_batch[0], 1e-12, 'one state vs numpy')


def test_names_and_round_trip():
    """Columns are named body.parameter; pi -> bodies -> pi is exact."""
    model = dr.load_urdf(example_arm_xml('panda'))
    names = parameter_names(model)
    assert names[:2] == ['panda_link1.m', 'panda_link1.m_cx']
    assert names[-1].endswith('.Izz') and len(names) == 10 * model.nq
    pi = inertial_parameters(model)
    again = with_parameters(model, pi)
    assert_close(again.com, model.com, 1e-12, 'com')
    assert_close(again.inertia_com, model.inertia_com, 1e-12, 'inertia')
    assert_close(inertial_parameters(again), pi, 1e-12, 'pi')
    mass, com, inertia = rigid_body(pi[:10])
    assert mass == model.mass[0]


def test_bad_shapes_are_named():
    """A wrong-sized argument names itself and the joint count."""
    model = dr.load_urdf(example_arm_xml('ur5'))
    with pytest.raises(ValueError, match='must have 6 values'):
        joint_torque_regressor(model, np.zeros(6), np.zeros(5), np.zeros(6))


def test_mimic_model_maps_through_g_transpose():
    """A MimicModel's Y is G^T Y_tree; Y pi is its inverse dynamics."""
    with open(os.path.join(robots_directory(), 'panda_description', 'urdf',
                           'panda.urdf'), encoding='utf-8') as stream:
        tree = ElementTree.fromstring(stream.read())
    for joint in tree.findall('joint'):
        for tag in joint.findall('mimic'):
            joint.remove(tag)
    base = dr.load_urdf(ElementTree.tostring(tree, encoding='unicode'))
    model = MimicModel(base, {'panda_joint7': ('panda_joint5', -0.5, 0.1)})
    rng = np.random.default_rng(1)
    q, qd, qdd = rng.uniform(-1, 1, (3, 4, model.nq))
    Y = joint_torque_regressor(model, q, qd, qdd)
    assert Y.shape == (4, model.nq, 10 * base.nq)
    tau = dr.inverse_dynamics(model, q, qd, qdd)
    assert_close(Y @ inertial_parameters(model), tau, 1e-10, 'mimic Y pi')
    tree_Y = joint_torque_regressor(base, model.full_positions(q[0]),
                                    model.full_velocities(qd[0]),
                                    model.full_velocities(qdd[0]))
    assert_close(Y[0], model.G.T @ tree_Y, 1e-12, 'G^T Y')
