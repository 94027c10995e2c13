"""What one agent turn emits, step by step, for the front ends to stream.

Every event serialises to one JSON object with a ``type`` field, which is exactly the
Unix socket's line format and the basis of the MQTT reply and ``event/tool`` payloads.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class TextChunk:
    """Answer text as it streams (call markup already filtered out)."""

    text: str
    type: Literal["text"] = "text"


@dataclass(frozen=True)
class ToolCallEvent:
    name: str
    arguments: dict[str, Any]
    step: int
    type: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True)
class ToolResultEvent:
    name: str
    ok: bool
    result: Any = None
    error: str | None = None
    step: int = 0
    type: Literal["tool_result"] = "tool_result"


@dataclass(frozen=True)
class FinalAnswer:
    text: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    """Every call of the turn: ``{"name", "arguments", "ok", "result"|"error"}``."""
    steps: int = 0
    type: Literal["final"] = "final"


@dataclass(frozen=True)
class ErrorEvent:
    message: str
    type: Literal["error"] = "error"


Event = TextChunk | ToolCallEvent | ToolResultEvent | FinalAnswer | ErrorEvent


def event_to_dict(event: Event) -> dict[str, Any]:
    return asdict(event)
