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
A plant holding a payload, for the payload tests: Pinocchio, not us.

Pinocchio builds the plant from the URDF with a payload link welded to
the tip (its own parallel-axis merge); its RNEA gives the efforts, plus
friction and Gaussian noise.  The plant's friction is sign-sharp
(coulomb sign(qd) + viscous qd + offset), as a real joint's is, not the
estimator's smoothed law: the estimator is told the same coefficients,
in its own law (JointFriction), and has to cope with the difference at
every velocity reversal.  The estimator under test sees the arm's URDF
without the payload, the friction, positions and efforts.
"""

import dynamics_ros as dr
from dynamics_ros.dynamics.friction import JointFriction
import numpy as np
import oracle

RATE = 1000.0
NOISE = 0.05   # N m, per sample
# A box 0.10 x 0.16 x 0.22 m turned about two axes, off the flange axis.
ARMS = {
    'panda': ('panda_hand', 1.6, [0.03, -0.02, 0.06], (0.10, 0.16, 0.22)),
    'ur5': ('tool0', 2.5, [-0.02, 0.04, 0.08], (0.12, 0.18, 0.24)),
}
# Arms the other payload tests do not use (test_payload_plants.py): a
# UR10 with 2.7 kg and a Kinova (slow 0.84 rad/s wrist) with its 1.3 kg.
OTHER_ARMS = {
    'ur10': ('tool0', 2.7, [-0.02, 0.04, 0.08], (0.12, 0.18, 0.24)),
    'kinova': ('j2s6s200_end_effector', 1.3, [0.01, -0.02, 0.05],
               (0.08, 0.12, 0.16)),
}


def box_inertia(mass, sides, angles=(0.4, -0.3)):
    """Inertia about the com of a box turned about x then z, kg m^2."""
    a, b, c = sides
    diagonal = mass / 12.0 * np.diag([b * b + c * c, a * a + c * c,
                                      a * a + b * b])
    cx, sx, cz, sz = (np.cos(angles[0]), np.sin(angles[0]),
                      np.cos(angles[1]), np.sin(angles[1]))
    R = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]]) @ np.array(
        [[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    return R @ diagonal @ R.T


def welded(xml, parent, mass, com, inertia):
    """URDF text with a payload link welded to ``parent`` (the plant)."""
    values = [inertia[0, 0], inertia[0, 1], inertia[0, 2], inertia[1, 1],
              inertia[1, 2], inertia[2, 2]]
    payload = (
        '<joint name="payload_joint" type="fixed"><parent link="%s"/>'
        '<child link="payload"/></joint><link name="payload"><inertial>'
        '<origin xyz="%r %r %r"/><mass value="%r"/><inertia ixx="%r" '
        'ixy="%r" ixz="%r" iyy="%r" iyz="%r" izz="%r"/></inertial></link>'
        % (parent, *map(float, com), float(mass), *map(float, values)))
    return xml.replace('</robot>', payload + '</robot>')


class Arm:
    """An arm, its payload, and a plant holding it."""

    def __init__(self, name):
        self.xml = oracle.example_arm_xml(name)
        self.model = dr.load_urdf(self.xml)
        self.link, self.mass, com, sides = {**ARMS, **OTHER_ARMS}[name]
        self.com = np.array(com)
        self.inertia = box_inertia(self.mass, sides)
        self.plant = oracle.PinocchioOracle(self.model, welded(
            self.xml, self.link, self.mass, self.com, self.inertia))
        n = self.model.nq
        self.friction = JointFriction(self.model.joint_names,
                                      np.linspace(0.2, 0.6, n),
                                      np.linspace(0.5, 0.2, n),
                                      np.linspace(-0.1, 0.1, n))

    def efforts(self, q, qd, qdd, rng):
        """Plant efforts with sign-sharp friction and noise, (N, nq)."""
        tau = np.array([self.plant.rnea(*state) for state in zip(q, qd, qdd)])
        friction = self.friction
        return tau + friction.viscous * qd + friction.coulomb * np.sign(
            qd) + friction.offset + rng.normal(0.0, NOISE, tau.shape)

    def poses(self, count, rng):
        """Random poses within the limits (shoulder joints kept moderate)."""
        lower = np.maximum(self.model.lower_limit, -2.5) + 0.2
        upper = np.minimum(self.model.upper_limit, 2.5) - 0.2
        return lower + rng.uniform(size=(count, self.model.nq)) * (
            upper - lower)


ARM_CACHE = {}


def arm(name):
    """Return the Arm ``name`` (built once)."""
    if name not in ARM_CACHE:
        ARM_CACHE[name] = Arm(name)
    return ARM_CACHE[name]
