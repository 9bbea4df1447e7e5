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
FlexibleModel: a RobotModel some of whose links are flexible beams.

The generalized coordinates are z = (q, delta): the joint coordinates in
``model.joint_names`` order, then the modal amplitudes link by link in body
order (Mackay interleaves them per link; this is the same set, permuted, so
that z[:nq] are the joints a JointState carries).  Coordinate names are the
joint names followed by ``<link>/xy1``, ``<link>/xz1``, ...

The rigid URDF stays as it is.  For a flexible link the declaration (beam
plus optional joint and tip masses) replaces the URDF <inertial>; a
ModelWarning says so when the two disagree.  ``rigid_model()`` returns the
RobotModel whose rigid inertias are those of the undeformed links.
"""

import warnings

import numpy as np

from .energy import energy
from .forward_dynamics import forward_dynamics, natural_periods, \
    static_deflection
from .inverse_dynamics import bias_forces, gravity_forces, inverse_dynamics
from .kinematics import frame_deflection, frame_pose
from .link import FlexibleLink, pseudo_inertia
from .mass_matrix import mass_matrix
from ..errors import ModelError, ModelWarning
from ..model.robot_model import REVOLUTE
from ..spatial import skew

__all__ = ['FlexibleModel']


def _homogeneous(rotation, translation):
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = rotation, translation
    return T


def joint_generator(joint_type, axis):
    """
    Omega with dT/dq = T Omega for the joint motion T(q) (4x4).

    Revolute: [skew(u), 0]; prismatic: [0, u].  Mackay's U_j = Q A_j for a
    rotation about Z (the joint derivative of Mackay's eqs. 2.13-2.19,
    docs/papers/mackay_1988.md), for any axis.
    """
    Omega = np.zeros((4, 4))
    if joint_type == REVOLUTE:
        Omega[:3, :3] = skew(axis)
    else:
        Omega[:3, 3] = axis
    return Omega


class FlexibleModel:
    """
    A RobotModel with flexible links (Mackay 1988, Book 1984).

    ``links`` maps URDF link names of moving bodies to FlexibleLink
    declarations.  Algorithms live in their own modules
    (inverse_dynamics, mass_matrix, forward_dynamics, energy, kinematics);
    the methods here are the convenient spelling of them.
    """

    def __init__(self, model, links):
        """Resolve every declaration against ``model`` and precompute."""
        if model.mimic:
            # The assumed-modes equations are written for a tree's own
            # joints; a coupling would need its own reduction of them.
            raise ModelError(
                'flexible links on model %r with mimic joints (%s) are not '
                'supported: cut the mimic joints off with tip_link' % (
                    model.name, ', '.join(model.mimic)))
        self.model = model
        self.links = {}
        body_of = {name: i for i, name in enumerate(model.body_names)}
        self.flexible = [None] * model.nq
        for name, declared in links.items():
            if name not in body_of:
                self._unknown_link(name)
            if not isinstance(declared, FlexibleLink):
                raise ModelError('flexible link %r: expected a FlexibleLink, '
                                 'got %s' % (name, type(declared).__name__))
            link = declared.resolved('flexible link %r' % name)
            self.links[name] = link
            self.flexible[body_of[name]] = link
        self._coordinates()
        self._body_constants()
        self._check_inertials()

    def _unknown_link(self, name):
        if name in self.model.frames:
            body = self.model.frames[name][0]
            raise ModelError(
                'flexible link %r is merged into %s by fixed joints; '
                'declare the moving link instead' % (
                    name, 'the fixed base' if body < 0 else
                    'link %r' % self.model.body_names[body]))
        raise ModelError('flexible link %r is not a link moved by a joint of '
                         'model %r (moving links: %s)' % (
                             name, self.model.name,
                             ', '.join(self.model.body_names)))

    def _coordinates(self):
        model = self.model
        self.nq = model.nq
        self.mode_slices = []
        self.mode_names = []
        start = self.nq
        for i in range(model.nq):
            link = self.flexible[i]
            count = 0 if link is None else link.mode_count
            self.mode_slices.append(slice(start, start + count))
            if link is not None:
                self.mode_names += ['%s/%s' % (model.body_names[i], label)
                                    for label in link.mode_labels]
            start += count
        self.nz = start
        self.nm = start - self.nq
        self.coordinate_names = list(model.joint_names) + self.mode_names

    def _body_constants(self):
        """Per body: O_i, Omega_i, mass integrals, attachment matrices."""
        model = self.model
        n = model.nq
        self.origin = [_homogeneous(model.origin_rotation[i],
                                    model.origin_translation[i])
                       for i in range(n)]
        self.generator = [joint_generator(model.joint_type[i], model.axis[i])
                          for i in range(n)]
        self.generator_squared = [G @ G for G in self.generator]
        self.C, self.Ck, self.Ckj = [], [], []
        for i in range(n):
            link = self.flexible[i]
            if link is None:
                self.C.append(pseudo_inertia(model.mass[i], model.com[i],
                                             model.inertia_com[i]))
                self.Ck.append(np.zeros((0, 4, 4)))
                self.Ckj.append(np.zeros((0, 0, 4, 4)))
            else:
                self.C.append(link.C)
                self.Ck.append(link.Ck)
                self.Ckj.append(link.Ckj)
        # N of the parent's section that carries child joint i (or None).
        self.attachment = [None] * n
        self.attachment_section = [None] * n
        for i in range(n):
            parent = model.parent[i]
            link = None if parent < 0 else self.flexible[parent]
            if link is not None and link.mode_count:
                eta = link.section_of(model.origin_translation[i])
                self.attachment_section[i] = eta
                self.attachment[i] = link.section_matrices(eta)
        self.Ck_symmetric = [(Ck + np.swapaxes(Ck, 1, 2)).reshape(-1, 16)
                             for Ck in self.Ck]
        self.stiffness = np.zeros(self.nz)
        self.modal_damping = np.zeros(self.nz)
        for i, link in enumerate(self.flexible):
            if link is not None:
                self.stiffness[self.mode_slices[i]] = link.stiffness
                self.modal_damping[self.mode_slices[i]] = link.damping
        self._frame_sections = {}

    def _check_inertials(self):
        model = self.model
        for i, link in enumerate(self.flexible):
            if link is None:
                continue
            mass, com, _ = link.rigid_equivalent()
            if abs(mass - model.mass[i]) > 0.01 * max(mass, 1e-9) or \
                    np.linalg.norm(com - model.com[i]) > 0.01 * link.length:
                warnings.warn(
                    'flexible link %r: the URDF <inertial> (%.4g kg, centre '
                    'of mass %s) differs from the flexible declaration '
                    '(%.4g kg, %s); the declaration is used' % (
                        model.body_names[i], model.mass[i],
                        np.round(model.com[i], 4).tolist(), mass,
                        np.round(com, 4).tolist()), ModelWarning)

    # --- coordinates -----------------------------------------------------

    @property
    def joint_names(self):
        """Joint coordinate names, the order of ``z[:nq]``."""
        return self.model.joint_names

    def split(self, z):
        """Return (q, delta) of a coordinate vector z."""
        z = self.check(z, 'z')
        return z[:self.nq], z[self.nq:]

    def join(self, q, delta=None):
        """Return z = (q, delta); delta defaults to zero (undeformed)."""
        q = np.asarray(q, dtype=float).reshape(self.nq)
        delta = np.zeros(self.nm) if delta is None else np.asarray(
            delta, dtype=float).reshape(self.nm)
        return np.concatenate((q, delta))

    def check(self, value, name):
        """Return ``value`` as a float vector of length nz (or raise)."""
        array = np.asarray(value, dtype=float)
        if array.shape != (self.nz,):
            raise ValueError(
                '%s must have %d values (%d joints then %d modal amplitudes, '
                'in coordinate_names order), got shape %s' % (
                    name, self.nz, self.nq, self.nm, array.shape))
        return array

    # --- derived models ------------------------------------------------

    def rigid_model(self):
        """Return the RobotModel with each flexible link made rigid, undeformed."""
        mass = self.model.mass.copy()
        com = self.model.com.copy()
        inertia = self.model.inertia_com.copy()
        for i, link in enumerate(self.flexible):
            if link is not None:
                mass[i], com[i], inertia[i] = link.rigid_equivalent()
        return self.model.copy(mass=mass, com=com, inertia_com=inertia)

    def frame_section(self, link_name):
        """(body, eta or None, frame transform in body) of a URDF link."""
        if link_name not in self._frame_sections:
            if link_name not in self.model.frames:
                raise KeyError('link %r is not in model %r'
                               % (link_name, self.model.name))
            body, rotation, translation = self.model.frames[link_name]
            link = None if body < 0 else self.flexible[body]
            N = None
            if link is not None and link.mode_count:
                N = link.section_matrices(link.section_of(translation))
            self._frame_sections[link_name] = (
                body, N, _homogeneous(rotation, translation))
        return self._frame_sections[link_name]

    def tip_link(self):
        """Last link of the model's kept frames on the deepest body."""
        last = self.nq - 1
        names = [name for name, (body, _, _) in self.model.frames.items()
                 if body == last]
        return names[-1] if names else self.model.body_names[last]

    def summary(self):
        """Human-readable description of the flexible links."""
        lines = [self.model.summary(), 'flexible links: %d, coordinates '
                 'z: %d joints + %d modes' % (len(self.links), self.nq,
                                              self.nm)]
        for name, link in self.links.items():
            periods = link.clamped_periods()
            lines.append('  %s: %.4g m, %.4g kg, EI %s N m^2, modes xy %d '
                         'xz %d, clamped periods %s ms' % (
                             name, link.length, link.mass,
                             '/'.join('%.4g' % v for v in link.EI),
                             link.mode_counts[0], link.mode_counts[1],
                             ', '.join('%.2f' % (1e3 * p) for p in periods)))
        return '\n'.join(lines)

    # --- algorithms (see their modules) ------------------------------------

    def mass_matrix(self, z):
        """I(z), (nz, nz): see flexible.mass_matrix."""
        return mass_matrix(self, z)

    def inverse_dynamics(self, z, zd, zdd):
        """Generalized forces for (z, zd, zdd): see flexible.inverse_dynamics."""
        return inverse_dynamics(self, z, zd, zdd)

    def bias_forces(self, z, zd):
        """Velocity, gravity, elastic and damping forces (zdd = 0)."""
        return bias_forces(self, z, zd)

    def gravity_forces(self, z):
        """Generalized gravity forces g(z)."""
        return gravity_forces(self, z)

    def forward_dynamics(self, z, zd, tau, modal_forces=None):
        """Return zdd for joint forces ``tau``: see flexible.forward_dynamics."""
        return forward_dynamics(self, z, zd, tau, modal_forces)

    def state_derivative(self, x, tau):
        """Return d/dt [z; zd] for the state x = [z; zd] and joint ``tau``."""
        x = np.asarray(x, dtype=float)
        z, zd = x[:self.nz], x[self.nz:]
        return np.concatenate((zd, self.forward_dynamics(z, zd, tau)))

    def energy(self, z, zd):
        """Return (kinetic, gravity, elastic) energy: see flexible.energy."""
        return energy(self, z, zd)

    def static_deflection(self, q, iterations=50, tolerance=1e-12):
        """Modal amplitudes at rest under gravity at joint angles q."""
        return static_deflection(self, q, iterations, tolerance)

    def natural_periods(self, z):
        """Periods (s) of the linearized modes with free joints."""
        return natural_periods(self, z)

    def frame_pose(self, z, link_name):
        """World 4x4 transform of a URDF link frame, deflection included."""
        return frame_pose(self, z, link_name)

    def tip_deflection(self, z, link_name=None):
        """World displacement (3,) of a link frame from its rigid position."""
        return frame_deflection(self, z, link_name or self.tip_link())

    def link_tip_deflections(self, z):
        """(n_flexible, 2): tip deflection (y, z) of each flexible link."""
        _, delta = self.split(z)
        out = []
        for i, link in enumerate(self.flexible):
            if link is not None:
                s = self.mode_slices[i]
                out.append(link.tip_deflection(
                    delta[s.start - self.nq:s.stop - self.nq]))
        return np.array(out).reshape(-1, 2)

    def flexible_state(self, z, zd):
        """
        Return (names, positions, velocities) for a ``flexible_state`` topic.

        One entry per modal coordinate (amplitude, rate), then per flexible
        link ``<link>/tip_y`` and ``<link>/tip_z`` (tip deflection in the
        beam frame, m; velocity = its rate), the layout of a JointState.
        """
        z, zd = self.check(z, 'z'), self.check(zd, 'zd')
        names = list(self.mode_names)
        positions = list(z[self.nq:])
        velocities = list(zd[self.nq:])
        tips = self.link_tip_deflections(z)
        rates = self.link_tip_deflections(np.concatenate(
            (np.zeros(self.nq), zd[self.nq:])))
        flexible = [self.model.body_names[i]
                    for i, link in enumerate(self.flexible) if link]
        for row, name in enumerate(flexible):
            for column, axis in enumerate('yz'):
                names.append('%s/tip_%s' % (name, axis))
                positions.append(tips[row, column])
                velocities.append(rates[row, column])
        return names, np.array(positions), np.array(velocities)
