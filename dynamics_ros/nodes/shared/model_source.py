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
Where every dynamics_ros node gets its RobotModel from.

Use::

    from dynamics_ros.nodes.shared.model_source import ModelSource

    class MyNode(Node):
        def __init__(self):
            super().__init__('my_node')
            self.model = None                      # set before ModelSource:
            self.source = ModelSource(self, self.on_model)  # may call back now

        def on_model(self, model, joint_names):
            self.model = model                     # a dynamics_ros RobotModel
            self.index = model_index(model, joint_names)

``on_model(model, joint_names)`` is called on every successful (re)build,
possibly from inside the ``ModelSource`` constructor, always on the
executor thread.  ``model`` is in model order (parents first);
``joint_names`` is the order of the ``joints`` parameter, the order of every
array a node publishes.  ``model_index(model, joint_names)[k]`` is the
model coordinate of ``joint_names[k]``: ``x_model[index] = x_joints`` and
``x_joints = x_model[index]``.  ``source.model``, ``source.joint_names``
and ``source.index`` hold the latest (None before the first model).

Parameters (``declare_model_parameters(node)``; ModelSource declares any
that are missing):

- ``robot_description`` (string, ''): URDF XML; used when non-empty;
  text only: never read as a file path, never expanded by xacro;
- ``urdf_path`` (string, ''): URDF or .xacro file, used when
  ``robot_description`` is empty; a .xacro is expanded in-process by xacro
  (which evaluates code: name only files you trust); a regular file of at
  most 16 MiB (``dynamics_ros.resources.read_user_file``), read once;
- ``xacro_args`` (string[], unset): ``name:=value`` arguments for a .xacro
  ``urdf_path`` (as on the xacro command line);
- ``root_link``, ``tip_link`` (string, ''): cut the model (see
  ``dr.load_urdf``); '' = the URDF's root / the whole tree;
- ``joints`` (string[], default: all movable joints in model order): the
  joint order of inputs and outputs; must name every movable joint of the
  (cut) model exactly once;
