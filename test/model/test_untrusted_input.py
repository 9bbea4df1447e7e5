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
Untrusted input stays data (never a path or code), without ROS.

Every loader of a file a user names (URDF, xacro, flexible, actuator and
friction configs) refuses a directory, a FIFO and /dev/zero without opening
them, and a file over its size cap; no error quotes a file's text.  Text
that comes from a topic or parameter is URDF XML only: a path or a xacro
expression is refused and neither read nor given to xacro.  Kane's
generated source carries no name as code.  URDF numbers are ASCII doubles.
"""

import ast
import builtins
import os
import threading

from conftest import assert_close, REPO_ROOT
import dynamics_ros as dr
from dynamics_ros import resources
from dynamics_ros.dynamics.friction import read_friction
from dynamics_ros.errors import UnreadableFile
from dynamics_ros.flexible.config import load_flexible, read_config
from dynamics_ros.formulations import kane
from dynamics_ros.model import xacro_source
from dynamics_ros.model.actuators import load_actuators, \
    read_actuator_config
from dynamics_ros.model.urdf import description_text, load_urdf, urdf_text
import numpy as np
import pytest

URDF_DIR = os.path.join(REPO_ROOT, 'urdf')
TWO_LINK_PATH = os.path.join(URDF_DIR, 'two_link_planar.urdf')
with open(TWO_LINK_PATH, encoding='utf-8') as _stream:
    TWO_LINK = _stream.read()
# Text that must never reach a message: if it does, a file was quoted.
MARKER = 'MARKER_7f3e9c_SECRET'
# A refusal is an os.stat: it ends at once.  Reading /dev/zero takes
# seconds and gigabytes, and opening a FIFO blocks until a writer comes;
# one second separates the two on any machine.
REFUSAL_SECONDS = 1.0

# Every loader of a user-named file, as a Python caller reaches it.
LOADERS = {
    'load_urdf': load_urdf,
    'urdf_text': urdf_text,
    'urdf_text .xacro': lambda path: urdf_text(path, None),
    'load_flexible': lambda path: load_flexible(
        path, model=dr.load_urdf(TWO_LINK)),
    'read_config': read_config,
    'read_actuator_config': read_actuator_config,
    'load_actuators': lambda path: load_actuators(
        path, dr.load_urdf(TWO_LINK)),
    'read_friction': read_friction,
}


@pytest.fixture
def opened(monkeypatch):
    """Record every path opened by open() or os.open() during the test."""
    paths = []
    real_open, real_os_open = builtins.open, os.open

    def spy_open(file, *args, **kwargs):
        paths.append(os.fspath(file) if isinstance(
            file, (str, bytes, os.PathLike)) else file)
        return real_open(file, *args, **kwargs)

    def spy_os_open(path, *args, **kwargs):
        paths.append(os.fspath(path))
        return real_os_open(path, *args, **kwargs)
    monkeypatch.setattr(builtins, 'open', spy_open)
    monkeypatch.setattr(os, 'open', spy_os_open)
    return paths


@pytest.fixture
def special_files(tmp_path):
    """Return a FIFO, a directory and /dev/zero: never regular files."""
    fifo = str(tmp_path / 'robot.urdf')
    os.mkfifo(fifo)
    folder = tmp_path / 'folder.yaml'
    folder.mkdir()
    return {'/dev/zero': ('/dev/zero', 'a character device'),
            'FIFO': (fifo, 'a FIFO'),
            'directory': (str(folder), 'a directory')}


def finished_in_time(call):
    """Run ``call`` in a thread; return its exception, fail if it hangs."""
    outcome = {}

    def run():
        try:
            call()
        except Exception as error:  # the refusal under test
            outcome['error'] = error
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(REFUSAL_SECONDS)
    assert not thread.is_alive(), 'still reading after %g s' % \
        REFUSAL_SECONDS
    return outcome.get('error')


@pytest.mark.parametrize('loader', sorted(LOADERS))
@pytest.mark.parametrize('kind', ['/dev/zero', 'FIFO', 'directory'])
def test_special_files_are_refused_unopened(loader, kind, special_files,
                                            opened, tmp_path):
    path, what = special_files[kind]
    if loader == 'urdf_text .xacro':
        if kind == '/dev/zero':
            path = str(tmp_path / 'zero.urdf.xacro')
            os.symlink('/dev/zero', path)
        else:
            renamed = path + '.xacro'
            os.rename(path, renamed)
            path = renamed
    error = finished_in_time(lambda: LOADERS[loader](path))
    assert isinstance(error, dr.ModelError), repr(error)
    assert what in str(error) or 'is a directory' in str(error), str(error)
    assert os.path.realpath(path) not in map(os.path.realpath, filter(
        lambda p: isinstance(p, str), opened)), 'opened %s' % path


def test_the_reader_refuses_unopened_and_caps_the_size(tmp_path, opened):
    for path, kind in (('/dev/zero', 'a character device'),
                       (str(tmp_path), 'a directory')):
        with pytest.raises(UnreadableFile, match=kind):
            resources.read_user_file(path, 'test file')
    # A sparse file: over the cap in size, nothing on the disk.
    big = tmp_path / 'big.urdf'
    with open(big, 'wb') as stream:
        stream.truncate(resources.URDF_SIZE_LIMIT + 1)
    with pytest.raises(dr.ModelError, match='over the 16 MiB limit'):
        load_urdf(str(big))
    with pytest.raises(dr.ModelError, match='over the 1 MiB limit'):
        read_actuator_config(str(big))
    assert opened == [str(big)]   # written above; never opened to read
    # UnreadableFile is an OSError too: callers of read_friction that
    # handled a missing file keep doing so.
    with pytest.raises(OSError, match='no such file'):
        read_friction(str(tmp_path / 'missing.yaml'))


def test_a_regular_file_is_read_once(tmp_path, opened):
    path = tmp_path / 'robot.urdf'
    path.write_text(TWO_LINK, encoding='utf-8')
    opened.clear()
    model = load_urdf(str(path))
    assert model.joint_names == ['shoulder', 'elbow']
    assert opened == [str(path)]


@pytest.mark.parametrize('content', [
    'root:x:0:0:%s:/root:/bin/bash\n' % MARKER,        # /etc/passwd
    '%s: [unclosed\n' % MARKER,                         # YAML error
    '- %s\n- 2\n' % MARKER,                             # a list
    'secret: %s\n' % MARKER,                            # another mapping
    '<%s attribute="1"/>\n' % MARKER,                   # XML, not a robot
    '\x00\xff%s\xfe' % MARKER,                          # binary
])
@pytest.mark.parametrize('loader', sorted(
    set(LOADERS) - {'urdf_text', 'urdf_text .xacro'}))
def test_no_file_text_in_any_error(loader, content, tmp_path):
    """A ModelError, or read_friction's ValueError: never the text."""
    path = tmp_path / 'secret.txt'
    path.write_bytes(content.encode('latin-1'))
    with pytest.raises(ValueError) as error:
        LOADERS[loader](str(path))
    assert MARKER not in str(error.value)
    if loader != 'load_urdf':
        # A config's errors name it; a URDF's name the link or joint.
        assert 'secret.txt' in str(error.value)


