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

Each launch file is also started with and without its ``namespace``
argument, and every parameter of every parameter file it passes must reach
the node under the fully qualified name the launch file gives it, matched
the way rcl matches parameter-file keys (``/**`` any namespace sequence,
``*`` one token, a bare ``name`` the root namespace only; the model is in
launch_standins.py and is checked here against rclpy itself).
"""

from glob import glob
import importlib
from importlib.metadata import distribution
import inspect
import os

from conftest import REPO_ROOT
from launch_standins import load_launch_file, load_parameter_file, Node, \
    node_fully_qualified_name, node_name_matches, parameter_file_sections, \
    parameter_sources, parameters_reaching, ParameterValue, Recorder, \
    Substitution
import pytest
from ros_harness import reserve_domain_id
import yaml

ROOT = REPO_ROOT
LAUNCH_FILES = sorted(glob(os.path.join(ROOT, 'launch', '*.launch.py')))
SHARES = {'dynamics_ros': ROOT}
# Nodes created in this process to read their interfaces stay apart.
LAUNCH_DOMAIN_ID = reserve_domain_id(__name__)
VARIANTS = {
    'simulation.launch.py': [{}, {'mode': 'gravity', 'namespace': 'arm',
                                  'use_sim_time': 'false'},
                             {'xacro_args': 'name:=ur ur_type:=ur5e',
                              'tip_link': 'tool0', 'root_link': 'base_link',
                              'joints': 'a b', 'publish_rate': '250'},
                             {'payload_estimation': 'true'}],
    'dynamics.launch.py': [{}, {'linearization': 'false',
                                'external_torques': 'false',
                                'effort_topic': '/effort_controller/commands',
                                'urdf': os.path.join(ROOT, 'urdf',
                                                     'puma560.urdf')},
                           {'xacro_args': 'name:=ur', 'tip_link': 'tool0',
                            'joints': 'shoulder elbow'}],
}


def console_scripts():
    """Map console_script name -> 'module:function'."""
    return {e.name: e.value for e in distribution('dynamics_ros').entry_points
            if e.group == 'console_scripts'}


@pytest.fixture(scope='module')
def node_interfaces():
    """Create every node of ours once; record its parameters and topics."""
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ['ROS_DOMAIN_ID'] = str(LAUNCH_DOMAIN_ID)
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
                # (nodes/shared/dedicated_subscription.py and
                # polled_subscription.py, held alone or in a list of
                # tuples), resolved by this node.
                held = list(vars(node).values())
                for value in list(held):
                    if isinstance(value, (list, tuple)):
                        held += [part for item in value for part in (
                            item if isinstance(item, tuple) else (item,))]
                topics |= {v.subscription.topic_name for v in held
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
            fqn = node_fully_qualified_name(
                recorded, node, interface['node_name'])
            sections = [values for key, values in load_parameter_file(
                file_name) if node_name_matches(key, fqn)]
            assert sections, '%s has no section for %s' % (file_name, fqn)
            for section in sections:
                unknown = set(section) - declared
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


# Namespaces a launch file is started in, besides its default (none).
NAMESPACES = ['arm', 'fleet/arm_2', '/arm']


def namespace_cases():
    """(launch file, arguments, namespace or None) triples to start."""
    for path in LAUNCH_FILES:
        declared = load_launch_file(path, SHARES).declared
        namespaces = [None] + (NAMESPACES if 'namespace' in declared else [])
        for variant in VARIANTS.get(os.path.basename(path), [{}]):
            for namespace in namespaces:
                arguments = {k: v for k, v in variant.items()
                             if k != 'namespace'}
                if namespace is not None:
                    arguments['namespace'] = namespace
                yield pytest.param(path, arguments, namespace, id='%s-%s-%s' % (
                    os.path.basename(path),
                    '-'.join(sorted(set(arguments) - {'namespace'}))
                    or 'defaults', namespace or 'no_namespace'))


@pytest.mark.parametrize('path,arguments,namespace', list(namespace_cases()))
def test_parameter_files_reach_their_node_in_any_namespace(
        path, arguments, namespace, node_interfaces):
    """Every parameter of every file reaches its node, namespace or not."""
    recorded = load_launch_file(path, SHARES, arguments)
    ours = [n for n in recorded.nodes if n.package == 'dynamics_ros']
    assert ours, 'the launch file starts none of our nodes'
    files = 0
    for node in ours:
        default_name = node_interfaces[node.executable]['node_name']
        fqn = node_fully_qualified_name(recorded, node, default_name)
        expected_namespace = '/' + (namespace or '').strip('/')
        assert fqn == (expected_namespace.rstrip('/') + '/' + (
            node.name or default_name)), (
            '%s starts as %s, not in namespace %r' % (
                node.executable, fqn, namespace))
        reaching = parameters_reaching(recorded, node, fqn)
        for index, file_name, sections in parameter_sources(recorded, node):
            if file_name is None:
                continue
            files += 1
            for key, values in sections:
                assert node_name_matches(key, fqn), (
                    '%s: section %r of %s does not apply to %s: rcl matches '
                    'a parameter-file key to the fully qualified node name '
                    "(a bare name is the root namespace only; '/**/name' "
                    'is any namespace), so all of %s fall back to defaults' % (
                        os.path.basename(path), key,
                        os.path.basename(file_name), fqn, sorted(values)))
                for name, value in values.items():
                    assert name in reaching, '%s: %s of %s misses %s' % (
                        os.path.basename(path), name,
                        os.path.basename(file_name), fqn)
                    got, source = reaching[name]
                    assert source >= index, (
                        '%s: %s of %s is overridden by an earlier entry' % (
                            os.path.basename(path), name, file_name))
                    if source == index:
                        assert got == value, '%s: %s is %r, not %r' % (
                            fqn, name, got, value)
    assert files, 'no parameter file is passed to any node'


