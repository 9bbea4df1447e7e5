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
The node-reference tables of the docs, rendered from the node tables.

``python -m dynamics_ros.nodes.shared.parameter_reference --render [PAGE ...]``
rewrites the sections between ``<!-- parameters:<node> begin -->`` and
``<!-- parameters:<node> end -->`` of the pages (default: every Markdown
page under ``doc/``; each node's table is on its page ``doc/nodes/<node>.md``)
from each node's table (and the model parameters' ``model`` section from
ModelSource's definitions); ``--check`` exits 1 when one drifted
(test/nodes/shared/test_parameter_tables.py).
"""

import argparse
import glob
import importlib
import os
import re
import sys

from .parameters import ParameterTable, Spec

# Each node's table: the module beside the node that defines PARAMETERS.
TABLES = {
    'inverse_dynamics_node':
        'dynamics_ros.nodes.inverse_dynamics.parameters',
    'linearization_node': 'dynamics_ros.nodes.linearization.parameters',
    'simulator_node': 'dynamics_ros.nodes.simulator.parameters',
    'external_torque_node': 'dynamics_ros.nodes.external_torque.parameters',
    'payload_estimation_node':
        'dynamics_ros.nodes.payload_estimation.parameters',
}
MODEL_TABLE = 'model'   # the model parameters every node shares


def model_table():
    """
    Return the model parameters every node shares, as a ParameterTable.

    ModelSource (``shared/model_source.py``) declares and checks them; this table
    is read from its definitions, for the docs and the config check.
    """
    from .model_source import MODEL_PARAMETERS, PAYLOAD_PARAMETERS
    specs = []
    for name, (default, description) in {**MODEL_PARAMETERS,
                                         **PAYLOAD_PARAMETERS}.items():
        if isinstance(default, str):
            kind = 'string'
        elif isinstance(default, float):
            kind = 'double'
        elif isinstance(default, list):
            kind = 'double[]'
        else:   # declared unset with a type
            # rclpy's Parameter.Type is an IntEnum: str() of it is a
            # number on Python 3.11, its name says whether it is an array.
            kind = 'string[]' if 'ARRAY' in getattr(
                default, 'name', str(default)) else 'string'
            default = None
        specs.append(Spec(name, kind, default, description,
                          rebuilds='model', unset_ok=True))
    return ParameterTable(specs)


def table(node):
    """Return the ParameterTable of ``node`` ('model': the shared one)."""
    if node == MODEL_TABLE:
        return model_table()
    return importlib.import_module(TABLES[node]).PARAMETERS


def section_pattern(node):
    """Return the regex of a page section of ``node`` (begin ... end)."""
    return re.compile(r'(<!-- parameters:%s begin -->\n).*?(<!-- '
                      r'parameters:%s end -->)' % (node, node), re.S)


def render(text):
    """Return ``text`` with every parameters section rendered anew."""
    for node in (MODEL_TABLE,) + tuple(TABLES):
        text = section_pattern(node).sub(
            lambda match, node=node: '%s%s\n%s' % (
                match.group(1), table(node).markdown(), match.group(2)),
            text)
    return text


def sections(text):
    """Return the nodes whose section ``text`` has."""
    return [node for node in (MODEL_TABLE,) + tuple(TABLES)
            if section_pattern(node).search(text)]


def doc_pages(root=None):
    """Return the Markdown pages under ``doc/`` of the repository, sorted."""
    if root is None:
        here = os.path.abspath(__file__)   # dynamics_ros/nodes/shared/
        root = os.path.normpath(os.path.join(os.path.dirname(here), '..',
                                             '..', '..'))
    return sorted(glob.glob(os.path.join(root, 'doc', '**', '*.md'),
                            recursive=True))


def main(args=None):
    """Render the pages' parameter sections (--render) or check them."""
    parser = argparse.ArgumentParser(
        prog='python -m dynamics_ros.nodes.shared.parameter_reference',
        description='Render the parameter reference tables into the doc '
                    'pages.')
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument('--render', action='store_true',
                        help='rewrite the sections in place')
    action.add_argument('--check', action='store_true',
                        help='exit 1 if a section differs from its table')
    parser.add_argument('pages', nargs='*', help='Markdown files (default: '
                        'every page under doc/)')
    options = parser.parse_args(args)
    drifted = 0
    for page in options.pages or doc_pages():
        with open(page, encoding='utf-8') as stream:
            text = stream.read()
        rendered = render(text)
        if rendered == text:
            continue
        if options.check:
            sys.stderr.write('%s: parameter tables differ from the node '
                             'tables; run python -m dynamics_ros.nodes.'
                             'parameter_reference --render\n' % page)
            drifted = 1
        else:
            with open(page, 'w', encoding='utf-8') as stream:
                stream.write(rendered)
    return drifted


if __name__ == '__main__':
    raise SystemExit(main())
