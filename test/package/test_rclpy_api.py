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
Every rclpy name the package uses exists in the installed rclpy.

requirements.txt allows two ROS 2 releases: Jazzy (rclpy 7.1, `make
test-distro`) and Kilted (rclpy 9.1, `make test`); this module runs in both
(it starts no node), so each release is checked against the code:

- every ``rclpy....`` name the sources reach (``from rclpy.x import y``,
  ``rclpy.x.y``) resolves, and each keyword a call passes to it is one its
  signature takes;
- every method of a node the nodes call (``NODE_API``: create_subscription
  with ``raw`` and ``event_callbacks``, the parameter callbacks, ...) is a
  method of rclpy's Node taking those keywords. ``NODE_API`` is kept
  complete by a scan: a Node method the nodes call that it does not list
  fails the test.

Run as a script, it prints what it checks.
"""

import ast
import importlib
import inspect
import os
import sys

# The repository (not conftest's REPO_ROOT: this file also runs as a script).
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# Folders whose Python files are scanned.
SCANNED = ['dynamics_ros', 'test', 'benchmarks', 'launch', 'scripts']
# What the nodes call on their rclpy Node (self.<name>(...) or
# node.<name>(...)), with the keywords they pass.
NODE_API = {
    'add_on_set_parameters_callback': set(),
    'add_post_set_parameters_callback': set(),
    'create_client': set(),
    'create_publisher': set(),
    'create_service': set(),
    'create_subscription': {'raw', 'event_callbacks'},
    'create_timer': {'clock'},
    'declare_parameter': set(),
    'destroy_node': set(),
    'get_clock': set(),
    'get_logger': set(),
    'get_name': set(),
    'get_namespace': set(),
    'get_parameter': set(),
    'has_parameter': set(),
    'resolve_topic_name': set(),
    'set_parameters_atomically': set(),
}
# Attributes of Node that are not methods called by name of Node alone
# (``handle``: every rclpy entity has one; the scan sees other objects').
SHARED_NAMES = {'handle'}


def python_files():
    """Yield the repository's Python files under ``SCANNED``."""
    for folder in SCANNED:
        for root, dirs, files in os.walk(os.path.join(REPO_ROOT, folder)):
            dirs[:] = [d for d in dirs if not d.startswith(('.', '__'))]
            for name in sorted(files):
                if name.endswith('.py'):
                    yield os.path.join(root, name)


def dotted(node, aliases):
    """Return the dotted rclpy name of an expression, or None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return '.'.join([aliases[node.id]] + parts[::-1])


SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def in_scope(scope):
    """Yield the nodes of ``scope``, not those of the scopes it holds."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def imported(scope, aliases, uses):
    """Return ``aliases`` updated with the rclpy imports of ``scope``."""
    aliases = dict(aliases)
    for node in in_scope(scope):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split('.')[0] == 'rclpy':
                    aliases[alias.asname or 'rclpy'] = (
                        alias.name if alias.asname else 'rclpy')
        elif isinstance(node, ast.ImportFrom) and node.module and \
                node.module.split('.')[0] == 'rclpy':
            for alias in node.names:
                name = '%s.%s' % (node.module, alias.name)
                aliases[alias.asname or alias.name] = name
                uses.setdefault(name, set())
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            # Another package's name shadows an rclpy one (launch_ros'
            # Node in a function of a module that imports rclpy's).
            for alias in node.names:
                aliases.pop(alias.asname or alias.name.split('.')[0], None)
    return aliases


def scan(scope, aliases, uses):
    """Add to ``uses`` the rclpy names ``scope`` and its scopes reach."""
    aliases = imported(scope, aliases, uses)
    for node in in_scope(scope):
        if isinstance(node, SCOPES):
            scan(node, aliases, uses)
        elif isinstance(node, ast.Call):
            name = dotted(node.func, aliases)
            if name:
                uses.setdefault(name, set()).update(
                    k.arg for k in node.keywords if k.arg)
        elif isinstance(node, ast.Attribute):
            name = dotted(node, aliases)
            if name:
                uses.setdefault(name, set())


def rclpy_uses(path):
    """Return {dotted rclpy name: keywords passed to it} used in ``path``."""
    with open(path) as stream:
        tree = ast.parse(stream.read(), path)
    uses = {}
    scan(tree, {}, uses)
    return uses


