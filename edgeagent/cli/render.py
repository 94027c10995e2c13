"""How one agent turn looks in a terminal, for ``edgeagent ask`` and ``edgeagent chat``.

The answer text streams as it comes; each tool call and its result get a dimmed line of
their own (``  -> led({"color": "red"})``, ``  <- led: ...``); an error goes to stderr in
red. The final answer is printed only when its text did not stream since the last tool
line (an answer built from a tool's result, a refusal).
"""

from __future__ import annotations

import json
from typing import Any

import click

from edgeagent.agent.events import (
    ErrorEvent,
    Event,
    FinalAnswer,
    TextChunk,
    ToolCallEvent,
    ToolResultEvent,
)

SHORT_CHARS = 200
"""Arguments and results longer than this are cut on the tool lines."""


def short(value: Any, limit: int = SHORT_CHARS) -> str:
    """A value on one terminal line: text as is, anything else as JSON, cut to ``limit``."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _words(text: str) -> str:
    return " ".join(text.split())


class TurnRenderer:
    """Prints the events of one turn, in order; make one per turn."""

    def __init__(self) -> None:
        self._streamed = ""
        """Answer text printed since the last tool line."""
        self._mid_line = False

    def show(self, event: Event) -> None:
        if isinstance(event, TextChunk):
            if event.text:
                click.echo(event.text, nl=False)
                self._streamed += event.text
                self._mid_line = not event.text.endswith("\n")
        elif isinstance(event, ToolCallEvent):
            self._end_line()
            self._streamed = ""
            click.secho(f"  -> {event.name}({short(event.arguments)})", dim=True)
        elif isinstance(event, ToolResultEvent):
            self._end_line()
            outcome = short(event.result) if event.ok else f"error: {event.error}"
            click.secho(f"  <- {event.name}: {outcome}", dim=True)
        elif isinstance(event, FinalAnswer):
            # Printed unless it streamed: the honesty check may replace a streamed
            # prefix ("Sure! ") and the claim it withheld with another answer.
            if event.text and _words(event.text) != _words(self._streamed):
                self._end_line()
                click.echo(event.text, nl=False)
                self._mid_line = True
            self._end_line()
        elif isinstance(event, ErrorEvent):
            self._end_line()
            click.secho(f"error: {event.message}", fg="red", err=True)

    def _end_line(self) -> None:
        if self._mid_line:
            click.echo()
            self._mid_line = False
