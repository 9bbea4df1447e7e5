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
``demo``: the main job on the default arm (``make demo``).

Simulates the shipped PUMA 560 (or ``--urdf``, a URDF or a .xacro with its
default arguments) in ``simulator_node`` and tracks a 10 s reference twice:
PD feedback alone (the simulator's trajectory PID), then computed-torque
feed-forward from ``inverse_dynamics_node``, both in lockstep (the same
table on any machine, however busy).  Prints progress, a table of RMS and
maximum tracking error per joint for both runs, how fast the lockstep
simulation ran, and saves ``demo_output/tracking.png`` (desired vs
actual, both runs).
"""

import os
import sys
import time

import numpy as np

from .options import add_model_options, add_options, load_model, number
from ..control.reference_motion import error_statistics, reference_motion, \
    tracking_error
from ..resources import robot_urdf

# What ``python -m dynamics_ros --help`` says of this command.
HELP = ('track a trajectory on the simulated default arm '
        '(PUMA 560): PD alone vs computed torque')

RUNS = (('pd', 'PD feedback alone'),
        ('computed_torque', 'computed torque'))


def error_table(model, errors):
    """Return the aligned table of RMS / max error per joint and run."""
    unit = ['m' if t else 'rad' for t in model.joint_type]
    width = max(len(n) for n in model.joint_names + ['all joints'])
    lines = ['%-*s %-4s %12s %12s %12s %12s %10s' % (
        width, 'joint', 'unit', 'PD rms', 'PD max', 'CT rms', 'CT max',
        'PD/CT rms')]
    pd_rms, pd_max = error_statistics(errors['pd'])
    ct_rms, ct_max = error_statistics(errors['computed_torque'])
    for i, name in enumerate(model.joint_names):
        lines.append('%-*s %-4s %12.3e %12.3e %12.3e %12.3e %10.1f' % (
            width, name, unit[i], pd_rms[i], pd_max[i], ct_rms[i], ct_max[i],
            pd_rms[i] / max(ct_rms[i], 1e-300)))
    total_pd = float(np.sqrt(np.mean(errors['pd'] ** 2)))
    total_ct = float(np.sqrt(np.mean(errors['computed_torque'] ** 2)))
    lines.append('%-*s %-4s %12.3e %12.3e %12.3e %12.3e %10.1f' % (
        width, 'all joints', '', total_pd, float(np.max(pd_max)), total_ct,
        float(np.max(ct_max)), total_pd / max(total_ct, 1e-300)))
    return '\n'.join(lines), total_pd / max(total_ct, 1e-300)


def save_plot(path, model, motion, recorded, errors):
    """Write the PNG: desired vs actual and the error, both runs."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    n = model.nq
    figure, axes = plt.subplots(n, 2, figsize=(13, 2.1 * n + 1.2),
                                sharex=True, squeeze=False)
    fine = np.linspace(0.0, motion.duration, 1001)
    desired = motion.state(fine)[0]
    styles = {'pd': ('tab:red', 'PD alone'),
              'computed_torque': ('tab:blue', 'computed torque')}
    for i, name in enumerate(model.joint_names):
        unit = 'm' if model.joint_type[i] else 'rad'
        left, right = axes[i]
        left.plot(fine, desired[:, i], 'k--', lw=1.5, label='desired')
        for run, (color, label) in styles.items():
            times, positions, _ = recorded[run]
            left.plot(times, positions[:, i], color=color, lw=1.0,
                      label=label)
            right.plot(times, errors[run][:, i], color=color, lw=1.0,
                       label=label)
        left.set_ylabel('%s [%s]' % (name, unit))
        right.set_ylabel('error [%s]' % unit)
        right.axhline(0.0, color='0.6', lw=0.5)
        left.grid(alpha=0.3)
        right.grid(alpha=0.3)
    axes[0][0].set_title('position: desired vs actual')
    axes[0][1].set_title('tracking error q - q_d')
    axes[0][0].legend(loc='best', fontsize=8)
    axes[0][1].legend(loc='best', fontsize=8)
    axes[-1][0].set_xlabel('time [s] (simulated)')
    axes[-1][1].set_xlabel('time [s] (simulated)')
    figure.suptitle('%s: PD feedback alone vs computed-torque feed-forward'
                    % model.name)
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    plt.close(figure)


def run(args):
    """Run the demo; return 0 on success."""
    from ..nodes.tracking_demo import TrackingDemo
    urdf = args.urdf or robot_urdf()
    model = load_model(args, urdf)
    parameters = {}
    for name, value in (('root_link', args.root), ('tip_link', args.tip)):
        if value:
            parameters[name] = value
    if args.xacro_arg:
        parameters['xacro_args'] = '[%s]' % ','.join(
            "'%s'" % text for text in args.xacro_arg)
    # Nodes stay on this machine, in the user's DDS domain (--domain, else
    # ROS_DOMAIN_ID), else one of their own.
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    if args.domain is not None:
        os.environ['ROS_DOMAIN_ID'] = str(args.domain)
    elif not os.environ.get('ROS_DOMAIN_ID'):
        os.environ['ROS_DOMAIN_ID'] = str(20 + os.getpid() % 60)
    motion = reference_motion(model, duration=args.duration)
    started = time.monotonic()
    print('dynamics_ros demo: %s (%d joints), %.0f s reference, '
          'ROS_DOMAIN_ID %s' % (model.name, model.nq, args.duration,
                                os.environ['ROS_DOMAIN_ID']), flush=True)

    def progress(text):
        print('[%5.1f s] %s' % (time.monotonic() - started, text), flush=True)

    logs = os.path.join(args.output, 'logs')
    os.makedirs(logs, exist_ok=True)
    progress('node logs in %s/' % logs)
    demo = TrackingDemo(urdf, model.joint_names, motion, progress, logs,
                        model_parameters=parameters)
    recorded = demo.run()
    errors = {}
    for run_name, label in RUNS:
        times, positions, _ = recorded[run_name]
        if len(times) < 10:
            print('error: the %s run recorded only %d joint states' % (
                label, len(times)), file=sys.stderr)
            return 1
        errors[run_name] = tracking_error(model, motion, times, positions)
    table, ratio = error_table(model, errors)
    print()
    print("Tracking error over the %.0f s reference (PD = the simulator's "
          'trajectory PID alone; CT = computed torque from '
          'inverse_dynamics_node):' % args.duration)
    print(table)
    print('computed torque tracks %.1fx better (RMS over all joints)' % ratio)
    print('both runs in lockstep (every joint state answered before the '
          'next step: the same table on any machine); wall time per '
          'simulated second: %s' % ', '.join(
              '%.2f s (%s)' % (demo.speed[name], label)
              for name, label in RUNS if name in demo.speed))
    os.makedirs(args.output, exist_ok=True)
    path = os.path.join(args.output, 'tracking.png')
    save_plot(path, model, motion, recorded, errors)
    print('plot saved to %s (%.1f s in all)' % (
        path, time.monotonic() - started))
    return 0


def add_arguments(parser):
    """Add the options of ``demo``."""
    add_model_options(parser, 'URDF or .xacro path (default: shipped '
                              'PUMA 560)')
    add_options(parser, (('--duration', 10.0,
                          'length of the reference motion, s', (0.1, 3600.0)),
                         ))
    parser.add_argument('--output', default='demo_output',
                        help='folder for tracking.png')
    parser.add_argument('--domain', type=number(int, '--domain', 0, 232),
                        help='ROS_DOMAIN_ID (default: $ROS_DOMAIN_ID, else '
                             'one of 20-79)')