def all_rclpy_uses():
    """Return {dotted name: (keywords, [files])} over the scanned files."""
    found = {}
    for path in python_files():
        for name, keywords in rclpy_uses(path).items():
            entry = found.setdefault(name, (set(), []))
            entry[0].update(keywords)
            entry[1].append(os.path.relpath(path, REPO_ROOT))
    return found


def resolve(name):
    """Return the object ``name`` (a.b.c) names, or raise LookupError."""
    parts = name.split('.')
    for cut in range(len(parts), 0, -1):
        try:
            target = importlib.import_module('.'.join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            if not hasattr(target, part):
                raise LookupError('%s has no %s' % (
                    '.'.join(parts[:cut]), '.'.join(parts[cut:])))
            target = getattr(target, part)
        return target
    raise LookupError('no module %s' % name)


def missing_keywords(target, keywords):
    """Return the ``keywords`` the callable ``target`` does not take."""
    if not keywords:
        return set()
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return set()    # a C function: nothing to compare against
    parameters = signature.parameters.values()
    if any(p.kind == p.VAR_KEYWORD for p in parameters):
        return set()
    return set(keywords) - {p.name for p in parameters}


def node_method_calls():
    """Return {Node method name: keywords} called in dynamics_ros/nodes."""
    from rclpy.node import Node
    calls = {}
    for path in python_files():
        if os.sep + os.path.join('dynamics_ros', 'nodes') + os.sep not in path:
            continue
        with open(path) as stream:
            tree = ast.parse(stream.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and \
                    isinstance(node.func, ast.Attribute) and \
                    not node.func.attr.startswith('_') and \
                    node.func.attr not in SHARED_NAMES and \
                    callable(getattr(Node, node.func.attr, None)):
                calls.setdefault(node.func.attr, set()).update(
                    k.arg for k in node.keywords if k.arg)
    return calls


def release():
    """Return 'rclpy X.Y.Z' of the installed rclpy."""
    from importlib.metadata import version
    return 'ros-rclpy %s' % version('ros-rclpy')


def test_every_rclpy_name_the_sources_use_exists():
    """Each rclpy name resolves, and takes the keywords passed to it."""
    uses = all_rclpy_uses()
    # The scan sees what the nodes need; a scan that found nothing would
    # pass on any rclpy.
    assert {'rclpy.experimental.EventsExecutor',
            'rclpy.serialization.deserialize_message',
            'rclpy.event_handler.SubscriptionEventCallbacks'} <= set(uses)
    problems = []
    for name, (keywords, files) in sorted(uses.items()):
        try:
            target = resolve(name)
        except LookupError as error:
            problems.append('%s (%s): %s' % (name, files[0], error))
            continue
        if inspect.isclass(target):
            target = target.__init__
        bad = missing_keywords(target, keywords)
        if bad:
            problems.append('%s (%s): no keyword %s' % (
                name, files[0], sorted(bad)))
    assert not problems, '%s lacks:\n%s' % (release(), '\n'.join(problems))


def test_node_methods_the_nodes_call_exist():
    """NODE_API's methods exist on rclpy's Node with those keywords."""
    from rclpy.node import Node
    problems = []
    for name, keywords in sorted(NODE_API.items()):
        method = getattr(Node, name, None)
        if not callable(method):
            problems.append('Node.%s' % name)
            continue
        bad = missing_keywords(method, keywords)
        if bad:
            problems.append('Node.%s: no keyword %s' % (name, sorted(bad)))
    assert not problems, '%s lacks: %s' % (release(), problems)


def test_node_api_lists_every_node_method_called():
    """A Node method the nodes call, or a keyword, is in NODE_API."""
    unlisted = {name: sorted(keywords - NODE_API.get(name, set()))
                for name, keywords in node_method_calls().items()
                if name not in NODE_API or keywords - NODE_API[name]}
    assert not unlisted, 'add to NODE_API: %s' % unlisted


def main():
    """Print the rclpy names and Node methods checked, and any missing."""
    import rclpy  # noqa: F401 - the installed release
    print(release())
    for name, (keywords, files) in sorted(all_rclpy_uses().items()):
        try:
            resolve(name)
            verdict = 'ok'
        except LookupError as error:
            verdict = 'MISSING: %s' % error
        print('%-55s %-30s %s' % (name, ','.join(sorted(keywords)), verdict))
    from rclpy.node import Node
    for name, keywords in sorted(NODE_API.items()):
        print('%-55s %-30s %s' % ('Node.' + name, ','.join(sorted(keywords)),
                                  'ok' if hasattr(Node, name) else 'MISSING'))


if __name__ == '__main__':
    sys.exit(main())
