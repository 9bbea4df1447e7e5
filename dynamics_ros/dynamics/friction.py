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
Joint friction: viscous, Coulomb smoothed near zero velocity, and offset.

tau_f = viscous qd + coulomb tanh(qd / smoothing) + offset, per joint: the
model identified from data (Swevers et al. 1997 sec. 3; Khalil and Dombre
2002 eq. 12.3 with sign(qd) smoothed), which the feed-forward adds to the
rigid-body torques and the simulator applies.  tanh keeps the torque a
smooth function of the state (a controller fed sign(qd) chatters around
zero velocity); ``smoothing`` is the velocity at which Coulomb friction
reaches 76 % of its level.  The regressor columns are the same formula's
derivatives, so what is identified is what is applied.
"""

import numpy as np

from ..bounded_yaml import YamlLimit
from ..resources import read_user_yaml

# The friction terms in the order of their regressor columns (per joint).
FRICTION_TERMS = ('viscous', 'coulomb', 'offset')
# Velocity (rad/s or m/s) at which Coulomb friction reaches tanh(1).
DEFAULT_SMOOTHING = 0.01


def coulomb_shape(qd, smoothing=DEFAULT_SMOOTHING):
    """Return tanh(qd / smoothing): the smoothed sign of the velocity."""
    if not smoothing > 0.0:
        raise ValueError('friction smoothing must be a positive velocity, '
                         'got %r' % (smoothing,))
    return np.tanh(np.asarray(qd, dtype=float) / smoothing)


def friction_torque(qd, viscous, coulomb, offset=0.0,
                    smoothing=DEFAULT_SMOOTHING):
    """
    Return the joint friction torque viscous qd + coulomb tanh(qd/eps) + offset.

    The torque the joint takes to move at ``qd`` (it opposes the motion:
    the motor supplies it, so it adds to the feed-forward).  Per-joint
    arrays, (nq,) or (N, nq) velocities.
    """
    qd = np.asarray(qd, dtype=float)
    return (np.asarray(viscous, dtype=float) * qd
            + np.asarray(coulomb, dtype=float) * coulomb_shape(qd, smoothing)
            + np.asarray(offset, dtype=float))


def friction_regressor(qd, smoothing=DEFAULT_SMOOTHING):
    """
    Return Y_f with friction_torque = Y_f phi, phi = [v, c, o] per joint.

    qd (nq,) gives (nq, 3 nq), (N, nq) gives (N, nq, 3 nq); joint j's
    columns are 3 j + (viscous, coulomb, offset).
    """
    qd = np.asarray(qd, dtype=float)
    n = qd.shape[-1]
    Y = np.zeros(qd.shape + (3 * n,))
    joints = np.arange(n)
    Y[..., joints, 3 * joints] = qd
    Y[..., joints, 3 * joints + 1] = coulomb_shape(qd, smoothing)
    Y[..., joints, 3 * joints + 2] = 1.0
    return Y


class JointFriction:
    """
    Friction parameters per joint (``FRICTION_TERMS``) and the smoothing.

    ``viscous``, ``coulomb``, ``offset`` (nq,) in ``joint_names`` order.
    """

    def __init__(self, joint_names, viscous, coulomb, offset=None,
                 smoothing=DEFAULT_SMOOTHING):
        """Hold the values; refuse negative viscous or Coulomb friction."""
        n = len(joint_names)
        self.joint_names = list(joint_names)
        self.viscous = np.broadcast_to(np.asarray(viscous, dtype=float),
                                       (n,)).copy()
        self.coulomb = np.broadcast_to(np.asarray(coulomb, dtype=float),
                                       (n,)).copy()
        self.offset = np.zeros(n) if offset is None else np.broadcast_to(
            np.asarray(offset, dtype=float), (n,)).copy()
        self.smoothing = float(smoothing)
        for label in ('viscous', 'coulomb', 'offset'):
            values = getattr(self, label)
            if not np.all(np.isfinite(values)):
                raise ValueError('friction: %s values must be finite, got %s'
                                 % (label, values.tolist()))
        for label in ('viscous', 'coulomb'):
            bad = [j for j, v in zip(self.joint_names, getattr(self, label))
                   if v < 0.0]
            if bad:
                # Negative friction would feed energy into the arm.
                raise ValueError('friction: %s of joints %s must not be '
                                 'negative' % (label, ', '.join(bad)))
        if not (np.isfinite(self.smoothing) and self.smoothing > 0.0):
            raise ValueError('friction: smoothing must be a positive '
                             'velocity, got %r' % (smoothing,))

    def torque(self, qd, offset=True):
        """Return the friction torque at ``qd`` (with the offset or not)."""
        return friction_torque(qd, self.viscous, self.coulomb,
                               self.offset if offset else 0.0,
                               self.smoothing)

    def slope(self, qd):
        """
        Return d(friction torque)/d(qd): viscous + coulomb sech^2(qd/eps)/eps.

        The damping the friction adds about ``qd`` (a linearization's
        velocity block): near rest the smoothed Coulomb term is as steep
        as coulomb / smoothing.
        """
        shape = coulomb_shape(qd, self.smoothing)
        return self.viscous + self.coulomb * (1.0 - shape * shape) \
            / self.smoothing

    def select(self, joint_names):
        """Return the friction of ``joint_names`` (others: none)."""
        index = {name: k for k, name in enumerate(self.joint_names)}

        def pick(values):
            return np.array([values[index[j]] if j in index else 0.0
                             for j in joint_names])
        return JointFriction(joint_names, pick(self.viscous),
                             pick(self.coulomb), pick(self.offset),
                             self.smoothing)

    def to_dict(self):
        """Return the YAML layout ``from_dict`` reads."""
        return {'model': 'tau_f = viscous * qd + coulomb * tanh(qd / '
                         'smoothing) + offset',
                'smoothing': self.smoothing,
                'joints': {j: {'viscous': float(v), 'coulomb': float(c),
                               'offset': float(o)}
                           for j, v, c, o in zip(self.joint_names,
                                                 self.viscous, self.coulomb,
                                                 self.offset)}}

    @classmethod
    def from_dict(cls, data, source='friction'):
        """Read ``{'smoothing': s, 'joints': {name: {term: value}}}``."""
        if not isinstance(data, dict) or not isinstance(
                data.get('joints'), dict):
            raise ValueError('%s: expected a mapping with "joints": {joint: '
                             '{viscous, coulomb, offset}}' % source)
        names, values = [], []
        for name, terms in data['joints'].items():
            if not isinstance(terms, dict):
                raise ValueError('%s: joint %r must map terms to numbers'
                                 % (source, str(name)[:100]))
            unknown = set(terms) - set(FRICTION_TERMS)
            if unknown:
                raise ValueError('%s: joint %r has unknown terms %s (known: '
                                 '%s)' % (source, str(name)[:100],
                                          sorted(map(str, unknown))[:5],
                                          ', '.join(FRICTION_TERMS)))
            try:
                values.append([float(terms.get(t, 0.0))
                               for t in FRICTION_TERMS])
            except (TypeError, ValueError):
                raise ValueError('%s: joint %r: friction values must be '
                                 'numbers' % (source, str(name)[:100]))
            names.append(str(name))
        values = np.array(values, dtype=float).reshape(-1, 3)
        return cls(names, values[:, 0], values[:, 1], values[:, 2],
                   data.get('smoothing', DEFAULT_SMOOTHING))


def read_friction(path):
    """
    Read a friction YAML file (``JointFriction.to_dict``'s layout).

    The file is read with ``read_user_file`` (a regular file of at most
    CONFIG_SIZE_LIMIT bytes; else UnreadableFile, an OSError).  A reason
    never quotes the file's text: YAML errors and a file over
    bounded_yaml.CONFIG_BOUNDS (depth, nodes) are a YamlLimit (a
    ValueError) with the line and column.
    """
    data, _, what = read_user_yaml(path, 'friction file', YamlLimit,
                                   text=False)
    return JointFriction.from_dict(data, what)


def write_friction(friction, path):
    """Write a JointFriction as YAML."""
    import yaml

    with open(path, 'w', encoding='utf-8') as stream:
        stream.write('# Joint friction identified by dynamics_ros.\n')
        yaml.safe_dump(friction.to_dict(), stream, sort_keys=False)
