"""The contract between front ends and the daemon's request scheduler."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from edgeagent.agent.events import Event


@dataclass(frozen=True)
class Request:
    """One prompt from one client."""

    prompt: str
    frontend: str
    """``mqtt``, ``socket``, ``chat`` or ``cli``: the call policy keys on it."""
    id: str | None = None
    session: str | None = None
    """Continue this conversation; ``None`` is a fresh one-shot turn."""
    stream: bool = False
    meta: dict[str, Any] = field(default_factory=dict)


class Dispatcher(Protocol):
    """What a front end submits requests to.

    Iterating ``submit(request)`` streams the turn's events and always ends with exactly
    one ``FinalAnswer`` or ``ErrorEvent``. When the queue is full the stream yields, at
    once, a single ``ErrorEvent("busy, N requests queued")``. Closing the iterator
    early (client gone) cancels the request.
    """

    def submit(self, request: Request) -> AsyncIterator[Event]: ...

    def reset_session(self, session: str) -> bool: ...

    def status(self) -> dict[str, Any]: ...

    def tools(self) -> list[dict[str, Any]]: ...
