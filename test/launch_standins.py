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
Recording stand-ins for the ``launch`` and ``launch_ros`` Python API.

Those packages cannot be installed here, so a launch file is loaded against
these stand-ins: every action and substitution it builds is recorded, and
substitutions are evaluated with the launch arguments' defaults (or given
values) and ``FindPackageShare`` resolved to the source tree.  Only the part
of the API that ROS 2 launch files commonly use is provided; a launch file
that uses something else fails to import here, which is itself a signal.

The second half models what real launch_ros and rcl do with a node's
``parameters=`` list, so a test can say which parameters reach a node under
its fully qualified name: see ``parameters_reaching``.
"""

import importlib.util
import os
import re
import sys
import types

import yaml


class Recorder:
    """Everything one launch file built, and how to evaluate it."""

    def __init__(self, share_directories, arguments=None):
        self.share_directories = share_directories
        self.arguments = dict(arguments or {})
        self.declared = {}
        self.nodes = []
        self.actions = []

    def value(self, item):
        """Evaluate a substitution, a list of them, or a plain value."""
        if isinstance(item, Substitution):
            return item.evaluate(self)
        if isinstance(item, (list, tuple)):
            return ''.join(str(self.value(part)) for part in item)
        return item


RECORDER = None


class Substitution:
    """Base of the recorded substitutions."""

    def evaluate(self, recorder):
        """Return the substitution's text."""
        raise NotImplementedError


class LaunchConfiguration(Substitution):
    """Stand-in for launch.substitutions.LaunchConfiguration."""

    def __init__(self, name, default=None):
        self.name, self.default = name, default

    def evaluate(self, recorder):
        """Return the argument's value: given, declared default, default."""
        if self.name in recorder.arguments:
            return recorder.arguments[self.name]
        if self.name in recorder.declared:
            return recorder.value(recorder.declared[self.name])
        if self.default is not None:
            return recorder.value(self.default)
        raise KeyError('launch configuration %r is used but never declared'
                       % self.name)


class TextSubstitution(Substitution):
    """Stand-in for launch.substitutions.TextSubstitution."""

    def __init__(self, text=''):
        self.text = text

    def evaluate(self, recorder):
        """Return the text."""
        return self.text


class PathJoinSubstitution(Substitution):
    """Stand-in for launch.substitutions.PathJoinSubstitution."""

    def __init__(self, parts):
        self.parts = parts

    def evaluate(self, recorder):
        """Join the evaluated parts as a path."""
        return os.path.join(*[str(recorder.value(p)) for p in self.parts])


class FindPackageShare(Substitution):
    """Stand-in for launch_ros.substitutions.FindPackageShare."""

    def __init__(self, package):
        self.package = package

    def evaluate(self, recorder):
        """Return the package's share directory (source tree for ours)."""
        if self.package not in recorder.share_directories:
            raise KeyError('package %r is not available here' % self.package)
        return recorder.share_directories[self.package]


class FindExecutable(Substitution):
    """Stand-in for launch.substitutions.FindExecutable."""

    def __init__(self, name):
        self.name = name

    def evaluate(self, recorder):
        """Return the executable's name."""
        return self.name


class Command(Substitution):
    """Stand-in for launch.substitutions.Command (recorded, not run)."""

    def __init__(self, command, on_stderr='fail'):
        self.command = command

    def evaluate(self, recorder):
        """Return the command line that would run."""
        return recorder.value(self.command)


class PythonExpression(Substitution):
    """Stand-in for launch.substitutions.PythonExpression."""

    def __init__(self, expression):
        self.expression = expression

    def evaluate(self, recorder):
        """Evaluate the expression like launch does."""
        return str(eval(recorder.value(self.expression)))


class Action:
    """Base of the recorded actions: keeps its keyword arguments."""

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs
        if RECORDER is not None:
            RECORDER.actions.append(self)


class DeclareLaunchArgument(Action):
    """Stand-in for launch.actions.DeclareLaunchArgument."""

    def __init__(self, name, default_value=None, description='', **kwargs):
        super().__init__(name, default_value=default_value,
                         description=description, **kwargs)
        self.name = name
        if RECORDER is not None:
            RECORDER.declared[name] = default_value


class Node(Action):
    """Stand-in for launch_ros.actions.Node."""

    def __init__(self, package=None, executable=None, name=None,
                 namespace=None, parameters=None, remappings=None,
                 arguments=None, condition=None, output=None, **kwargs):
        super().__init__(package=package, executable=executable, name=name,
                         namespace=namespace, parameters=parameters,
                         remappings=remappings, arguments=arguments,
                         condition=condition, output=output, **kwargs)
        self.package, self.executable, self.name = package, executable, name
        self.namespace = namespace
        self.parameters = parameters or []
        self.remappings = remappings or []
        self.condition = condition
        if RECORDER is not None:
            RECORDER.nodes.append(self)