def config_files_by_node():
    """Which node (default name) each shipped parameter file is for."""
    recorded = load_launch_file(
        os.path.join(ROOT, 'launch', 'simulation.launch.py'), SHARES)
    owners = {}
    for node in recorded.nodes:
        for _, file_name, _ in parameter_sources(recorded, node):
            if file_name is not None:
                owners.setdefault(file_name, set()).add(node.executable)
    return owners


def test_parameter_files_reach_no_other_node(node_interfaces):
    """
    A file reaches only its own node, in any namespace.

    The files share parameter names with different meanings (``rate`` is
    1 kHz integration in simulator.yaml, 10 Hz publishing in
    linearization.yaml; ``gravity`` everywhere), so a file applied to a
    whole group (launch_ros SetParametersFromFile, or several
    ``--params-file`` given to one process) must not set them elsewhere:
    the files are keyed ``/**/<node name>``, not ``/**``.
    """
    owners = config_files_by_node()
    assert len(owners) == 4
    names = {e: i['node_name'] for e, i in node_interfaces.items()}
    for file_name, executables in owners.items():
        assert len(executables) == 1, '%s is passed to %s' % (
            file_name, sorted(executables))
        for key, _ in load_parameter_file(file_name):
            for executable, name in names.items():
                for namespace in ['', '/arm', '/fleet/arm_2']:
                    fqn = namespace + '/' + name
                    assert node_name_matches(key, fqn) == (
                        executable in executables), (
                        '%s key %r %s %s' % (
                            os.path.basename(file_name), key,
                            'reaches' if executable not in executables
                            else 'misses', fqn))


MATCH_TABLE = [
    # (key, fully qualified name, applies)
    ('/**', '/talker', True),
    ('/**', '/arm/talker', True),
    ('/**', '/a/b/talker', True),
    ('talker', '/talker', True),
    ('talker', '/arm/talker', False),
    ('/talker', '/arm/talker', False),
    ('/arm/talker', '/arm/talker', True),
    ('/arm/talker', '/talker', False),
    ('arm/talker', '/arm/talker', True),
    ('/**/talker', '/talker', True),
    ('/**/talker', '/arm/talker', True),
    ('/**/talker', '/a/b/talker', True),
    ('/**/talker', '/arm/listener', False),
    ('/**/talker', '/arm/talker_2', False),
    ('/*/talker', '/talker', False),
    ('/*/talker', '/arm/talker', True),
    ('/*/talker', '/a/b/talker', False),
    ('/*', '/talker', True),
    ('/*', '/arm/talker', False),
    ('/arm/*', '/arm/talker', True),
    ('/arm/**', '/arm/b/talker', True),
    ('/arm/**', '/talker', False),
]


