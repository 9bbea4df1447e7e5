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

``python -m dynamics_ros identify BAG --urdf ROBOT.urdf --out
identified.urdf``: reads ``joint_states`` (positions and efforts) from a
ROS 2 bag (sqlite3 or MCAP folder or file) or a CSV, identifies the base
parameters and a physically consistent set of link inertias with joint
friction, and writes the URDF with its inertials replaced in place, a
friction YAML (``inverse_dynamics_node``'s ``friction_file``) and a report
(markdown, PNG per joint) on held-out data against the URDF's own values.
"""

import os
import sys
import time

from .options import add_model_options, add_options
from ..dynamics.friction import DEFAULT_SMOOTHING
from ..errors import IdentificationError, ModelError
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
    from ..identification.pipeline import identify
    from ..identification.recording import read_recording

    start = time.monotonic()

    def progress(text):
        print('[%6.1f s] %s' % (time.monotonic() - start, text), flush=True)

    try:
        text = urdf_text(args.urdf, args.xacro_arg)
        model = load_urdf(text, root_link=args.root, tip_link=args.tip)
        progress('model %r: %d joints (%s)' % (
            model.name, model.nq, ', '.join(model.joint_names)))
        recording = read_recording(args.recording, model.joint_names,
                                   args.topic)
        progress('read %d samples of %s' % (
            len(recording), recording.source))
        result = identify(model, recording, friction=not args.no_friction,
                          prior_weight=args.prior_weight,
                          holdout=args.holdout, cutoff=args.cutoff,
                          smoothing=args.smoothing,
                          min_speed=args.min_speed, progress=progress)
        friction = None if args.no_friction else (
            args.friction or stem(args.out) + '_friction.yaml')
        report = args.report or stem(args.out) + '_report'
        notes = write_outputs(result, model, text, args.out, friction,
                              report, recording.source)
    except (IdentificationError, ModelError, OSError) as error:
        print('error: %s' % error, file=sys.stderr)
        return 2
    for note in notes:
        progress('note: %s' % note)
    progress('wrote %s%s and %s' % (
        args.out, '' if friction is None else ', ' + friction,
        os.path.join(report, 'report.md')))
    print('held-out torque RMS (N m): identified %.4g, URDF %.4g' % (
        result.total_rms, result.nominal_total_rms))
    return 0


def add_arguments(parser):
    """Add the options of ``identify``."""
    parser.add_argument('recording', help='ROS 2 bag (folder, .db3 or '
                                          '.mcap) or CSV file')
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
    add_options(parser, (
        ('--topic', 'joint_states', 'JointState topic in the bag'),
        ('--prior-weight', 1.0, 'weight of the URDF values as prior (0: none)'),
        ('--holdout', 0.25, 'fraction at the end kept for validation'),
        ('--cutoff', 5.0, 'low-pass cut-off of the zero-phase filter, Hz'),
        ('--smoothing', DEFAULT_SMOOTHING,
         'Coulomb friction tanh(qd / smoothing), rad/s'),
        ('--min-speed', 0.0, 'leave out a joint near speeds below this '
         '(rad/s; stiction), 0: none'),
    ))
