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
Warnings logged at most once per period per kind, with a count.

``ThrottledWarnings(logger, period=2.0).warn(key, text)`` logs a warning
at most once per ``period`` seconds (monotonic clock) per ``key`` - a
kind of warning, never a text that carries values - and counts the
repeats into the next line of that kind, '... (x19 in the last 2 s)'
(streams.log_throttle.KindThrottle; ``text`` may be a function, called
only when the warning is logged); ``.warn_each(key, flags, text)`` does so
for each set flag j of a bool array, with ``text(j)``, in array
operations; ``.ignored(topic, reason, kind=None)`` logs '<topic> ignored:
<reason>' keyed by the topic and the reason's kind (``kind``, else the
reason's words without its numbers and quoted values);
``.dropping(topic, callback)`` wraps a message callback so that its
``BadInput`` becomes such a warning, keyed by ``BadInput.kind``.  A text
is cut to ``reasons.LOG_CHARS``.

A kind that keeps recurring has its period doubled with each line, up to
``max_period`` (60 s: '... (x19 in the last 60 s)' instead of 19 lines;
``max_period=period``: no growth).  ``node_warnings(node)`` gives a node
its ThrottledWarnings with a timer that ``flush``es them every second
(steady clock), so the count of a burst that ended is logged once its
period has passed rather than with the next warning of that kind.
"""

import time

import numpy as np

from .conversions import BadInput
from ...reasons import LOG_CHARS, shorten
from ...streams.log_throttle import kind_of, KindThrottle, MAX_PERIOD

# How often node_warnings' timer logs the counts of ended bursts, s.
FLUSH_PERIOD = 1.0


def warning_text(text, suppressed):
    """Return a throttled warning: ``text`` cut, and how many it stood for."""
    text = shorten(text, LOG_CHARS)
    if suppressed > 0:
        text = '%s (%d similar warnings suppressed)' % (text, suppressed)
    return text


class ThrottledWarnings:
    """Log warnings at most once per period per key (wall clock)."""

    def __init__(self, logger, period=2.0, clock=time.monotonic,
                 max_period=MAX_PERIOD):
        """Log through ``logger`` (an rclpy logger or any .warning())."""
        self.logger = logger
        self.period = period
        self.clock = clock
        self.throttle = KindThrottle(logger.warning, period, clock,
                                     max_period)
        self._each = {}   # warn_each: key -> (next allowed time, count)

    def flush(self):
        """Log the counts of bursts whose period has passed; their number."""
        return self.throttle.flush()

    def warn(self, key, text):
        """
        Log ``text`` unless ``key`` was logged less than a period ago.

        ``text`` may be a function returning the text: it is called only
        when the warning is logged (a 1 kHz path formats nothing it drops).
        """
        return self.throttle.warn(key, lambda: shorten(
            text() if callable(text) else text, LOG_CHARS))

    def warn_each(self, key, flags, text):
        """
        Warn ``text(j)`` for each j where the bool array ``flags`` is set.

        Throttled as ``warn`` is, per (``key``, j), but with array
        operations: a 1 kHz caller that flags several joints in every
        message pays a few numpy calls, not a Python call per flag, and
        ``text`` is called only for the warnings logged.
        """
        now = self.clock()
        state = self._each.get(key)
        if state is None or state[0].size != flags.size:
            state = self._each[key] = (np.full(flags.size, -np.inf),
                                       np.zeros(flags.size, dtype=np.int64))
        allowed, count = state
        count += flags
        due = flags & (allowed <= now)
        if not np.count_nonzero(due):
            return
        for j in np.flatnonzero(due).tolist():
            self.logger.warning(warning_text(text(j), int(count[j]) - 1))
            count[j] = 0
            allowed[j] = now + self.period

    def ignored(self, topic, reason, kind=None):
        """Warn that a message on ``topic`` was dropped, and why."""
        return self.warn((topic, kind or kind_of(reason)),
                         '%s ignored: %s' % (topic, reason))

    def dropping(self, topic, callback):
        """
        Return ``callback`` with its BadInput caught: warned, message dropped.

        The one place a node's message callback turns a refusal into a
        throttled '<topic> ignored: <reason>' warning.
        """
        def receive(msg):
            try:
                callback(msg)
            except BadInput as error:
                self.ignored(topic, str(error), error.kind)
        return receive


def node_warnings(node, period=2.0):
    """
    Return ThrottledWarnings for ``node``, flushed by a timer of its own.

    The timer runs on the steady clock: a node on simulated time whose
    /clock stopped still logs its last counts.
    """
    from rclpy.clock import Clock, ClockType
    warnings = ThrottledWarnings(node.get_logger(), period)
    node.create_timer(FLUSH_PERIOD, warnings.flush,
                      clock=Clock(clock_type=ClockType.STEADY_TIME))
    return warnings
