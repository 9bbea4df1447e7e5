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
An arm on a base with prescribed motion (Nasser 1990, secs. 2.1.2, 2.1.20).

Oracle: Pinocchio with a free-flyer root (``buildModelFromXML(xml,
JointModelFreeFlyer())``), the base body's own inertia set to zero, driven
by the same base motion: its rnea gives the arm's torques, the wrench on
the base (the free-flyer's six "torques") and the joint wrenches
``data.f``; its centroidal momentum rate (computeCentroidalMomentumTime
Variation) is the sum of the base reaction and gravity.  1e-9 relative.
Nasser's own recursion (formulations/nasser.py) with the base motion must
give back the joint accelerations and the same reactions.
"""

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.formulations.nasser import nasser_forward_dynamics
import numpy as np
from oracle import example_arm_xml, pin, random_state
import oracle_record
import pytest
from urdf_factory import random_urdf

ARMS = [
    ('panda', example_arm_xml('panda')),
    ('ur5', example_arm_xml('ur5')),
    ('tree', random_urdf(81, n_movable=6, tree=True)),
]
G_WORLD = np.array([0.0, 0.0, -9.81])


class FreeFlyer:
    """Pinocchio's free-flyer model of a URDF, base body massless."""

    def __init__(self, model, xml):
        """Build it and map our joints to its velocity indices."""
        self.identity = oracle_record.digest(xml) + ' free flyer'

        def build():
            self.pin_model = pin.buildModelFromXML(
                xml, pin.JointModelFreeFlyer())
            self.pin_model.inertias[1] = pin.Inertia.Zero()
            self.pin_model.gravity = pin.Motion(G_WORLD, np.zeros(3))
            self.data = self.pin_model.createData()
            joints = [self.pin_model.getJointId(name)
                      for name in model.joint_names]
            return (joints, [self.pin_model.joints[j].idx_q for j in joints],
                    [self.pin_model.joints[j].idx_v for j in joints],
                    [self.pin_model.joints[j].nq for j in joints],
                    self.pin_model.nq, self.pin_model.nv)
        (self.joint_ids, self.idx_q, idx_v, self.nq_of, self.nq,
         self.nv) = oracle_record.call('build', (self.identity,), build)
        self.idx_v = np.array(idx_v)

    def ask(self, name, inputs, compute):
        """Pinocchio's answer ``compute()`` about this model."""
        return oracle_record.call(name, (self.identity,) + tuple(inputs),
                                  compute)

    def configuration(self, position, rotation, q):
        """Pinocchio q: base pose then our joint angles."""
        out = np.zeros(self.nq)
        # Position and unit quaternion (x, y, z, w) of the rotation.
        out[:3] = position
        out[3:7] = quaternion(rotation)
        for i, value in enumerate(q):
            k = self.idx_q[i]
            if self.nq_of[i] == 2:
                out[k:k + 2] = np.cos(value), np.sin(value)
            else:
                out[k] = value
        return out

    def tangent(self, base, joints):
        """Pinocchio v or a: base [linear; angular] then ours."""
        out = np.zeros(self.nv)
        out[:3], out[3:6] = base[3:], base[:3]
        out[self.idx_v] = joints
        return out

    def rnea(self, q, v, a):
        """Pinocchio's rnea and its joint wrenches (our ids) [mom; force]."""
        def rnea():
            tau = pin.rnea(self.pin_model, self.data, q, v, a)
            forces = [self.data.f[joint] for joint in self.joint_ids]
            return np.array(tau), np.array([np.concatenate((
                force.angular, force.linear)) for force in forces])
        return self.ask('rnea', (q, v, a), rnea)

    def momentum_rate(self, q, v, a):
        """Centroidal momentum rate (linear, angular) and centre of mass."""
        def rate():
            rate = pin.computeCentroidalMomentumTimeVariation(
                self.pin_model, self.data, q, v, a)
            return (np.array(rate.linear), np.array(rate.angular),
                    np.array(self.data.com[0]))
        return self.ask('centroidal momentum rate', (q, v, a), rate)


def rotation_matrix(w):
    """Return the rotation exp([w]x) (Rodrigues), as pin.exp3."""
    angle = np.linalg.norm(w)
    k = np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]],
                  [-w[1], w[0], 0.0]])
    if angle < 1e-12:
        return np.eye(3) + k
    return (np.eye(3) + np.sin(angle) / angle * k
            + (1.0 - np.cos(angle)) / angle ** 2 * k @ k)


