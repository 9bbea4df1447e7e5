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
Count multiplications and additions of each formulation, n = 1..12.

Counts are taken by running the implementations in
dynamics_ros/formulations on counted numbers (Lagrange, Newton-Euler,
modified Newton-Euler, Nasser, strobed M) and by reading the generated code
(Kane), on generic revolute DH chains (no 0 or 90 degree twists, full
inertia tensors).  Then the n = 6 counts beside the papers' published ones,
the modified Newton-Euler's critical path beside Turney's Table 5 (parallel
steps), and the Stanford Arm beside Kane and Levinson's table.  Operation
counts, not timings.  Run: ``.venv/bin/python benchmarks/op_counts.py [--max-n N]
[--no-kane]``.
"""

import argparse

import dynamics_ros as dr
from dynamics_ros.formulations.kane import kane_source
from dynamics_ros.formulations.op_counts import count_formulations, \
    count_source, PUBLISHED, STANFORD_ARM_PUBLISHED, turney_parallel_steps
from dynamics_ros.resources import robot_urdf
import numpy as np

COLUMNS = [
    ('lagrange', 'Lagrange 4x4 (tau)'),
    ('newton_euler', 'LWP Newton-Euler (tau)'),
    ('modified_newton_euler', 'Turney modified NE (tau)'),
    ('kane', 'Kane generated (tau)'),
    ('nasser', 'Nasser 6x6 (qdd)'),
    ('strobed_mass_matrix', 'M by strobing NE'),
]


def table(header, rows):
    """Align a table: first column left, the rest right."""
    widths = [max(len(str(r[i])) for r in [header] + rows)
              for i in range(len(header))]
    lines = []
    for row in [header] + rows:
        cells = [str(row[0]).ljust(widths[0])] + [
            str(c).rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append('  '.join(cells))
    lines.insert(1, '  '.join('-' * w for w in widths))
    return '\n'.join(lines)


def linear_law(counts, name, field):
    """Return 'a n + b' fitted to the last two n, if it holds for n >= 3."""
    ns = sorted(n for n in counts if n >= 3)
    if len(ns) < 3:
        return ''
    values = [getattr(counts[n][name], field) for n in ns]
    slope = values[-1] - values[-2]
    if any(b - a != slope for a, b in zip(values, values[1:])):
        return 'not linear'
    return '%dn %+d' % (slope, values[-1] - slope * ns[-1])


def main():
    """Print the count tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--max-n', type=int, default=12)
    parser.add_argument('--no-kane', action='store_true',
                        help='skip Kane (sympy generation, slowest column)')
    args = parser.parse_args()
    kane = not args.no_kane
    counts = {}
    for n in range(1, args.max_n + 1):
        counts[n] = count_formulations(n, kane=kane)
    names = [(k, label) for k, label in COLUMNS if kane or k != 'kane']

    print('Operations (multiplications / additions) on a generic n-joint '
          'revolute chain')
    rows = [[n] + ['%d / %d' % (counts[n][k].mults, counts[n][k].adds)
                   for k, _ in names] for n in counts]
    print(table(['n'] + [label for _, label in names], rows))
    print()
    print('Laws of the recursive counts (n >= 3):')
    for key in ('newton_euler', 'modified_newton_euler', 'nasser'):
        print('  %-22s mults %s, adds %s' % (
            key, linear_law(counts, key, 'mults'),
            linear_law(counts, key, 'adds')))
    print()

    if 6 in counts:
        print('n = 6: ours beside the published counts')
        rows = []
        for key, published in (
                ('lagrange', 'lagrange'),
                ('newton_euler', 'newton_euler'),
                ('newton_euler', 'newton_euler_lwp'),
                ('modified_newton_euler', 'modified_newton_euler'),
                ('nasser', 'nasser'), ('nasser', 'nasser_n_links')):
            source, law = PUBLISHED[published]
            mults, adds = law(6)
            ours = counts[6][key]
            rows.append([key, '%d / %d' % (ours.mults, ours.adds),
                         '%d / %d' % (round(mults), round(adds)), source])
        print(table(['formulation', 'ours', 'published', 'source'], rows))
        print()

    print('Parallel steps of the modified Newton-Euler: our critical path '
          '(one step per operation) beside Turney et al. Table 5')
    rows = []
    for n in sorted(counts):
        (mults, adds), _ = turney_parallel_steps(n)
        theirs = PUBLISHED['modified_newton_euler_parallel'][1](n)
        rows.append([n, '%d / %d' % (mults, adds),
                     '%d / %d' % theirs])
    print(table(['n', 'ours (mult / add steps)', 'Table 5 (27n + 42 / '
                 '27n + 41)'], rows))
    print()

    model = dr.load_urdf(robot_urdf('stanford_arm'))
    stanford = count_formulations(model, kane=kane)
    print('Stanford Arm (Kane & Levinson data: zero offsets, right-angle '
          'twists)')
    rows = [[label, '%d / %d' % (stanford[k].mults, stanford[k].adds)]
            for k, label in names]
    if kane:
        speeds = count_source(kane_source(model, 'stanford'), (
            'inverse_dynamics_u', 'speeds', 'speed_derivatives'))
        rows.append(['Kane, their generalized speeds (tau)',
                     '%d / %d' % (speeds.mults, speeds.adds)])
    print(table(['ours', 'mults / adds'], rows))
    print()
    print(table(['published (Kane & Levinson 1983, p. 17)', 'mults / adds'],
                [[label, '%d / %d' % (m, a)]
                 for label, m, a in STANFORD_ARM_PUBLISHED]))
    trig = stanford['newton_euler'].trig
    print('\n(sin/cos are counted apart: %d per evaluation for the %d '
          'revolute joints of the Stanford Arm.)' % (
              trig, np.count_nonzero(model.joint_type == dr.REVOLUTE)))


if __name__ == '__main__':
    main()
