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
Every code block of the docs (doc/**/*.md) and of README.md, checked.

- ``python`` blocks run, each on its own (a fresh namespace, from the
  repository root): a block that needs a name it does not define fails.
- ``sh`` / ``bash`` blocks: each command line is checked against what it
  names.  ``python -m dynamics_ros ...`` parses with the package's own
  argument parser; ``ros2 run dynamics_ros NODE`` names an executable of
  setup.py, and each ``-p name:=value`` a parameter of that node whose
  value, read as YAML as ROS reads it, the node's table accepts; ``ros2
  param set`` likewise; ``ros2 launch dynamics_ros FILE name:=value``
  names a launch file and its declared arguments; ``ros2 service call``
  a service a node creates; ``make X`` a Makefile target.  Other programs
  (git, colcon, rosdep, ros2 bag, ...) are listed in NOT_CHECKED with why.
- ``yaml`` blocks parse; one that says it is a shipped file is that file,
  or an excerpt of it (mappings with keys left out).
- ``text`` blocks are output or listings, not run.  A block without a
  language fails: say what it is.
"""

import contextlib
import glob
import io
import os
import re
import shlex
import warnings

from conftest import REPO_ROOT
from dynamics_ros.__main__ import main as cli_main
from dynamics_ros.nodes.shared import parameter_reference as reference
from dynamics_ros.nodes.shared.parameters import problem
import pytest
import yaml

PAGES = sorted(glob.glob(os.path.join(REPO_ROOT, 'doc', '**', '*.md'),
                         recursive=True)) + [
    os.path.join(REPO_ROOT, 'README.md')]
LANGUAGES = {'python', 'sh', 'bash', 'yaml', 'text'}
# Programs of shell blocks that are not checked here, and why.
NOT_CHECKED = {
    'cd': 'moves between folders',
    'mkdir': 'makes the workspace folder',
    'git': 'clones this repository',
    'rosdep': 'needs a ROS machine and its sources list',
    'colcon': 'test/package/test_colcon_build.py builds the package',
    'source': 'sources a ROS workspace',
    '.venv/bin/python': 'runs a benchmark script (its path is checked)',
    '.venv/bin/simulator_node': 'an entry point of setup.py (checked)',
}
# Parameters that name a file the node reads when the value is set.
FILE_PARAMETERS = {'urdf_path', 'friction_file', 'flexible_config',
                   'actuator_config'}
FENCE = re.compile(r'^```([^\n`]*)\n(.*?)^```\s*$', re.S | re.M)


def blocks(path):
    """Yield (language, first line number, code) of each fenced block."""
    with open(path, encoding='utf-8') as stream:
        text = stream.read()
    for match in FENCE.finditer(text):
        language = match.group(1).strip()
        if language.startswith('{'):   # a MyST directive: toctree, include
            continue
        line = text.count('\n', 0, match.start()) + 1
        yield language, line, match.group(2)


def all_blocks(languages):
    """Return pytest params of every block in ``languages``, named."""
    found = []
    for page in PAGES:
        for language, line, code in blocks(page):
            if language in languages:
                name = '%s:%d' % (os.path.relpath(page, REPO_ROOT), line)
                found.append(pytest.param(code, id=name))
    return found


def test_every_block_says_what_it_is():
    unnamed = ['%s:%d %r' % (os.path.relpath(page, REPO_ROOT), line,
                             language)
               for page in PAGES for language, line, _ in blocks(page)
               if language not in LANGUAGES]
    assert unnamed == [], 'blocks without a known language: %s' % unnamed
    assert len(all_blocks({'python'})) >= 8


@pytest.mark.parametrize('code', all_blocks({'python'}))
def test_python_block_runs_on_its_own(code, monkeypatch):
    monkeypatch.chdir(REPO_ROOT)
    namespace = {'__name__': '__doc_example__'}
    with warnings.catch_warnings():
        # A shipped model's documented warnings (inertia rounding) are
        # not what is tested here.
        warnings.simplefilter('ignore')
        exec(compile(code, '<doc example>', 'exec'), namespace)


def commands(code):
    """Return the command lines of a shell block, continuations joined."""
    joined = re.sub(r'\\\n\s*', ' ', code)
    lines = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        if words:
            lines.append(words)
    return lines


def node_specs(node):
    """Return {name: Spec} of ``node``'s own and the model parameters."""
    specs = {spec.name: spec for spec in reference.table(
        reference.MODEL_TABLE)}
    specs.update({spec.name: spec for spec in reference.table(node)})
    return specs