@pytest.mark.parametrize('text', [
    TWO_LINK_PATH,                          # a path to a real URDF
    '/etc/hostname',
    'robot.urdf.xacro',
    'urdf/two_link_planar.urdf',
    '$(env HOME)',
    "${xacro.load_yaml('/etc/hostname')}",
    '',
    '   \n',
])
def test_descriptions_from_outside_are_xml_only(text, opened, monkeypatch):
    """Topic and parameter text is never read as a path nor expanded."""
    ran = []
    monkeypatch.setattr(xacro_source, 'expand_xacro',
                        lambda *args, **kwargs: ran.append(args))
    import xacro
    for name in ('process_file', 'process_doc', 'parse'):
        monkeypatch.setattr(xacro, name,
                            lambda *args, **kwargs: ran.append(args))
    for call in (description_text,
                 lambda text: load_urdf(text, text_only=True)):
        with pytest.raises(dr.ModelError,
                           match='robot description is not URDF XML') as e:
            call(text)
        assert len(str(e.value)) < 200
        if text.strip():
            assert text.strip() not in str(e.value)
    assert not ran
    assert not opened


def test_xacro_text_is_refused_and_not_expanded(tmp_path, monkeypatch):
    """
    XML with xacro elements on the text entry: refused, xacro never runs.

    The same document as a file the caller names is expanded (the trusted
    path), which is what makes the spy meaningful.
    """
    document = ('<robot xmlns:xacro="http://www.ros.org/wiki/xacro" '
                'name="arm"><xacro:property name="m" value="2.0"/>'
                '<link name="base"/><link name="l1"><inertial><mass '
                'value="${m}"/><inertia ixx="1" iyy="1" izz="1" ixy="0" '
                'ixz="0" iyz="0"/></inertial></link><joint name="j1" '
                'type="revolute"><parent link="base"/><child link="l1"/>'
                '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" '
                'velocity="1"/></joint></robot>')
    real = xacro_source.expand_xacro
    ran = []

    def spy(*args, **kwargs):
        ran.append(args[0])
        return real(*args, **kwargs)
    monkeypatch.setattr('dynamics_ros.model.urdf.expand_xacro', spy)
    with pytest.raises(dr.ModelError, match='still contains xacro'):
        load_urdf(document, text_only=True)
    assert not ran
    path = tmp_path / 'arm.urdf.xacro'
    path.write_text(document, encoding='utf-8')
    model = load_urdf(str(path))
    assert ran == [str(path)]
    assert model.mass[0] == 2.0
    with pytest.raises(dr.ModelError, match='not URDF XML'):
        load_urdf(str(path), text_only=True)
    assert ran == [str(path)]


