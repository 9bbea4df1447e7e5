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
A flexible link: a uniform Euler-Bernoulli beam with assumed modes.

Mackay (1988) ch. 2 after Book (1984).  The beam lies along the X axis of
its own *beam frame*, placed in the body frame by ``origin`` and ``axis``
(Mackay's constant transform S_i).  It bends in the beam's XY plane
(deflection along Y, section rotation theta_z = Phi') and XZ plane
(deflection along Z, theta_y = -Phi'), each with its own clamped-free
modes; there is no torsion and no axial deformation (Mackay sec. 3.2).

A point of the body, in homogeneous body coordinates, is

    h = h0 + sum_k delta_k psi_k

(eq. 2.5 with the 4th component of psi equal to 0, not the printed 1:
docs/papers/mackay_1988.md).  All the dynamics needs of a link are the mass
integrals, with Mackay's factor 1/2 (eq. 2.24: hence the "2 Tr" of every
generalized force):

    C = 1/2 int h0 h0^T dm,  C_k = 1/2 int h0 psi_k^T dm,
    C_kj = 1/2 int psi_k psi_j^T dm,

the modal stiffness K_k = EI int Phi_k''^2 (eq. 2.52) and the section
matrices M_k(eta) that move whatever is attached to the section at eta.
Rigid parts: an optional *joint mass* fixed to the body frame (Mackay's
jmass, J_R) and an optional *tip mass* clamped to the tip section.
"""

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .modes import gauss_stations, ModeShapes, NORMALIZATIONS
from ..errors import ModelError
from ..spatial import skew

PLANES = ('xy', 'xz')


def _vector(value, name, where):
    array = np.asarray(value, dtype=float)
    if array.shape != (3,) or not np.all(np.isfinite(array)):
        raise ModelError('%s: %s must be 3 finite numbers, got %r'
                         % (where, name, value))
    return array


def inertia_matrix(value, where):
    """
    Return a 3x3 inertia from 3 (diagonal), 6 (URDF order) or 9 numbers.

    URDF order is ixx, ixy, ixz, iyy, iyz, izz.
    """
    array = np.asarray(value, dtype=float).ravel()
    if array.size == 3:
        inertia = np.diag(array)
    elif array.size == 6:
        ixx, ixy, ixz, iyy, iyz, izz = array
        inertia = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz],
                            [ixz, iyz, izz]])
    elif array.size == 9:
        inertia = array.reshape(3, 3)
    else:
        raise ModelError('%s: inertia must have 3 (diagonal), 6 (ixx ixy ixz '
                         'iyy iyz izz) or 9 values, got %d'
                         % (where, array.size))
    if not np.all(np.isfinite(inertia)) or not np.allclose(
            inertia, inertia.T, rtol=0, atol=1e-12 * (1 + abs(inertia).max())):
        raise ModelError('%s: inertia must be finite and symmetric, got %s'
                         % (where, inertia.tolist()))
    moments = np.linalg.eigvalsh(inertia)
    tolerance = 1e-12 * max(1.0, moments.max())
    if moments.min() < -tolerance or (
            moments.sum() - 2 * moments.max() < -tolerance):
        raise ModelError('%s: inertia is not physical (principal moments %s '
                         'must be >= 0 and obey the triangle inequality)'
                         % (where, moments.tolist()))
    return inertia


def pseudo_inertia(mass, com, inertia_com):
    """
    Half pseudo-inertia 1/2 int p p^T dm of a rigid body (4x4).

    Mackay's J_R (eq. 2.24): half of Hollerbach's pseudo-inertia, with
    p = (x, y, z, 1) in the frame of ``com`` and ``inertia_com``.
    """
    com = np.asarray(com, dtype=float)
    second = 0.5 * np.trace(inertia_com) * np.eye(3) - inertia_com
    J = np.zeros((4, 4))
    J[:3, :3] = second + mass * np.outer(com, com)
    J[:3, 3] = J[3, :3] = mass * com
    J[3, 3] = mass
    return 0.5 * J


def rigid_parameters(half_pseudo):
    """Mass, centre of mass and central inertia of a half pseudo-inertia."""
    J = 2.0 * np.asarray(half_pseudo)
    mass = J[3, 3]
    if mass <= 0.0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    com = J[:3, 3] / mass
    second = J[:3, :3] - mass * np.outer(com, com)
    inertia = np.trace(second) * np.eye(3) - second
    return mass, com, 0.5 * (inertia + inertia.T)


@dataclass
class RigidPart:
    """
    A rigid mass on a flexible link: a motor (joint mass) or a payload.

    ``com`` and ``inertia`` (about the centre of mass) are in the body frame
    for a joint mass and in the beam frame, from the tip, for a tip mass.
    """

    mass: float
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))

    def checked(self, where):
        """Return a validated copy (ModelError names ``where``)."""
        mass = float(self.mass)
        if not np.isfinite(mass) or mass < 0.0:
            raise ModelError('%s: mass must be >= 0, got %r'
                             % (where, self.mass))
        return RigidPart(mass, _vector(self.com, 'com', where),
                         inertia_matrix(self.inertia, where))


def beam_frame(origin, axis, y_axis, where):
    """
    Mackay's S: the beam frame (X along the beam) in the body frame.

    ``y_axis`` fixes the XY bending plane; by default the first of the body
    Y, Z, X axes not parallel to the beam, made orthogonal to it.
    """
    x = _vector(axis, 'axis', where)
    if np.linalg.norm(x) < 1e-9:
        raise ModelError('%s: axis must be a non-zero vector' % where)
    x = x / np.linalg.norm(x)
    candidates = [y_axis] if y_axis is not None else [
        (0, 1, 0), (0, 0, 1), (1, 0, 0)]
    for candidate in candidates:
        y = _vector(candidate, 'y_axis', where)
        y = y - x * (x @ y)
        if np.linalg.norm(y) > 1e-6:
            break
    else:
        raise ModelError('%s: y_axis must not be parallel to axis' % where)
    y = y / np.linalg.norm(y)
    S = np.eye(4)
    S[:3, 0], S[:3, 1], S[:3, 2] = x, y, np.cross(x, y)
    S[:3, 3] = _vector(origin, 'origin', where)
    return S


@dataclass
class FlexibleLink:
    """
    Declaration of one flexible link (doc/theory/flexible_links.md).

    Give ``mass`` (kg, the beam's) or ``mass_per_length`` (kg/m); ``EI``
    (N m^2) sets both planes unless ``EI_xy`` / ``EI_xz`` are given;
    ``modes`` sets the count in both planes unless ``modes_xy`` /
    ``modes_xz`` are.  ``damping_ratio`` is a modal damping ratio applied
    to every mode at its clamped frequency (Mackay has none).
    """

    length: float
    EI: Optional[float] = None
    mass: Optional[float] = None
    mass_per_length: Optional[float] = None
    EI_xy: Optional[float] = None
    EI_xz: Optional[float] = None
    modes: Optional[int] = None
    modes_xy: Optional[int] = None
    modes_xz: Optional[int] = None
    axis: tuple = (1.0, 0.0, 0.0)
    y_axis: Optional[tuple] = None
    origin: tuple = (0.0, 0.0, 0.0)
    normalization: str = 'tip'
    damping_ratio: float = 0.0
    joint_mass: Optional[RigidPart] = None
    tip_mass: Optional[RigidPart] = None
    quadrature_points: int = 64

    def resolved(self, where):
        """Return a ResolvedLink: checked numbers and derived constants."""
        return ResolvedLink(self, where)


def _positive(value, name, where, allow_zero=False):
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ModelError('%s: %s must be a number, got %r'
                         % (where, name, value))
    if not np.isfinite(number) or number < 0.0 or (
            number == 0.0 and not allow_zero):
        raise ModelError('%s: %s must be %s, got %r' % (
            where, name, '>= 0' if allow_zero else '> 0', value))
    return number


def _count(value, name, where):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
            or value < 0:
        raise ModelError('%s: %s must be an integer >= 0, got %r'
                         % (where, name, value))
    return int(value)


def _either(declared, both, first, second, name, where, check):
    """Resolve a (both planes) / (xy, xz) pair of settings."""
    xy, xz = getattr(declared, first), getattr(declared, second)
    value = getattr(declared, both)
    if value is not None:
        xy = value if xy is None else xy
        xz = value if xz is None else xz
    if xy is None or xz is None:
        raise ModelError('%s: give %s (both planes) or both %s and %s'
                         % (where, name, first, second))
    return check(xy, first, where), check(xz, second, where)


class ResolvedLink:
    """Checked declaration plus the constants the dynamics uses."""

    def __init__(self, declared, where):
        """Validate ``declared`` and compute mass integrals and stiffness."""
        self.where = where
        self.length = _positive(declared.length, 'length', where)
        if (declared.mass is None) == (declared.mass_per_length is None):
            raise ModelError('%s: give exactly one of mass and '
                             'mass_per_length' % where)
        if declared.mass is not None:
            self.mass = _positive(declared.mass, 'mass', where)
        else:
            self.mass = _positive(declared.mass_per_length,
                                  'mass_per_length', where) * self.length
        self.mass_per_length = self.mass / self.length
        self.EI = _either(declared, 'EI', 'EI_xy', 'EI_xz', 'EI', where,
                          _positive)
        self.mode_counts = _either(declared, 'modes', 'modes_xy', 'modes_xz',
                                   'modes', where, _count)
        if declared.normalization not in NORMALIZATIONS:
            raise ModelError('%s: normalization must be one of %s, got %r'
                             % (where, ', '.join(NORMALIZATIONS),
                                declared.normalization))
        self.damping_ratio = _positive(declared.damping_ratio,
                                       'damping_ratio', where, True)
        self.S = beam_frame(declared.origin, declared.axis, declared.y_axis,
                            where)
        self.joint_mass = None if declared.joint_mass is None else \
            declared.joint_mass.checked(where + ' joint_mass')
        self.tip_mass = None if declared.tip_mass is None else \
            declared.tip_mass.checked(where + ' tip_mass')
        points = _count(declared.quadrature_points, 'quadrature_points',
                        where)
        self.shapes = ModeShapes(self.length, max(self.mode_counts),
                                 declared.normalization)
        self.stations, self.weights = gauss_stations(self.length,
                                                     max(points, 8))
        self.mode_planes = [(plane, n) for plane, count in zip(
            PLANES, self.mode_counts) for n in range(count)]
        self.mode_labels = ['%s%d' % (plane, n + 1)
                            for plane, n in self.mode_planes]
        self._mass_integrals()
        self._stiffness()

    @property
    def mode_count(self):
        """Count the modal coordinates of this link."""
        return len(self.mode_planes)

    def _mode_vectors(self, values):
        """Beam-frame displacement vectors (m, stations, 4) of every mode."""
        psi = np.zeros((self.mode_count, values.shape[1], 4))
        for k, (plane, n) in enumerate(self.mode_planes):
            psi[k, :, 1 if plane == 'xy' else 2] = values[n]
        return psi

    def section_matrices(self, eta):
        """
        Body-frame matrices N_k(eta) that deflect the section at ``eta``.

        Mackay's tip matrix M (sec. 2; theta_z in slots (1,2)/(2,1) where
        the scan prints theta_x, see docs/papers/mackay_1988.md), i.e.
        rotation [skew(theta), displacement], moved to act about the
        section's centre instead of the beam origin and brought to body
        coordinates: N = S Trans(eta) M Trans(-eta) S^-1.  A frame or
        child joint attached at eta moves by (I + sum delta_k N_k) to first
        order, as Mackay's L = H + sum delta M does at the tip.
        """
        eta = float(np.clip(eta, 0.0, self.length))
        value = self.shapes.shape(eta)[:, 0]
        slope = self.shapes.slope(eta)[:, 0]
        S_inv = np.linalg.inv(self.S)
        N = np.zeros((self.mode_count, 4, 4))
        for k, (plane, n) in enumerate(self.mode_planes):
            theta = np.array([0.0, 0.0, slope[n]]) if plane == 'xy' else \
                np.array([0.0, -slope[n], 0.0])
            displacement = np.zeros(3)
            displacement[1 if plane == 'xy' else 2] = value[n]
            M = np.zeros((4, 4))
            M[:3, :3] = skew(theta)
            M[:3, 3] = displacement - skew(theta) @ np.array([eta, 0, 0])
            N[k] = self.S @ M @ S_inv
        return N

    def section_of(self, point_in_body):
        """Beam coordinate eta of a body-frame point (its projection)."""
        local = np.linalg.solve(self.S, np.append(point_in_body, 1.0))
        return float(local[0])

    def _mass_integrals(self):
        """C, C_k, C_kj of the body (Mackay eqs. 2.24-2.31, factor 1/2)."""
        mu, eta, w = self.mass_per_length, self.stations, self.weights
        e = np.zeros((eta.size, 4))
        e[:, 0], e[:, 3] = eta, 1.0
        e = e @ self.S.T                                  # body coordinates
        psi = self._mode_vectors(self.shapes.shape(eta)) @ self.S.T
        weighted = 0.5 * mu * w
        self.C = np.einsum('s,sa,sb->ab', weighted, e, e)
        self.Ck = np.einsum('s,sa,ksb->kab', weighted, e, psi)
        self.Ckj = np.einsum('s,ksa,jsb->kjab', weighted, psi, psi)
        if self.joint_mass is not None:
            part = self.joint_mass
            self.C = self.C + pseudo_inertia(part.mass, part.com,
                                             part.inertia)
        if self.tip_mass is not None:
            part = self.tip_mass
            R = self.S[:3, :3]
            com = self.S[:3, :3] @ (np.array([self.length, 0, 0]) +
                                    part.com) + self.S[:3, 3]
            J = pseudo_inertia(part.mass, com, R @ part.inertia @ R.T)
            N = self.section_matrices(self.length)
            # The tip mass moves with the tip section: psi_k = N_k h0.
            self.C = self.C + J
            self.Ck = self.Ck + np.einsum('ab,kcb->kac', J, N)
            self.Ckj = self.Ckj + np.einsum('kac,cd,jbd->kjab', N, J, N)

    def _stiffness(self):
        """
        Modal stiffness and damping (eq. 2.52, diagonal).

        EI int Phi''^2 = EI alpha^4 int Phi^2 for clamped-free shapes
        (integrate by parts twice; the boundary terms vanish).
        """
        alpha = self.shapes.wavenumbers()
        square = (self.shapes.shape(self.stations) ** 2) @ self.weights
        self.stiffness = np.array([
            self.EI[PLANES.index(plane)] * alpha[n] ** 4 * square[n]
            for plane, n in self.mode_planes])
        self.modal_mass = np.array([self.mass_per_length * square[n]
                                    for _, n in self.mode_planes])
        self.damping = 2.0 * self.damping_ratio * np.sqrt(
            self.stiffness * self.modal_mass)

    def clamped_periods(self):
        """Period (s) of each mode with the beam's root clamped."""
        return 2.0 * np.pi * np.sqrt(self.modal_mass / self.stiffness)

    def tip_deflection(self, delta):
        """Tip deflection (y, z) in the beam frame for amplitudes delta."""
        tip = self.shapes.shape(self.length)[:, 0]
        out = np.zeros(2)
        for k, (plane, n) in enumerate(self.mode_planes):
            out[PLANES.index(plane)] += delta[k] * tip[n]
        return out

    def rigid_equivalent(self):
        """Mass, com and central inertia of the undeformed link."""
        return rigid_parameters(self.C)
