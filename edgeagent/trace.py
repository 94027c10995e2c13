"""The trace: every turn the scheduler runs, as it happens, for whoever watches.

The scheduler opens a :class:`TurnTrace` for each turn it starts (a prompt from any
front end, or a direct tool call) and passes it every event of the turn. The
:class:`TraceHub` turns them into trace lines, keeps the lines of the last ``turns``
turns (``[daemon] trace_turns``) so that a new watcher sees recent history, and hands
each line to every :class:`Subscription` (the socket's ``{"op": "trace"}``, which the
dashboard's console reads).

A trace line is a JSON object::

    {"turn": 7, "frontend": "mqtt", "at": 1764045000.12, "elapsed_s": 0.41,
     "event": {"type": "tool_call", "name": "led", "arguments": {...}, "step": 1}}

``event`` is one of: ``start`` (``id``, ``session``, and ``prompt`` or ``tool`` with
``arguments`` for a direct call; ``queued_s``), ``tool_call``, ``tool_result``,
``final`` and ``error`` (with ``stats``: time to first token, model and tool time,
tokens), and ``dropped`` (``count``: lines this watcher missed because it read too
slowly). Streamed text is not traced: the ``final`` line holds the whole answer.

Nothing a watcher does can slow a turn down or grow memory without bound: publishing
never waits, each subscription holds at most ``queue_size`` lines (beyond that lines
are dropped and a ``dropped`` line says how many), and large tool results are cut.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from types import TracebackType
from typing import Any

from edgeagent.agent.events import Event, TextChunk, event_to_dict
from edgeagent.jsontypes import JSONValue

SUBSCRIBER_QUEUE = 512
"""Lines a watcher may lag behind before lines are dropped for it."""
MAX_TURN_LINES = 64
"""Lines of one turn kept in the history (a turn has a step limit, so this is generous)."""
MAX_VALUE_CHARS = 2000
"""A tool result, argument or answer longer than this (as JSON) is cut in the trace."""

TraceLine = dict[str, Any]


def _bounded(value: Any) -> Any:
    """``value``, or its JSON text cut to :data:`MAX_VALUE_CHARS` when longer."""
    if isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
        if len(text) <= MAX_VALUE_CHARS:
            return value
    if len(text) <= MAX_VALUE_CHARS:
        return text
    return f"{text[:MAX_VALUE_CHARS]}… ({len(text)} characters, cut in the trace)"


class TraceHub:
    """Trace lines to subscribers, and the last ``turns`` turns' lines for new ones."""

    def __init__(
        self,
        *,
        turns: int,
        queue_size: int = SUBSCRIBER_QUEUE,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        if turns < 0:
            raise ValueError(f"turns must be 0 or more, got {turns}")
        self.queue_size = queue_size
        self._clock = clock
        self._monotonic = monotonic
        self._history: deque[list[TraceLine]] = deque(maxlen=turns)  # 0: keeps none
        self._subscribers: set[Subscription] = set()
        self._turns = 0

    @property
    def turns(self) -> int:
        """How many turns were traced since the daemon started."""
        return self._turns

    def begin(
        self,
        *,
        frontend: str,
        request_id: str | int | None,
        session: str | None = None,
        prompt: str | None = None,
        tool: str | None = None,
        arguments: dict[str, Any] | None = None,
        queued_s: float = 0.0,
    ) -> TurnTrace:
        """A turn starts: its ``start`` line goes out; the returned trace takes the rest."""
        self._turns += 1
        lines: list[TraceLine] = []
        self._history.append(lines)
        turn = TurnTrace(self, self._turns, frontend, lines)
        start: dict[str, Any] = {"type": "start", "id": request_id, "session": session}
        if tool is not None:
            start.update(tool=tool, arguments=_bounded(arguments or {}))
        else:
            start["prompt"] = _bounded(prompt or "")
        start["queued_s"] = round(queued_s, 3)
        turn.publish(start)
        return turn

    def history(self) -> list[TraceLine]:
        """Every kept line, oldest turn first."""
        return [line for lines in self._history for line in lines]

    def subscribe(self) -> Subscription:
        """Recent history, then every new line; use ``with`` so it ends when done."""
        sub = Subscription(self, self.history(), self.queue_size)
        self._subscribers.add(sub)
        return sub

    def status(self) -> dict[str, JSONValue]:
        return {
            "turns": self._turns,
            "kept": len(self._history),
            "watchers": len(self._subscribers),
        }

    def _publish(self, line: TraceLine) -> None:
        for sub in list(self._subscribers):
            sub.offer(line)

    def _unsubscribe(self, sub: Subscription) -> None:
        self._subscribers.discard(sub)


class TurnTrace:
    """One turn's side of the trace: the scheduler calls :meth:`event` for each event."""

    def __init__(self, hub: TraceHub, number: int, frontend: str, lines: list[TraceLine]) -> None:
        self.hub = hub
        self.number = number
        self.frontend = frontend
        self._lines = lines
        self._started = hub._monotonic()

    def event(self, event: Event) -> None:
        if isinstance(event, TextChunk):
            return
        data = event_to_dict(event)
        for key in ("arguments", "result", "text", "tool_calls", "message"):
            if key in data:
                data[key] = _bounded(data[key])
        self.publish(data)

    def publish(self, event: dict[str, Any]) -> None:
        line: TraceLine = {
            "turn": self.number,
            "frontend": self.frontend,
            "at": round(self.hub._clock(), 3),
            "elapsed_s": round(self.hub._monotonic() - self._started, 3),
            "event": event,
        }
        if len(self._lines) < MAX_TURN_LINES:
            self._lines.append(line)
        self.hub._publish(line)


class Subscription:
    """One watcher: the history it joined with, then live lines, never more than
    ``queue_size`` waiting. ``async for line in sub``; ``close()`` (or ``with``) ends it."""

    def __init__(self, hub: TraceHub, backlog: list[TraceLine], queue_size: int) -> None:
        self._hub = hub
        self._backlog = deque(backlog)
        self._queue: asyncio.Queue[TraceLine] = asyncio.Queue(maxsize=queue_size)
        self.dropped = 0
        """Lines lost so far because this watcher read too slowly."""
        self._unreported = 0

    def offer(self, line: TraceLine) -> None:
        """Called by the hub; never waits. A full queue drops the line and counts it."""
        if self._unreported and not self._put(self._dropped_line(self._unreported)):
            self._lose()
            return
        self._unreported = 0
        if not self._put(line):
            self._lose()

    def _put(self, line: TraceLine) -> bool:
        try:
            self._queue.put_nowait(line)
        except asyncio.QueueFull:
            return False
        return True

    def _lose(self) -> None:
        self.dropped += 1
        self._unreported += 1

    async def get(self) -> TraceLine:
        """The next line: history first, then live ones (waiting for the next)."""
        if self._backlog:
            return self._backlog.popleft()
        if self._queue.empty() and self._unreported:
            count, self._unreported = self._unreported, 0
            return self._dropped_line(count)
        return await self._queue.get()

    def __aiter__(self) -> AsyncIterator[TraceLine]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[TraceLine]:
        while True:
            yield await self.get()

    @property
    def backlog(self) -> int:
        """History lines not yet read."""
        return len(self._backlog)

    @property
    def waiting(self) -> int:
        """Lines queued for this watcher (history not counted)."""
        return self._queue.qsize()

    def _dropped_line(self, count: int) -> TraceLine:
        event = {"type": "dropped", "count": count}
        at = round(self._hub._clock(), 3)
        return {"turn": None, "frontend": None, "at": at, "elapsed_s": None, "event": event}

    def close(self) -> None:
        """Stop receiving lines. Idempotent."""
        self._hub._unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
