"""Per-turn figures for the trace: time to first token, model and tool time, tokens.

The loop owns a :class:`TurnMeter` for each turn and hands what it measured to the
turn's last event as :class:`~edgeagent.agent.events.TurnStats`. Nothing here asks the
engine anything: the figures come from what the loop already sees (the streamed pieces,
the token count it measures the context with, the tool calls it awaits).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from edgeagent.agent.events import TurnStats


class TurnMeter:
    """Measures one turn; :meth:`stats` may be read at any point of it."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.started = clock()
        self.first_piece_at: float | None = None
        self.tool_s = 0.0
        self.prompt_tokens: int | None = None
        self.output_tokens = 0

    def piece(self) -> None:
        """The model streamed one piece of text."""
        if self.first_piece_at is None:
            self.first_piece_at = self._clock()
        self.output_tokens += 1

    @contextmanager
    def tool(self) -> Iterator[None]:
        """Around one tool call."""
        start = self._clock()
        try:
            yield
        finally:
            self.tool_s += self._clock() - start

    def stats(self) -> TurnStats:
        total = self._clock() - self.started
        first = None if self.first_piece_at is None else self.first_piece_at - self.started
        return TurnStats(
            first_token_s=None if first is None else round(first, 3),
            generate_s=round(max(total - self.tool_s, 0.0), 3),
            tool_s=round(self.tool_s, 3),
            prompt_tokens=self.prompt_tokens,
            output_tokens=self.output_tokens,
        )
