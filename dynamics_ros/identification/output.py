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
Identification results out: URDF, friction YAML, report with plots.

The URDF is the user's own file with only the ``<inertial>`` elements of
the identified links rewritten, in place in the text: comments, order,
formatting, meshes, transmissions and every other element stay byte for
byte.  A body of the model can be several URDF links welded by fixed
joints (a flange, a hand): the identification sees their sum, so the
moving link gets the identified sum less the URDF values of the links
welded to it, which keep theirs; where that difference is not a physical
body the moving link gets the whole sum and the welded links' inertials
are removed (``notes`` says which).
"""

import os
import re

import numpy as np

from .fit import pseudo_inertia
from ..dynamics.friction import JointFriction, write_friction
from ..dynamics.regressor import body_parameters, PARAMETER_NAMES, \
    rigid_body
from ..model.urdf_xml import parse_document, read_robot
from ..spatial import rpy_to_matrix

LINK = re.compile(r'<link\b[^>]*?\bname\s*=\s*(["\'])(.*?)\1[^>]*?(/?)>',
                  re.S)
INERTIAL = re.compile(r'<inertial\b[^>]*?/>|<inertial\b.*?</inertial>', re.S)


def link_parameters(link):
    """Return the ten parameters of a URDF link in its frame (0 if none)."""
    inertial = link.inertial
    if inertial is None:
        return np.zeros(10)
    rotation = rpy_to_matrix(inertial.origin.rpy)
    ixx, ixy, ixz, iyy, iyz, izz = inertial.inertia
    tensor = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    return body_parameters(inertial.mass, np.array(inertial.origin.xyz),
                           rotation @ tensor @ rotation.T)


def physical(parameters):
    """Return True if ten parameters are a body with positive mass."""
    return parameters[0] > 0.0 and np.linalg.eigvalsh(
        pseudo_inertia(parameters))[0] >= 0.0


def inertial_text(parameters, indent):
    """Return an <inertial> element of ten parameters (link frame)."""
    mass, com, inertia = rigid_body(parameters)
    inner = indent + '  '

    def number(value):
        # repr-exact: the origin inertia is recomputed from c and I_c on
        # loading, which cancels digits where I_c << m |c|^2.
        return '%.17g' % (float(value) + 0.0)
    return (
        '<inertial>\n%s<origin xyz="%s" rpy="0 0 0"/>\n%s<mass value="%s"/>'
        '\n%s<inertia ixx="%s" ixy="%s" ixz="%s" iyy="%s" iyz="%s" '
        'izz="%s"/>\n%s</inertial>' % (
            inner, ' '.join(number(c) for c in com), inner, number(mass),
            inner, number(inertia[0, 0]), number(inertia[0, 1]),
            number(inertia[0, 2]), number(inertia[1, 1]),
            number(inertia[1, 2]), number(inertia[2, 2]), indent))


def link_inertials(model, nominal, identified, links):
    """
    Return ({link: ten parameters or None (remove)}, notes).

    ``nominal``, ``identified``: (nq, 10) body parameters; ``links``: the
    URDF's links by name.
    """
    welded = {}
    for name, (body, _, _) in model.frames.items():
        if body >= 0 and name != model.body_names[body]:
            welded.setdefault(body, []).append(name)
    result, notes = {}, []
    for i, name in enumerate(model.body_names):
        own = link_parameters(links[name]) if name in links else np.zeros(10)
        rest = identified[i] - (nominal[i] - own)
        others = [w for w in welded.get(i, [])
                  if w in links and links[w].inertial is not None]
        if not others or physical(rest):
            result[name] = rest
            continue
        result[name] = identified[i]
        for other in others:
            result[other] = None
        notes.append('link %r: identified with the links welded to it (%s), '
                     'whose inertials were removed: the identified body less '
                     'their URDF values is not a physical body' % (
                         name, ', '.join(others)))
    return result, notes


def write_urdf(text, model, nominal, identified):
    """
    Return (URDF text with identified inertials, notes).

    ``text``: the URDF the model was loaded from; ``nominal`` and
    ``identified``: (nq, 10) or (10 nq,) body parameters of the model.
    """
    nominal = np.asarray(nominal, dtype=float).reshape(model.nq, 10)
    identified = np.asarray(identified, dtype=float).reshape(model.nq, 10)
    links = {link.name: link for link in read_robot(
        parse_document(text)).links}
    targets, notes = link_inertials(model, nominal, identified, links)
    edits = []
    for match in LINK.finditer(text):
        name = match.group(2)
        if name not in targets:
            continue
        line_start = text.rfind('\n', 0, match.start()) + 1
        indent = re.match(r'[ \t]*', text[line_start:match.start()]).group()
        inner = indent + '  '
        parameters = targets[name]
        if match.group(3) == '/':  # <link name="x"/>
            if parameters is not None:
                edits.append((match.start(), match.end(), '%s>\n%s%s\n%s'
                              '</link>' % (match.group()[:-2].rstrip(), inner,
                                           inertial_text(parameters, inner),
                                           indent)))
            continue
        end = text.find('</link>', match.end())
        body = text[match.end():end]
        found = INERTIAL.search(body)
        if found is not None:
            start = match.end() + found.start()
            stop = match.end() + found.end()
            at = text.rfind('\n', 0, start) + 1
            own_indent = re.match(r'[ \t]*', text[at:start]).group()
            if parameters is None:
                # The element and its line go.
                if text[at:start].strip() == '' and \
                        text[stop:stop + 1] == '\n':
                    start, stop = at, stop + 1
                edits.append((start, stop, ''))
            else:
                edits.append((start, stop,
                              inertial_text(parameters, own_indent)))
        elif parameters is not None:
            closing = text.rfind('\n', 0, end) + 1
            edits.append((closing, closing, '%s%s\n' % (
                inner, inertial_text(parameters, inner))))
    for start, stop, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[stop:]
    return text, notes


def friction_of(result):
    """Return the JointFriction of an Identification."""
    names = list(result.friction)
    values = np.array([[result.friction[j][t] for t in
                        ('viscous', 'coulomb', 'offset')] for j in names])
    return JointFriction(names, np.maximum(values[:, 0], 0.0),
                         np.maximum(values[:, 1], 0.0), values[:, 2],
                         result.smoothing)


def plot_joints(result, folder, prefix='torque_'):
    """Write one PNG per joint: measured vs predicted held-out torques."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    validation = result.validation
    paths = []
    if validation is None:      # nothing held out (holdout 0)
        return paths
    for i, joint in enumerate(validation.joint_names):
        figure, axes = plt.subplots(figsize=(9, 3.4))
        t = validation.t - validation.t[0]
        # The fit under, the measured trace on top (dots: it is noisy and
        # the fit would hide a line), the legend outside the axes.
        axes.plot(t, validation.nominal_predicted[:, i], color='C3', lw=1.0,
                  ls='--', label='URDF (RMS %.3g)' % result.nominal_rms[i],
                  zorder=1)
        axes.plot(t, validation.predicted[:, i], color='C0', lw=1.2,
                  label='identified (RMS %.3g)' % result.rms[i], zorder=2)
        axes.plot(t, validation.raw_effort[:, i], ls='none', marker='.',
                  ms=2.0, color='black', alpha=0.6, label='measured',
                  zorder=3)
        axes.set_xlabel('held-out time (s)')
        axes.set_ylabel('torque (N m)')
        axes.set_title(joint)
        axes.legend(loc='upper left', bbox_to_anchor=(1.01, 1.0),
                    fontsize=8, frameon=False)
        figure.tight_layout()
        path = os.path.join(folder, '%s%s.png' % (prefix, re.sub(
            r'[^A-Za-z0-9_.-]', '_', joint)))
        figure.savefig(path, dpi=110)
        plt.close(figure)
        paths.append(path)
    return paths