class ParameterValue:
    """Stand-in for launch_ros.parameter_descriptions.ParameterValue."""

    def __init__(self, value, value_type=None):
        self.value, self.value_type = value, value_type


class Condition:
    """Stand-in for launch.conditions.IfCondition / UnlessCondition."""

    def __init__(self, predicate, negate=False):
        self.predicate, self.negate = predicate, negate

    def holds(self, recorder):
        """Evaluate the condition like launch does ('true'/'1')."""
        text = str(recorder.value(self.predicate)).strip().lower()
        if text not in ('true', 'false', '1', '0'):
            raise ValueError('condition value %r is not a boolean' % text)
        return (text in ('true', '1')) != self.negate


def if_condition(predicate):
    """Build an IfCondition stand-in."""
    return Condition(predicate)


def unless_condition(predicate):
    """Build an UnlessCondition stand-in."""
    return Condition(predicate, negate=True)


class OpaqueFunction(Action):
    """Stand-in for launch.actions.OpaqueFunction: run at load time."""

    def __init__(self, function, args=None, kwargs=None):
        super().__init__(function)
        self.function = function
        self.function_args = args or []
        self.function_kwargs = kwargs or {}

    def run(self, recorder):
        """Call the function with a context that evaluates arguments."""
        context = types.SimpleNamespace(
            launch_configurations=_Configurations(recorder),
            perform_substitution=recorder.value)
        return self.function(context, *self.function_args,
                             **self.function_kwargs) or []


class _Configurations(dict):
    """Launch configurations seen by an OpaqueFunction."""

    def __init__(self, recorder):
        super().__init__()
        self.recorder = recorder

    def __getitem__(self, name):
        return LaunchConfiguration(name).evaluate(self.recorder)

    def get(self, name, default=None):
        try:
            return self[name]
        except KeyError:
            return default


class LaunchDescription:
    """Stand-in for launch.LaunchDescription."""

    def __init__(self, entities=None):
        self.entities = list(entities or [])

    def add_action(self, action):
        """Append an action."""
        self.entities.append(action)


def _module(name, **members):
    module = types.ModuleType(name)
    module.__dict__.update(members)
    return module


def standin_modules():
    """Return module objects that replace launch and launch_ros."""
    simple_action = type('Action', (Action,), {})
    actions = dict(
        DeclareLaunchArgument=DeclareLaunchArgument,
        OpaqueFunction=OpaqueFunction,
        GroupAction=type('GroupAction', (Action,), {}),
        IncludeLaunchDescription=type('IncludeLaunchDescription',
                                      (Action,), {}),
        LogInfo=simple_action, SetEnvironmentVariable=simple_action,
        RegisterEventHandler=type('RegisterEventHandler', (Action,), {}),
        ExecuteProcess=type('ExecuteProcess', (Action,), {}),
        TimerAction=type('TimerAction', (Action,), {}))
    substitutions = dict(
        LaunchConfiguration=LaunchConfiguration,
        TextSubstitution=TextSubstitution,
        PathJoinSubstitution=PathJoinSubstitution,
        FindExecutable=FindExecutable, Command=Command,
        PythonExpression=PythonExpression)
    return {
        'launch': _module('launch', LaunchDescription=LaunchDescription,
                          actions=_module('launch.actions', **actions)),
        'launch.actions': _module('launch.actions', **actions),
        'launch.substitutions': _module('launch.substitutions',
                                        **substitutions),
        'launch.conditions': _module('launch.conditions',
                                     IfCondition=if_condition,
                                     UnlessCondition=unless_condition),
        'launch.event_handlers': _module(
            'launch.event_handlers', OnProcessExit=simple_action,
            OnProcessStart=simple_action),
        'launch_ros': _module('launch_ros'),
        'launch_ros.actions': _module(
            'launch_ros.actions', Node=Node,
            PushRosNamespace=type('PushRosNamespace', (Action,), {}),
            SetParameter=type('SetParameter', (Action,), {})),
        'launch_ros.substitutions': _module(
            'launch_ros.substitutions', FindPackageShare=FindPackageShare),
        'launch_ros.parameter_descriptions': _module(
            'launch_ros.parameter_descriptions',
            ParameterValue=ParameterValue),
    }


