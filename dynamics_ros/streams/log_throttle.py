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
the ones that follow within the kind's period (at first ``period``,
default 1 s), and appends the count to the next line of that kind:
``'... (x19 in the last 60 s)'``.  The key is the kind, never the text: a
text that carries a time or a value changes with every message and would
defeat the throttle (9,762 lines in 90 s before this).  ``kind_of(text)``
derives a kind from a text when the caller has none: numbers and quoted
values become '#'.

A kind that keeps coming back - a line logged while the previous one is
less than ``max_period`` (60 s) old - doubles its period with each line,
up to ``max_period``: a warning that recurs every 10 s (a gap in the
joint states, 19 of them in 3 minutes) becomes a line now and then one
line a minute with its count, not 19 lines; a flood of 1 kHz is one line
a second at first, then fewer.  A kind quiet for ``max_period`` starts
over at ``period``.

``flush()`` logs the count of repeats a kind had since its last line
once its period has passed, so the last burst is never hidden: call it
from a timer, or leave it to the next warning of that kind.  ``warn`` and
``flush`` may be called from several threads.
"""

import re
import threading
import time

# A warning kind's text is cut to this many characters (kind_of).
KIND_CHARS = 80
# More kinds than this (a caller keyed by text after all): forget the
# oldest half, so memory stays bounded.
MAX_KINDS = 512
# The longest period a recurring kind grows to, s: one line a minute.
MAX_PERIOD = 60.0

NUMBER_OR_QUOTED = re.compile(
    r"'[^']*'|\"[^\"]*\"|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf")

# The fields of a kind's entry.
LAST, REPEATS, TEXT, PERIOD = range(4)


def kind_of(text):
    """Return the kind of a warning text: its words, values replaced by #."""
    return NUMBER_OR_QUOTED.sub('#', str(text))[:KIND_CHARS]


def repeats_text(count, seconds):
    """Return ' (xN in the last T s)' for ``count`` warnings over ``seconds``."""
    return ' (x%d in the last %.3g s)' % (count, seconds)


class KindThrottle:
    """
    Pass at most one warning per period per kind; repeats are counted.

    ``emit(text)`` logs a line (an rclpy logger's ``warning``, ``print``);
    ``clock()`` returns seconds (default: the monotonic clock, so a jump
    of the ROS clock cannot silence or flood the log).  A kind's period
    starts at ``period`` and doubles with each line of a kind that recurs,
    up to ``max_period`` (see the module).
    """

    def __init__(self, emit, period=1.0, clock=time.monotonic,
                 max_period=MAX_PERIOD):
        self.emit = emit
        self.period = float(period)
        self.max_period = max(float(max_period), self.period)
        self.clock = clock
        # kind -> [time of its last line, repeats since, text of the last
        # repeat, its period now]
        self._kinds = {}
        self._lock = threading.Lock()

    def _next_period(self, entry, now):
        """Return the period of a kind after a line at ``now``."""
        if entry is None:
            return self.period
        recurring = entry[REPEATS] > 0 or now - entry[LAST] < self.max_period
        return min(2.0 * entry[PERIOD], self.max_period) if recurring \
            else self.period

    def warn(self, kind, text):
        """
        Log ``text`` now if ``kind`` had no line in its period.

        Else count it into the next line of that kind.  ``text`` may be a
        function returning the text, called only when a line is logged
        (a 1 kHz caller formats nothing it drops).  Returns True when a
        line was logged.
        """
        with self._lock:
            now = self.clock()
            entry = self._kinds.get(kind)
            if entry is not None and now - entry[LAST] < entry[PERIOD]:
                entry[REPEATS] += 1
                entry[TEXT] = text
                return False
            if entry is None and len(self._kinds) >= MAX_KINDS:
                self._forget_oldest()
            if callable(text):
                text = text()
            text = str(text)
            if entry is not None and entry[REPEATS]:
                text += repeats_text(entry[REPEATS] + 1, now - entry[LAST])
            self._kinds[kind] = [now, 0, None, self._next_period(entry, now)]
        self.emit(text)
        return True

    def flush(self):
        """Log the repeats counted for kinds whose period has passed."""
        lines = []
        with self._lock:
            now = self.clock()
            for entry in self._kinds.values():
                if entry[REPEATS] and now - entry[LAST] >= entry[PERIOD]:
                    text = entry[TEXT]() if callable(entry[TEXT]) \
                        else str(entry[TEXT])
                    lines.append(text + repeats_text(entry[REPEATS],
                                                     now - entry[LAST]))
                    entry[:] = [now, 0, None, self._next_period(entry, now)]
        for line in lines:
            self.emit(line)
        return len(lines)

    def suppressed(self, kind):
        """Return how many warnings of ``kind`` wait for its next line."""
        entry = self._kinds.get(kind)
        return 0 if entry is None else entry[REPEATS]

    def period_of(self, kind):
        """Return the period of ``kind`` now (``period`` if never seen)."""
        entry = self._kinds.get(kind)
        return self.period if entry is None else entry[PERIOD]

    def _forget_oldest(self):
        """Forget the half of the kinds whose last line is oldest."""
        ordered = sorted(self._kinds.items(), key=lambda item: item[1][LAST])
        for kind, _ in ordered[:len(ordered) // 2]:
            del self._kinds[kind]
