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

"""``demo``: the main job on the default arm (PUMA 560)."""

import numpy as np

from .. import gravity_torques, inverse_dynamics, load_urdf, mass_matrix
from ..resources import robot_urdf


def torque_table(model, poses):
    """Aligned text table of gravity and inverse-dynamics torques."""
    width = max(len(name) for name in model.joint_names)
    lines = []
    for label, q, qd, qdd in poses:
        lines.append(label)
        lines.append('  %-*s %10s %10s %12s %12s' % (
            width, 'joint', 'q', 'g(q)', 'tau(ID)', 'M_ii'))
        # Adding 0.0 turns -0.0 into 0.0 for printing.
        g = gravity_torques(model, q) + 0.0
        tau = inverse_dynamics(model, q, qd, qdd) + 0.0
        diagonal = np.diag(mass_matrix(model, q))
        for i, name in enumerate(model.joint_names):
            lines.append('  %-*s %10.4f %10.4f %12.4f %12.5f' % (
                width, name, q[i], g[i], tau[i], diagonal[i]))
    return '\n'.join(lines)


def run(args):
    """Print the model summary and a torque table for a URDF."""
    model = load_urdf(args.urdf or robot_urdf(), root_link=args.root,
                      tip_link=args.tip)
    print(model.summary())
    print()
    zero = np.zeros(model.nq)
    rng = np.random.default_rng(0)
    lower = np.where(np.isfinite(model.lower_limit), model.lower_limit, -np.pi)
    upper = np.where(np.isfinite(model.upper_limit), model.upper_limit, np.pi)
    q = rng.uniform(lower, upper)
    qd = rng.uniform(-1.0, 1.0, model.nq)
    qdd = rng.uniform(-1.0, 1.0, model.nq)
    print(torque_table(model, [
        ('zero pose, at rest', zero, zero, zero),
        ('random state (seed 0), qd and qdd in [-1, 1]', q, qd, qdd)]))
    return 0


def register(subparsers):
    """Add the ``demo`` command."""
    parser = subparsers.add_parser(
        'demo', help='the main job on the default arm (PUMA 560)')
    parser.add_argument('--urdf', help='URDF path (default: shipped PUMA 560)')
    parser.add_argument('--root', help='root link')
    parser.add_argument('--tip', help='tip link')
    parser.set_defaults(run=run)
