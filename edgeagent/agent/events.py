"""What one agent turn emits, step by step, for the front ends to stream.

Every event serialises to one JSON object with a ``type`` field, which is exactly the
Unix socket's line format and the basis of the MQTT reply and ``event/tool`` payloads.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class TurnStats:
    """Where a turn's time went, and how many tokens it took (:mod:`edgeagent.agent.meter`).

    On the ``final`` and ``error`` lines as ``stats``; the dashboard's trace shows it.
    """

    first_token_s: float | None = None
    """From the turn's start to the model's first piece of text (``None``: no generation)."""
    generate_s: float = 0.0
    """The model's share of the turn: measuring the context, prefill, generation, checks."""
    tool_s: float = 0.0
    """Time spent in tool calls."""
    prompt_tokens: int | None = None
    """The prompt's size at the turn's last generation, as the engine counts tokens."""
    output_tokens: int = 0
    """Pieces of text the model streamed: one per token on llama.cpp, chunks on the
    scripted engine; side questions (the target check) not counted."""


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
    stats: TurnStats | None = None


@dataclass(frozen=True)
class ErrorEvent:
    message: str
    type: Literal["error"] = "error"
    stats: TurnStats | None = None


Event = TextChunk | ToolCallEvent | ToolResultEvent | FinalAnswer | ErrorEvent


def event_to_dict(event: Event) -> dict[str, Any]:
    data = asdict(event)
    if data.get("stats", 0) is None:
        del data["stats"]  # the line stays as it was for a turn without figures
    return data


def stats_from_dict(data: dict[str, Any]) -> TurnStats:
    """The inverse of ``event_to_dict`` for ``stats`` (unknown keys ignored)."""
    names = TurnStats.__dataclass_fields__
    return TurnStats(**{k: v for k, v in data.items() if k in names})
