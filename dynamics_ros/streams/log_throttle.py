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
Warnings throttled by kind, repeats counted into the next line.

A node that drops a 1 kHz input logs why, but not 1,000 times a second.
``KindThrottle`` lets through the first warning of a *kind* (a short key
the caller chooses: 'stale joint_states', 'saturated') at once, counts
the ones that follow within ``period`` (default 1 s), and appends the
count to the next line of that kind: ``'... (x19 in the last 60 s)'``.
The key is the kind, never the text: a text that carries a time or a
value changes with every message and would defeat the throttle (9,762
lines in 90 s before this).  ``kind_of(text)`` derives a kind from a
text when the caller has none: numbers and quoted values become '#'.

``flush()`` logs the count of repeats a kind had since its last line
once ``period`` has passed, so the last burst is never hidden: call it
from a timer, or leave it to the next warning of that kind.
"""

import re
import time

# A warning kind's text is cut to this many characters (kind_of).
KIND_CHARS = 80
# More kinds than this (a caller keyed by text after all): forget the
# oldest half, so memory stays bounded.
MAX_KINDS = 512

NUMBER_OR_QUOTED = re.compile(
    r"'[^']*'|\"[^\"]*\"|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf")


def kind_of(text):
    """Return the kind of a warning text: its words, values replaced by #."""
    return NUMBER_OR_QUOTED.sub('#', str(text))[:KIND_CHARS]


def repeats_text(count, seconds):
    """Return ' (xN in the last T s)' for ``count`` warnings over ``seconds``."""
    return ' (x%d in the last %.3g s)' % (count, seconds)


class KindThrottle:
    """
    Pass at most one warning per ``period`` seconds per kind.

    ``emit(text)`` logs a line (an rclpy logger's ``warning``, ``print``);
    ``clock()`` returns seconds (default: the monotonic clock, so a jump
    of the ROS clock cannot silence or flood the log).
    """

    def __init__(self, emit, period=1.0, clock=time.monotonic):
        self.emit = emit
        self.period = float(period)
        self.clock = clock
        # kind -> [time of its last line, repeats since, text of the last]
        self._kinds = {}

    def warn(self, kind, text):
        """
        Log ``text`` now if ``kind`` had no line in the last period.

        Else count it into the next line of that kind.  ``text`` may be a
        function returning the text, called only when a line is logged
        (a 1 kHz caller formats nothing it drops).  Returns True when a
        line was logged.
        """
        now = self.clock()
        entry = self._kinds.get(kind)
        if entry is not None and now - entry[0] < self.period:
            entry[1] += 1
            entry[2] = text
            return False
        if entry is None and len(self._kinds) >= MAX_KINDS:
            self._forget_oldest()
        if callable(text):
            text = text()
        text = str(text)
        if entry is not None and entry[1]:
            text += repeats_text(entry[1] + 1, now - entry[0])
        self._kinds[kind] = [now, 0, None]
        self.emit(text)
        return True

    def flush(self):
        """Log the repeats counted for kinds whose period has passed."""
        now = self.clock()
        logged = 0
        for entry in self._kinds.values():
            if entry[1] and now - entry[0] >= self.period:
                text = entry[2]() if callable(entry[2]) else str(entry[2])
                self.emit(text + repeats_text(entry[1], now - entry[0]))
                entry[:] = [now, 0, None]
                logged += 1
        return logged

    def suppressed(self, kind):
        """Return how many warnings of ``kind`` wait for its next line."""
        entry = self._kinds.get(kind)
        return 0 if entry is None else entry[1]

    def _forget_oldest(self):
        """Forget the half of the kinds whose last line is oldest."""
        ordered = sorted(self._kinds.items(), key=lambda item: item[1][0])
        for kind, _ in ordered[:len(ordered) // 2]:
            del self._kinds[kind]
