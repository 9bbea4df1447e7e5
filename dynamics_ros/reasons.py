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
Quoting and cutting user values in reasons and log lines (ROS-free).

A reason that quotes what a user gave (a parameter value, a name from a
message, a file path) quotes it with ``quote`` and never grows with it: a
100k-character joint name gives a short line.  One limit, ``QUOTE_CHARS``,
bounds a quoted value; the others are multiples of it: ``cut`` bounds a
whole reason (a parameter set's refusal, a dropped message's warning) to
``REASON_CHARS``, and a log line that may carry a traceback or a model's
list of faults (a failed start) to ``LOG_CHARS``.
"""

import math

QUOTE_CHARS = 80  # a quoted user value (name, parameter, path) at most
REASON_CHARS = 5 * QUOTE_CHARS  # a whole reason at most
LOG_CHARS = 25 * QUOTE_CHARS  # a log line (a traceback, a failed start)
NAMES_SHOWN = 5  # a list of names in a reason shows this many


def shorten(text, limit=QUOTE_CHARS):
    """Return ``text`` cut to ``limit`` characters plus '...' if longer."""
    text = str(text)
    return text if len(text) <= limit else text[:limit] + '...'


def cut(text, limit=REASON_CHARS):
    """Return ``text`` (a reason, a log line) in at most ``limit`` chars."""
    return shorten(text, limit - 3)


def quote(value, limit=QUOTE_CHARS):
    """
    Return the repr of a user value, at most about ``limit`` characters.

    A string is cut before quoting (``'abc...'``); a long sequence shows
    its first items only, so no huge repr is ever built.
    """
    if isinstance(value, str):
        return repr(value) if len(value) <= limit else \
            repr(value[:limit]) + '...'
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    try:
        size = len(value)
    except TypeError:
        return shorten(repr(value), limit)
    if isinstance(value, (bytes, bytearray)):
        return shorten(repr(bytes(value[:limit + 1])), limit)
    items = []
    length = 2
    for item in list(value[:NAMES_SHOWN * 4]):
        text = quote(item.item() if hasattr(item, 'item') else item, limit)
        items.append(text)
        length += len(text) + 2
        if length > limit:
            break
    text = '[%s' % ', '.join(items)
    if len(items) < size:
        return shorten(text, limit) + ', ... (%d values)]' % size
    return text + ']'


def names_text(names, shown=NAMES_SHOWN, limit=QUOTE_CHARS):
    """Return 'a, b, ... (N more)': the first names, each cut to ``limit``."""
    names = list(names)
    text = ', '.join(shorten(name, limit) for name in names[:shown])
    if len(names) > shown:
        text += ', ... (%d more)' % (len(names) - shown)
    return text