def report_text(result, model, plots=(), notes=(), source='data'):
    """Return the markdown report of an Identification."""
    lines = ['# Identification of %r' % model.name, '',
             '- data: %s; %d held-out rows per joint' % (
                 source, int(result.equations.nv.max())),
             '- %d base parameters of %d standard ones; condition number of '
             'the column-scaled base regressor %.4g' % (
                 result.base.rank, len(result.base.names), result.condition),
             '- physically consistent fit (semidefinite program): %s'
             % result.info.get('message'),
             '', '## Held-out torque prediction (RMS, N m)', '',
             '| joint | identified | URDF |', '|---|---|---|']
    for joint, rms, nominal in zip(model.joint_names, result.rms,
                                   result.nominal_rms):
        lines.append('| %s | %.4g | %.4g |' % (joint, rms, nominal))
    lines.append('| all | %.4g | %.4g |' % (result.total_rms,
                                            result.nominal_total_rms))
    lines += ['', '## Base parameters', '',
              'Standard deviations from the weighted least squares '
              '(residuals taken as white: an underestimate when they are '
              'not).', '',
              '| # | combination | URDF | identified | least squares | std |',
              '|---|---|---|---|---|---|']
    for k, name in enumerate(result.base.combinations):
        lines.append('| %d | `%s` | %.5g | %.5g | %.5g | %.2g |' % (
            k, name, result.base_nominal[k], result.base_identified[k],
            result.base_least_squares[k], result.base_std[k]))
    lines += ['', '## Bodies (physically consistent fit)', '',
              '| body | parameter | URDF | identified |', '|---|---|---|---|']
    nominal = result.nominal[:10 * model.nq].reshape(model.nq, 10)
    identified = result.parameters[:10 * model.nq].reshape(model.nq, 10)
    for i, body in enumerate(model.body_names):
        for k, name in enumerate(PARAMETER_NAMES):
            lines.append('| %s | %s | %.5g | %.5g |' % (
                body, name, nominal[i, k], identified[i, k]))
    if result.friction:
        lines += ['', '## Joint friction', '',
                  'tau_f = viscous qd + coulomb tanh(qd / %g) + offset' %
                  result.smoothing, '',
                  '| joint | viscous | coulomb | offset |', '|---|---|---|---|']
        for joint, terms in result.friction.items():
            lines.append('| %s | %.4g | %.4g | %.4g |' % (
                joint, terms['viscous'], terms['coulomb'], terms['offset']))
    selection = getattr(result, 'selection', None)
    if selection:
        lines += ['', '## Training rows left out', '',
                  'Coulomb friction is fitted as tanh(qd / %g); rows where '
                  'a joint is slower than the speed below, or where its '
                  'velocity changes sign, and the %d rows either side of '
                  'them (the filter spreads the friction step over that '
                  "time), are left out of that joint's equations." % (
                      result.smoothing, selection['near']), '',
                  '| joint | speed below (rad/s) | kept | slow | reversals '
                  '| left out in all | held-out moving |',
                  '|---|---|---|---|---|---|---|']
        for j, joint in enumerate(model.joint_names):
            lines.append('| %s | %.3g | %d | %d | %d | %d | %.0f %% |' % (
                joint, selection['min_speed'][j], selection['kept'][j],
                selection['slow'][j], selection['reversal'][j],
                selection['dropped'][j],
                100 * selection['held_out_moving'][j]))
    notes = list(getattr(result, 'notes', [])) + list(notes)
    if notes:
        lines += ['', '## Notes', ''] + ['- %s' % note for note in notes]
    if plots:
        lines += ['', '## Measured vs predicted (held out)', '']
        lines += ['![%s](%s)' % (os.path.basename(p), os.path.basename(p))
                  for p in plots]
    return '\n'.join(lines) + '\n'


def write_outputs(result, model, urdf_source_text, urdf_path,
                  friction_path=None, report_folder=None, source='data'):
    """
    Write the identified URDF, friction YAML and report; return the notes.

    ``report_folder``: report.md and the PNGs go there (None: none).
    """
    text, notes = write_urdf(urdf_source_text, model,
                             result.nominal[:10 * model.nq],
                             result.parameters[:10 * model.nq])
    folder = os.path.dirname(os.path.abspath(urdf_path))
    os.makedirs(folder, exist_ok=True)
    with open(urdf_path, 'w', encoding='utf-8') as stream:
        stream.write(text)
    if friction_path is not None and result.friction:
        write_friction(friction_of(result), friction_path)
    if report_folder is not None:
        os.makedirs(report_folder, exist_ok=True)
        plots = plot_joints(result, report_folder)
        with open(os.path.join(report_folder, 'report.md'), 'w',
                  encoding='utf-8') as stream:
            stream.write(report_text(result, model, plots, notes, source))
    return notes
