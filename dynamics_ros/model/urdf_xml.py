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
Read the elements of a URDF that dynamics needs, with ElementTree.

Only these are read: the robot's name; per link its ``<inertial>`` (origin,
mass, inertia); per joint its name, type, parent, child, origin, axis,
limit, dynamics and mimic, with the defaults of the URDF specification
(axis 1 0 0, mimic multiplier 1 and offset 0, limit lower/upper 0).
Everything else - visual, collision, material, texture, transmission (ROS 1
or 2), gazebo, ros2_control, sensors, unknown tags - is skipped unread, so
none of it can refuse a description that the C++ urdfdom used by
robot_state_publisher accepts.  Errors name the link or joint and the
attribute, never echo the document.
"""

from dataclasses import dataclass
import math
import re
from typing import List, Optional, Tuple
import xml.etree.ElementTree as ElementTree

from ..errors import ModelError

XACRO_NAMESPACES = ('http://www.ros.org/wiki/xacro',
                    'http://wiki.ros.org/xacro', 'http://ros.org/wiki/xacro')
# The attribute values quoted in an error are cut to this many characters.
QUOTE_LIMIT = 40
# A number of the URDF specification (module notes): ASCII only (re.ASCII
# keeps \d to 0-9), no '_' digit separators, no hexadecimal.
DOUBLE = re.compile(r'[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?'
                    r'|inf|infinity|nan)', re.ASCII | re.IGNORECASE)
NUMBER_FORM = 'a URDF number is ASCII digits with an optional sign, point ' \
    'and exponent, e.g. -1.5e-3'
# Root elements of other robot description formats (SDF, MJCF, Collada,
# a launch file, a package manifest), named when found instead of <robot>.
OTHER_FORMATS = ('sdf', 'mujoco', 'COLLADA', 'launch', 'package', 'world',
                 'model')
# XML whitespace (the XML 1.0 S production): what separates a vector's
# numbers.  str.split() would also split at other Unicode spaces.
XML_SPACE = ' \t\r\n'
XML_SPACES = re.compile('[%s]+' % XML_SPACE)

Vector = Tuple[float, float, float]
ZERO = (0.0, 0.0, 0.0)


@dataclass
class Pose:
    """An <origin>: translation xyz and roll-pitch-yaw angles."""

    xyz: Vector = ZERO
    rpy: Vector = ZERO


@dataclass
class Inertial:
    """A link's <inertial>: centre-of-mass frame, mass, inertia tensor."""

    origin: Pose
    mass: float
    # ixx, ixy, ixz, iyy, iyz, izz about the centre of mass, in ``origin``.
    inertia: Tuple[float, float, float, float, float, float]


@dataclass
class Link:
    """A <link>: only its name and inertial matter to dynamics."""

    name: str
    inertial: Optional[Inertial]


@dataclass
class Limit:
    """A joint's <limit> (absent attributes as the specification says)."""

    lower: float = 0.0
    upper: float = 0.0
    effort: float = 0.0
    velocity: float = 0.0


@dataclass
class Mimic:
    """A joint's <mimic>: q = multiplier * q_joint + offset."""

    joint: str
    multiplier: float = 1.0
    offset: float = 0.0


@dataclass
class Joint:
    """A <joint> with what dynamics reads of it."""

    name: str
    type: str
    parent: str
    child: str
    origin: Pose
    axis: Vector = (1.0, 0.0, 0.0)
    limit: Optional[Limit] = None
    damping: float = 0.0
    friction: float = 0.0
    mimic: Optional[Mimic] = None


@dataclass
class Robot:
    """The dynamics content of a URDF, links and joints in document order."""

    name: str
    links: List[Link]
    joints: List[Joint]


def parse_double(text):
    """
    Return the float of a URDF number, None if ``text`` is not one.

    The URDF specification's numbers are doubles as C++ reads them (urdfdom
    parses with the classic locale): ASCII digits, one optional '.', an
    optional exponent.  Python's float() also accepts '1_000' and digits of
    other scripts ('\u0661' is 1); those are refused.  'inf' and 'nan' pass
    here so that the checks after name them as non-finite values.
    """
    if DOUBLE.fullmatch(text) is None:
        return None
    return float(text)


def _python_only(part):
    """Return True for text float() reads but a URDF number is not."""
    try:
        float(part)
    except ValueError:
        return False
    return parse_double(part) is None


def _form(text):
    """Say what a URDF number is when Python would read a part of ``text``."""
    if any(_python_only(part) for part in text.split()):
        return ' (%s)' % NUMBER_FORM
    return ''


def _quote(text):
    """Return a short repr of an attribute value for an error message."""
    if len(text) > QUOTE_LIMIT:
        text = text[:QUOTE_LIMIT] + '...'
    return repr(text)


class _Reader:
    """Read numbers and vectors of one link or joint; errors name it."""

    def __init__(self, what):
        self.what = what    # e.g. "link 'base'" or "joint 'j1'"

    def fail(self, text):
        raise ModelError('%s: %s' % (self.what, text))

    def number(self, element, attribute, default=None):
        """Return a float attribute of ``element`` (``default`` if absent)."""
        text = element.get(attribute)
        if text is None:
            if default is None:
                self.fail('<%s> has no %s attribute' % (
                    element.tag, attribute))
            return default
        value = parse_double(text.strip(XML_SPACE))
        if value is None:
            self.fail('<%s %s=%s> is not a number%s' % (
                element.tag, attribute, _quote(text), _form(text)))
        return value

    def vector(self, element, attribute, default):
        """Return a 3-number attribute of ``element`` (``default`` if absent)."""
        text = element.get(attribute)
        if text is None:
            return default
        values = tuple(parse_double(part) for part in
                       XML_SPACES.split(text.strip(XML_SPACE)))
        if len(values) != 3 or None in values:
            self.fail('<%s %s=%s> is not 3 numbers%s' % (
                element.tag, attribute, _quote(text), _form(text)))
        return values

    def pose(self, parent):
        """Return the <origin> child of ``parent`` (identity when absent)."""
        origin = parent.find('origin')
        if origin is None:
            return Pose()
        return Pose(self.vector(origin, 'xyz', ZERO),
                    self.vector(origin, 'rpy', ZERO))

    def name(self, element, attribute, kind):
        """Return a required name attribute (e.g. a mimic's joint)."""
        text = element.get(attribute)
        if not text:
            self.fail('<%s> has no %s' % (kind, attribute))
        return text