def check_value(node, name, text):
    """Assert ``name`` is a parameter of ``node`` that takes ``text``."""
    specs = node_specs(node)
    assert name in specs, '%s has no parameter %s' % (node, name)
    value = yaml.safe_load(text)
    spec = specs[name]
    if spec.type == 'string[]':
        assert isinstance(value, list) and all(
            isinstance(item, str) for item in value), (name, text, value)
        return
    if name in FILE_PARAMETERS and not os.path.exists(
            os.path.join(REPO_ROOT, str(value))):
        # A file of the user's (robot.urdf) or one an earlier command of
        # the example writes (identified_friction.yaml): a path, not read.
        assert isinstance(value, str) and value.endswith(
            ('.urdf', '.xacro', '.yaml')), (name, value)
        return
    reason = problem(spec, value)
    assert reason is None, reason


def check_ros2_run(words):
    package, executable = words[2], words[3]
    assert package == 'dynamics_ros', words
    assert executable in executables(), executable
    check_ros_args(executable, words[4:])


def check_ros_args(node, words):
    """Check the -p and -r arguments after --ros-args."""
    if not words:
        return
    assert words[0] == '--ros-args', words
    index = 1
    while index < len(words):
        flag, argument = words[index], words[index + 1]
        assert flag in ('-p', '-r'), (flag, words)
        assert ':=' in argument, argument
        if flag == '-p':
            name, value = argument.split(':=', 1)
            check_value(node, name, value)
        index += 2


def executables():
    """Return the console scripts setup.py installs."""
    with open(os.path.join(REPO_ROOT, 'setup.py'), encoding='utf-8') as f:
        return set(re.findall(r"'(\w+) = ", f.read()))


def launch_arguments(name):
    """Return the arguments ``launch/<name>`` declares."""
    path = os.path.join(REPO_ROOT, 'launch', name)
    assert os.path.isfile(path), name
    with open(path, encoding='utf-8') as stream:
        return set(re.findall(r"DeclareLaunchArgument\(\s*'(\w+)'",
                              stream.read()))


def services():
    """Return the ``~/`` services the nodes create."""
    found = set()
    for path in glob.glob(os.path.join(REPO_ROOT, 'dynamics_ros', 'nodes',
                                       '**', '*.py'), recursive=True):
        with open(path, encoding='utf-8') as stream:
            found |= set(re.findall(r"'~/(\w+)'", stream.read()))
    return found


def make_targets():
    """Return the targets of the Makefile."""
    with open(os.path.join(REPO_ROOT, 'Makefile'), encoding='utf-8') as f:
        return set(re.findall(r'^([\w-]+):', f.read(), re.M))


