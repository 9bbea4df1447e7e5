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
Expand a .xacro robot description with the real xacro, in this process.

``xacro_args`` are the ``name:=value`` arguments of the ``xacro`` command
line, as a dict or a list of ``'name:=value'`` strings.  ``$(find pkg)``
resolves through the ament index (``AMENT_PREFIX_PATH``), as xacro does in
a ROS 2 workspace.  Every failure - a missing package, an undefined
argument, a macro error, malformed XML - is a ModelError naming the file.

xacro evaluates code: ``${...}`` expressions are Python, and ``$(env)``,
``xacro.load_yaml`` and includes read the environment and other files.  It
is therefore only run on a file a user named (``load_urdf`` / ``urdf_text``
with a path, the nodes' ``urdf_path`` parameter), never on text that
arrived on a topic or a parameter.  The file itself is read once with
``read_user_file`` (a regular file of at most URDF_SIZE_LIMIT bytes).
"""

from contextlib import redirect_stderr, redirect_stdout
import io
import os
import re
import threading

from ..errors import ModelError
from ..resources import quote_path, read_user_file, URDF_SIZE_LIMIT

# xacro keeps its argument table and file stack in module globals.
_XACRO_LOCK = threading.Lock()


def is_xacro_path(source):
    """Return True when ``source`` names a .xacro file (not XML text)."""
    return isinstance(source, str) and not source.lstrip().startswith('<') \
        and source.rstrip().endswith('.xacro')


def parse_xacro_args(xacro_args):
    """
    Return xacro arguments as a {name: value} dict of strings.

    Accepts None, a dict, or a list of ``'name:=value'`` strings (the form
    of the xacro command line and of the nodes' ``xacro_args`` parameter).
    """
    if not xacro_args:
        return {}
    if isinstance(xacro_args, dict):
        return {str(name): str(value) for name, value in xacro_args.items()}
    if isinstance(xacro_args, str):
        xacro_args = [xacro_args]
    mappings = {}
    for item in xacro_args:
        name, separator, value = str(item).partition(':=')
        if not separator or not name.strip():
            raise ModelError('xacro argument %r is not of the form '
                             'name:=value' % (item,))
        mappings[name.strip()] = value
    return mappings


def expand_xacro(path, xacro_args=None, text=None):
    """
    Return the URDF XML text that xacro makes of the file ``path``.

    ``text`` is the file's text when the caller has read it already (with
    ``read_user_file``); otherwise the file is read here, once.  Includes
    and ``$(dirname)`` resolve relative to ``path``, as with the xacro
    command.
    """
    mappings = parse_xacro_args(xacro_args)
    shown = quote_path(path)
    if text is None:
        if not os.path.lexists(path):
            raise ModelError('xacro file %s does not exist' % shown)
        text = read_user_file(path, 'xacro file', URDF_SIZE_LIMIT,
                              encoding='utf-8-sig')
    try:
        import xacro
    except ImportError:
        raise ModelError('%s is a xacro file but the xacro package is not '
                         'installed (pip install xacro, or the ROS package '
                         'xacro)' % shown)
    # xacro prints its warnings and error context; keep them for the error.
    messages = io.StringIO()
    with _XACRO_LOCK:
        try:
            with redirect_stderr(messages), redirect_stdout(messages):
                # What xacro.process_file does, on the text read above.
                xacro.init_stacks(os.path.abspath(path))
                document = xacro.parse(text.lstrip('\ufeff'))
                xacro.process_doc(document, mappings=mappings)
            return document.toprettyxml(indent='  ')
        except Exception as error:  # xacro raises many types (XML, args)
            raise ModelError('xacro could not expand %s: %s' % (
                shown, _reason(error)))


def _reason(error):
    """One line saying why xacro failed, without repeating itself."""
    inner = getattr(error, 'exc', None)   # XacroException wraps a cause
    text = str(error.args[0]) if inner is not None and error.args and \
        str(inner) in str(error.args[0]) else str(error)
    text = re.sub(r"<class '(?:[\w]+\.)*(\w+)'>", r'\1', text)
    text = ' '.join(text.split()) or type(error).__name__
    if 'AMENT_PREFIX_PATH' in text or 'PackageNotFound' in repr(
            inner or error):
        text += ' ($(find) looks packages up in the ament index: is the ' \
                'workspace that has them sourced? AMENT_PREFIX_PATH=%r)' % \
                os.environ.get('AMENT_PREFIX_PATH', '')
    return text
