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
Every node's parameters from one declarative table (``ParameterTable``).

In the spirit of ros2_controllers' generate_parameter_library: a node's
table (``<node>_parameters.py`` beside it) lists each parameter once -
name, type, default, range or choices, description, read-only, and what a
change rebuilds - and this module declares them, checks them at start
(``table.refuse_at_start``: ValueError, which the entry point reports) and
on every set (``table.set_result``: the reason names the parameter and
quotes the value, never a file's contents), and renders the reference
table of the documentation (``table.markdown()``).

Types: ``bool``, ``integer``, ``double``, ``string``, ``double[]``,
``string[]`` and ``per_joint``: one number for every joint or one per
joint in ``joints`` order, at start and at run time (declared with
dynamic typing, so ``ros2 param set /node kp 200.0`` and ``kp "[200.0,
150.0]"`` both work).  Numbers are bounded (finite ranges: 1e308 is no
gain); ``infinite=True`` lets +inf through where it means "none".

The reference tables of doc/nodes/ are rendered from the tables by
``python -m dynamics_ros.nodes.shared.parameter_reference --render``
(``shared/parameter_reference.py``).
"""

from array import array
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from ...checks import number_reason, per_joint_reason
from ...reasons import cut, quote

TYPE_NAMES = {
    'bool': 'bool', 'integer': 'integer', 'double': 'double',
    'string': 'string', 'double[]': 'double[]', 'string[]': 'string[]',
    'per_joint': 'double or double[]',
}


@dataclass(frozen=True)
class Spec:
    """
    One parameter: what it is, what it may be, what a change does.

    ``default`` None: unset at start (the description says what that
    means); ``unset_ok``: it may also be unset at run time.  ``low`` /
    ``high`` bound a number (each element of a per_joint or double[]
    value); ``low_open``: ``low`` itself is refused.  ``check(value,
    model)`` adds a check of its own (None: usable; ``model`` may be
    None), after type and range.  ``rebuilds``: what a change rebuilds
    ('' = takes effect on the next use).
    """

    name: str
    type: str
    default: object
    description: str
    low: Optional[float] = None
    high: Optional[float] = None
    low_open: bool = False
    infinite: bool = False
    choices: tuple = ()
    check: Optional[Callable] = field(default=None, compare=False)
    read_only: bool = False
    rebuilds: str = ''
    unset_ok: bool = False
    unset_hint: str = ''
    constraint: str = ''   # range text for the docs when ``check`` decides
    dynamic: bool = False   # dynamic typing (always for a per_joint)

    def requirement(self):
        """Return what a number must be, in words ('finite and > 0')."""
        parts = [] if self.infinite else ['finite']
        if self.low is not None:
            parts.append('%s %g' % ('>' if self.low_open else '>=',
                                    self.low))
        if self.high is not None:
            parts.append('<= %g' % self.high)
        if self.infinite:
            parts.append('.inf allowed')
        if len(parts) == 1:
            return parts[0]
        return '%s and %s' % (', '.join(parts[:-1]), parts[-1])

    def allowed(self):
        """Return the allowed values in words, for the docs ('' = any)."""
        if self.constraint:
            return self.constraint
        if self.choices:
            return ' \\| '.join(str(c) for c in self.choices)
        if self.type in ('double', 'integer', 'per_joint', 'double[]') and (
                self.low is not None or self.high is not None):
            return self.requirement()
        return ''

    def usable(self, values):
        """Return per element of the float array ``values``: in range."""
        ok = ~np.isnan(values)
        if not self.infinite:
            ok &= np.isfinite(values)
        else:
            ok &= values != -np.inf
        if self.low is not None:
            ok &= values > self.low if self.low_open else values >= self.low
        if self.high is not None:
            ok &= (values <= self.high) | (self.infinite
                                           & (values == np.inf))
        return ok


def is_number(value):
    """Return True for an int or float (not a bool, a string or a list)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_number_list(value):
    """Return True for a list (tuple, array) of ints and floats."""
    # rclpy gives array('d') / array('q') for DOUBLE / INTEGER_ARRAY.
    return isinstance(value, (list, tuple, array, np.ndarray)) and all(
        is_number(x) or isinstance(x, np.floating) for x in value)


