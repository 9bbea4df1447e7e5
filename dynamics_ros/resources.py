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
Find the files the package ships, and read the files a user names safely.

In a source checkout the shipped files (URDFs, configs, launch files) sit
beside the package; after a colcon build or a pip install they are under
``<prefix>/share/dynamics_ros``.

``read_user_file`` is the one way a file named by a parameter
(``urdf_path``, ``flexible_config``, ``actuator_config``, ``friction_file``)
or by a Python caller is read: only a regular file (never a directory, a
FIFO, a device such as /dev/zero, a socket), at most ``limit`` bytes, read
once.  Its errors name the path and the fault, never the file's text.
``read_user_yaml`` reads every YAML file the package accepts (flexible
links, actuators, friction, excitation plans) through it and
``bounded_yaml.load_yaml``: bounded in size, depth and node count.
"""

import os
import stat
import sys

from .bounded_yaml import CONFIG_BOUNDS, load_yaml, YamlLimit
from .errors import ModelError, UnreadableFile

PACKAGE = 'dynamics_ros'
DEFAULT_ROBOT = 'puma560'
MIB = 1024 * 1024
# Largest URDF read from a file: the biggest real robot descriptions
# (humanoids with inline meshes' names, ~200 links) are below 2 MiB.
URDF_SIZE_LIMIT = 16 * MIB
# Largest YAML config (flexible links, actuators, friction): a few KiB each
# (bounded_yaml.CONFIG_BOUNDS also bounds its depth and node count).
CONFIG_SIZE_LIMIT = CONFIG_BOUNDS.size
# Characters of a user-given path quoted in an error message.
PATH_QUOTE_LIMIT = 120
FILE_KINDS = ((stat.S_ISDIR, 'a directory'), (stat.S_ISFIFO, 'a FIFO'),
              (stat.S_ISCHR, 'a character device'),
              (stat.S_ISBLK, 'a block device'), (stat.S_ISSOCK, 'a socket'))


def share_directories():
    """Candidate roots holding urdf/, config/ and launch/, best first."""
    source_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    roots = [source_root]
    prefixes = os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep)
    prefixes.append(sys.prefix)
    for prefix in prefixes:
        if prefix:
            roots.append(os.path.join(prefix, 'share', PACKAGE))
    return roots


def shipped_file(folder, name):
    """Path of ``folder/name`` in the first share directory that has it."""
    for root in share_directories():
        path = os.path.join(root, folder, name)
        if os.path.isfile(path):
            return path
    raise FileNotFoundError('%s/%s is not installed with %s (looked in %s)'
                            % (folder, name, PACKAGE,
                               ', '.join(share_directories())))


def robot_urdf(name=DEFAULT_ROBOT):
    """Path of a shipped robot: ``two_link_planar``, ``puma560``, ...."""
    if name.endswith('.urdf'):
        name = name[:-len('.urdf')]
    return shipped_file('urdf', name + '.urdf')


def quote_path(path):
    """Return the repr of a user-given path, cut to PATH_QUOTE_LIMIT."""
    text = str(path)
    if len(text) > PATH_QUOTE_LIMIT:
        return repr(text[:PATH_QUOTE_LIMIT]) + '...'
    return repr(text)


def _kind(mode):
    """Name what a non-regular file is (for an error message)."""
    for test, kind in FILE_KINDS:
        if test(mode):
            return kind
    return 'not a regular file'


def _size_text(limit):
    """Return a size limit in words: '4 MiB'."""
    if limit % MIB == 0:
        return '%d MiB' % (limit // MIB)
    return '%d bytes' % limit


def _check_regular(status, shown, what, limit):
    """Raise UnreadableFile unless ``status`` is a regular file in limit."""
    if not stat.S_ISREG(status.st_mode):
        raise UnreadableFile('%s %s is %s, not a regular file' % (
            what, shown, _kind(status.st_mode)))
    if status.st_size > limit:
        raise UnreadableFile('%s %s is %d bytes, over the %s limit' % (
            what, shown, status.st_size, _size_text(limit)))


def check_user_file(path, what, limit=CONFIG_SIZE_LIMIT):
    """
    Raise UnreadableFile unless ``path`` is a regular file within ``limit``.

    Only ``os.stat``: nothing is opened, so a FIFO or a device never blocks
    and is never read.  ``what`` names the file in the message (e.g.
    'URDF file', 'flexible_config').
    """
    if not isinstance(path, (str, os.PathLike)):
        raise UnreadableFile('%s must be a file path, got %s' % (
            what, type(path).__name__))
    path = os.fspath(path)
    shown = quote_path(path)
    if not path or '\0' in path:
        raise UnreadableFile('%s %s is not a file path' % (what, shown))
    try:
        status = os.stat(path)
    except FileNotFoundError:
        raise UnreadableFile('%s %s: no such file' % (what, shown))
    except OSError as error:
        raise UnreadableFile('%s %s cannot be read (%s)' % (
            what, shown, error.strerror or type(error).__name__))
    _check_regular(status, shown, what, limit)
    return path


def read_user_file(path, what, limit=CONFIG_SIZE_LIMIT,
                   encoding='utf-8'):
    """
    Return the text of the regular file ``path``, read once.

    Refused with UnreadableFile, a ModelError and an OSError (naming
    ``what`` and the path, never the text):
    a path that does not exist or cannot be read, a directory, a FIFO, a
    device (/dev/zero), a socket, a file over ``limit`` bytes, bytes that
    are not ``encoding`` text.  The file is checked with ``os.stat`` before
    it is opened, opened non-blocking (a FIFO swapped in after the check
    cannot block) and checked again on the open descriptor.
    """
    path = check_user_file(path, what, limit)
    shown = quote_path(path)
    flags = os.O_RDONLY | getattr(os, 'O_NONBLOCK', 0) | \
        getattr(os, 'O_CLOEXEC', 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        raise UnreadableFile('%s %s cannot be read (%s)' % (
            what, shown, error.strerror or type(error).__name__))
    try:
        _check_regular(os.fstat(descriptor), shown, what, limit)
        with os.fdopen(descriptor, 'rb', closefd=False) as stream:
            data = stream.read(limit + 1)
    except OSError as error:
        raise UnreadableFile('%s %s cannot be read (%s)' % (
            what, shown, error.strerror or type(error).__name__))
    finally:
        os.close(descriptor)
    if len(data) > limit:   # grew between the check and the read
        raise UnreadableFile('%s %s is over the %s limit' % (
            what, shown, _size_text(limit)))
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        # Never quote the bytes: the file may be anything (a key, a log).
        raise UnreadableFile('%s %s is not %s text' % (
            what, shown, 'UTF-8' if 'utf' in encoding.lower()
            else encoding))


def read_user_yaml(config, what, error=ModelError, text=True,
                   bounds=CONFIG_BOUNDS):
    """
    Return (data, directory, what) of YAML: a path, YAML text or a mapping.

    A dict is taken as it is; with ``text``, a string with a line break is
    YAML text; anything else is the path of a file, read with
    ``read_user_file`` (at most ``bounds.size`` bytes).  Returns the
    loaded data, the folder the config's relative paths start from (the
    file's, else the current one) and ``what`` to name it by in messages
    (with the path quoted for a file).  The text is loaded by
    ``bounded_yaml.load_yaml`` (depth and node count bounded); a YAML error
    or a bound passed raises ``error`` naming the file, the line and the
    reason, never the text.
    """
    directory = os.getcwd()
    if isinstance(config, dict):
        return config, directory, what
    source = config if isinstance(config, str) else str(config)
    if not (text and '\n' in source):
        directory = os.path.dirname(os.path.abspath(source))
        shown = '%s %s' % (what, quote_path(source))
        source = read_user_file(source, what, bounds.size)
        what = shown
    try:
        data = load_yaml(source, bounds)
    except YamlLimit as problem:
        raise error('%s %s' % (what, problem))
    return data, directory, what
