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
One parameter table per node: declared, checked and documented from it.

Unit part (no DDS): every numeric parameter is bounded (1e308 is no gain),
per-joint parameters take one value or one per joint, refusals name the
parameter and stay short, config/*.yaml fit the tables, and the node pages
of the docs (doc/nodes/<node>.md) hold what the tables render (drift fails
here; fix with ``python -m dynamics_ros.nodes.shared.parameter_reference
--render``).
"""

from array import array
import glob
import math
import os

from conftest import REPO_ROOT
from dynamics_ros.nodes.shared import parameter_reference as reference
from dynamics_ros.nodes.shared.parameter_reference import TABLES
from dynamics_ros.nodes.shared.parameters import problem, TYPE_NAMES
from dynamics_ros.reasons import REASON_CHARS
import pytest
import yaml

ROOT = REPO_ROOT
DOC_NODES = os.path.join(ROOT, 'doc', 'nodes')
NODES = sorted(TABLES)
NUMERIC = ('double', 'integer', 'per_joint', 'double[]')


class TwoJoints:
    """Stands in for a model: what the checks read of one."""

    nq = 2
    name = 'two'
    frames = {'base': 0, 'tip': 1}


def specs():
    """Yield (node, Spec) of every node's own parameters."""
    for node in NODES:
        for spec in reference.table(node):
            yield node, spec


def test_every_node_has_a_table_and_the_defaults_are_usable():
    for node, spec in specs():
        assert spec.description, (node, spec.name)
        assert spec.type in TYPE_NAMES, (node, spec.name)
        if spec.default is not None:
            assert problem(spec, spec.default) is None, (node, spec.name)
            assert problem(spec, spec.default, TwoJoints) is None, (
                node, spec.name)


@pytest.mark.parametrize('node,spec', [
    (node, spec) for node, spec in specs()
    if spec.type in ('double', 'per_joint')],
    ids=lambda x: getattr(x, 'name', x))
def test_numbers_are_bounded(node, spec):
    """1e308, NaN and -inf are refused by every number parameter."""
    for value in (1e308, math.nan, -math.inf):
        given = [value] if spec.type == 'per_joint' else value
        reason = problem(spec, given)
        assert reason is not None, (node, spec.name, value)
        assert reason.startswith(spec.name), reason
    assert spec.high is not None and math.isfinite(spec.high), spec.name


def test_per_joint_parameters_take_one_value_or_one_per_joint():
    per_joint = [(node, spec) for node, spec in specs()
                 if spec.type == 'per_joint']
    assert {spec.name for _, spec in per_joint} >= {
        'kp', 'kd', 'gain', 'thresholds', 'pos_kp', 'vel_max_integral_error'}
    for node, spec in per_joint:
        for value in (1.0, [1.0], [1.0, 2.0], 2, [1, 2], array('d', [1.0]),
                      array('q', [1, 2])):
            assert problem(spec, value, TwoJoints) is None, (spec.name, value)
        reason = problem(spec, [1.0, 2.0, 3.0], TwoJoints)
        assert reason == ('%s has 3 values: give 1 or one per joint (2)'
                          % spec.name), reason
        for value in ('fast', [True, 1.0], [], [-1.0]):
            reason = problem(spec, value, TwoJoints)
            assert reason and reason.startswith(spec.name), (spec.name,
                                                             value)


def test_refusals_quote_the_value_cut_short():
    long_name = 'x' * 100000
    for node, spec in specs():
        if spec.type == 'string':
            value = long_name
        elif spec.type in ('per_joint', 'double[]'):
            value = [math.nan] * 100000
        else:
            value = long_name   # a string where a number or bool belongs
        reason = problem(spec, value, TwoJoints)
        if reason is None:   # any string is a usable path, say
            continue
        assert len(reason) <= REASON_CHARS, (spec.name, len(reason))
        assert spec.name in reason


def test_the_integrator_refusal_names_the_choices():
    spec = reference.table('simulator_node')['integrator']
    assert problem(spec, 'euler') == \
        "integrator 'euler' is not one of rk4, semi_implicit_euler, adaptive"


def parameter_files():
    """Yield (path, node, {name: value}) of every node section in config/."""
    for path in sorted(glob.glob(os.path.join(ROOT, 'config', '*.yaml'))):
        with open(path, encoding='utf-8') as stream:
            content = yaml.safe_load(stream)
        for key, section in content.items():
            if not isinstance(section, dict) or \
                    'ros__parameters' not in section:
                continue
            yield path, key.split('/')[-1], flatten(
                section['ros__parameters'])


def flatten(values, prefix=''):
    """Return nested {a: {b: v}} as {'a.b': v}, as ROS 2 reads them."""
    flat = {}
    for name, value in values.items():
        if isinstance(value, dict):
            flat.update(flatten(value, prefix + name + '.'))
        else:
            flat[prefix + name] = value
    return flat


def test_config_files_fit_the_tables():
    model = reference.table(reference.MODEL_TABLE)
    checked = set()
    for path, node, values in parameter_files():
        table = reference.table(node)
        for name, value in values.items():
            spec = table[name] if name in table else model[name] \
                if name in model else None
            assert spec is not None, '%s: %s is not a parameter of %s' % (
                path, name, node)
            assert problem(spec, value) is None, (path, name, value)
            checked.add((node, name))
    assert {node for node, _ in checked} == set(NODES)
    assert ('simulator_node', 'publish_rate') in checked


def test_the_doc_pages_tables_are_rendered_from_the_node_tables():
    """Each node's page holds its table, rendered; the model's its own."""
    pages = {node: os.path.join(DOC_NODES, node + '.md') for node in NODES}
    pages[reference.MODEL_TABLE] = os.path.join(DOC_NODES,
                                                'model_parameters.md')
    for node, page in pages.items():
        with open(page, encoding='utf-8') as stream:
            text = stream.read()
        assert reference.sections(text) == [node], page
        assert reference.render(text) == text, \
            '%s: parameter table drifted from the node table: run python ' \
            '-m dynamics_ros.nodes.shared.parameter_reference --render' % page
    # Every section of every page, and no node's table twice.
    found = []
    for page in reference.doc_pages(ROOT):
        with open(page, encoding='utf-8') as stream:
            found += reference.sections(stream.read())
    assert sorted(found) == sorted(pages)
    # Without pages (a wrong default folder) --check would pass on none.
    assert reference.doc_pages() == reference.doc_pages(ROOT)
    assert reference.main(['--check']) == 0
    assert reference.main(['--check'] + sorted(pages.values())) == 0


def test_render_replaces_a_stale_section(tmp_path):
    stale = tmp_path / 'README.md'
    stale.write_text('before\n<!-- parameters:linearization_node begin -->\n'
                     '| rate | 100 |\n<!-- parameters:linearization_node end'
                     ' -->\nafter\n', encoding='utf-8')
    assert reference.main(['--check', str(stale)]) == 1
    assert reference.main(['--render', str(stale)]) == 0
    text = stale.read_text(encoding='utf-8')
    assert '| `rate` | double | `10.0` |' in text
    assert '| 100 |' not in text
    assert text.startswith('before\n') and text.endswith('-->\nafter\n')
    assert reference.main(['--check', str(stale)]) == 0