def quaternion(rotation):
    """Return the unit quaternion [x, y, z, w], w >= 0, of a rotation."""
    w = 0.5 * np.sqrt(max(1.0 + np.trace(rotation), 0.0))
    if w > 0.1:
        x, y, z = (rotation[2, 1] - rotation[1, 2],
                   rotation[0, 2] - rotation[2, 0],
                   rotation[1, 0] - rotation[0, 1])
        return np.array([x / (4 * w), y / (4 * w), z / (4 * w), w])
    # Near a half turn: from the largest diagonal entry.
    i = int(np.argmax(np.diag(rotation)))
    j, k = (i + 1) % 3, (i + 2) % 3
    s = 2.0 * np.sqrt(1.0 + rotation[i, i] - rotation[j, j] - rotation[k, k])
    out = np.zeros(4)
    out[i] = s / 4
    out[j] = (rotation[j, i] + rotation[i, j]) / s
    out[k] = (rotation[k, i] + rotation[i, k]) / s
    out[3] = (rotation[k, j] - rotation[j, k]) / s
    return out if out[3] >= 0 else -out


def base_motion(rng):
    """Return a base pose, velocity and classical acceleration (root axes)."""
    rotation = rotation_matrix(rng.uniform(-1.0, 1.0, 3))
    position = rng.uniform(-1.0, 1.0, 3)
    velocity = rng.uniform(-1.0, 1.0, 6)
    acceleration = rng.uniform(-3.0, 3.0, 6)
    return position, rotation, velocity, acceleration


@pytest.fixture(scope='module', params=ARMS, ids=[a[0] for a in ARMS])
def arm(request):
    """(model, FreeFlyer) of one arm."""
    xml = request.param[1]
    model = dr.load_urdf(xml)
    return model, FreeFlyer(model, xml)


def test_moving_base_equals_pinocchio_free_flyer(arm):
    """Torques, base wrench and joint wrenches against Pinocchio (1e-9)."""
    model, ff = arm
    rng = np.random.default_rng(10)
    for _ in range(3):
        q, qd, qdd, _ = random_state(model, rng)
        position, rotation, velocity, acceleration = base_motion(rng)
        gravity = rotation.T @ G_WORLD
        ours = dr.moving_base_inverse_dynamics(
            model, q, qd, qdd, velocity, acceleration, gravity=gravity)
        # Pinocchio's free-flyer a is d/dt of the local velocity: the
        # spatial acceleration v_dot - omega x v.
        spatial = acceleration.copy()
        spatial[3:] -= np.cross(velocity[:3], velocity[3:])
        theirs, wrenches = ff.rnea(
            ff.configuration(position, rotation, q),
            ff.tangent(velocity, qd), ff.tangent(spatial, qdd))
        assert_close(ours.tau, theirs[ff.idx_v], what='tau')
        assert_close(ours.base_wrench, np.concatenate(
            (theirs[3:6], theirs[:3])), what='base wrench')
        for i, wrench in enumerate(wrenches):
            assert_close(ours.joint_wrenches[i], wrench,
                         scale=np.abs(ours.joint_wrenches).max(),
                         what='f %d' % i)


