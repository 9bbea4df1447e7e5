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
``flex-demo``: a flexible two-link arm moved along a trajectory.

The shipped two-link planar arm with both links declared flexible
(config/flexible_two_link_planar.yaml) follows a cubic-spline move under
joint PIDs plus rigid-model feedforward, integrated by fixed-step RK4 as in
Mackay's FLX.  Prints the tip deflection statistics and saves a plot of
joint angles and tip deflection against time.
"""

import sys
import time

import numpy as np

from .figures import save_figure
from .options import add_figure_options, add_options, figure_path, \
    number
from ..dynamics.rnea import inverse_dynamics
from ..flexible.config import load_flexible
from ..flexible.control import CubicSplineTrajectory, PIDController
from ..flexible.simulate import simulate
from ..resources import shipped_file

# What ``python -m dynamics_ros --help`` says of this command.
HELP = ('flexible two-link arm moved along a trajectory '
        '(Mackay 1988 assumed modes); saves a PNG')

DEFAULT_CONFIG = 'flexible_two_link_planar.yaml'


def auto_step(fm, z, requested):
    """Step: the requested one, or 1/20 of the shortest period, <= 1 ms."""
    if requested is not None:
        return requested
    periods = fm.natural_periods(z)
    step = 1e-3 if not len(periods) else min(1e-3, periods.min() / 20.0)
    # Round down to 1, 2, 2.5 or 5 x 10^k so that sample times stay readable.
    exponent = np.floor(np.log10(step))
    for mantissa in (5.0, 2.5, 2.0, 1.0):
        if mantissa * 10 ** exponent <= step:
            return mantissa * 10 ** exponent
    return 10 ** exponent


def gain_vector(values, n):
    """One gain per joint from 1 or n values (extra defaults are cut)."""
    values = np.asarray(values, dtype=float)
    return np.full(n, values[0]) if values.size == 1 else np.resize(
        values, n)


def deflection_history(fm, result, link):
    """Tip deflection (N, 3) of ``link`` from its rigid-arm position."""
    return np.array([fm.tip_deflection(z, link) for z in result.z])


def statistics(result, deflection, move_time):
    """Return the lines of text that report the tip deflection, in mm."""
    magnitude = 1e3 * np.linalg.norm(deflection, axis=1)
    moving = result.time <= move_time
    settling = ~moving
    worst = int(np.argmax(magnitude))
    lines = ['tip deflection (distance from where the rigid arm would put '
             'the tip):',
             '  max       %8.2f mm at t = %.3f s' % (
                 magnitude[worst], result.time[worst]),
             '  rms       %8.2f mm during the move (0 - %.2f s)' % (
                 np.sqrt(np.mean(magnitude[moving] ** 2)), move_time),
             '  final     %8.2f mm (static sag at the final pose '
             'included)' % magnitude[-1]]
    if np.any(settling):
        lines.append('  after     %8.2f to %.2f mm while settling at the '
                     'goal (t > %.2f s)' % (magnitude[settling].min(),
                                            magnitude[settling].max(),
                                            move_time))
    return lines


def plot(fm, result, reference, deflection, path, title):
    """Save joint angles and tip deflection against time as a PNG."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(3, 1, figsize=(9, 9), sharex=True)
    t = result.time
    for j, name in enumerate(fm.joint_names):
        line, = axes[0].plot(t, result.z[:, j], label=name)
        axes[0].plot(t, reference[:, j], '--', color=line.get_color(),
                     linewidth=1, label='%s reference' % name)
    axes[0].set_ylabel('joint angle (rad)')
    axes[0].legend(loc='best', fontsize='small')
    for k, axis in enumerate('xyz'):
        if np.max(np.abs(deflection[:, k])) > 1e-9:
            axes[1].plot(t, 1e3 * deflection[:, k], label='tip %s' % axis)
    axes[1].plot(t, 1e3 * np.linalg.norm(deflection, axis=1), 'k',
                 linewidth=1, label='|tip deflection|')
    axes[1].set_ylabel('tip deflection (mm, world)')
    axes[1].legend(loc='best', fontsize='small')
    for k, name in enumerate(fm.mode_names):
        axes[2].plot(t, 1e3 * result.z[:, fm.nq + k], label=name)
    axes[2].set_ylabel('modal amplitude (mm)')
    axes[2].set_xlabel('time (s)')
    axes[2].legend(loc='best', fontsize='small', ncol=2)
    save_figure(figure, axes, title, path)


