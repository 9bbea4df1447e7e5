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
No source text is run: the package calls neither ``exec`` nor ``eval``.

Code built as text cannot be stepped into by a debugger, is not checked by
the linters and, with a user's value in it, runs what the user wrote.
``ast.literal_eval`` (it reads literals, it runs nothing) is allowed.
"""

import ast
import glob
import os
import re

from conftest import REPO_ROOT

PACKAGE = os.path.join(REPO_ROOT, 'dynamics_ros')
# exec( or eval( as a name of its own (not literal_eval, not a method
# such as a cursor's .execute), also as builtins.eval( or getattr forms.
CALL = re.compile(r'(?<![\w])(?:builtins\s*\.\s*)?(exec|eval)\s*\(')
NAMED = re.compile('[\'"](exec|eval)[\'"]')


def calls_in(text):
    """Return the (line, what) of exec/eval calls in source ``text``."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        code = line.split('#', 1)[0]
        for match in CALL.finditer(code):
            start = match.start()
            if code[:start].rstrip().endswith('.') and \
                    not code[:start].rstrip().endswith('builtins.'):
                continue   # a method of some object: obj.eval(...)
            found.append((number, line.strip()))
        if NAMED.search(code) and 'getattr' in code:
            found.append((number, line.strip()))
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Name) and node.id in ('exec', 'eval'):
            found.append((node.lineno, 'the name %s' % node.id))
    return sorted(set(found))


def test_the_check_finds_exec_and_eval():
    """The check sees the forms it is for and passes literal_eval."""
    assert calls_in('x = eval("1")\n')
    assert calls_in('exec(code, {})\n')
    assert calls_in('import builtins\nbuiltins.eval("1")\n')
    assert calls_in('run = eval\n')
    assert calls_in("f = getattr(builtins, 'exec')\n")
    assert not calls_in('import ast\nx = ast.literal_eval("[1]")\n')
    assert not calls_in('cursor.execute(query)  # not exec(\n')
    assert not calls_in('model.eval()\n')


def test_no_exec_or_eval_in_the_package():
    """No module of dynamics_ros runs source text."""
    paths = sorted(glob.glob(os.path.join(PACKAGE, '**', '*.py'),
                             recursive=True))
    assert len(paths) > 100   # the package, not an empty folder
    found = {}
    for path in paths:
        with open(path, encoding='utf-8') as source:
            calls = calls_in(source.read())
        if calls:
            found[os.path.relpath(path, REPO_ROOT)] = calls
    assert found == {}
