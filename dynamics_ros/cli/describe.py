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
``describe``: joint table, DH table, masses and zero-pose gravity torques.

``python -m dynamics_ros describe ROBOT.urdf [--root L --tip L]
[--dh standard|modified]``: what a ROS user checks first about a URDF.
``ROBOT.urdf.xacro [--xacro-arg name:=value ...]`` expands a xacro first.

A model with mimic joints is described on its tree (every movable joint,
mimic ones included, in the joint, DH and mass tables) with the coupling
listed; its gravity torques are those of the independent joints.
"""

import numpy as np

from .options import add_model_options, load_model
from .. import gravity_torques
from ..errors import ModelError
from ..model.dh import dh_table
from ..model.robot_model import PRISMATIC

# What ``python -m dynamics_ros --help`` says of this command.
HELP = ('joint table, DH table, masses and gravity torques '
        'of a URDF')

FORMULAS = {
    'standard': 'T(i-1,i) = Rz(theta) Tz(d) Tx(a) Rx(alpha)',
    'modified': 'T(i-1,i) = Rx(alpha) Tx(a) Rz(theta) Tz(d); row i holds '
                'a(i-1), alpha(i-1)',
}


def aligned(header, rows, indent='  '):
    """Return text lines of a table whose columns are padded to align."""
    widths = [max(len(str(cell)) for cell in column)
              for column in zip(header, *rows)]
    lines = []
    for row in [header] + rows:
        cells = []
        for cell, width in zip(row, widths):
            text = str(cell)
            # Numbers right-aligned, words left-aligned.
            is_number = text.lstrip('-').replace('.', '', 1).isdigit() or \
                text in ('inf', '-inf')
            cells.append(text.rjust(width) if is_number else text.ljust(width))
        lines.append((indent + '  '.join(cells)).rstrip())
    return lines


def _number(value, digits=4):
    """Format a number; infinities as inf, no negative zero."""
    if not np.isfinite(value):
        return 'inf' if value > 0 else '-inf'
    text = '%.*f' % (digits, value)
    if text.startswith('-') and not text.strip('-0.'):
        text = text[1:]
    return text


def joint_lines(model):
    """Return lines of the joint table: type, links, axis and limits."""
    links = [model.root_link] + list(model.body_names)
    rows = []
    for i in range(model.nq):
        if model.joint_type[i] == PRISMATIC:
            kind = 'prismatic'
        else:
            kind = 'continuous' if model.continuous[i] else 'revolute'
        rows.append([
            str(i), model.joint_names[i], kind, links[model.parent[i] + 1],
            model.body_names[i],
            ' '.join(_number(v, 3) for v in model.axis[i]),
            _number(model.lower_limit[i]), _number(model.upper_limit[i]),
            _number(model.effort_limit[i], 1),
            _number(model.velocity_limit[i], 2)])
    return ['Joints (axis in the joint frame; limits rad or m, N m or N, '
            'per s)'] + aligned(
        ['#', 'joint', 'type', 'parent link', 'child link', 'axis', 'lower',
         'upper', 'effort', 'velocity'], rows)


def _transform_lines(name, T):
    lines = ['  %s transform (fixed, not expressible in DH):' % name]
    for row in T[:3]:
        lines.append('    [%s]' % '  '.join(
            _number(v, 5).rjust(9) for v in row))
    return lines


def mimic_lines(model):
    """Return lines of the mimic joints' coupling (none: no lines)."""
    if not model.mimic:
        return []
    rows = [[name, '%.6g * %s %s %.6g' % (m, master, '-' if o < 0 else '+',
                                          abs(o))]
            for name, (master, m, o) in model.mimic.items()]
    return ['Mimic joints (each follows its master: not a coordinate, '
            'takes no command)'] + aligned(['joint', 'q ='], rows)


def dh_lines(model, convention, tip_link=None):
    """Return lines of the DH table, or why there is none."""
    bodies = len(model.full_joint_names)   # mimic joints' bodies included
    if tip_link is not None and model.frames.get(tip_link, (None,))[0] != \
            bodies - 1:
        tip_link = None   # not fixed to the last body: not a tool frame
    try:
        table = dh_table(model, convention, tip_link=tip_link)
    except ModelError as error:
        return ['DH table (%s): not available: %s' % (convention, error)]
    rows = []
    for i, row in enumerate(table.rows()):
        rows.append([str(i + 1), row['joint'], row['type'],
                     _number(row['a'], 5), _number(np.degrees(row['alpha'])),
                     _number(row['d'], 5), _number(np.degrees(row['theta'])),
                     'q + ' + row['variable'] + (
                         '' if row['mimic'] is None else
                         ' (mimic of %s)' % row['mimic'][0])])
    lines = ['DH table (%s: %s; q = 0 is the URDF zero pose)' % (
        convention, FORMULAS[convention])]
    lines += aligned(['#', 'joint', 'type', 'a [m]', 'alpha [deg]', 'd [m]',
                      'theta [deg]', 'variable'], rows)
    extras = table.extra_transforms()
    if not extras:
        lines.append('  base and tool frames are DH frames: no extra '
                     'transforms')
    labels = {'base': 'base (%s -> DH frame 0)' % table.root_link,
              'tool': 'tool (DH frame %d -> %s)' % (table.n, table.tip_link)}
    for name, T in extras:
        lines += _transform_lines(labels[name], T)
    return lines


def mass_lines(model):
    """Return lines of link masses and centres of mass, and the total."""
    rows = [[model.body_names[i], _number(model.mass[i]),
             ' '.join(_number(v) for v in model.com[i])]
            for i in range(model.nq)]
    lines = ['Masses (fixed-joint children merged; centre of mass in the '
             'body frame)']
    lines += aligned(['link', 'mass [kg]', 'com [m]'], rows)
    lines.append('  total mass: %.4f kg' % model.total_mass)
    return lines


def gravity_lines(model):
    """Return lines of the gravity torques at q = 0."""
    g = gravity_torques(model, np.zeros(model.nq))
    rows = [[model.joint_names[i],
             'N' if model.joint_type[i] == PRISMATIC else 'N m',
             _number(g[i], 6)] for i in range(model.nq)]
    return ['Gravity torques at q = 0 (gravity %s m/s^2 in %r)' % (
        np.array2string(model.gravity, precision=3), model.root_link)] + \
        aligned(['joint', 'unit', 'g(0)'], rows)


def describe(model, convention='standard', tip_link=None):
    """Return the full description text (``tip_link``: the DH tool frame)."""
    tree = getattr(model, 'tree', model)   # a MimicModel's bodies
    coupled = ' (%d independent)' % model.nq if model.mimic else ''
    sections = [
        ['Model %r: %d movable joint(s)%s, root link %r' % (
            model.name, tree.nq, coupled, model.root_link)],
        joint_lines(tree), mimic_lines(model),
        dh_lines(model, convention, tip_link),
        mass_lines(tree),
        gravity_lines(model)]
    return '\n\n'.join('\n'.join(lines) for lines in sections if lines)


def run(args):
    """Load the URDF and print its description."""
    model = load_model(args)
    print(describe(model, args.dh, args.tip))
    return 0


def add_arguments(parser):
    """Add the options of ``describe``."""
    add_model_options(parser, 'URDF or .xacro file', flag=False)
    parser.add_argument('--dh', choices=('standard', 'modified'),
                        default='standard',
                        help='DH convention (default: standard)')
