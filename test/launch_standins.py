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
"""

import importlib.util
import os
import sys
import types


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
