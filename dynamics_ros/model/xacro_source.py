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
"""

from contextlib import redirect_stderr, redirect_stdout
import io
import os
import re
import threading

from ..errors import ModelError

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


def expand_xacro(path, xacro_args=None):
    """Return the URDF XML text that xacro makes of the file ``path``."""
    mappings = parse_xacro_args(xacro_args)
    if not os.path.isfile(path):
        raise ModelError('xacro file %r does not exist' % path)
    try:
        import xacro
    except ImportError:
        raise ModelError('%r is a xacro file but the xacro package is not '
                         'installed (pip install xacro, or the ROS package '
                         'xacro)' % path)
    # xacro prints its warnings and error context; keep them for the error.
    messages = io.StringIO()
    with _XACRO_LOCK:
        try:
            with redirect_stderr(messages), redirect_stdout(messages):
                document = xacro.process_file(path, mappings=mappings)
            return document.toprettyxml(indent='  ')
        except Exception as error:  # xacro raises many types (XML, args)
            raise ModelError('xacro could not expand %r: %s' % (
                path, _reason(error)))


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