@pytest.mark.parametrize('key,fqn,applies', MATCH_TABLE)
def test_node_name_matching_rule(key, fqn, applies):
    """The documented rule: ``**`` any tokens, ``*`` one, bare is root."""
    assert node_name_matches(key, fqn) == applies


def test_nested_keys_join_like_rcl():
    """``arm: {talker: {ros__parameters}}`` is the key ``arm/talker``."""
    sections = parameter_file_sections({
        'arm': {'talker': {'ros__parameters': {'a': 1, 'p': {'q': 2}}}},
        '/**': {'ros__parameters': {'b': 3}}})
    assert sections == [('arm/talker', {'a': 1, 'p.q': 2}),
                        ('/**', {'b': 3})]


def rclpy_overrides(files, fqn):
    """Parameter names that reach ``fqn`` in real rclpy from ``files``."""
    import rclpy
    from rclpy.node import Node
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    os.environ['ROS_DOMAIN_ID'] = str(LAUNCH_DOMAIN_ID)
    namespace, name = fqn.rsplit('/', 1)
    arguments = ['--ros-args']
    for file_name in files:
        arguments += ['--params-file', file_name]
    context = rclpy.Context()
    rclpy.init(context=context, args=arguments)
    try:
        node = Node(name, namespace=namespace or '/', context=context,
                    automatically_declare_parameters_from_overrides=True)
        try:
            return {n: p.value for n, p in node._parameters.items()
                    if n not in ('use_sim_time',
                                 'start_type_description_service')}
        finally:
            node.destroy_node()
    finally:
        rclpy.shutdown(context=context)


def test_matching_model_agrees_with_rclpy(tmp_path):
    """The model above gives what rclpy itself gives a node at start."""
    content = {}
    for number, (key, _, _) in enumerate(MATCH_TABLE):
        content.setdefault(key, {'ros__parameters': {}})[
            'ros__parameters']['p%d' % number] = number
    content['fleet'] = {'talker': {'ros__parameters': {'nested': 1}}}
    table = tmp_path / 'table.yaml'
    table.write_text(yaml.safe_dump(content))
    shipped = sorted(config_files_by_node())
    for fqn in sorted({f for _, f, _ in MATCH_TABLE} | {
            '/fleet/talker', '/simulator_node', '/arm/simulator_node',
            '/fleet/arm_2/simulator_node', '/arm/linearization_node',
            '/inverse_dynamics_node', '/a/b/inverse_dynamics_node'}):
        model = {}
        for file_name in [str(table)] + shipped:
            for key, values in load_parameter_file(file_name):
                if node_name_matches(key, fqn):
                    model.update(values)
        assert rclpy_overrides([str(table)] + shipped, fqn) == model, fqn


def test_precedence_model_agrees_with_rclpy(tmp_path):
    """
    Later sources win, but per node key in first-seen order, as in rclpy.

    rcl merges a key met again in a later file into its first entry, so
    ``/**`` (file 1), ``/arm/talker`` (file 2), ``/**`` (file 3) leaves
    file 2's value; a launch dict is a ``/**`` file of its own.
    """
    def write(name, key, value):
        path = tmp_path / name
        path.write_text(yaml.safe_dump({key: {'ros__parameters': {
            'a': value, 'b%s' % name[0]: value}}}))
        return str(path)

    wildcard_1 = write('1.yaml', '/**', 1)
    specific = write('2.yaml', '/arm/talker', 2)
    wildcard_3 = write('3.yaml', '/**', 3)
    any_namespace = write('4.yaml', '/**/talker', 4)
    inline = write('5.yaml', '/**', 5)  # what launch_ros writes for a dict
    orders = [[wildcard_1, specific, wildcard_3], [specific, wildcard_3],
              [any_namespace, specific], [specific, any_namespace],
              [wildcard_1, any_namespace, {'a': 5, 'b5': 5}],
              [any_namespace, wildcard_1, {'a': 5, 'b5': 5}]]
    for order in orders:
        node = Node(package='x', executable='talker', namespace='arm',
                    parameters=order)
        model = {name: value for name, (value, _) in parameters_reaching(
            Recorder({}), node, '/arm/talker').items()}
        files = [inline if isinstance(e, dict) else e for e in order]
        assert rclpy_overrides(files, '/arm/talker') == model, order


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=os.path.basename)
def test_every_argument_is_described(path):
    """`ros2 launch --show-args` has a description for every argument."""
    recorded = load_launch_file(path, SHARES)
    declarations = [a for a in recorded.actions
                    if type(a).__name__ == 'DeclareLaunchArgument']
    assert {a.name for a in declarations} == set(recorded.declared)
    for declaration in declarations:
        assert declaration.kwargs['description'].strip(), declaration.name