def type_reason(spec, value):
    """Return why ``value`` is not of ``spec``'s type, else None."""
    kind = spec.type
    if kind == 'bool' and not isinstance(value, bool):
        return '%s must be true or false, got %s' % (spec.name, quote(value))
    if kind == 'integer' and (not isinstance(value, int)
                              or isinstance(value, bool)):
        return '%s must be an integer, got %s' % (spec.name, quote(value))
    if kind == 'double' and not is_number(value):
        return '%s must be a number, got %s' % (spec.name, quote(value))
    if kind == 'string' and not isinstance(value, str):
        return '%s must be a string, got %s' % (spec.name, quote(value))
    if kind == 'double[]' and not is_number_list(value):
        return '%s must be a list of numbers, got %s' % (spec.name,
                                                         quote(value))
    if kind == 'string[]' and not (isinstance(value, (list, tuple)) and all(
            isinstance(x, str) for x in value)):
        return '%s must be a list of strings, got %s' % (spec.name,
                                                         quote(value))
    if kind == 'per_joint' and not (is_number(value)
                                    or is_number_list(value)):
        return '%s must be a number or a list of numbers (one, or one per ' \
            'joint), got %s' % (spec.name, quote(value))
    return None


def problem(spec, value, model=None):
    """
    Return why ``spec``'s parameter cannot be ``value``, else None.

    ``model``: the model in use, for per-joint sizes and names (None: not
    known yet, checked when it arrives).  None is an unset value: usable
    where ``spec.unset_ok``.
    """
    if value is None:
        if spec.unset_ok:
            return None
        return '%s cannot be unset%s' % (spec.name, spec.unset_hint)
    reason = type_reason(spec, value)
    if reason is None and spec.choices and value not in spec.choices:
        reason = '%s %s is not one of %s' % (
            spec.name, quote(value), ', '.join(str(c) for c in spec.choices))
    if reason is None and spec.check is not None:
        reason = spec.check(value, model)
    if reason is None and spec.type == 'double' and (
            spec.low is not None or spec.high is not None):
        reason = number_reason(value, spec.name,
                               lambda x: bool(spec.usable(np.array([x]))[0]),
                               spec.requirement())
    if reason is None and spec.type == 'integer' and (
            spec.low is not None or spec.high is not None):
        if not bool(spec.usable(np.array([float(value)]))[0]):
            reason = '%s must be %s, got %s' % (spec.name,
                                                spec.requirement(),
                                                quote(value))
    if reason is None and spec.type == 'per_joint':
        # The range first (quoting the value given), then the count.
        reason = per_joint_reason(value, spec.name, spec.usable,
                                  spec.requirement())
        if reason is not None:
            reason = '%s (got %s)' % (reason, quote(value))
        elif model is not None:
            reason = per_joint_reason(value, spec.name, spec.usable,
                                      spec.requirement(), model.nq)
    if reason is None and spec.type == 'double[]' and len(value):
        values = np.asarray(value, dtype=float)
        bad = np.flatnonzero(~spec.usable(values))
        if bad.size:
            reason = '%s must be %s, value %d is %s (got %s)' % (
                spec.name, spec.requirement(), int(bad[0]),
                quote(float(values[bad[0]])), quote(value))
    return None if reason is None else cut(reason)


def per_joint_values(value, n, index=None):
    """
    Return a per_joint value (1 or n numbers) as an (n,) float array.

    ``index`` (model_index of the ``joints``): the array in model order
    (the value is in ``joints`` order).  ValueError: not 1 or n values.
    """
    values = np.asarray(value, dtype=float).reshape(-1)
    if values.size not in (1, n):
        raise ValueError('%d values: give 1, or one per joint (%d)'
                         % (values.size, n))
    values = np.broadcast_to(values, n)
    if index is None:
        return values.copy()
    ordered = np.empty(n)
    ordered[index] = values
    return ordered


def descriptor_type(spec):
    """Return the rclpy Parameter.Type of ``spec``, None: dynamic typing."""
    from rclpy.parameter import Parameter
    return {'bool': Parameter.Type.BOOL, 'integer': Parameter.Type.INTEGER,
            'double': Parameter.Type.DOUBLE, 'string': Parameter.Type.STRING,
            'double[]': Parameter.Type.DOUBLE_ARRAY,
            'string[]': Parameter.Type.STRING_ARRAY}.get(spec.type)


