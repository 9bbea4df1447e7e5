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
The launch files reference only what exists.

``launch`` and ``launch_ros`` cannot be installed here, so each launch
file's ``generate_launch_description()`` runs against recording stand-ins
(test/launch_standins.py).  Then, for every node it starts: the executable
is one of our console_scripts, every parameter file exists and names only
parameters the node declares, every parameter given inline is declared, and
every remapping renames a topic the node really uses.  What a node declares
and uses is read from the node itself, created in this process.  When the
real ``launch_ros`` is importable the files are also loaded with it.
"""

from glob import glob
import importlib
from importlib.metadata import distribution
import inspect
import os

from launch_standins import load_launch_file, ParameterValue, Substitution
import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAUNCH_FILES = sorted(glob(os.path.join(ROOT, 'launch', '*.launch.py')))
SHARES = {'dynamics_ros': ROOT}
VARIANTS = {
    'simulation.launch.py': [{}, {'mode': 'gravity', 'namespace': 'arm',
                                  'use_sim_time': 'false'}],
    'dynamics.launch.py': [{}, {'linearization': 'false',
                                'effort_topic': '/effort_controller/commands',
                                'urdf': os.path.join(ROOT, 'urdf',
                                                     'puma560.urdf')}],
}


def console_scripts():
    """Map console_script name -> 'module:function'."""
    return {e.name: e.value for e in distribution('dynamics_ros').entry_points
            if e.group == 'console_scripts'}


@pytest.fixture(scope='module')
def node_interfaces():
    """Create every node of ours once; record its parameters and topics."""
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ['ROS_DOMAIN_ID'] = '61'
    import rclpy
    from rclpy.node import Node
    context = rclpy.Context()
    rclpy.init(context=context)
    interfaces = {}
    try:
        for name, target in console_scripts().items():
            module = importlib.import_module(target.split(':')[0])
            classes = [c for _, c in inspect.getmembers(module, inspect.isclass)
                       if issubclass(c, Node) and c is not Node
                       and c.__module__ == module.__name__]
            assert len(classes) == 1, '%s: node class not found' % name
            node = classes[0](context=context)
            try:
                topics = {t.topic_name for t in node.publishers}
                topics |= {s.topic_name for s in node.subscriptions}
                # High-rate inputs live on helper nodes of their own
                # (nodes/dedicated_subscription.py), resolved by this node.
                topics |= {v.subscription.topic_name
                           for v in vars(node).values()
                           if hasattr(v, 'subscription')
                           and hasattr(v.subscription, 'topic_name')}
                interfaces[name] = dict(
                    node_name=node.get_name(),
                    parameters=set(node._parameters),
                    topics={t.lstrip('/') for t in topics})
            finally:
                node.destroy_node()
    finally:
        rclpy.shutdown(context=context)
    return interfaces


def flatten(parameters, prefix=''):
    """Return the dotted names of a ros__parameters mapping."""
    names = set()
    for key, value in parameters.items():
        if isinstance(value, dict):
            names |= flatten(value, prefix + key + '.')
        else:
            names.add(prefix + key)
    return names


def cases():
    """(launch file, arguments) pairs to check."""
    for path in LAUNCH_FILES:
        for arguments in VARIANTS.get(os.path.basename(path), [{}]):
            yield pytest.param(path, arguments, id='%s-%s' % (
                os.path.basename(path), '-'.join(sorted(arguments)) or
                'defaults'))


def test_launch_files_exist_and_are_known():
    """Both launch files of the design are shipped and covered here."""
    names = sorted(os.path.basename(p) for p in LAUNCH_FILES)
    assert names == sorted(VARIANTS)


@pytest.mark.parametrize('path,arguments', list(cases()))
def test_launch_file_references_exist(path, arguments, node_interfaces):
    """Executables, parameter files, parameters and remaps all exist."""
    recorded = load_launch_file(path, SHARES, arguments)
    ours = [n for n in recorded.nodes if n.package == 'dynamics_ros']
    assert ours, 'the launch file starts none of our nodes'
    for node in ours:
        assert node.executable in node_interfaces, (
            '%s is not a console_script (%s)' % (
                node.executable, sorted(node_interfaces)))
        interface = node_interfaces[node.executable]
        declared = interface['parameters'] | {'use_sim_time'}
        for entry in node.parameters:
            if isinstance(entry, dict):
                unknown = set(entry) - declared
                assert not unknown, '%s does not declare %s' % (
                    node.executable, sorted(unknown))
                for value in entry.values():
                    if isinstance(value, ParameterValue):
                        value = value.value
                    recorded.value(value)  # every substitution evaluates
                continue
            file_name = recorded.value(entry)
            assert os.path.isfile(file_name), 'missing %s' % file_name
            with open(file_name) as stream:
                content = yaml.safe_load(stream)
            sections = [v for k, v in content.items()
                        if k in ('/**', interface['node_name'])]
            assert sections, '%s has no section for %s' % (
                file_name, interface['node_name'])
            for section in sections:
                unknown = flatten(section['ros__parameters']) - declared
                assert not unknown, '%s names %s, not declared by %s' % (
                    os.path.basename(file_name), sorted(unknown),
                    node.executable)
        for source, target in node.remappings:
            source = recorded.value(source)
            assert source in interface['topics'], (
                '%s remaps %r, a topic it does not use (%s)' % (
                    node.executable, source, sorted(interface['topics'])))
            assert recorded.value(target), 'empty remap target'


def test_simulation_wires_torques_into_the_simulator(node_interfaces):
    """The computed torques reach the topic the simulator listens on."""
    recorded = load_launch_file(
        os.path.join(ROOT, 'launch', 'simulation.launch.py'), SHARES)
    nodes = {n.executable: n for n in recorded.nodes}
    targets = dict((recorded.value(a), recorded.value(b))
                   for a, b in nodes['inverse_dynamics_node'].remappings)
    assert targets['effort_commands'] in node_interfaces[
        'simulator_node']['topics']
    modes = [recorded.value(p['mode']) for p in nodes[
        'inverse_dynamics_node'].parameters if isinstance(p, dict)
        and 'mode' in p]
    assert modes == ['computed_torque']


def test_arguments_are_declared_with_defaults():
    """Every LaunchConfiguration used is declared (load would fail else)."""
    for path in LAUNCH_FILES:
        recorded = load_launch_file(path, SHARES)
        assert 'namespace' in recorded.declared
        assert 'use_sim_time' in recorded.declared
        for default in recorded.declared.values():
            assert default is None or isinstance(
                recorded.value(default), str)


def test_with_real_launch_ros():
    """Load each file with the real launch API when it is installed."""
    launch_ros = pytest.importorskip(
        'launch_ros', reason='launch_ros is not installable from PyPI here; '
        'the stand-in tests above cover the files')
    import launch
    for path in LAUNCH_FILES:
        spec = importlib.util.spec_from_file_location('real_launch', path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        description = module.generate_launch_description()
        assert isinstance(description, launch.LaunchDescription)
        assert launch_ros is not None


def test_substitution_standins_evaluate():
    """The stand-ins themselves evaluate as launch would."""
    recorded = load_launch_file(LAUNCH_FILES[0], SHARES, {'urdf': 'x.urdf'})
    assert isinstance(recorded.nodes[0].parameters[0], Substitution)
    assert recorded.value(recorded.nodes[0].parameters[0]).startswith(ROOT)