def load_launch_file(path, share_directories, arguments=None):
    """
    Import ``path`` against the stand-ins and record its description.

    Returns the Recorder with the declared arguments and the nodes that
    would start (conditions evaluated, OpaqueFunctions run).
    """
    global RECORDER
    recorder = Recorder(share_directories, arguments)
    saved = {name: sys.modules.get(name) for name in standin_modules()}
    sys.modules.update(standin_modules())
    RECORDER = recorder
    try:
        spec = importlib.util.spec_from_file_location(
            'launch_file_under_test', path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        description = module.generate_launch_description()
        pending = list(description.entities)
        while pending:
            entity = pending.pop(0)
            if isinstance(entity, OpaqueFunction):
                pending.extend(entity.run(recorder))
            elif type(entity).__name__ == 'GroupAction':
                pending.extend(entity.args[0] if entity.args else
                               entity.kwargs.get('actions', []))
    finally:
        RECORDER = None
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    recorder.nodes = [
        node for node in recorder.nodes
        if node.condition is None or node.condition.holds(recorder)]
    return recorder


# What launch_ros and rcl/rclpy do with a node's parameters.
#
# launch_ros (launch_ros/actions/node.py) turns every entry of ``parameters=``
# into one ``--params-file`` argument, in order: a file path is passed as it
# is; a dict is written to a temporary file keyed ``/**`` (or keyed by the
# node's full name when the launch file gives both ``name`` and
# ``namespace``).  rcl_yaml_param_parser reads all those files into one table
# of node-name keys (a key met again in a later file is merged into its first
# entry; later values win), joining nested mapping keys above
# ``ros__parameters`` with '/' (``arm: {talker: ...}`` is ``arm/talker``).
# At node start rclpy (and rclcpp) walk that table in order and apply every
# entry whose key matches the node's fully qualified name: the key gets a
# leading '/' if it has none, each ``/*`` becomes the regular expression
# ``(/\w+)`` (so ``/**`` becomes ``(/\w+)*``, any namespace sequence), and
# the result must match the whole name.  A bare ``simulator_node`` is
# therefore ``/simulator_node``: the root namespace only.
# (ros2/rclcpp#1839 and ros2/rclpy#987, in Humble since rclpy 3.3.5; before
# that only ``/**`` and the exact name matched.)


def node_name_matches(key, fully_qualified_name):
    """Whether the parameter-file key ``key`` applies to that node."""
    if not key.startswith('/'):
        key = '/' + key
    pattern = key.replace('/*', r'(/\w+)')
    return re.fullmatch(pattern, fully_qualified_name, re.ASCII) is not None


def _flatten(parameters, prefix=''):
    """Map the dotted names of a ros__parameters mapping to their values."""
    flat = {}
    for key, value in parameters.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, prefix + str(key) + '.'))
        else:
            flat[prefix + str(key)] = value
    return flat


def parameter_file_sections(content, path=()):
    """
    Return ``[(node key, {dotted name: value})]`` of a parameter file.

    ``content`` is the file's parsed YAML; keys are joined with '/' the way
    rcl_yaml_param_parser joins namespace and node levels.
    """
    sections = []
    if not isinstance(content, dict):
        raise ValueError('not a ROS 2 parameter file: %r at %s' % (
            content, '/'.join(path) or 'top level'))
    for key, value in content.items():
        if key == 'ros__parameters':
            if not path:
                raise ValueError('ros__parameters without a node name')
            sections.append(('/'.join(path), _flatten(value or {})))
        else:
            sections.extend(parameter_file_sections(value, path + (str(key),)))
    return sections


def load_parameter_file(file_name):
    """Read a parameter file into ``parameter_file_sections`` form."""
    with open(file_name) as stream:
        return parameter_file_sections(yaml.safe_load(stream))


def node_namespace(recorder, node):
    """Return the absolute namespace launch_ros gives the node ('/': none)."""
    namespace = '' if node.namespace is None else str(
        recorder.value(node.namespace))
    if not namespace.startswith('/'):
        namespace = '/' + namespace
    return namespace


def node_fully_qualified_name(recorder, node, default_name):
    """``/namespace/name``: ``default_name`` is the node's own name."""
    name = default_name if node.name is None else str(
        recorder.value(node.name))
    return node_namespace(recorder, node).rstrip('/') + '/' + name


def parameter_sources(recorder, node):
    """
    Return the node's parameter sources as launch_ros passes them.

    In order: ``[(index in parameters=, file name or None, sections)]``.
    """
    sources = []
    for index, entry in enumerate(node.parameters):
        if isinstance(entry, dict):
            if node.name is not None and node.namespace is not None:
                key = node_fully_qualified_name(recorder, node, None)
            else:
                key = '/**'
            values = {}
            for name, value in entry.items():
                if isinstance(value, ParameterValue):
                    value = value.value
                values[str(recorder.value(name))] = recorder.value(value)
            sources.append((index, None, [(key, _flatten(values))]))
        else:
            file_name = str(recorder.value(entry))
            sources.append((index, file_name, load_parameter_file(file_name)))
    return sources


def parameters_reaching(recorder, node, fully_qualified_name):
    """
    Return the parameters the node starts with.

    ``{name: (value, source index)}``: ``source index`` is the position
    in the node's ``parameters=`` of the entry the value came from.
    """
    table = {}  # node key -> {name: (value, index)}, in first-seen order
    for index, _, sections in parameter_sources(recorder, node):
        for key, values in sections:
            entry = table.setdefault(key, {})
            entry.update((name, (value, index))
                         for name, value in values.items())
    reaching = {}
    for key, values in table.items():
        if node_name_matches(key, fully_qualified_name):
            reaching.update(values)
    return reaching