def check_command(words):
    """Assert one command line names what exists, as described above."""
    program = words[0]
    if program in ('python', 'python3') and words[1:3] == [
            '-m', 'dynamics_ros']:
        output = io.StringIO()
        with contextlib.redirect_stdout(output), \
                contextlib.redirect_stderr(output):
            with pytest.raises(SystemExit) as leaving:
                parse_only(words[3:])
        assert leaving.value.code in (0, None), (words, output.getvalue())
    elif program in ('python', 'python3') and words[1:2] == ['-m']:
        assert words[2] in ('dynamics_ros.fast',
                            'dynamics_ros.nodes.shared.parameter_reference'), words
    elif program == 'ros2' and words[1] == 'run':
        check_ros2_run(words)
    elif program == 'ros2' and words[1] == 'launch':
        declared = launch_arguments(words[3])
        for argument in words[4:]:
            if argument == '--show-args':
                continue
            name = argument.split(':=', 1)[0]
            assert name in declared, '%s declares no %s' % (words[3], name)
    elif program == 'ros2' and words[1:3] == ['param', 'set']:
        node = words[3].rsplit('/', 1)[-1]
        check_value(node, words[4], words[5])
    elif program == 'ros2' and words[1:3] == ['service', 'call']:
        service = words[3].rsplit('/', 1)[-1]
        assert service in services(), service
    elif program == 'ros2' and words[1] in ('bag', 'topic'):
        return   # the ROS CLI's own verbs on topics the nodes publish
    elif program == 'make':
        for target in words[1:]:
            if '=' not in target:
                assert target in make_targets(), target
    elif program.startswith('.venv/bin/') and program.endswith('python'):
        assert os.path.isfile(os.path.join(REPO_ROOT, words[1])), words
    elif program.startswith('.venv/bin/'):
        node = program[len('.venv/bin/'):]
        assert node in executables(), node
        check_ros_args(node, words[1:])
    else:
        assert program in NOT_CHECKED, 'unchecked program: %s' % words


def parse_only(argv):
    """Parse ``python -m dynamics_ros`` arguments; exit 0 if they parse."""
    import argparse
    from dynamics_ros.cli import register_all
    parser = argparse.ArgumentParser(prog='python -m dynamics_ros')
    register_all(parser.add_subparsers(dest='command', required=True))
    parser.parse_args(argv)
    raise SystemExit(0)


@pytest.mark.parametrize('code', all_blocks({'sh', 'bash'}))
def test_shell_block_names_what_exists(code):
    lines = commands(code)
    assert lines
    for words in lines:
        check_command(words)


@pytest.mark.parametrize('code', all_blocks({'yaml'}))
def test_yaml_block_parses_and_matches_the_shipped_file(code):
    content = yaml.safe_load(code)
    assert isinstance(content, dict)
    shipped = re.match(r'# (config/\S+\.yaml) \(shipped\)', code)
    if shipped:
        with open(os.path.join(REPO_ROOT, shipped.group(1)),
                  encoding='utf-8') as stream:
            assert contained(content, yaml.safe_load(stream))


def contained(part, whole):
    """Return whether ``part`` is ``whole`` with some mapping keys left out."""
    if isinstance(part, dict):
        return isinstance(whole, dict) and all(
            key in whole and contained(value, whole[key])
            for key, value in part.items())
    return part == whole


def test_contained_is_no_looser_than_it_says():
    assert contained({'a': {'b': 1}}, {'a': {'b': 1, 'c': 2}, 'd': 3})
    assert not contained({'a': {'b': 2}}, {'a': {'b': 1}})
    assert not contained({'e': 1}, {'a': 1})
    assert not contained([1], [1, 2])


def test_the_cli_entry_point_is_the_parser_checked():
    """parse_only builds the parser as python -m dynamics_ros does."""
    with pytest.raises(SystemExit) as leaving:
        cli_main(['no-such-command'])
    assert leaving.value.code == 2
    with pytest.raises(SystemExit) as leaving:
        parse_only(['no-such-command'])
    assert leaving.value.code == 2


@pytest.mark.parametrize('page,launch_file', [
    ('doc/workflows/simulation_launch.md', 'simulation.launch.py'),
    ('doc/workflows/real_robot.md', 'dynamics.launch.py')])
def test_launch_argument_tables_list_every_argument(page, launch_file):
    """The page's argument table has each declared argument, no other."""
    with open(os.path.join(REPO_ROOT, page), encoding='utf-8') as stream:
        text = stream.read()
    table = text[text.index('| argument |'):]
    table = table[:table.index('\n\n')]
    listed = re.findall(r'^\| `(\w+)` \|', table, re.M)
    assert len(listed) == len(set(listed))
    assert set(listed) == launch_arguments(launch_file)
