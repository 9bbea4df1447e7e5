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
The one line a node logs about the model it loaded (ROS-free).

Every dynamics_ros node says once, when a model comes into use, what it
works with: the model and where it came from, the joints in their order,
root and tip, the effort and velocity limits in use, the payload and the
friction file, plus what only that node has (``extra``: simulator_node's
hold, inverse_dynamics_node's saturation).  ``loaded_text`` builds it;
``nodes.shared.model_source.ModelSource`` logs it for every node.
"""

import numpy as np

from ..reasons import LOG_CHARS, quote, shorten


def last_body_link(model):
    """
    Return the link of the model's last body, or None if it has none.

    Where a payload is attached when no ``tip_link`` is given
    (model.payload.payload_body); a MimicModel's bodies are its tree's.
    """
    tree = getattr(model, 'tree', model)
    return tree.body_names[-1] if len(tree.body_names) else None


def chain_tip_link(model):
    """
    Return the link at the end of the model's serial chain, or None.

    From the base, follow the moving bodies while each has one child: the
    body where the chain ends or branches (a hand's two fingers) is the
    tip body, and its link is the last link welded to it in the URDF
    (``panda_hand`` on a Panda's link 7, ``tool0`` on a UR's wrist 3).
    external_torque_node's wrench is estimated there when neither
    ``link`` nor ``tip_link`` is given.  None: no moving body, or the
    base itself branches.
    """
    tree = getattr(model, 'tree', model)
    parents = list(tree.parent)
    body = -1
    while True:
        children = [child for child, parent in enumerate(parents)
                    if parent == body]
        if len(children) != 1:
            break
        body = children[0]
    if body < 0:
        return None
    welded = [link for link, frame in tree.frames.items()
              if frame[0] == body]
    return welded[-1] if welded else tree.body_names[body]


def limits_text(values, unit):
    """Return per-joint limits as '[87, 87, 12] N m' ('none' for inf/0)."""
    values = np.asarray(values, dtype=float).reshape(-1)
    # A URDF's 0 (or a missing <limit>) means no limit given.
    given = np.isfinite(values) & (values > 0.0)
    if not np.any(given):
        return 'none'
    return '[%s] %s' % (', '.join('%.4g' % v if ok else 'none'
                                  for v, ok in zip(values, given)), unit)


def payload_text(payload, link):
    """Return '1.5 kg at [0, 0, 0.05] m in <link>', or 'none'."""
    if payload is None:
        return None
    mass, com = float(payload[0]), [float(c) for c in payload[1]]
    if mass == 0.0:
        return 'none'
    return '%.4g kg at [%s] m in %s' % (
        mass, ', '.join('%.4g' % c for c in com), quote(link))


def loaded_text(model, joint_names, origin, tip_link='', payload=None,
                friction_file=None, extra=()):
    """
    Return the line a node logs about ``model``, loaded from ``origin``.

    ``joint_names``: the ``joints`` order (limits are given in it);
    ``tip_link``: the tip the model was cut at ('' = the whole tree, whose
    last body carries a payload); ``payload``: (mass, com, inertia) or
    None (the node has none); ``friction_file``: its path ('' = none;
    None: the node has no such parameter); ``extra``: (label, text)
    pairs of the node's own.
    """
    index = [model.joint_index(name) for name in joint_names]
    last_body = last_body_link(model)
    tip = quote(tip_link) if tip_link else 'whole tree (last body %s)' % (
        quote(last_body))
    parts = [
        'model %s from %s' % (quote(model.name), origin),
        '%d joints %s' % (len(joint_names), ', '.join(joint_names)),
        'root %s, tip %s' % (quote(model.root_link), tip),
        'total mass %.4f kg' % model.total_mass,
        'effort limits %s' % limits_text(
            np.asarray(model.effort_limit)[index], 'N m (N)'),
        'velocity limits %s' % limits_text(
            np.asarray(model.velocity_limit)[index], 'rad/s (m/s)'),
    ]
    if model.mimic:
        parts.append('mimic joints %s' % ', '.join(sorted(model.mimic)))
    payload_line = payload_text(payload, tip_link or last_body)
    if payload_line is not None:
        parts.append('payload %s' % payload_line)
    if friction_file is not None:
        # Not 'friction_file': the file's own line (friction_input) is
        # the one that names the parameter, once.
        parts.append('joint friction %s' % (
            'from %s' % quote(friction_file) if friction_file else 'none'))
    parts.extend('%s %s' % (label, text) for label, text in extra)
    return shorten('loaded ' + '; '.join(parts), LOG_CHARS)