def test_base_wrench_is_the_rate_of_momentum(arm):
    """
    Base reaction + gravity = rate of the arm's total momentum.

    Pinocchio's centroidal momentum rate (world axes, about the centre of
    mass) against our base wrench carried there, plus m g.
    """
    model, ff = arm
    rng = np.random.default_rng(11)
    q, qd, qdd, _ = random_state(model, rng)
    position, rotation, velocity, acceleration = base_motion(rng)
    ours = dr.moving_base_inverse_dynamics(
        model, q, qd, qdd, velocity, acceleration,
        gravity=rotation.T @ G_WORLD)
    spatial = acceleration.copy()
    spatial[3:] -= np.cross(velocity[:3], velocity[3:])
    pin_q = ff.configuration(position, rotation, q)
    rate_linear, rate_angular, centre = ff.momentum_rate(
        pin_q, ff.tangent(velocity, qd), ff.tangent(spatial, qdd))
    force = rotation @ ours.base_wrench[3:]
    moment = rotation @ ours.base_wrench[:3] + np.cross(position - centre,
                                                        force)
    mass = float(np.sum(model.mass))
    assert_close(force + mass * G_WORLD, rate_linear)
    assert_close(moment, rate_angular)
    # The base is really moving the arm: the reaction is not the static one.
    static = dr.moving_base_inverse_dynamics(
        model, q, qd, qdd, gravity=rotation.T @ G_WORLD).base_wrench
    assert np.abs(static - ours.base_wrench).max() > 1e-3


def test_base_at_rest_is_inverse_dynamics(arm):
    """No base motion: tau equals inverse_dynamics, f_ext included."""
    model, _ = arm
    rng = np.random.default_rng(12)
    q, qd, qdd, _ = random_state(model, rng)
    f_ext = rng.uniform(-2.0, 2.0, (model.nq, 6))
    assert_close(dr.moving_base_inverse_dynamics(model, q, qd, qdd,
                                                 f_ext=f_ext).tau,
                 dr.inverse_dynamics(model, q, qd, qdd, f_ext))


def test_nasser_forward_dynamics_on_a_moving_base(arm):
    """
    Nasser's recursion with the base motion prescribed (sec. 2.1.2).

    Its hinge accelerations give back the torques in Pinocchio's free-flyer
    rnea, and its joint reactions (gamma G_i F_i with the drive load,
    eq. 2.1.20) equal the joint wrenches.
    """
    model, ff = arm
    rng = np.random.default_rng(13)
    q, qd, _, tau = random_state(model, rng)
    position, rotation, velocity, acceleration = base_motion(rng)
    gravity = rotation.T @ G_WORLD
    qdd, reactions = nasser_forward_dynamics(
        model, q, qd, tau, base_velocity=velocity,
        base_acceleration=acceleration, gravity=gravity, reactions=True)
    spatial = acceleration.copy()
    spatial[3:] -= np.cross(velocity[:3], velocity[3:])
    theirs = ff.rnea(ff.configuration(position, rotation, q),
                     ff.tangent(velocity, qd), ff.tangent(spatial, qdd))[0]
    assert_close(theirs[ff.idx_v], tau)
    ours = dr.moving_base_inverse_dynamics(
        model, q, qd, qdd, velocity, acceleration, gravity=gravity)
    assert_close(reactions, ours.joint_wrenches)


def test_bad_base_motion_is_named():
    """A base vector of the wrong size or with NaN is refused by name."""
    model = dr.load_urdf(example_arm_xml('ur5'))
    zeros = np.zeros(model.nq)
    with pytest.raises(ValueError, match='base_velocity'):
        dr.moving_base_inverse_dynamics(model, zeros, zeros, zeros,
                                        base_velocity=[0.0] * 5)
    with pytest.raises(ValueError, match='base_acceleration'):
        dr.moving_base_inverse_dynamics(model, zeros, zeros, zeros,
                                        base_acceleration=[np.nan] * 6)
    with pytest.raises(ValueError, match='gravity'):
        dr.moving_base_inverse_dynamics(model, zeros, zeros, zeros,
                                        gravity=[0.0, 9.81])