class ParameterTable:
    """A node's parameters: declare, check, render (see the module)."""

    def __init__(self, specs):
        """Keep ``specs`` (Spec), in the order the docs list them."""
        self.specs = {spec.name: spec for spec in specs}

    def __iter__(self):
        """Iterate over the Specs."""
        return iter(self.specs.values())

    def __contains__(self, name):
        """Return True if ``name`` is a parameter of the table."""
        return name in self.specs

    def __getitem__(self, name):
        """Return the Spec of ``name``."""
        return self.specs[name]

    def declare(self, node):
        """Declare every parameter on ``node`` (rclpy) with its descriptor."""
        from rcl_interfaces.msg import ParameterDescriptor
        for spec in self:
            dynamic = spec.dynamic or spec.type == 'per_joint'
            default = spec.default
            if default is None and not dynamic:
                default = descriptor_type(spec)
            node.declare_parameter(spec.name, default, ParameterDescriptor(
                description=spec.description, read_only=spec.read_only,
                dynamic_typing=dynamic,
                additional_constraints=spec.allowed().replace('\\|', '|')))

    def values(self, node):
        """Return {name: value} of the table's parameters (None: unset)."""
        from rclpy.exceptions import ParameterUninitializedException
        values = {}
        for name in self.specs:
            try:   # a statically typed parameter declared unset raises
                values[name] = node.get_parameter(name).value
            except ParameterUninitializedException:
                values[name] = None
        return values

    def reason(self, values, model=None):
        """Return why a value of ``values`` {name: value} is refused."""
        for name, value in values.items():
            if name in self.specs:
                reason = problem(self.specs[name], value, model)
                if reason is not None:
                    return reason
        return None

    def refuse_at_start(self, node, model=None):
        """Raise ValueError with the reason if a parameter is unusable."""
        # Unset at start is the documented default of a parameter.
        reason = self.reason({name: value for name, value in
                              self.values(node).items()
                              if value is not None}, model)
        if reason is not None:
            raise ValueError(reason)

    def own(self, parameters):
        """Return {name: value} of the rclpy ``parameters`` of this table."""
        return {p.name: p.value for p in parameters if p.name in self.specs}

    def set_result(self, parameters, model=None):
        """Return the answer to a set of ``parameters`` (rclpy Parameters)."""
        return set_result(self.reason(self.own(parameters), model))

    def rebuilds(self, names):
        """Return the set of what a change of ``names`` makes anew."""
        return {self.specs[name].rebuilds for name in names
                if name in self.specs} - {''}

    def markdown(self):
        """Return the reference table of the parameters (Markdown)."""
        lines = ['| parameter | type | default | allowed | on change | '
                 'description |', '|---|---|---|---|---|---|']
        for spec in self:
            lines.append('| `%s` | %s | %s | %s | %s | %s |' % (
                spec.name, TYPE_NAMES[spec.type], default_text(spec),
                spec.allowed(), change_text(spec),
                spec.description.replace('|', '\\|')))
        return '\n'.join(lines)


def default_text(spec):
    """Return a default as a YAML user writes it, in backquotes."""
    value = spec.default
    if value is None:
        return 'unset'
    if isinstance(value, bool):
        return '`%s`' % str(value).lower()
    if isinstance(value, str):
        return "`''`" if value == '' else '`%s`' % value
    return '`%r`' % (value,)


def change_text(spec):
    """Return what a change of ``spec`` does, for the docs."""
    if spec.read_only:
        return 'read-only'
    return 'rebuilds the %s' % spec.rebuilds if spec.rebuilds else \
        'at once'


def refuse(reason):
    """Raise ValueError(``reason``) unless it is None: a node cannot start."""
    if reason:
        raise ValueError(reason)


def set_result(reason):
    """Return the answer to a parameter set: accepted, or ``reason``."""
    from rcl_interfaces.msg import SetParametersResult
    return SetParametersResult(successful=reason is None,
                               reason=cut(reason) if reason else '')


class AcceptedSet:
    """
    What a node's on-set callback accepted, until its post-set one applies.

    rclpy calls the on-set callback to accept or refuse a set, and the
    post-set callback once the values are in force; what the first
    computed (a model, settings) is kept here for the second.
    """

    __slots__ = ('value',)

    def __init__(self):
        """Hold nothing."""
        self.value = None

    def accept(self, value):
        """Keep ``value`` for ``take``; return the answer: accepted."""
        self.value = value
        return set_result(None)

    def take(self):
        """Return the value accepted last and forget it (None: none)."""
        value, self.value = self.value, None
        return value


def publishers(node, *topics):
    """
    Return a publisher per (message type, topic) of ``topics``.

    In lockstep (the read-only ``lockstep`` parameter) they keep 100
    messages, as the joint states they answer do (``qos.LOCKSTEP_QOS``):
    at 10, a subscriber slower than the lockstep, a recorder beside the
    simulator, lost answers the simulator itself had waited for.
    """
    from .qos import LOCKSTEP_QOS, PUBLISH_QOS
    lockstep = node.has_parameter('lockstep') and \
        node.get_parameter('lockstep').value
    return [node.create_publisher(kind, topic, LOCKSTEP_QOS if lockstep
                                  else PUBLISH_QOS)
            for kind, topic in topics]
