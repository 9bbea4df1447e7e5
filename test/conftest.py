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

"""Shared pytest fixtures and the relative-tolerance check of the suite."""

import importlib.util
import os
import sys

import dynamics_ros as dr
import numpy as np
import oracle_record
import pytest

# The repository root (test modules live one folder below test/, by layer).
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def script_module(path):
    """Import the script at ``path`` (below the repository) as a module."""
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(REPO_ROOT, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assert_close(actual, expected, rtol=1e-9, what='', scale=None):
    """
    Assert ``actual`` equals ``expected`` to ``rtol`` relative (max norm).

    The scale is the largest entry of ``expected`` (at least 1e-12), so a
    vector with some near-zero entries is still held to the relative
    tolerance of its magnitude, as a relative norm check does.
    """
    actual = np.asarray(actual, dtype=float)
    expected = np.asarray(expected, dtype=float)
    assert actual.shape == expected.shape, '%s: shape %s != %s' % (
        what, actual.shape, expected.shape)
    if scale is None:
        scale = float(np.max(np.abs(expected), initial=0.0))
    scale = max(scale, 1e-12)
    error = float(np.max(np.abs(actual - expected), initial=0.0))
    assert error <= rtol * scale, '%s: max error %.3e > %.1e x %.3e' % (
        what, error, rtol, scale)


def single_joint(inertia):
    """One revolute joint about z driving a disc of ``inertia``, no g."""
    return dr.RobotModel(
        joint_names=['joint'], body_names=['disc'], parent=[-1],
        joint_type=[dr.REVOLUTE], axis=[[0.0, 0.0, 1.0]],
        origin_rotation=[np.eye(3)], origin_translation=[[0.0, 0.0, 0.0]],
        mass=[1.0], com=[[0.0, 0.0, 0.0]],
        inertia_com=[np.diag([1.0, 1.0, inertia])], gravity=np.zeros(3))


def textbook_motor(motor, load):
    """
    Return (A, B) of a geared DC motor driving an inertia ``load``.

    State (q, w, i) at the joint, input V: J w' = -n^2 b_m w + n k_t i,
    L i' = -k_e n w - R i + V, J = load + n^2 J_m (``motor``: a YAML
    entry of model/actuators.py).
    """
    n, kt, ke = motor['gear_ratio'], motor['torque_constant'], \
        motor['back_emf']
    R, L, Jm, bm = motor['resistance'], motor['inductance'], \
        motor['rotor_inertia'], motor['damping']
    J = load + n * n * Jm
    A = np.array([[0.0, 1.0, 0.0], [0.0, -n * n * bm / J, n * kt / J],
                  [0.0, -ke * n / L, -R / L]])
    return A, np.array([0.0, 0.0, 1.0 / L])


def central_difference(function, x, eps=1e-6):
    """Jacobian of ``function`` at ``x`` by central differences."""
    columns = []
    for e in np.eye(x.size):
        columns.append((function(x + eps * e) - function(x - eps * e))
                       / (2.0 * eps))
    return np.array(columns).T


def starts_ros_nodes(path):
    """Whether the test module at ``path`` starts ROS 2 nodes over DDS."""
    # The node tests run their nodes through ros_harness (test/nodes/ and
    # its folders, one per node sub-package).
    folders = os.path.relpath(os.path.dirname(str(path)),
                              os.path.dirname(__file__)).split(os.sep)
    if folders[0] != 'nodes':
        return False
    with open(str(path)) as stream:
        return 'ros_harness' in stream.read()


@pytest.fixture(scope='module', autouse=True)
def stop_leftover_nodes(request):
    """
    After each module, stop any node process it left running.

    Then give back the ROS_DOMAIN_IDs it took (at import, named after it,
    or while it ran).
    """
    # ros_harness imports rclpy: only modules that start nodes load it.
    harness = sys.modules.get('ros_harness')
    held = harness.held_domain_ids() if harness is not None else set()
    yield
    harness = sys.modules.get('ros_harness')
    if harness is not None:
        harness.stop_leftover_nodes()
        harness.release_domain_ids(request.module.__name__, held)


# The longest test files (`pytest --durations`, quiet 2-core machine), run
# first: `make test`'s workers (pytest-xdist, whole files) then end
# together instead of one of them starting the longest file last.
LONGEST_FIRST = (
    'ros2_tools/test_documented_commands.py',
    'nodes/test_lockstep.py',
    'nodes/test_payload_loop.py',
    'nodes/test_first_start.py',
    'nodes/test_node_safety.py',
    'identification/test_identification_end_to_end.py',
)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """
    Give back the ROS_DOMAIN_IDs a test's own body took, once it ends.

    Its nodes are stopped first (a test that failed may have left them).
    Ids taken by fixtures (set up before the call) stay until their module
    ends: the fixture's nodes may still need them.
    """
    harness = sys.modules.get('ros_harness')
    held = harness.held_domain_ids() if harness is not None else None
    running = list(harness.RUNNING) if harness is not None else None
    yield
    harness = sys.modules.get('ros_harness')
    if harness is None:
        return
    for node in list(harness.RUNNING):
        if running is None or node not in running:
            node.stop()
    harness.release_domain_ids(None, held if held is not None else
                               harness.held_domain_ids())


def pytest_collection_modifyitems(config, items):
    """Mark the tests of modules that start nodes ``ros``; longest first."""
    # `make test-distro` leaves them out with -m 'not ros' (see Makefile).
    verdicts = {}
    for item in items:
        path = str(item.fspath)
        if path not in verdicts:
            verdicts[path] = starts_ros_nodes(path)
        if verdicts[path]:
            item.add_marker('ros')

    def rank(item):
        path = str(item.fspath).replace(os.sep, '/')
        for index, name in enumerate(LONGEST_FIRST):
            if path.endswith('/' + name):
                return index
        return len(LONGEST_FIRST)
    items.sort(key=rank)   # stable: the order within a rank stays


# Pinocchio's answers recorded or replayed (test/oracle_record.py) belong to
# the test or wider fixture that asked them; live (make test) none of this
# runs.
RECORDING = oracle_record.MODE in ('record', 'replay', 'verify')


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Attribute a test's Pinocchio calls (setup to teardown) to it."""
    if not RECORDING:
        yield
        return
    oracle_record.start_test(item.nodeid)
    old = oracle_record.set_context(item.nodeid)
    try:
        yield
    finally:
        oracle_record.set_context(old)


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    """Attribute a module or session fixture's Pinocchio calls to it."""
    if not RECORDING or fixturedef.scope == 'function':
        yield
        return
    # The same fixture and parameter, whichever test sets it up first.
    context = '%s::%s[%d]' % (request.node.nodeid, fixturedef.argname,
                              getattr(request, 'param_index', 0))
    oracle_record.start_fixture(context)
    old = oracle_record.set_context(context)
    try:
        yield
    finally:
        oracle_record.set_context(old)


def pytest_sessionfinish(session):
    """Record mode: write the Pinocchio calls of the modules run."""
    for path in oracle_record.write():
        print('oracle calls: %s' % os.path.relpath(path, REPO_ROOT))
