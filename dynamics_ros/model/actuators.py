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
Geared DC motors at the joints (Freeman 1985, eqs. 2-228 to 2-236), from YAML.

Per joint j, a motor behind a gear of ratio n_j (motor turns per joint
turn, so phi_dot = q_dot_m / n_j, Freeman's N = G^phi_q = diag(1/n)):

    L i_dot + R i + k_e q_dot_m = V            (armature circuit, 2-228)
    J_m q_ddot_m + b_m q_dot_m - k_t i = -T_q   (rotor, 2-229)

Seen at the joint (2-232 to 2-236) the rotor adds n^2 J_m to the joint's
inertia and n^2 b_m to its viscous damping, and the motor drives it with
n k_t i.  Declared in YAML beside the URDF, like the flexible links::

    actuators:
      joint1:
        gear_ratio: 100.0       # motor turns per joint turn (nonzero)
        rotor_inertia: 1.2e-5   # kg m^2, at the motor shaft
        torque_constant: 0.05   # N m / A
        back_emf: 0.05          # V s / rad
        resistance: 1.2         # ohm (> 0)
        inductance: 1.0e-3      # H (> 0)
        damping: 0.0            # N m s / rad at the motor shaft (optional)
        voltage_limit: 48.0     # V, the drive's supply (optional, > 0;
                                #   default .inf: no limit)

``voltage_limit`` is the drive's, not the motor's: the simulator clips
the voltage it applies to +-voltage_limit (dynamics_ros.sim.actuated).

Every movable joint of the model needs an entry; unknown keys and joints,
and values out of range, raise ModelError naming the joint and the key.
"""

from dataclasses import dataclass

import numpy as np

from ..errors import ModelError
from ..resources import read_user_yaml

KEYS = ('gear_ratio', 'rotor_inertia', 'torque_constant', 'back_emf',
        'resistance', 'inductance', 'damping', 'voltage_limit')
OPTIONAL = {'damping': 0.0, 'voltage_limit': np.inf}


@dataclass
class DCMotors:
    """Per-joint motor data in ``joint_names`` order (arrays of nq)."""

    joint_names: list
    gear_ratio: np.ndarray
    rotor_inertia: np.ndarray
    torque_constant: np.ndarray
    back_emf: np.ndarray
    resistance: np.ndarray
    inductance: np.ndarray
    damping: np.ndarray
    voltage_limit: np.ndarray = None   # None: no limit (+inf per joint)

    def __post_init__(self):
        """Check every value: finite, and in range for its meaning."""
        n = len(self.joint_names)
        if self.voltage_limit is None:
            self.voltage_limit = np.full(n, np.inf)
        for key in KEYS:
            value = np.asarray(getattr(self, key), dtype=float)
            if value.shape != (n,):
                raise ModelError('actuators: %s needs %d values (one per '
                                 'joint), got shape %s' % (key, n,
                                                           value.shape))
            setattr(self, key, value)
            for name, x in zip(self.joint_names, value):
                _check(name, key, x)

    @property
    def nq(self):
        """Return the number of joints."""
        return len(self.joint_names)


def _check(joint, key, value):
    reason = None
    if key == 'voltage_limit':
        if not value > 0.0:   # nan too; +inf is no limit
            reason = 'must be > 0 (.inf: no limit)'
    elif not np.isfinite(value):
        reason = 'must be a finite number'
    elif key in ('resistance', 'inductance') and value <= 0.0:
        reason = 'must be > 0'
    elif key == 'gear_ratio' and value == 0.0:
        reason = 'must be nonzero'
    elif key in ('rotor_inertia', 'damping') and value < 0.0:
        reason = 'must be >= 0'
    elif key in ('torque_constant', 'back_emf') and value == 0.0:
        reason = 'must be nonzero (the motor would not couple)'
    if reason:
        raise ModelError('actuator of joint %r: %s %s, got %r'
                         % (str(joint)[:80], key, reason, value))


def motors_from_mapping(spec, joint_names):
    """Build DCMotors from {joint: {key: value}} for ``joint_names``."""
    if not isinstance(spec, dict):
        raise ModelError('actuators: expected a mapping of joint names to '
                         'motor data, got %s' % type(spec).__name__)
    unknown = sorted(set(spec) - set(joint_names))
    if unknown:
        raise ModelError('actuators: no movable joint named %s (joints: %s)'
                         % (', '.join(repr(str(u)[:80]) for u in unknown[:5]),
                            ', '.join(joint_names)))
    columns = {key: [] for key in KEYS}
    for joint in joint_names:
        if joint not in spec:
            raise ModelError('actuators: joint %r has no motor entry'
                             % joint)
        entry = spec[joint]
        if not isinstance(entry, dict):
            raise ModelError('actuator of joint %r: expected a mapping of '
                             'motor data' % joint)
        extra = sorted(set(entry) - set(KEYS))
        if extra:
            raise ModelError('actuator of joint %r: unknown key(s) %s '
                             '(allowed: %s)' % (joint, ', '.join(
                                 str(e)[:40] for e in extra[:5]),
                                 ', '.join(KEYS)))
        for key in KEYS:
            if key not in entry and key not in OPTIONAL:
                raise ModelError('actuator of joint %r: %s is required'
                                 % (joint, key))
            value = entry.get(key, OPTIONAL.get(key))
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise ModelError('actuator of joint %r: %s must be a number'
                                 % (joint, key))
            columns[key].append(value)
    return DCMotors(list(joint_names), **columns)


def read_actuator_config(config):
    """
    Return the ``actuators`` mapping of a YAML path, YAML text or mapping.

    Checks that it reads and has the one top-level key; the motor data is
    checked against a model by ``motors_from_mapping``.  A reason never
    quotes the file's text (ModelError).
    """
    data, _, what = read_user_yaml(config, 'actuator config')
    if not isinstance(data, dict) or set(data) != {'actuators'}:
        raise ModelError('%s must be a mapping with the one key '
                         '"actuators"' % what)
    return data['actuators']


def load_actuators(config, model):
    """
    Read DCMotors for ``model`` from YAML: a path, YAML text or a mapping.

    The YAML has one top-level key, ``actuators`` (module notes).
    """
    return motors_from_mapping(read_actuator_config(config),
                               list(model.joint_names))