def test_kane_takes_hostile_names_as_data():
    """A name that closes the docstring or a list is text, not code."""
    robot = 'x""",exit(7),"""'
    joints = ["j'],exit(7),['", 'a b c d e f g h i j k l m n o p q r s t '
              'u v w x y z ' * 3 + '"""\\n\'']
    xml = TWO_LINK.replace('name="two_link_planar"', 'name=%s' % _attr(
        robot))
    xml = xml.replace('"shoulder"', _attr(joints[0])).replace(
        '"elbow"', _attr(joints[1]))
    model = load_urdf(xml)
    assert model.name == robot and model.joint_names == joints
    source = kane.kane_source(model)
    assert robot not in source
    calls = [node.func.id for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.Call) and hasattr(node.func, 'id')]
    assert 'exit' not in calls
    equations = kane.kane_equations(model)    # exec'ed: the process lives
    assert equations.joint_names == joints
    q, qd, qdd = np.array([0.3, -0.4]), np.array([0.1, 0.2]), \
        np.array([-0.5, 0.7])
    assert_close(equations.inverse_dynamics(q, qd, qdd),
                 dr.inverse_dynamics(model, q, qd, qdd), 1e-10)


def _attr(text):
    """Return ``text`` as a quoted XML attribute value."""
    return '"%s"' % text.replace('&', '&amp;').replace('"', '&quot;')


@pytest.mark.parametrize('where, old, new, named', [
    ('mass', 'value="2.0"', 'value="1_000"', "link 'upper_link'"),
    ('mass', 'value="2.0"', 'value="\u0662.0"', "link 'upper_link'"),
    ('inertia', 'izz="0.16666666666666666"', 'izz="\uff11"',
     "link 'upper_link'"),
    ('origin', 'xyz="1.0 0 0"', 'xyz="1.0 0 \u0660"', "joint 'elbow'"),
    ('limit', 'effort="60"', 'effort="6_0"', "joint 'shoulder'"),
])
def test_urdf_numbers_are_ascii_doubles(where, old, new, named):
    assert old in TWO_LINK, old
    with pytest.raises(dr.ModelError, match='is not (a number|3 numbers)') \
            as error:
        load_urdf(TWO_LINK.replace(old, new, 1))
    assert named in str(error.value)
    assert new.split('=')[0] in str(error.value)


def test_usual_number_forms_still_parse():
    xml = TWO_LINK.replace('value="2.0"', 'value=" +2.0E0 "', 1)
    assert load_urdf(xml).mass[0] == 2.0
    with pytest.raises(dr.ModelError, match='non-finite'):
        load_urdf(TWO_LINK.replace('izz="0.16666666666666666"', 'izz="nan"',
                                   1))
