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
Pinocchio as the test oracle: models from the same URDF, mapped by name.

Pinocchio orders velocities [linear; angular] and stores a continuous joint
as (cos, sin); dynamics_ros orders [angular; linear] and uses one angle.
These helpers convert so that tests compare like with like.

Models with mimic joints (``dr.MimicModel``, independent coordinates) have
two oracles: Pinocchio's reduced model (``mimic=True``: M and rnea, no
forward dynamics) and ``ProjectedOracle``, Pinocchio's model of every
movable joint taken through the map q_tree = G q + offset, for URDFs that
Pinocchio's reduced parser refuses.
"""

import glob
import os
import xml.etree.ElementTree as ElementTree

import dynamics_ros as dr
import numpy as np
import pytest
# The robots and states, also used where Pinocchio is not installed
# (test/dynamics/test_oracle_reference.py).
from robot_files import example_arm_xml, EXAMPLE_ARMS  # noqa: F401
from robot_files import keep_chain, random_state  # noqa: F401
from robot_files import robots_directory

try:
    import pinocchio as pin
except ImportError:
    # `make test-distro` (numpy 1.26) cannot install pin: its Python 3.12
    # wheels need numpy >= 2.  There the oracle's modules skip; anywhere
    # else a missing oracle is an install error, not a skip.
    if not os.environ.get('DYNAMICS_ROS_WITHOUT_ORACLE'):
        raise
    pytest.skip('the Pinocchio oracle (pin) is not installed in the distro '
                'environment: its cp312 wheels need numpy >= 2 (its stored '
                'values are compared there: test_oracle_reference.py)',
                allow_module_level=True)


def urdf_files():
    """Every ``.urdf`` below robots_directory(), relative to it, sorted."""
    root = robots_directory()
    return sorted(os.path.relpath(path, root) for path in glob.glob(
        os.path.join(root, '**', '*.urdf'), recursive=True))


def mimic_tags(xml):
    """
    Return the ``<mimic>`` tags of a URDF's joints, read with ElementTree.

    Returns ``{joint: (master, multiplier, offset, joint type)}`` with the
    URDF defaults (multiplier 1, offset 0); a commented-out tag is not one.
    """
    tags = {}
    for joint in ElementTree.fromstring(xml).iter('joint'):
        tag = joint.find('mimic')
        if tag is not None and joint.get('type') is not None:
            tags[joint.get('name')] = (
                tag.get('joint'), float(tag.get('multiplier', 1.0)),
                float(tag.get('offset', 0.0)), joint.get('type'))
    return tags


class PinocchioOracle:
    """
    Pinocchio model of a URDF and index maps to a dynamics_ros model.

    With ``mimic=True`` Pinocchio builds its reduced model: mimic joints
    have no coordinate of their own (nq = nv = 0, the indices of the joint
    they follow), so the independent joints map by name as usual.
    """

    def __init__(self, model, xml, mimic=False):
        self.model = model
        self.pin_model = pin.buildModelFromXML(xml, mimic=mimic)
        self.pin_model.gravity = pin.Motion(
            np.asarray(model.gravity), np.zeros(3))
        self.data = self.pin_model.createData()
        self.idx_q, self.idx_v, self.pin_nq = [], [], []
        for name in model.joint_names:
            joint = self.pin_model.joints[self.pin_model.getJointId(name)]
            self.idx_q.append(joint.idx_q)
            self.idx_v.append(joint.idx_v)
            self.pin_nq.append(joint.nq)
        self.idx_v = np.array(self.idx_v, dtype=int)
        assert self.pin_model.nv == model.nq, 'models differ in size'

    def q(self, q):
        """Pinocchio configuration of a dynamics_ros q."""
        out = np.zeros(self.pin_model.nq)
        for i, value in enumerate(q):
            if self.pin_nq[i] == 2:
                out[self.idx_q[i]:self.idx_q[i] + 2] = np.cos(value), np.sin(
                    value)
            else:
                out[self.idx_q[i]] = value
        return out

    def v(self, v):
        """Pinocchio tangent vector (qd, qdd, tau) of ours."""
        out = np.zeros(self.pin_model.nv)
        out[self.idx_v] = v
        return out

    def ours(self, v):
        """Our ordering of a Pinocchio tangent vector."""
        return np.asarray(v)[self.idx_v]

    def ours_matrix(self, matrix):
        """Our ordering of an (nv, nv) Pinocchio matrix."""
        return np.asarray(matrix)[np.ix_(self.idx_v, self.idx_v)]

    def forces(self, f_ext):
        """Pinocchio StdVec_Force of our (nq, 6) [moment; force] wrenches."""
        forces = pin.StdVec_Force()
        for _ in range(self.pin_model.njoints):
            forces.append(pin.Force.Zero())
        for i, name in enumerate(self.model.joint_names):
            joint_id = self.pin_model.getJointId(name)
            forces[joint_id] = pin.Force(f_ext[i][3:], f_ext[i][:3])
        return forces

    def rnea(self, q, qd, qdd, f_ext=None):
        """Inverse dynamics in our ordering."""
        args = [self.pin_model, self.data, self.q(q), self.v(qd), self.v(qdd)]
        if f_ext is not None:
            args.append(self.forces(f_ext))
        return self.ours(pin.rnea(*args))

    def aba(self, q, qd, tau, f_ext=None):
        """Forward dynamics in our ordering."""
        args = [self.pin_model, self.data, self.q(q), self.v(qd), self.v(tau)]
        if f_ext is not None:
            args.append(self.forces(f_ext))
        return self.ours(pin.aba(*args))

    def crba(self, q):
        """Full symmetric mass matrix in our ordering."""
        M = pin.crba(self.pin_model, self.data, self.q(q))
        M = np.triu(M) + np.triu(M, 1).T
        return self.ours_matrix(M)

    def gravity(self, q):
        """Gravity torques in our ordering."""
        return self.ours(pin.computeGeneralizedGravity(
            self.pin_model, self.data, self.q(q)))

    def bias(self, q, qd):
        """Nonlinear effects h(q, qd) in our ordering."""
        return self.ours(pin.nonLinearEffects(
            self.pin_model, self.data, self.q(q), self.v(qd)))

    def coriolis(self, q, qd):
        """Coriolis matrix in our ordering."""
        return self.ours_matrix(pin.computeCoriolisMatrix(
            self.pin_model, self.data, self.q(q), self.v(qd)))

    def forward(self, q, qd, tau):
        """
        Forward dynamics solved from Pinocchio's M and h: M^-1 (tau - h).

        For a reduced (mimic) model, where Pinocchio 4.1 has no ABA.
        """
        return np.linalg.solve(self.crba(q), tau - self.bias(q, qd))


class ProjectedOracle:
    """
    A MimicModel's dynamics from Pinocchio's model of every movable joint.

    Pinocchio builds the URDF without its mimic coupling (each mimic joint
    a coordinate of its own); the principle of virtual work maps it to
    independent coordinates with the model's G and offset: tau = G^T
    tau_tree(G q + offset, G qd, G qdd), M = G^T M_tree G.  Independent of
    Pinocchio's reduced parser, which refuses a mimic joint visited before
    its master (it visits sibling joints in name order).
    """

    def __init__(self, model, xml):
        self.model = model
        self.tree = PinocchioOracle(model.tree, xml)
        self.G = np.asarray(model.G)
        self.offset = np.asarray(model.offset)

    def _full(self, q):
        return self.G @ q + self.offset

    def rnea(self, q, qd, qdd):
        """Inverse dynamics in independent coordinates."""
        return self.G.T @ self.tree.rnea(
            self._full(q), self.G @ qd, self.G @ qdd)

    def crba(self, q):
        """Mass matrix in independent coordinates."""
        return self.G.T @ self.tree.crba(self._full(q)) @ self.G

    def gravity(self, q):
        """Gravity torques in independent coordinates."""
        return self.G.T @ self.tree.gravity(self._full(q))

    def bias(self, q, qd):
        """Nonlinear effects h(q, qd) in independent coordinates."""
        return self.G.T @ self.tree.bias(self._full(q), self.G @ qd)

    def forward(self, q, qd, tau):
        """Forward dynamics M^-1 (tau - h) in independent coordinates."""
        return np.linalg.solve(self.crba(q), tau - self.bias(q, qd))


def oracle_for(xml, **load_options):
    """Load ``xml`` both ways: (dynamics_ros model, PinocchioOracle)."""
    model = dr.load_urdf(xml, **load_options)
    return model, PinocchioOracle(model, xml)


def symmetric(matrix):
    """Full symmetric matrix from Pinocchio's upper triangle."""
    matrix = np.array(matrix)
    return np.triu(matrix) + np.triu(matrix, 1).T


