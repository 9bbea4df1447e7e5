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
``identify``: inertial parameters and joint friction from a recording.

``python -m dynamics_ros identify BAG [BAG...] --urdf ROBOT.urdf --out
identified.urdf``: reads ``joint_states`` (positions and efforts) from
ROS 2 bags (sqlite3 or MCAP folder or file) or CSVs, identifies the base
parameters and a physically consistent set of link inertias with joint
friction, and writes the URDF with its inertials replaced in place, a
friction YAML (``inverse_dynamics_node``'s ``friction_file``) and a report
(markdown, PNG per joint) on held-out data against the URDF's own values.

Several recordings (one arm recorded several times, or a fleet of arms of
the same model) give one model fitted to all of them; ``--each`` fits
one per recording instead (OUT gets the recording's name appended).
Recordings of any length: the data is read in chunks and only the normal
equations are kept; ``--workers N`` spreads the chunks over N local Dask
processes (default: in process for short recordings, the CPUs for long
ones), ``--scheduler tcp://host:8786`` over a Dask cluster.
"""

import os
import re
import sys
import time

from .options import add_model_options, add_options
from ..dynamics.friction import DEFAULT_SMOOTHING
from ..errors import IdentificationError, ModelError
from ..identification import CHUNK_SECONDS_BOUNDS
from ..model.urdf import load_urdf, urdf_text

# What ``python -m dynamics_ros --help`` says of this command.
HELP = ('identify link inertias and joint friction from '
        'a bag or CSV of joint_states')


def stem(path):
    """Return ``path`` without its extension."""
    return os.path.splitext(path)[0]


def run(args):
    """Identify and write the outputs; 2 on an error the user can fix."""
    from ..identification.output import write_outputs
    from ..identification.parallel import check_scheduler
    from ..identification.pipeline import identify, NO_HOLDOUT

    start = time.monotonic()

    def progress(text):
        print('[%6.1f s] %s' % (time.monotonic() - start, text), flush=True)

    min_speed = None if args.min_speed == 'auto' else args.min_speed
    try:
        if args.scheduler:   # before any data is read: fail fast
            check_scheduler(args.scheduler)
        if min_speed is not None:
            try:
                min_speed = float(min_speed)
            except ValueError:
                min_speed = float('nan')
            if not 0.0 <= min_speed < float('inf'):
                raise IdentificationError('--min-speed must be "auto" or a '
                                          'finite speed >= 0 in rad/s, got '
                                          '%r' % args.min_speed[:40])
        text = urdf_text(args.urdf, args.xacro_arg)
        model = load_urdf(text, root_link=args.root, tip_link=args.tip)
        progress('model %r: %d joints (%s)' % (
            model.name, model.nq, ', '.join(model.joint_names)))
        groups = [[path] for path in args.recording] if args.each \
            else [args.recording]
        results = []
        for paths in groups:
            out = args.out if not args.each else '%s_%s.urdf' % (
                stem(args.out), re.sub(r'[^A-Za-z0-9_.-]', '_',
                                       os.path.basename(os.path.normpath(
                                           paths[0])))[:60])
            result = identify(
                model, paths, friction=not args.no_friction,
                prior_weight=args.prior_weight, holdout=args.holdout,
                cutoff=args.cutoff, smoothing=args.smoothing,
                min_speed=min_speed, progress=progress,
                chunk_seconds=args.chunk_seconds,
                workers=None if args.workers < 0 else args.workers,
                scheduler=args.scheduler or None, topic=args.topic)
            friction = None if args.no_friction else (
                stem(out) + '_friction.yaml' if args.each or not
                args.friction else args.friction)
            report = stem(out) + '_report' if args.each or not \
                args.report else args.report
            notes = write_outputs(result, model, text, out, friction,
                                  report, result.source)
            for note in notes:
                progress('note: %s' % note)
            progress('wrote %s%s and %s' % (
                out, '' if friction is None else ', ' + friction,
                os.path.join(report, 'report.md')))
            results.append((out, result))
    except (IdentificationError, ModelError, OSError) as error:
        print('error: %s' % error, file=sys.stderr)
        return 2
    for out, result in results:
        if not result.total_rms == result.total_rms:     # NaN: holdout 0
            print('%s%s; consistent fit %s' % (
                '' if len(results) == 1 else out + ': ', NO_HOLDOUT,
                result.info['message']))
            continue
        print('%sheld-out torque RMS (N m): identified %.4g, URDF %.4g; '
              'consistent fit %s' % (
                  '' if len(results) == 1 else out + ': ', result.total_rms,
                  result.nominal_total_rms, result.info['message']))
    return 0


def add_arguments(parser):
    """Add the options of ``identify``."""
    parser.add_argument('recording', nargs='+',
                        help='ROS 2 bags (folder, .db3 or .mcap) or CSV '
                             'files: one model fitted to all of them')
    add_model_options(parser, "the robot's URDF (or .xacro)",
                      required=True)
    parser.add_argument('--out', required=True,
                        help='URDF to write, with the identified inertials')
    parser.add_argument('--friction', help='friction YAML to write '
                        '(default: OUT without extension + _friction.yaml)')
    parser.add_argument('--report', help='report folder (default: OUT '
                                         'without extension + _report)')
    parser.add_argument('--no-friction', action='store_true',
                        help='identify inertias only')
    parser.add_argument('--each', action='store_true',
                        help='one model per recording (a fleet: one per '
                             'robot), OUT named after each')
    parser.add_argument('--min-speed', default='auto',
                        help="leave out a joint's rows near speeds below "
                             'this (rad/s) and near velocity reversals; '
                             '"auto" (default): 3 smoothing widths or 5 '
                             'velocity-noise levels, whichever is larger; '
                             '0: keep every row')
    parser.add_argument('--scheduler', default='',
                        help='Dask scheduler address (tcp://host:8786) '
                             'to run the chunks on a cluster')
    add_options(parser, (
        ('--topic', 'joint_states', 'JointState topic in the bag'),
        ('--prior-weight', 1.0, 'weight of the URDF values as prior (0: none)',
         (0.0, 1e12)),
        ('--holdout', 0.25, 'fraction at the end kept for validation',
         (0.0, 0.9)),
        ('--cutoff', 5.0, 'low-pass cut-off of the zero-phase filter, Hz',
         (1e-3, 1e4)),
        ('--smoothing', DEFAULT_SMOOTHING,
         'Coulomb friction tanh(qd / smoothing), rad/s', (1e-9, 1e3)),
        ('--chunk-seconds', 120.0, 'recording time per chunk of work, s',
         CHUNK_SECONDS_BOUNDS),
        ('--workers', -1, 'local Dask worker processes (0: in process; '
         '-1: in process for short recordings, the CPUs for long ones)',
         (-1, 1024)),
    ))
