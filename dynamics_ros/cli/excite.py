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
``excite``: an identification trajectory for a URDF, written or sent.

``python -m dynamics_ros excite ROBOT.urdf [--out excitation.yaml]
[--send]``: optimizes a finite Fourier-series trajectory (Swevers et al.
1997) within the joint limits for the condition number of the base
regressor, writes it as YAML (joint names, times, positions, velocities,
accelerations) and with ``--send`` publishes it as a
trajectory_msgs/JointTrajectory on
``joint_trajectory_controller/joint_trajectory`` (what
joint_trajectory_controller and ``simulator_node`` follow).  Start the
recording *before* ``--send`` (``ros2 bag record /joint_states`` in
another terminal: the trajectory starts moving ``settle`` seconds after
it is sent, and a recording started late misses its first period), then
pass the bag to ``identify``.

``--resend excitation.yaml`` publishes a file written before as it is,
without optimizing again (the same trajectory for another recording, on
this arm or another of the same model).
"""

import sys
import time

from .options import add_model_options, add_options, load_model
from ..errors import ModelError
from ..identification.excitation import DEFAULT_ITERATIONS, \
    DEFAULT_RESTARTS
from ..model.robot_model import RobotModel
from ..resources import quote_path, read_user_yaml

# What ``python -m dynamics_ros --help`` says of this command.
HELP = ('optimized identification trajectory of a URDF '
        '(written as YAML, or sent as a JointTrajectory)')

TRAJECTORY_TOPIC = 'joint_trajectory_controller/joint_trajectory'


def run(args):
    """Optimize the excitation, write it, send it if asked."""
    import numpy as np
    import yaml

    from ..identification.excitation import limits, optimize_excitation, \
        trajectory_plan

    start = time.monotonic()

    def progress(text):
        print('[%6.1f s] %s' % (time.monotonic() - start, text), flush=True)

    if args.resend:
        return resend(args, progress)
    if not args.urdf:
        print('error: excite needs a URDF (or --resend FILE)',
              file=sys.stderr)
        return 2
    try:
        model = load_model(args)
        if not isinstance(model, RobotModel):
            raise ModelError('excite needs a model without mimic joints')
        bounds = limits(model, args.velocity_fraction, args.acceleration,
                        args.margin)
    except (ModelError, ValueError) as error:
        print('error: %s' % error, file=sys.stderr)
        return 2
    if args.payload:
        try:
            plan, data = payload_plan(model, args, bounds, progress)
        except ValueError as error:
            print('error: %s' % error, file=sys.stderr)
            return 2
    else:
        progress('model %r: %d joints; optimizing %d harmonics of a %g s '
                 'period' % (model.name, model.nq, args.harmonics,
                             args.period))
        trajectory, condition = optimize_excitation(
            model, harmonics=args.harmonics, period=args.period,
            bounds=bounds, iterations=args.iterations,
            restarts=args.restarts, seed=args.seed, progress=progress)
        plan = trajectory_plan(model, trajectory, periods=args.periods,
                               rate=args.rate)
        data = plan.to_dict()
        data['condition_number'] = condition
        data['fourier'] = {'period': trajectory.period,
                           'q0': trajectory.q0.tolist(),
                           'a': trajectory.a.tolist(),
                           'b': trajectory.b.tolist()}
    # libyaml's dumper where there is one: 3,000 points x 3 x nq numbers
    # take seconds through the pure-Python one.
    dumper = getattr(yaml, 'CSafeDumper', yaml.SafeDumper)
    with open(args.out, 'w', encoding='utf-8') as stream:
        yaml.dump(data, stream, Dumper=dumper, sort_keys=False)
    peaks = np.abs(plan.velocities).max(axis=0)
    progress('condition number %.4g; %d points over %.1f s; peak speeds %s '
             'rad/s; wrote %s' % (data['condition_number'], len(plan.times),
                                  plan.times[-1], np.array2string(
                                      peaks, precision=2), args.out))
    if args.send:
        progress('waiting for a subscriber on %s...' % args.topic)
        return send(plan, args, progress)
    return 0


def send(plan, args, progress):
    """Publish ``plan`` on ``--topic``; 1 if nothing subscribed in time."""
    # rclpy only here, and only in nodes/ (the core stays ROS-free).
    from ..nodes.shared.trajectory_sender import send_trajectory
    if not send_trajectory(plan, args.topic, args.timeout):
        print('error: nothing subscribed to %s within %g s' % (
            args.topic, args.timeout), file=sys.stderr)
        return 1
    progress('sent %d points to %s' % (len(plan.times), args.topic))
    return 0


def payload_plan(model, args, bounds, progress):
    """
    Return (plan, data) of the short wrist motion of ``--payload``.

    One period of ``--duration`` s from ``--start`` (model order; empty:
    the middle of the limits), at rest at both ends, mostly at the wrist
    (estimation/payload_excitation.py); a bad start is a ValueError.
    """
    import numpy as np

    from ..estimation.payload_excitation import excitation_data, \
        payload_excitation

    if args.start:
        start = np.array([float(x) for x in args.start.split(',')])
    else:
        start = 0.5 * (bounds[0] + bounds[1])
    progress('model %r: %d joints; a %g s wrist motion for the payload' % (
        model.name, model.nq, args.duration))
    trajectory, condition = payload_excitation(
        model, start, duration=args.duration, bounds=bounds,
        link=args.tip or None, return_condition=True)
    return excitation_data(model, trajectory, condition, rate=args.rate)


def resend(args, progress):
    """Publish an excitation file as it is; 2 if it cannot be read."""
    from ..bounded_yaml import PLAN_BOUNDS
    from ..identification.excitation import TrajectoryPlan

    try:
        data, _, _ = read_user_yaml(args.resend, 'excitation file',
                                    ValueError, text=False,
                                    bounds=PLAN_BOUNDS)
        plan = TrajectoryPlan.from_dict(data)
    except (OSError, KeyError, TypeError, ValueError) as error:
        print('error: %s is not an excitation file written by excite (%s)'
              % (quote_path(args.resend), str(error)[:200]),
              file=sys.stderr)
        return 2
    progress('%s: %d points over %.1f s; waiting for a subscriber on %s...'
             % (args.resend, len(plan.times), plan.times[-1], args.topic))
    return send(plan, args, progress)


def add_arguments(parser):
    """Add the options of ``excite``."""
    add_model_options(parser, 'URDF or .xacro file (not with --resend)',
                      flag=False)
    # The URDF is optional for --resend (run() asks for it otherwise).
    for action in parser._actions:
        if action.dest == 'urdf':
            action.nargs, action.required, action.default = '?', False, None
    add_options(parser, (
        ('--out', 'excitation.yaml', 'YAML file to write'),
        ('--period', 10.0, 'period of the Fourier series, s', (0.1, 3600.0)),
        ('--harmonics', 5, 'harmonics of the Fourier series', (1, 100)),
        ('--periods', 3, 'periods in the trajectory', (1, 1000)),
        ('--rate', 100.0, 'points per second', (1.0, 10000.0)),
        ('--velocity-fraction', 0.8, 'fraction of the URDF velocity limits'),
        ('--acceleration', 4.0, 'acceleration limit, rad/s^2 (or m/s^2)'),
        ('--margin', 0.1, 'distance kept from the position limits'),
        ('--iterations', DEFAULT_ITERATIONS, 'L-BFGS steps from each start',
         (1, 100000)),
        ('--restarts', DEFAULT_RESTARTS, 'random starts of the optimizer',
         (1, 1000)),
        ('--seed', 0, 'seed of the random starts'),
        ('--timeout', 10.0, 'seconds to wait for a subscriber',
         (0.0, 86400.0)),
        ('--topic', TRAJECTORY_TOPIC, 'JointTrajectory topic of --send'),
        ('--start', '', 'with --payload: start positions, comma-separated, '
         'model order (empty: the middle of the limits)'),
        ('--duration', 6.0, 'with --payload: seconds of motion',
         (0.1, 3600.0)),
    ))
    parser.add_argument('--payload', action='store_true',
                        help='a short wrist motion from --start for payload '
                             'estimation (instead of the full excitation)')
    parser.add_argument('--send', action='store_true',
                        help='publish it as a JointTrajectory (start '
                             'recording joint_states before)')
    parser.add_argument('--resend', metavar='EXCITATION_YAML',
                        help='publish this excitation file as it is, '
                             'without optimizing (the URDF is not needed)')