def pin_derivatives(compute, oracle, q, qd, third, f_ext=None):
    """Pinocchio's three derivative matrices by ``compute``, our order."""
    args = [oracle.pin_model, oracle.data, oracle.q(q), oracle.v(qd),
            oracle.v(third)]
    if f_ext is not None:
        args.append(oracle.forces(f_ext))
    d_dq, d_dqd, symmetric_part = compute(*args)
    return (oracle.ours_matrix(np.array(d_dq)), oracle.ours_matrix(
        np.array(d_dqd)), oracle.ours_matrix(symmetric(symmetric_part)))


def pin_rnea_derivatives(oracle, q, qd, qdd, f_ext=None):
    """Pinocchio's (dtau_dq, dtau_dqd, M) in our joint order."""
    return pin_derivatives(pin.computeRNEADerivatives, oracle, q, qd, qdd,
                           f_ext)


def pin_aba_derivatives(oracle, q, qd, tau, f_ext=None):
    """Pinocchio's (dqdd_dq, dqdd_dqd, Minv) in our joint order."""
    return pin_derivatives(pin.computeABADerivatives, oracle, q, qd, tau,
                           f_ext)


def with_armature(model, oracle, armature):
    """Give both models the same rotor inertias."""
    model = model.copy(armature=armature)
    oracle.model = model
    oracle.pin_model.armature[oracle.idx_v] = armature
    oracle.data = oracle.pin_model.createData()
    return model, oracle


def pinocchio_model(model, oracle, q, qd, tau):
    """Return (A, B) of computeABADerivatives, damping added as we do."""
    n = model.nq
    damping = model.damping
    dq, dqd, Minv = pin_aba_derivatives(oracle, q, qd, tau - damping * qd)
    A = np.block([[np.zeros((n, n)), np.eye(n)],
                  [dq, dqd - Minv * damping]])
    B = np.vstack((np.zeros((n, n)), Minv))
    return A, B
