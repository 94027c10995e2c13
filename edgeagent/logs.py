"""Logging for the daemon: repeated lines are rate-limited so a flood cannot fill the journal.

A client (or the kernel, out of file descriptors) can make one code path log thousands
of times a second: asyncio once logged 24,560 tracebacks in 15 s when ``accept()`` ran
out of files. :class:`RepeatLimiter` lets the same message through a few times per
interval, drops the rest (with their tracebacks, before they are formatted) and then
logs one "N similar messages suppressed" line.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

REPEAT_BURST = 5
"""The same message passes this many times per interval."""
REPEAT_INTERVAL_S = 10.0
MAX_TRACKED = 1024
"""Distinct messages remembered at once; the oldest window is forgotten beyond this."""
SWEEP_S = 1.0
"""How often ended windows of other messages are looked for (not on every record)."""
SUMMARY = "%d similar messages suppressed (more than %d in %g s): %s"

_Key = tuple[str, int, str]


@dataclass
class _Window:
    start: float
    passed: int = 1
    suppressed: int = 0


class RepeatLimiter(logging.Filter):
    """A handler filter: at most ``burst`` records per ``interval_s`` for one message.

    "The same message" is the same logger, level and first line of the format string
    (``record.msg``, before its arguments are filled in), so "client error: %s" with a
    thousand different values is one message, and so is asyncio's multi-line
    "socket.accept() out of system resource" report. When a window that dropped records
    ends, the next record to arrive (of any kind) first emits a summary through
    ``handler``.
    """

    def __init__(
        self,
        handler: logging.Handler,
        *,
        burst: int = REPEAT_BURST,
        interval_s: float = REPEAT_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.handler = handler
        self.burst = burst
        self.interval_s = interval_s
        self._clock = clock
        self._windows: dict[_Key, _Window] = {}
        self._next_sweep = 0.0
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg is SUMMARY:
            return True
        now = self._clock()
        key = (record.name, record.levelno, str(record.msg).split("\n", 1)[0][:200])
        with self._lock:
            ended = self._take_ended(now) if now >= self._next_sweep else []
            window = self._windows.get(key)
            if window is not None and now - window.start >= self.interval_s:
                ended.append((key, self._windows.pop(key)))
                window = None
            if window is None:
                if len(self._windows) >= MAX_TRACKED:
                    del self._windows[next(iter(self._windows))]
                self._windows[key] = _Window(start=now)
                passes = True
            else:
                window.passed += 1
                passes = window.passed <= self.burst
                if not passes:
                    window.suppressed += 1
        for ended_key, window in ended:
            self._summarise(ended_key, window)
        return passes

    def flush(self) -> None:
        """Emit the summaries still owed, e.g. at shutdown."""
        with self._lock:
            ended = list(self._windows.items())
            self._windows.clear()
        for key, window in ended:
            self._summarise(key, window)

    def _take_ended(self, now: float) -> list[tuple[_Key, _Window]]:
        self._next_sweep = now + SWEEP_S
        ended = [(k, w) for k, w in self._windows.items() if now - w.start >= self.interval_s]
        for key, _ in ended:
            del self._windows[key]
        return ended

    def _summarise(self, key: _Key, window: _Window) -> None:
        if not window.suppressed:
            return
        name, level, first_line = key
        summary = logging.LogRecord(
            name=name,
            level=level,
            pathname=__file__,
            lineno=0,
            msg=SUMMARY,
            args=(window.suppressed, self.burst, self.interval_s, first_line),
            exc_info=None,
        )
        self.handler.handle(summary)


def limit_repeats(
    logger: logging.Logger, *, burst: int = REPEAT_BURST, interval_s: float = REPEAT_INTERVAL_S
) -> list[RepeatLimiter]:
    """Put a :class:`RepeatLimiter` on each of ``logger``'s handlers (the root's, in the
    daemon), so records from every logger that propagates there are limited."""
    limiters = []
    for handler in logger.handlers:
        if not any(isinstance(f, RepeatLimiter) for f in handler.filters):
            limiter = RepeatLimiter(handler, burst=burst, interval_s=interval_s)
            handler.addFilter(limiter)
            limiters.append(limiter)
    return limiters