def run(args):
    """Simulate the move, print statistics, save the plot."""
    config = args.config or shipped_file('config', DEFAULT_CONFIG)
    fm = load_flexible(config, model=args.urdf)
    print(fm.summary())
    q0 = np.array(args.start if args.start else [-0.3, 0.6][:fm.nq] +
                  [0.0] * max(0, fm.nq - 2))
    q1 = np.array(args.goal if args.goal else [0.9, -0.4][:fm.nq] +
                  [0.0] * max(0, fm.nq - 2))
    for name, q in (('--start', q0), ('--goal', q1)):
        if q.shape != (fm.nq,):
            print('error: %s needs %d joint values' % (name, fm.nq),
                  file=sys.stderr)
            return 2
    z0 = fm.join(q0, fm.static_deflection(q0))
    dt = auto_step(fm, z0, args.dt)
    print('\nnatural periods with free joints at the start (ms): %s' % ', '.join(
        '%.2f' % (1e3 * p) for p in fm.natural_periods(z0)))
    print('RK4 step %.3g ms, %.2f s simulated (move %.2f s, then hold)'
          % (1e3 * dt, args.duration, args.move_time))
    trajectory = CubicSplineTrajectory([0.0, args.move_time], [q0, q1])
    rigid = fm.rigid_model()
    gains = [gain_vector(g, fm.nq) for g in (args.kp, args.ki, args.kd)]
    controller = PIDController(
        trajectory, *gains, dt=dt,
        feedforward=lambda t, q, qd, qdd: inverse_dynamics(rigid, q, qd, qdd))
    started = time.time()

    def progress(fraction, t):
        if time.time() - started > 2.0 or fraction >= 1.0:
            print('  t = %5.2f s (%3.0f %%), %.1f s elapsed' % (
                t, 100 * fraction, time.time() - started), flush=True)

    result = simulate(fm, z0, np.zeros(fm.nz), args.duration, dt,
                      controller, record_every=max(1, int(round(
                          1e-3 / dt))), progress=progress)
    link = args.tip or fm.tip_link()
    deflection = deflection_history(fm, result, link)
    reference = np.array([trajectory(t)[0] for t in result.time])
    print('\nlink %r:' % link)
    print('\n'.join(statistics(result, deflection, args.move_time)))
    error = np.max(np.abs(result.z[:, :fm.nq] - reference), axis=0)
    print('max tracking error: %s rad' % ', '.join(
        '%s %.4f' % (n, e) for n, e in zip(fm.joint_names, error)))
    path = figure_path(args)
    plot(fm, result, reference, deflection, path,
         'flexible %s: cubic-spline move, PID + rigid feedforward'
         % fm.model.name)
    print('plot saved to %s' % path)
    return 0


def add_arguments(parser):
    """Add the options of ``flex-demo``."""
    parser.add_argument('--config', help='flexible-link YAML (default: '
                        'shipped config/%s)' % DEFAULT_CONFIG)
    parser.add_argument('--urdf', help="URDF path (default: the config's "
                        '"urdf" entry)')
    parser.add_argument('--tip', help='link whose deflection is reported '
                        '(default: the last link)')
    parser.add_argument('--dt', type=number(float, '--dt', 1e-6, 1e-2),
                        default=None,
                        help='RK4 step, s (default: 1/20 of the shortest '
                        'natural period, at most 1 ms)')
    parser.add_argument('--start', type=number(float, '--start'), nargs='+',
                        help='start joint angles, rad (default -0.3 0.6)')
    parser.add_argument('--goal', type=number(float, '--goal'), nargs='+',
                        help='goal joint angles, rad (default 0.9 -0.4)')
    # Gains per joint (one value: all joints).  The derivative gain is kept
    # low: a flexible link's joint sees only a small inertia at high
    # frequency, and a sampled damper kd is stable only for kd dt / I < 2.
    add_options(parser, (
        ('--duration', 3.0, 'simulated time, s', (1e-3, 600.0)),
        ('--move-time', 1.5, 'duration of the move, s', (1e-3, 600.0)),
        ('--kp', [150.0, 40.0], 'proportional gains, N m/rad'),
        ('--ki', [50.0, 10.0], 'integral gains, N m/(rad s)'),
        ('--kd', [10.0, 2.0], 'derivative gains, N m s/rad'),
    ))
    add_figure_options(parser, 'flex_demo.png')
