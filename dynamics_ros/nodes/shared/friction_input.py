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
The identified joint friction a node uses: one parameter, one reader.

Every node that models the joints' friction takes it from ``friction_file``
(the YAML ``python -m dynamics_ros identify`` writes): inverse_dynamics_node
adds it to the feed-forward, external_torque_node takes it off the efforts
before the observer, simulator_node puts it in its plant and
linearization_node's A gets its slope.  The file is read through the safe
reader (a regular file under a size cap); a reason names the path, never
the file's text.

The file is parsed once while it stays the same (same inode, size and
modification time): the parameter check, the node's use of it and
payload_estimation_node's every estimate share that one parse, so a set
of ``friction_file`` costs one bounded read (bounded_yaml.CONFIG_BOUNDS).
"""

from collections import OrderedDict
import os

from ...bounded_yaml import YamlLimit
from ...dynamics.friction import read_friction
from ...reasons import cut, quote

# Files remembered: a node uses one; a few for parameter sets tried in turn.
CACHED_FILES = 4
_parsed = OrderedDict()


def cached_friction(path):
    """
    Return read_friction(path), parsed once while the file is unchanged.

    Errors are those of read_friction (OSError, ValueError); a refused file
    is not remembered (it is read again if named again).
    """
    try:
        status = os.stat(path)
    except (OSError, TypeError, ValueError):
        return read_friction(path)   # raises the reader's own reason
    key = (os.path.abspath(path), status.st_dev, status.st_ino,
           status.st_size, status.st_mtime_ns)
    if key in _parsed:
        _parsed.move_to_end(key)
        return _parsed[key]
    friction = read_friction(path)
    _parsed[key] = friction
    while len(_parsed) > CACHED_FILES:
        _parsed.popitem(last=False)
    return friction


def friction_file_reason(path, model=None):
    """Return a reason if ``path`` is not '' nor a readable friction YAML."""
    if not path:
        return None
    try:
        cached_friction(path)
    except OSError as error:
        # The reader's reasons name the path and what is wrong with it.
        return 'friction_file %s cannot be read (%s)' % (
            quote(path), cut(str(error)))
    except YamlLimit as error:
        # Not valid YAML or over a bound: where and which, never the text.
        return 'friction_file %s refused: %s' % (quote(path), cut(str(error)))
    except ValueError:
        # The file's own text is not quoted back.
        return 'friction_file %s is not a friction YAML ({smoothing, ' \
            'joints: {name: {viscous, coulomb, offset}}}, non-negative ' \
            'viscous and Coulomb friction)' % quote(path)
    return None


def load_friction(logger, path, model):
    """
    Return the JointFriction of ``path`` in ``model``'s joint order.

    None for '' or a file that cannot be used (warned, with the reason);
    a loaded file is logged once, naming the joints it gives friction to.
    """
    if not path:
        return None
    reason = friction_file_reason(path)
    if reason is not None:
        logger.warning('%s: no joint friction used' % reason)
        return None
    friction = cached_friction(path)
    known = [name for name in friction.joint_names
             if name in model.joint_names]
    logger.info('friction_file %s loaded: viscous and Coulomb friction of '
                '%d of the %d joints of model %s' % (
                    quote(path), len(known), model.nq, quote(model.name)))
    return friction.select(model.joint_names)
