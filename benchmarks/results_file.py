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
benchmarks/results.md: the one place measured figures are written.

``compare.py`` writes the head of the file (the core against Pinocchio);
every other benchmark owns one section, between ``<!-- begin NAME -->``
and ``<!-- end NAME -->``, which its next run replaces and the others
leave alone.  The README quotes none of these figures: it points here.
"""

import os
import platform
import re
import sys
import time

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       'results.md')


def section_pattern(name):
    """Return the regex of section ``name``, markers included."""
    return re.compile(r'<!-- begin %s -->\n.*?<!-- end %s -->\n' % (
        re.escape(name), re.escape(name)), re.DOTALL)


def sections(text):
    """Return the sections of ``text`` (markers included), in order."""
    return [match.group(0) for match in re.finditer(
        r'<!-- begin (\S+) -->\n.*?<!-- end \1 -->\n', text, re.DOTALL)]


def machine():
    """Return one line saying where and when this was measured."""
    load = os.getloadavg()
    return '%s, %d cores, Python %s, load average %.2f at the start, %s' % (
        platform.machine(), os.cpu_count(), platform.python_version(),
        load[0], time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()))


def invocation():
    """Return how this benchmark was run: its file name and arguments."""
    return ' '.join([os.path.basename(sys.argv[0])] + sys.argv[1:])


def portable(text):
    """Return ``text`` with this machine's checkout and venv paths named."""
    # Paths of one machine mean nothing in a file every clone shares.
    for path, name in ((sys.prefix, '<venv>'),
                       (os.path.dirname(os.path.dirname(RESULTS)),
                        '<checkout>')):
        text = text.replace(path, name)
    return text


def write_section(name, title, body, path=RESULTS):
    """Write (or replace) section ``name`` of results.md."""
    block = '<!-- begin %s -->\n## %s\n\n%s\n\n%s\n<!-- end %s -->\n' % (
        name, title, 'Written by `benchmarks/%s`; %s.' % (
            portable(invocation()), machine()), portable(body.rstrip()),
        name)
    text = ''
    if os.path.exists(path):
        with open(path, encoding='utf-8') as stream:
            text = stream.read()
    pattern = section_pattern(name)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    else:
        text = text.rstrip('\n') + '\n\n' + block
    with open(path, 'w', encoding='utf-8') as stream:
        stream.write(text)
    print('written to %s (section "%s")' % (os.path.relpath(path), title))


def keep_sections(new_head, path=RESULTS):
    """Return ``new_head`` followed by the sections results.md has now."""
    if not os.path.exists(path):
        return new_head
    with open(path, encoding='utf-8') as stream:
        kept = sections(stream.read())
    return new_head.rstrip('\n') + '\n' + ''.join(
        '\n' + block for block in kept)


class Tee:
    """Print as usual and keep a copy of what was printed (``text``)."""

    def __init__(self, stream):
        self.stream = stream
        self.parts = []

    def write(self, text):
        """Write ``text`` through and keep it."""
        self.parts.append(text)
        return self.stream.write(text)

    def flush(self):
        """Flush the stream written through."""
        self.stream.flush()

    @property
    def text(self):
        """Return everything printed so far."""
        return ''.join(self.parts)


def record(name, title, run):
    """Run ``run()``; write what it printed as section ``name``, verbatim."""
    if '-h' in sys.argv or '--help' in sys.argv:
        return run()
    tee = Tee(sys.stdout)
    sys.stdout = tee
    try:
        status = run()
    finally:
        sys.stdout = tee.stream
    write_section(name, title, '```\n%s```' % tee.text)
    return status