# Children that say one thing once: a second one is a copy-paste slip that
# a reader taking the first (as urdfdom does) would resolve silently.
SINGLE_CHILDREN = {
    'joint': ('parent', 'child', 'origin', 'axis', 'limit', 'dynamics',
              'mimic'),
    'link': ('inertial',),
    'inertial': ('origin', 'mass', 'inertia'),
}


def _single_children(element, reader):
    """Refuse a second <origin>, <limit>, <dynamics>, ... in ``element``."""
    for tag in SINGLE_CHILDREN[element.tag]:
        if len(element.findall(tag)) > 1:
            reader.fail('<%s> has %d <%s> elements: give one' % (
                element.tag, len(element.findall(tag)), tag))


def _read_inertial(element, reader):
    """Return the Inertial of an <inertial> element."""
    _single_children(element, reader)
    mass = element.find('mass')
    inertia = element.find('inertia')
    moments = tuple(
        0.0 if inertia is None else reader.number(inertia, key, 0.0)
        for key in ('ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz'))
    return Inertial(
        origin=reader.pose(element),
        mass=0.0 if mass is None else reader.number(mass, 'value', 0.0),
        inertia=moments)


def _read_link(element):
    """Return the Link of a <link> element."""
    name = element.get('name')
    if not name:
        raise ModelError('a <link> has no name')
    _single_children(element, _Reader('link %r' % name))
    inertial = element.find('inertial')
    return Link(name, None if inertial is None else _read_inertial(
        inertial, _Reader('link %r' % name)))


def _read_joint(element):
    """Return the Joint of a <joint> element."""
    name = element.get('name')
    if not name:
        raise ModelError('a <joint> has no name')
    reader = _Reader('joint %r' % name)
    _single_children(element, reader)
    kind = element.get('type')
    if not kind:
        reader.fail('<joint> has no type')
    ends = {}
    for role in ('parent', 'child'):
        tag = element.find(role)
        if tag is None or not tag.get('link'):
            reader.fail('no <%s link="..."/>' % role)
        ends[role] = tag.get('link')
    joint = Joint(name=name, type=kind, parent=ends['parent'],
                  child=ends['child'], origin=reader.pose(element))
    axis = element.find('axis')
    if axis is not None:
        joint.axis = reader.vector(axis, 'xyz', joint.axis)
    limit = element.find('limit')
    if limit is not None:
        joint.limit = Limit(*(reader.number(limit, key, 0.0) for key in (
            'lower', 'upper', 'effort', 'velocity')))
    dynamics = element.find('dynamics')
    if dynamics is not None:
        joint.damping = reader.number(dynamics, 'damping', 0.0)
        joint.friction = reader.number(dynamics, 'friction', 0.0)
    mimic = element.find('mimic')
    if mimic is not None:
        joint.mimic = Mimic(reader.name(mimic, 'joint', 'mimic'),
                            reader.number(mimic, 'multiplier', 1.0),
                            reader.number(mimic, 'offset', 0.0))
    return joint


def xacro_elements(root):
    """Return the names of xacro elements (``xacro:...``) in a document."""
    found = []
    for element in root.iter():
        if isinstance(element.tag, str) and element.tag.startswith('{'):
            namespace, _, tag = element.tag[1:].partition('}')
            if namespace.rstrip('/') in XACRO_NAMESPACES:
                found.append('xacro:' + tag)
    return found


def parse_document(text):
    """Return the ElementTree root of URDF text; ModelError when malformed."""
    try:
        return ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        detail = str(error)
        if 'unbound prefix' in detail:
            detail += ' (an xacro: element without its namespace? expand ' \
                      'the file with xacro)'
        raise ModelError('URDF could not be parsed: not well-formed XML '
                         '(%s)' % detail)


def read_robot(root):
    """Return the Robot of a parsed URDF document (see the module doc)."""
    if root.tag != 'robot':
        # Other description formats are named; any other tag is the text
        # of whatever file this is, and is not quoted.
        raise ModelError('URDF root element is %snot <robot>' % (
            '<%s>, ' % root.tag if root.tag in OTHER_FORMATS else ''))
    macros = xacro_elements(root)
    if macros:
        raise ModelError(
            'the URDF still contains xacro elements (%s): expand it with '
            'xacro first, or pass the path of the .xacro file' % ', '.join(
                sorted(set(macros))[:5]))
    links = [_read_link(element) for element in root.findall('link')]
    joints = [_read_joint(element) for element in root.findall('joint')]
    for kind, items in (('link', links), ('joint', joints)):
        seen = set()
        for item in items:
            if item.name in seen:
                raise ModelError('%s %r is defined twice: %s names must be '
                                 'unique' % (kind, item.name, kind))
            seen.add(item.name)
    return Robot(root.get('name') or 'robot', links, joints)


def all_finite(values):
    """Return True when every number in ``values`` is finite."""
    return all(math.isfinite(value) for value in values)