- ``gravity`` (double[3], [0, 0, -9.81]) in the root link's frame;
- with ``payload=True`` (the default): ``payload.mass`` (kg, 0.0),
  ``payload.com`` (3, m) and ``payload.inertia`` (6: ixx ixy ixz iyy iyz izz,
  kg m^2, about the payload's centre of mass), all in the frame of
  ``tip_link`` (else of the last body), merged into that link's body
  (``dynamics_ros.model.payload.add_payload``).

Sources, latest wins: the parameters at start-up, then every message on the
relative topic ``robot_description`` (std_msgs/String, reliable,
transient-local, depth 1, as robot_state_publisher publishes it).  A
message that gives the same model as the one in use - the same robot
re-expanded with other whitespace, comments or attribute order - is
compared by content (``same_model``) and changes nothing: no rebuild, no
``on_model`` call, so a simulator is not reset.  Every parameter above can be
changed at run time (``ros2 param set``): the model is rebuilt with the new
values, and a set that would not give a valid model is rejected with the
reason (also logged as a warning).  A message on the topic is URDF XML
text only, like the parameter: anything else (a path, a xacro expression)
is refused with a short reason that never quotes it.  A URDF on the topic
that does not give a valid model is logged (throttled warning) and the
previous model is kept.  Invalid gravity or payload values, and a URDF
parameter that gives no model (a missing file, /dev/zero, a FIFO, a
directory, not a URDF), stop the node at start-up with the reason
(``ModelError`` out of the constructor).
"""

from collections import namedtuple
import warnings

import numpy as np
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.exceptions import ParameterUninitializedException
from rclpy.parameter import Parameter
from std_msgs.msg import String

from .conversions import names_text, quote, shorten, ThrottledWarnings
from .parameters import AcceptedSet, set_result
from .qos import DESCRIPTION_QOS
from ...errors import ModelError
from ...model.mimic_model import MimicModel
from ...model.payload import add_payload, check_payload
from ...model.summary import loaded_text
from ...model.urdf import load_urdf, urdf_text

# The longest reason a refused parameter set returns (characters).
REASON_CHARS = 360

MODEL_PARAMETERS = {
    'robot_description': ('', 'URDF XML of the robot (else urdf_path, else '
                              'the robot_description topic)'),
    'urdf_path': ('', 'URDF or xacro file used when robot_description is '
                      'empty'),
    'xacro_args': (Parameter.Type.STRING_ARRAY,
                   'name:=value arguments for a .xacro urdf_path'),
    'root_link': ('', 'link that becomes the fixed base (empty: URDF root)'),
    'tip_link': ('', 'keep only the chain from root_link to this link '
                     '(empty: whole tree); the payload is attached to it'),
    'joints': (Parameter.Type.STRING_ARRAY,
               'joint order of all inputs and outputs (unset: all movable '
               'joints in model order)'),
    'gravity': ([0.0, 0.0, -9.81], 'gravity vector in the root link frame, '
                                   'm/s^2'),
}

PAYLOAD_PARAMETERS = {
    'payload.mass': (0.0, 'payload mass at the tip, kg'),
    'payload.com': ([0.0, 0.0, 0.0], 'payload centre of mass in the tip link '
                                     'frame, m'),
    'payload.inertia': ([0.0] * 6, 'payload inertia about its centre of mass '
                                   '(ixx ixy ixz iyy iyz izz), kg m^2'),
}

NO_MODEL = 'no robot model yet (robot_description)'

Settings = namedtuple('Settings', 'root_link tip_link joints gravity payload')


def declare_model_parameters(node, payload=True):
    """Declare the model (and payload) parameters not declared yet."""
    table = dict(MODEL_PARAMETERS)
    if payload:
        table.update(PAYLOAD_PARAMETERS)
    for name, (default, description) in table.items():
        if not node.has_parameter(name):
            node.declare_parameter(
                name, default, ParameterDescriptor(description=description))


def model_index(model, joint_names):
    """Return the model coordinate of each name in ``joint_names``."""
    return np.array([model.joint_index(name) for name in joint_names],
                    dtype=int)


def resolve_joints(model, joints):
    """
    Return the joint order: ``joints``, or the model order if None/empty.

    Raises ModelError unless ``joints`` names every movable joint of the
    model exactly once.
    """
    if not joints:
        return list(model.joint_names)
    joints = list(joints)
    duplicated = sorted({j for j in joints if joints.count(j) > 1})
    mimic = [j for j in joints if j in model.mimic]
    unknown = [j for j in joints if j not in model.joint_names + mimic]
    missing = [j for j in model.joint_names if j not in joints]
    if duplicated or mimic or unknown or missing:
        faults = []
        for label, names in (('duplicated', duplicated),
                             ('mimic joints (they follow their masters; '
                              'leave them out)', mimic),
                             ('not movable joints of the model', unknown),
                             ('missing', missing)):
            if names:
                faults.append('%s: %s' % (label, names_text(names)))
        raise ModelError(
            'parameter joints must name every movable joint of model %s '
            'exactly once (%s; model joints: %s)' % (
                quote(model.name), '; '.join(faults),
                names_text(model.joint_names)))
    return joints


def read_urdf_file(path, xacro_args=None):
    """Return the URDF XML of a .urdf file, or of a .xacro file via xacro."""
    if not isinstance(path, str) or path.lstrip().startswith('<'):
        raise ModelError('urdf_path must be a file path, not XML (use '
                         'robot_description for XML)')
    try:
        return urdf_text(path, xacro_args)
    except ModelError as error:
        raise ModelError('urdf_path: %s' % error)


def build_model(xml, settings):
    """
    Return (model with payload, joint order, warnings) or raise ModelError.

    ``warnings`` are the texts of the ModelWarnings of loading (joints that
    move no mass, unphysical inertias), for the node's log.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        # Text only: a description is never read as a path nor expanded
        # by xacro (urdf_path gave its text through read_urdf_file).
        model = load_urdf(xml, root_link=settings.root_link or None,
                          tip_link=settings.tip_link or None,
                          gravity=settings.gravity, text_only=True)
    joint_names = resolve_joints(model, settings.joints)
    if settings.payload is not None:
        mass, com, inertia = settings.payload
        model = add_payload(model, mass, com, inertia,
                            link=settings.tip_link or None)
    return model, joint_names, [str(w.message) for w in caught]


# Per-joint and per-body fields of a RobotModel that define its dynamics.
MODEL_ARRAYS = (
    'parent', 'joint_type', 'continuous', 'axis', 'origin_rotation',
    'origin_translation', 'mass', 'com', 'inertia_com', 'gravity',
    'lower_limit', 'upper_limit', 'velocity_limit', 'effort_limit',
    'damping', 'friction', 'armature')


def _close(a, b):
    """Return True for arrays of one shape that agree to rounding."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in 'biu' or b.dtype.kind in 'biu':
        return np.array_equal(a, b)
    # Infinite limits compare equal; 1e-12 (m, kg, rad) is far below any
    # number a URDF states.
    return bool(np.allclose(a, b, rtol=1e-12, atol=1e-12))


def same_model(a, b):
    """
    Return True when models ``a`` and ``b`` have the same dynamics.

    Compares what the algorithms and the nodes read: joint and link names,
    the tree, joint types, axes, origins, inertias, limits, friction,
    gravity, link frames and the mimic coupling.  The same robot from two
    texts that differ in whitespace, comments or attribute order (a
    re-expanded xacro) compares equal.
    """
    if isinstance(a, MimicModel) or isinstance(b, MimicModel):
        if not (isinstance(a, MimicModel) and isinstance(b, MimicModel)):
            return False
        return a.mimic == b.mimic and same_model(a.tree, b.tree)
    if (a.name, a.root_link, list(a.joint_names), list(a.body_names)) != \
            (b.name, b.root_link, list(b.joint_names), list(b.body_names)):
        return False
    if not all(_close(getattr(a, field), getattr(b, field))
               for field in MODEL_ARRAYS):
        return False
    if a.frames.keys() != b.frames.keys():
        return False
    return all(a.frames[link][0] == b.frames[link][0]
               and _close(a.frames[link][1], b.frames[link][1])
               and _close(a.frames[link][2], b.frames[link][2])
               for link in a.frames)


def check_settings(settings):
    """Raise ModelError if gravity or the payload is invalid."""
    gravity = np.asarray(settings.gravity, dtype=float)
    if gravity.shape != (3,) or not np.all(np.isfinite(gravity)):
        raise ModelError('gravity must be 3 finite numbers, got %r'
                         % (list(settings.gravity),))
    if settings.payload is not None:
        check_payload(*settings.payload)


class ModelSource:
    """Build a RobotModel from parameters and the robot_description topic."""

    def __init__(self, node, on_model, payload=True,
                 topic='robot_description'):
        """Declare parameters, build the first model, follow the topic."""
        self.node = node
        self.on_model = on_model
        self.payload = payload
        self.model = None
        self.joint_names = None
        self.index = None
        self.xml = None
        # Refusals answer what someone just did: each said within the
        # period, never held back a minute as a recurring stream's are.
        self.warnings = ThrottledWarnings(node.get_logger(), max_period=2.0)
        self._accepted = AcceptedSet()
        declare_model_parameters(node, payload)
        check_settings(self.settings())
        self._build_from_parameters()
        node.add_on_set_parameters_callback(self._validate_parameters)
        node.add_post_set_parameters_callback(self._apply_parameters)
        self.subscription = node.create_subscription(
            String, topic, self._on_description, DESCRIPTION_QOS)

    def _value(self, name, overrides=None):
        """Return parameter ``name`` (from ``overrides`` when it is there)."""
        if overrides and name in overrides:
            return overrides[name]
        try:
            return self.node.get_parameter(name).value
        except ParameterUninitializedException:
            return None

    def settings(self, overrides=None):
        """Return the model Settings, with ``overrides`` {name: value}."""
        payload = None
        if self.payload:
            payload = (self._value('payload.mass', overrides),
                       list(self._value('payload.com', overrides)),
                       list(self._value('payload.inertia', overrides)))
        return Settings(
            root_link=self._value('root_link', overrides),
            tip_link=self._value('tip_link', overrides),
            joints=list(self._value('joints', overrides) or []),
            gravity=list(self._value('gravity', overrides)),
            payload=payload)

    def _parameter_xml(self, overrides=None):
        """Return the URDF the parameters give, None if they give none."""
        description = self._value('robot_description', overrides)
        if description:
            return description
        path = self._value('urdf_path', overrides)
        if path:
            return read_urdf_file(path, self._value('xacro_args', overrides))
        return None

    def _build_from_parameters(self):
        """
        Build the start-up model from robot_description or urdf_path.

        A node given no URDF at all waits for the robot_description topic;
        one given a URDF it cannot use (a path that is missing, a directory,
        unreadable, not a URDF; a bad robot_description) stops with the
        reason (ModelError out of the node's constructor), as a bad
        parameter does: waiting would hide the mistake behind silence.
        """
        xml = self._parameter_xml()
        if xml is None:
            self.node.get_logger().info(
                'no robot_description or urdf_path parameter: waiting for '
                'the robot_description topic')
            return
        self._use(xml, *build_model(xml, self.settings()), 'parameters')

    def _use(self, xml, model, joint_names, model_warnings, origin):
        """Make ``model`` current and tell the node."""
        for text in model_warnings:
            self.node.get_logger().warning('model from %s: %s' % (
                origin, text))
        self.xml = xml
        self.model = model
        self.joint_names = joint_names
        self.index = model_index(model, joint_names)
        try:
            self.on_model(model, joint_names)
        except Exception as error:  # a node bug must not kill the source
            self.node.get_logger().error('on_model failed: %r' % error)
        self.log_loaded(origin)

    def origin_text(self, origin):
        """Return where the model came from, with the file for urdf_path."""
        if 'parameters' not in origin:
            return origin
        if self._value('robot_description'):
            return '%s (robot_description)' % origin
        path = self._value('urdf_path')
        xacro_args = list(self._value('xacro_args') or [])
        return '%s (urdf_path %s%s)' % (
            origin, quote(path), ', xacro_args %s' % quote(xacro_args)
            if xacro_args else '')

    def log_loaded(self, origin):
        """Log the one line of what the node works with (model.summary)."""
        # A node's loaded_details() adds (label, text) pairs of its own.
        node = self.node
        details = getattr(node, 'loaded_details', None)
        try:
            extra = list(details()) if details is not None else []
        except Exception as error:  # noqa: B902 (a report must not fail)
            extra = [('details', 'unavailable (%r)' % error)]
        friction = node.get_parameter('friction_file').value \
            if node.has_parameter('friction_file') else None
        settings = self.settings()
        node.get_logger().info(loaded_text(
            self.model, self.joint_names, self.origin_text(origin),
            settings.tip_link, settings.payload, friction, extra))

    def _on_description(self, msg):
        """Rebuild from a robot_description message; keep the old on error."""
        if msg.data == self.xml:
            return
        try:
            built = build_model(msg.data, self.settings())
            if self.model is not None and built[1] == self.joint_names \
                    and same_model(built[0], self.model):
                # The same robot in other words (robot_state_publisher
                # republishing a re-expanded xacro): keep everything.
                self.xml = msg.data
                self.node.get_logger().info(
                    'robot_description topic: same robot %r as in use, '
                    'model kept' % self.model.name)
                return
            self._use(msg.data, *built, 'the robot_description topic')
        except ModelError as error:
            self.warnings.warn(
                'robot_description',
                'robot_description topic: URDF rejected, %s: %s' % (
                    'keeping the previous model' if self.model is not None
                    else 'still no model', error))

    def _validate_parameters(self, parameters):
        """Accept a parameter set only if it gives a valid model."""
        overrides = {p.name: p.value for p in parameters
                     if p.name in MODEL_PARAMETERS
                     or (self.payload and p.name in PAYLOAD_PARAMETERS)}
        if not overrides:
            return set_result(None)
        try:
            # An empty one (a reset to the start) is unused and harmless.
            unused = sorted(name for name in ('urdf_path', 'xacro_args')
                            if overrides.get(name))
            if unused and self._value('robot_description', overrides):
                # Acknowledged but never read: say so instead.
                raise ModelError(
                    '%s not used while robot_description is set (it takes '
                    'precedence): clear robot_description first'
                    % ' and '.join(unused))
            settings = self.settings(overrides)
            check_settings(settings)
            xml = self.xml
            if {'robot_description', 'urdf_path', 'xacro_args'} & \
                    set(overrides):
                xml = self._parameter_xml(overrides) or xml
            built = None if xml is None else build_model(xml, settings)
        except (ModelError, TypeError, ValueError) as error:
            # Reasons quote user input: bounded, whatever raised them.
            reason = shorten(error, REASON_CHARS)
            self.warnings.warn('parameters', 'parameter set refused: %s'
                               % reason)
            return set_result(reason)
        return self._accepted.accept((xml, built))

    def _apply_parameters(self, parameters):
        """Make the model validated by _validate_parameters current."""
        xml, built = self._accepted.take() or (None, None)
        if built is not None:
            self._use(xml, *built, 'changed parameters')
