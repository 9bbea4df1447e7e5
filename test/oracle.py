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

Every answer of Pinocchio goes through ``ask`` (oracle_record.py): live
in the development venv, replayed from test/data/oracle_calls/ in the
distro environment (make test-distro).  Tests that ask Pinocchio more than
these methods do so through ``PinocchioOracle.ask`` or
``oracle_record.call`` too, with ``pin`` from here (None in replay: the
calls that are not stored are computed by ``PinocchioOracle`` alone).

Models with mimic joints (``dr.MimicModel``, independent coordinates) have
two oracles: Pinocchio's reduced model (``mimic=True``: M and rnea, no
forward dynamics) and ``ProjectedOracle``, Pinocchio's model of every
movable joint taken through the map q_tree = G q + offset, for URDFs that
Pinocchio's reduced parser refuses.
"""

import glob
import importlib
import os
import sys
import xml.etree.ElementTree as ElementTree

import dynamics_ros as dr
import numpy as np
import oracle_record
# The robots and states, also used where Pinocchio is not installed
# (test/dynamics/test_oracle_reference.py).
from robot_files import example_arm_xml, EXAMPLE_ARMS  # noqa: F401
from robot_files import keep_chain, random_state  # noqa: F401
from robot_files import robots_directory

if oracle_record.MODE == 'replay':
    # `make test-distro` (numpy 1.26) cannot install the oracle, pin >= 3:
    # its Python 3.12 wheels need numpy >= 2.  There Pinocchio's answers are
    # those stored by scripts/write_oracle_calls.py (oracle_record.py), and
    # the tests see no Pinocchio; the installed one (pin 2.7.0) computes
    # only the calls of the modules not stored (oracle_record.NOT_RECORDED,
    # through PinocchioOracle: _pinocchio below).
    pin = None

    class _SkipPinocchio:
        """A module importing pinocchio itself skips (stored answers)."""

        @staticmethod
        def find_spec(name, path=None, target=None):
            """Skip the importing module when it asks for pinocchio."""
            if name == 'pinocchio':
                import pytest
                pytest.skip(oracle_record.SKIP_IMPORT,
                            allow_module_level=True)
            return None
    sys.meta_path.insert(0, _SkipPinocchio)
else:
    # Anywhere else a missing oracle is an install error.
    import pinocchio as pin
# Replay: the installed Pinocchio, once a module not stored asked it.
_LIVE = []


def _pinocchio():
    """
    Return the Pinocchio module PinocchioOracle computes with.

    ``pin`` but in replay, where it is imported on the first call that is
    computed (after collection: a module importing pinocchio itself has
    skipped by then) and taken out of sys.modules again, so that a test
    importing pinocchio later still skips, whichever module ran before.
    """
    if pin is not None:
        return pin
    if not _LIVE:
        sys.meta_path.remove(_SkipPinocchio)
        try:
            _LIVE.append(importlib.import_module('pinocchio'))
        finally:
            sys.meta_path.insert(0, _SkipPinocchio)
            for name in [name for name in sys.modules
                         if name.split('.')[0] == 'pinocchio']:
                del sys.modules[name]
    return _LIVE[0]


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
        # What Pinocchio's answers depend on besides a call's arguments:
        # the URDF, the parser's mode, gravity and (with_armature) rotors.
        self.identity = oracle_record.digest(xml) + (
            ' mimic' if mimic else '')
        self.armature = None
        gravity = np.asarray(model.gravity, dtype=float)

        def build():
            library = _pinocchio()
            # Without mimic=False: pin 2.7 (make test-distro, the modules
            # not stored) has no such argument; 4.1's default is False.
            self.pin_model = library.buildModelFromXML(xml, mimic=True) \
                if mimic else library.buildModelFromXML(xml)
            self.pin_model.gravity = library.Motion(gravity, np.zeros(3))
            self.data = self.pin_model.createData()
            joints = [self.pin_model.joints[self.pin_model.getJointId(name)]
                      for name in model.joint_names]
            return ([joint.idx_q for joint in joints],
                    [joint.idx_v for joint in joints],
                    [joint.nq for joint in joints],
                    self.pin_model.nq, self.pin_model.nv)
        layout = oracle_record.call('build', (self.identity, gravity), build)
        self.idx_q, idx_v, self.pin_nq, self.nq, self.nv = layout
        self.idx_v = np.array(idx_v, dtype=int)
        assert self.nv == model.nq, 'models differ in size'

    def ask(self, name, inputs, compute):
        """
        Pinocchio's answer ``compute()`` about this model.

        ``inputs``: the arguments it depends on (oracle_record.call); the
        model's identity and rotor inertias are added.
        """
        return oracle_record.call(
            name, (self.identity, self.armature) + tuple(inputs), compute)

    def q(self, q):
        """Pinocchio configuration of a dynamics_ros q."""
        out = np.zeros(self.nq)
        for i, value in enumerate(q):
            if self.pin_nq[i] == 2:
                out[self.idx_q[i]:self.idx_q[i] + 2] = np.cos(value), np.sin(
                    value)
            else:
                out[self.idx_q[i]] = value
        return out

    def v(self, v):
        """Pinocchio tangent vector (qd, qdd, tau) of ours."""
        out = np.zeros(self.nv)
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
        library = _pinocchio()
        forces = library.StdVec_Force()
        for _ in range(self.pin_model.njoints):
            forces.append(library.Force.Zero())
        for i, name in enumerate(self.model.joint_names):
            joint_id = self.pin_model.getJointId(name)
            forces[joint_id] = library.Force(f_ext[i][3:], f_ext[i][:3])
        return forces

    def _arguments(self, q, *vectors, f_ext=None):
        args = [self.pin_model, self.data, self.q(q)] + [
            self.v(v) for v in vectors]
        if f_ext is not None:
            args.append(self.forces(f_ext))
        return args

    def rnea(self, q, qd, qdd, f_ext=None):
        """Inverse dynamics in our ordering."""
        return self.ask('rnea', vectors(q, qd, qdd, f_ext), lambda: self.ours(
            _pinocchio().rnea(*self._arguments(q, qd, qdd, f_ext=f_ext))))

    def aba(self, q, qd, tau, f_ext=None):
        """Forward dynamics in our ordering."""
        return self.ask('aba', vectors(q, qd, tau, f_ext), lambda: self.ours(
            _pinocchio().aba(*self._arguments(q, qd, tau, f_ext=f_ext))))

    def crba(self, q):
        """Full symmetric mass matrix in our ordering."""
        return self.ask('crba', vectors(q), lambda: self.ours_matrix(
            symmetric(_pinocchio().crba(*self._arguments(q)))))

    def gravity(self, q):
        """Gravity torques in our ordering."""
        return self.ask('gravity', vectors(q), lambda: self.ours(
            _pinocchio().computeGeneralizedGravity(*self._arguments(q))))

    def bias(self, q, qd):
        """Nonlinear effects h(q, qd) in our ordering."""
        return self.ask('bias', vectors(q, qd), lambda: self.ours(
            _pinocchio().nonLinearEffects(*self._arguments(q, qd))))

    def coriolis(self, q, qd):
        """Coriolis matrix in our ordering."""
        return self.ask('coriolis', vectors(q, qd), lambda: self.ours_matrix(
            _pinocchio().computeCoriolisMatrix(*self._arguments(q, qd))))

    def derivatives(self, which, q, qd, third, f_ext=None):
        """
        Pinocchio's derivatives of RNEA or ABA (``which``), our order.

        Return (d/dq, d/dqd, M or M^-1) of computeRNEADerivatives or
        computeABADerivatives.
        """
        compute = {'rnea': 'computeRNEADerivatives',
                   'aba': 'computeABADerivatives'}[which]

        def derivatives():
            d_dq, d_dqd, symmetric_part = getattr(_pinocchio(), compute)(
                *self._arguments(q, qd, third, f_ext=f_ext))
            return (self.ours_matrix(np.array(d_dq)),
                    self.ours_matrix(np.array(d_dqd)),
                    self.ours_matrix(symmetric(symmetric_part)))
        return self.ask(which + '_derivatives', vectors(q, qd, third, f_ext),
                        derivatives)

    def forward(self, q, qd, tau):
        """
        Forward dynamics solved from Pinocchio's M and h: M^-1 (tau - h).

        For a reduced (mimic) model, where Pinocchio 4.1 has no ABA.
        """
        return np.linalg.solve(self.crba(q), tau - self.bias(q, qd))


def vectors(*values):
    """Return the arguments of a call as float arrays (None kept)."""
    return tuple(None if value is None else np.array(value, dtype=float)
                 for value in values)


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


def pin_rnea_derivatives(oracle, q, qd, qdd, f_ext=None):
    """Pinocchio's (dtau_dq, dtau_dqd, M) in our joint order."""
    return oracle.derivatives('rnea', q, qd, qdd, f_ext)


def pin_aba_derivatives(oracle, q, qd, tau, f_ext=None):
    """Pinocchio's (dqdd_dq, dqdd_dqd, Minv) in our joint order."""
    return oracle.derivatives('aba', q, qd, tau, f_ext)


def with_armature(model, oracle, armature):
    """Give both models the same rotor inertias."""
    model = model.copy(armature=armature)
    oracle.model = model
    oracle.armature = np.array(armature, dtype=float)
    # Pinocchio's model is there where its answers are computed (not where
    # they are replayed).
    if hasattr(oracle, 'pin_model'):
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
