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
One bounded YAML reader for every file the package accepts.

200,000 nested ``[`` (400 KB) made ``yaml.safe_load`` end in
RecursionError in every loader (friction, flexible, actuator configs,
excite --resend); they are refused by depth with the file and the line.
Files within the bounds load exactly as ``yaml.safe_load`` loads them
(PyYAML is the oracle); an alias bomb is refused by node count.
"""

import glob
import os

from conftest import REPO_ROOT
from dynamics_ros import bounded_yaml
from dynamics_ros.bounded_yaml import CONFIG_BOUNDS, load_yaml, YamlLimit
from dynamics_ros.cli import excite
from dynamics_ros.dynamics.friction import read_friction
from dynamics_ros.errors import ModelError
from dynamics_ros.flexible.config import read_config
from dynamics_ros.model.actuators import read_actuator_config
import pytest
import yaml

MARKER = 'MARKER_5b1d_SECRET'
NESTED = '[' * 200000
# 9 aliases a level, 6 levels: 9**6 = 531,441 nodes written in 200 bytes.
BOMB = 'a: &a [%s]\n' % MARKER + ''.join(
    '%s: &%s [%s]\n' % (name, name, ','.join(['*' + previous] * 9))
    for previous, name in zip('abcde', 'bcdef'))


class Args:
    """The options excite's resend reads."""

    topic = 'trajectory'
    timeout = 0.1

    def __init__(self, path):
        self.resend = path


def excite_resend(path):
    """Run excite --resend on ``path``; raise ValueError on its status 2."""
    status = excite.resend(Args(path), print)
    if status == 2:
        raise ValueError('excite --resend refused the file')
    return status


LOADERS = {
    'friction': (read_friction, ValueError),
    'flexible': (read_config, ModelError),
    'actuators': (read_actuator_config, ModelError),
}


@pytest.mark.parametrize('loader', sorted(LOADERS))
def test_nested_brackets_are_refused_by_depth_with_the_line(loader,
                                                            tmp_path):
    path = tmp_path / 'nested.yaml'
    path.write_text('joints:\n  x: ' + NESTED + '\n', encoding='utf-8')
    read, error = LOADERS[loader]
    with pytest.raises(error) as caught:
        read(str(path))   # was RecursionError from yaml.safe_load
    text = str(caught.value)
    assert 'nested deeper than %d levels' % CONFIG_BOUNDS.depth in text
    # Where the parser stops: at our bound, or at libyaml's own (1000
    # levels) when its scanner reads ahead through flow collections.
    assert 'line 2, column' in text
    assert 'nested.yaml' in text


def test_excite_resend_refuses_nested_brackets(tmp_path, capsys):
    path = tmp_path / 'plan.yaml'
    path.write_text(NESTED, encoding='utf-8')
    assert excite.resend(Args(str(path)), print) == 2
    error = capsys.readouterr().err
    assert 'nested deeper than' in error and 'line 1' in error
    assert error.count('\n') == 1


@pytest.mark.parametrize('loader', sorted(LOADERS))
def test_an_alias_bomb_is_refused_by_node_count(loader, tmp_path):
    path = tmp_path / 'bomb.yaml'
    path.write_text(BOMB, encoding='utf-8')
    read, error = LOADERS[loader]
    with pytest.raises(error) as caught:
        read(str(path))
    assert 'more than %d YAML nodes' % CONFIG_BOUNDS.nodes in \
        str(caught.value)
    assert MARKER not in str(caught.value)


def test_a_long_file_is_refused_at_the_node_bound():
    # 2,500 joints' friction: 15,000 nodes, over the node bound.
    joints = ''.join('  j%d: {viscous: 1, coulomb: 2}\n' % i
                     for i in range(CONFIG_BOUNDS.nodes // 4))
    text = 'joints:\n' + joints
    assert len(text) < CONFIG_BOUNDS.size
    with pytest.raises(YamlLimit, match='more than 10000 YAML nodes'):
        load_yaml(text)


VALID = [
    '', '# only a comment\n', '42', 'a: 1\nb: [1, 2.5, -3e-4, .inf, .nan]\n',
    'joints:\n  j1: {viscous: 0.1, coulomb: 0.2, offset: -0.01}\n',
    'a: &x {b: [1, {c: d}]}\ne: *x\n', 'x: 1\nx: 2\n',
    '- yes\n- no\n- null\n- ~\n- 0x1f\n- 0o17\n- 2020-01-02\n- "q"\n',
    'k: !!str 12\nf: !!float 1\n',
    '[[[[[[[[1]]]]]]]]', 'key with spaces: "\\u00e9\\u4e2d"\n',
    '--- \na: b\n...\n',
]


@pytest.mark.parametrize('text', VALID)
def test_within_bounds_it_loads_as_safe_load(text):
    expected = yaml.safe_load(text)
    loaded = load_yaml(text)
    if expected != expected or loaded != loaded:   # nan somewhere
        assert repr(loaded) == repr(expected)
    else:
        assert loaded == expected
        assert repr(loaded) == repr(expected)


def test_the_shipped_configs_load_as_safe_load():
    paths = glob.glob(os.path.join(REPO_ROOT, 'config', '*.yaml'))
    assert len(paths) >= 5
    for path in paths:
        with open(path, encoding='utf-8') as stream:
            text = stream.read()
        assert load_yaml(text) == yaml.safe_load(text), path


REFUSED = {
    'two documents': ('a: 1\n--- \nb: 2\n', 'more than one YAML document'),
    'python tag': ('a: !!python/object/apply:os.system [%s]\n' % MARKER,
                   'tagged other than !!seq or !!map at line 1'),
    'python scalar': ('a: !!python/name:os.system %s\n' % MARKER,
                      'not valid YAML (line 1'),
    'set tag': ('!!set {%s: null}\n' % MARKER, 'tagged other than'),
    'list key': ('? [%s]\n: 1\n' % MARKER, 'mapping key that is a list'),
    'merge key': ('a: {x: 1}\n<<: {%s: 1}\n' % MARKER, 'not valid YAML'),
    'unclosed': ('a: [1, %s\n' % MARKER, 'not valid YAML (line 2'),
    'unknown alias': ('a: *%s\n' % MARKER, 'alias to an unknown anchor'),
    'over the size': ('#' * (CONFIG_BOUNDS.size + 1),
                      'over the 1048576-character bound'),
}


@pytest.mark.parametrize('case', sorted(REFUSED))
def test_refusals_name_the_reason_never_the_text(case):
    text, reason = REFUSED[case]
    with pytest.raises(YamlLimit) as caught:
        load_yaml(text)
    assert reason in str(caught.value)
    assert MARKER not in str(caught.value)


def test_a_bound_is_the_callers():
    bounds = bounded_yaml.YamlBounds(size=100, depth=2, nodes=5)
    assert load_yaml('[[1, 2]]', bounds) == [[1, 2]]
    with pytest.raises(YamlLimit, match='deeper than 2 levels'):
        load_yaml('[[[1]]]', bounds)
    with pytest.raises(YamlLimit, match='more than 5 YAML nodes'):
        load_yaml('[1, 2, 3, 4, 5]', bounds)


def test_the_friction_file_reason_names_line_and_bound(tmp_path):
    from dynamics_ros.nodes.shared.friction_input import friction_file_reason
    path = tmp_path / 'deep.yaml'
    path.write_text(NESTED, encoding='utf-8')
    reason = friction_file_reason(str(path))
    assert reason.startswith('friction_file ')
    assert 'deep.yaml' in reason and 'line 1, column' in reason
    assert 'nested deeper than 32 levels (the bound)' in reason


def test_a_friction_file_is_parsed_once_while_unchanged(tmp_path,
                                                        monkeypatch):
    # The parameter check, the node's use and payload_estimation_node's
    # every estimate share one parse; a changed file is parsed again.
    from dynamics_ros.nodes.shared import friction_input
    parsed = []
    monkeypatch.setattr(friction_input, 'read_friction', lambda path: (
        parsed.append(path), read_friction(path))[1])
    path = tmp_path / 'friction.yaml'
    path.write_text('joints: {a: {viscous: 1.0}}\n', encoding='utf-8')
    first = friction_input.cached_friction(str(path))
    assert friction_input.friction_file_reason(str(path)) is None
    assert friction_input.cached_friction(str(path)) is first
    assert len(parsed) == 1
    path.write_text('joints: {a: {viscous: 2.0}}\n', encoding='utf-8')
    os.utime(path, ns=(1, 10 ** 18))   # a new modification time
    assert friction_input.cached_friction(str(path)).viscous[0] == 2.0
    assert len(parsed) == 2
