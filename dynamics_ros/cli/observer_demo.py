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
``observer-demo``: external torques of a pushed arm, from joint states only.

The shipped PUMA 560 (or ``--urdf``) follows a sinusoidal reference under
computed torque in the ROS-free simulator (dynamics_ros.sim); from
``--push-on`` to ``--push-off`` a known wrench pushes its tool (in the
tool link's frame, mapped to joint torques J^T w each step).  The
momentum observer (dynamics_ros.estimation) reads what a driver would
publish - time, positions, velocities and the actuator torques, not the
push - and estimates the external joint torques, the wrench at the tool
and a collision flag.  Prints the detection delays and errors and saves a
PNG of true vs estimated torques, the wrench and the flag.
"""

import sys
import time

import numpy as np

from .figures import save_figure
from .options import add_figure_options, add_options, figure_path, \
    number
from ..control.computed_torque import computed_torque
from ..estimation.collision import CollisionDetector
from ..estimation.momentum_observer import MomentumObserver
from ..estimation.wrench import external_wrench, wrench_jacobian
from ..model.robot_model import REVOLUTE
from ..model.urdf import load_urdf
from ..resources import robot_urdf
from ..sim.simulator import Simulator

# What ``python -m dynamics_ros --help`` says of this command.
HELP = ('push a simulated arm mid-trajectory; '
        'estimate the external torques, wrench and collision from joint '
        'states (momentum observer); saves a PNG')


def reference(q0, amplitude, frequency):
    """Return a function of t: the sinusoid (q, qd, qdd) about ``q0``."""
    omega = 2.0 * np.pi * frequency

    def sample(t):
        phase = np.full(q0.size, omega * t)
        return (q0 + amplitude * np.sin(phase),
                amplitude * omega * np.cos(phase),
                -amplitude * omega ** 2 * np.sin(phase))
    return sample


def default_link(model):
    """
    Return the link to push: ``tool0``, else the deepest link of the arm.

    Deepest in revolute joints, then with the fewest prismatic ones (a
    hand rather than a gripper's finger), the last declared of a tie.
    """
    if 'tool0' in model.frames:
        return 'tool0'
    tree = getattr(model, 'tree', model)

    def depth(link):
        body, revolute, prismatic = model.frames[link][0], 0, 0
        while body >= 0:
            if tree.joint_type[body] == REVOLUTE:
                revolute += 1
            else:
                prismatic += 1
            body = tree.parent[body]
        return revolute, -prismatic

    links = list(model.frames)
    return max(reversed(links), key=depth)


def default_pose(model):
    """Return a pose inside the limits, away from the zero configuration."""
    pose = np.resize([0.2, -0.6, 0.9, 0.3, 0.8, 0.1, -0.4], model.nq)
    lower = np.where(np.isfinite(model.lower_limit), model.lower_limit, -3.0)
    upper = np.where(np.isfinite(model.upper_limit), model.upper_limit, 3.0)
    margin = 0.25 * (upper - lower)
    return np.clip(pose, lower + margin, upper - margin)


def simulate(model, link, wrench, args):
    """Simulate the pushed arm; return the samples a driver would publish."""
    q0 = default_pose(model)
    # A fifth of a joint's range at most (a gripper's finger: millimetres).
    span = np.where(np.isfinite(model.upper_limit - model.lower_limit),
                    model.upper_limit - model.lower_limit, np.inf)
    target = reference(q0, np.minimum(args.amplitude, 0.2 * span),
                       args.frequency)

    def law(t, q, qd):
        return computed_torque(model, q, qd, *target(t), 100.0, 20.0)

    simulator = Simulator(model, dt=args.dt, q0=q0, qd0=target(0.0)[1])
    steps = int(round(args.duration / args.dt))
    rows = []
    started = time.time()
    reported = started
    for k in range(steps):
        t, q, qd = simulator.t, simulator.q.copy(), simulator.qd.copy()
        tau = law(t, q, qd)
        push = np.zeros(model.nq)
        if args.push_on <= t < args.push_off:
            # Held over the step, as the simulator holds an effort.
            push = wrench_jacobian(model, q, link).T @ wrench
        rows.append((t, q, qd, tau, push))
        simulator.step(lambda s, p, v, held=push: law(s, p, v) + held)
        if time.time() - reported > 2.0 or k == steps - 1:
            reported = time.time()
            print('  simulated %5.2f of %.2f s (%.1f s elapsed)' % (
                simulator.t, args.duration, reported - started), flush=True)
    return [np.array(column) for column in zip(*rows)]


def observe(model, link, samples, args):
    """Run observer, detector and wrench on the samples."""
    t, q, qd, tau, _ = samples
    observer = MomentumObserver(model, args.gain)
    detector = CollisionDetector(args.threshold, args.hysteresis, model.nq)
    estimates, flags, wrenches = [], [], []
    for k in range(len(t)):
        torques = observer.update(t[k], q[k], qd[k], tau[k]).torques
        estimates.append(torques)
        flags.append(detector.update(torques))
        wrenches.append(external_wrench(model, q[k], torques, link))
    return np.array(estimates), np.array(flags), np.array(wrenches)


def first_time(t, mask):
    """Return the first time where ``mask`` holds, else None."""
    where = np.flatnonzero(mask)
    return float(t[where[0]]) if where.size else None


def report(model, samples, estimates, flags, wrenches, wrench, args):
    """Print delays and errors; return the lines."""
    t, _, _, tau, push = samples
    size = np.max(np.abs(push))
    free = t < args.push_on
    settled = (t >= args.push_on + 5.0 / args.gain) & (t < args.push_off)
    rise = first_time(t, flags & (t >= args.push_on))
    fall = first_time(t, ~flags & (t >= args.push_off))
    lines = [
        'push at the tool: moment %s N m, force %s N, %.2f to %.2f s' % (
            np.round(wrench[:3], 3), np.round(wrench[3:], 3), args.push_on,
            args.push_off),
        'largest external joint torque %.3g N m; control torques up to '
        '%.3g N m' % (size, np.max(np.abs(tau))),
        'free motion (before the push): largest estimate %.3g N m' % (
            np.max(np.abs(estimates[free])) if np.any(free) else 0.0),
        'from 5/K = %.3f s after the push on: largest error %.3g N m '
        '(%.2f %% of the push)' % (
            5.0 / args.gain, np.max(np.abs(estimates[settled]
                                           - push[settled])),
            100 * np.max(np.abs(estimates[settled] - push[settled])) / size)
        if np.any(settled) else 'push shorter than 5/K',
        'wrench at the end of the push: moment %s N m, force %s N' % (
            np.round(wrenches[settled][-1][:3], 3),
            np.round(wrenches[settled][-1][3:], 3))
        if np.any(settled) else '',
        'collision flag: rises %s, falls %s (threshold %g N m, time '
        'constant 1/K = %.3f s)' % (
            'after %.3f s' % (rise - args.push_on) if rise is not None
            else 'never', 'after %.3f s' % (fall - args.push_off)
            if fall is not None else 'never', args.threshold,
            1.0 / args.gain)]
    q = samples[1]
    at_limit = np.any((q <= model.lower_limit) | (q >= model.upper_limit),
                      axis=0)
    if np.any(at_limit):
        lines.append('note: joints %s reached a position limit: the '
                     "limit's reaction is an external torque too" % ', '.join(
                         np.array(model.joint_names)[at_limit]))
    for line in lines:
        if line:
            print(line)
    return lines


def plot(model, samples, estimates, flags, wrenches, wrench, path, args,
         title):
    """Save true vs estimated torques, the wrench and the flag as a PNG."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    t, _, _, _, push = samples
    figure, axes = plt.subplots(4, 1, figsize=(10, 11), sharex=True)
    for j, name in enumerate(model.joint_names):
        line, = axes[0].plot(t, push[:, j], linewidth=2, alpha=0.5,
                             label='%s true' % name)
        axes[0].plot(t, estimates[:, j], '--', color=line.get_color(),
                     linewidth=1)
    axes[0].set_ylabel('external torque (N m)\nsolid true, dashed '
                       'estimate')
    axes[0].legend(loc='upper left', fontsize='x-small', ncol=3)
    for j, name in enumerate(model.joint_names):
        axes[1].plot(t, estimates[:, j] - push[:, j], label=name)
    axes[1].set_ylabel('estimate - true (N m)')
    on = (t >= args.push_on) & (t < args.push_off)
    for k, axis in enumerate('xyz'):
        line, = axes[2].plot(t, np.where(on, wrench[3 + k], 0.0),
                             linewidth=2, alpha=0.5,
                             label='force %s applied' % axis)
        axes[2].plot(t, wrenches[:, 3 + k], '--', color=line.get_color(),
                     linewidth=1, label='force %s estimated' % axis)
    axes[2].set_ylabel('force at the tool (N,\ntool frame)')
    axes[2].legend(loc='upper left', fontsize='x-small', ncol=3)
    axes[3].step(t, flags.astype(float), where='post', label='collision')
    axes[3].fill_between(t, 0, 1, where=on, step='post', alpha=0.2,
                         label='push applied')
    axes[3].set_ylabel('collision flag')
    axes[3].set_xlabel('time (s)')
    axes[3].legend(loc='upper left', fontsize='small')
    save_figure(figure, axes, title, path)


def run(args):
    """Simulate, observe, report, plot."""
    model = load_urdf(args.urdf or robot_urdf())
    link = args.link or default_link(model)
    if link not in model.frames:
        print('error: link %r is not in model %r' % (link, model.name),
              file=sys.stderr)
        return 2
    wrench = np.array(args.moment + args.force, dtype=float)
    print('model %r: %d joints, push at %r, observer gain K = %g 1/s' % (
        model.name, model.nq, link, args.gain))
    samples = simulate(model, link, wrench, args)
    estimates, flags, wrenches = observe(model, link, samples, args)
    report(model, samples, estimates, flags, wrenches, wrench, args)
    path = figure_path(args)
    plot(model, samples, estimates, flags, wrenches, wrench, path, args,
         '%s pushed at %s: momentum observer, K = %g 1/s' % (
             model.name, link, args.gain))
    print('plot saved to %s' % path)
    return 0


def add_arguments(parser):
    """Add the options of ``observer-demo``."""
    parser.add_argument('--urdf', help='URDF or xacro (default: the shipped '
                        'PUMA 560)')
    parser.add_argument('--link', help='link pushed (default: tool0, else '
                        'the deepest link of the arm)')
    parser.add_argument('--force', type=number(float, '--force'), nargs=3,
                        default=[25.0, -15.0, 30.0],
                        help='force of the push in the link frame, N '
                        '(default 25 -15 30)')
    parser.add_argument('--moment', type=number(float, '--moment'), nargs=3,
                        default=[0.0, 0.0, 0.0],
                        help='moment of the push about the link origin, '
                        'N m (default 0 0 0)')
    add_options(parser, (
        ('--push-on', 1.0, 'push starts, s', (0.0, 600.0)),
        ('--push-off', 2.0, 'push ends, s', (0.0, 600.0)),
        ('--duration', 3.0, 'simulated time, s', (1e-3, 600.0)),
        ('--dt', 1e-3, 'simulation step and sample period, s', (1e-5, 0.1)),
        ('--amplitude', 0.3, 'reference amplitude per joint, rad'),
        ('--frequency', 0.5, 'reference frequency, Hz'),
        ('--gain', 50.0, 'observer gain K, 1/s'),
        ('--threshold', 5.0, 'collision threshold, N m'),
        ('--hysteresis', 0.2, 'collision hysteresis'),
    ))
    add_figure_options(parser, 'observer_demo.png')