def model_entries(recorded):
    """Return the dict parameters of each of our nodes, by executable."""
    return {node.executable: [p for p in node.parameters
                              if isinstance(p, dict)]
            for node in recorded.nodes if node.package == 'dynamics_ros'}


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=os.path.basename)
def test_model_arguments_reach_every_node_as_lists(path):
    """
    xacro_args and joints are split into string arrays for every node.

    A real description (ur_description needs ``name:=ur``) only expands
    with its arguments, and a gripper is cut away by tip_link: each of our
    nodes must get the same model parameters.
    """
    recorded = load_launch_file(path, SHARES, {
        'urdf': 'robot.urdf.xacro', 'xacro_args': ' name:=ur  ur_type:=ur5e',
        'tip_link': 'tool0', 'root_link': 'base_link',
        'joints': 'shoulder_pan_joint elbow_joint'})
    entries = model_entries(recorded)
    assert len(entries) >= 3
    for executable, dicts in entries.items():
        merged = {}
        for entry in dicts:
            merged.update(entry)
        assert merged['urdf_path'] == 'robot.urdf.xacro', executable
        assert merged['xacro_args'] == ['name:=ur', 'ur_type:=ur5e']
        assert merged['joints'] == ['shoulder_pan_joint', 'elbow_joint']
        assert merged['tip_link'] == 'tool0'
        assert merged['root_link'] == 'base_link'


@pytest.mark.parametrize('path', LAUNCH_FILES, ids=os.path.basename)
def test_empty_list_arguments_are_left_out(path):
    """ROS 2 cannot type an empty list: '' leaves the parameter unset."""
    recorded = load_launch_file(path, SHARES)
    for executable, dicts in model_entries(recorded).items():
        for entry in dicts:
            assert 'xacro_args' not in entry, executable
            assert 'joints' not in entry, executable


def test_simulation_publish_rate_overrides_the_config_file():
    """publish_rate reaches simulator_node after its YAML file."""
    path = os.path.join(ROOT, 'launch', 'simulation.launch.py')
    default = model_entries(load_launch_file(path, SHARES))
    assert all('publish_rate' not in e for e in default['simulator_node'])
    chosen = model_entries(load_launch_file(
        path, SHARES, {'publish_rate': '250'}))['simulator_node']
    assert chosen[-1] == {'use_sim_time': False, 'publish_rate': 250.0}


@pytest.mark.parametrize('use_sim_time', ['true', 'false'])
def test_simulation_runs_the_simulator_on_the_wall_clock(use_sim_time):
    """
    use_sim_time reaches every node but the simulator, the clock's source.

    The simulator publishes /clock; on use_sim_time it would subscribe to
    it too and wake for each of its own ticks.  Its last entry, which wins,
    says false whatever the argument.
    """
    path = os.path.join(ROOT, 'launch', 'simulation.launch.py')
    recorded = load_launch_file(path, SHARES, {'use_sim_time': use_sim_time})
    for executable, dicts in model_entries(recorded).items():
        values = [recorded.value(entry['use_sim_time']) for entry in dicts
                  if 'use_sim_time' in entry]
        if executable == 'simulator_node':
            assert values[-1] is False, values
        else:
            assert values == [use_sim_time], (executable, values)
