"""What travels on the MQTT topics: prompt payloads in, reply payloads out.

Pure functions, no client: a prompt is plain text, or a JSON object when it starts with
``{``; anything else becomes a :class:`Rejected` that still carries the ``id`` when one
could be read, so the error reply reaches the right asker.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

ECHO_FIELDS = ("id", "transaction")
"""Correlation fields copied unchanged from a prompt into its reply (zigbee2mqtt style)."""
PROMPT_FIELDS = {"prompt", "session", "stream", *ECHO_FIELDS}


@dataclass(frozen=True)
class Prompt:
    text: str
    session: str | None = None
    stream: bool = False
    echo: dict[str, Any] = field(default_factory=dict)

    @property
    def request_id(self) -> str | None:
        value = self.echo.get("id", self.echo.get("transaction"))
        return None if value is None else str(value)


@dataclass(frozen=True)
class Rejected:
    """A payload that cannot become a request; ``echo`` holds the id if one was readable."""

    error: str
    echo: dict[str, Any] = field(default_factory=dict)
    session: str | None = None


def parse_prompt(payload: bytes, *, max_bytes: int) -> Prompt | Rejected:
    """Plain text, or a JSON object when the payload starts with ``{``."""
    if len(payload) > max_bytes:
        return Rejected(
            f"payload of {len(payload)} bytes is over the {max_bytes}-byte limit "
            f"([mqtt] max_payload_bytes); send a shorter prompt"
        )
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Rejected(
            f"payload is not valid UTF-8 ({exc.reason} at byte {exc.start}); "
            f"send UTF-8 text or a JSON object"
        )
    if not text.lstrip().startswith("{"):
        if not text.strip():
            return Rejected('empty prompt; send the prompt as text or as {"prompt": "..."}')
        return Prompt(text.strip())
    try:
        data = json.loads(text)
    except ValueError as exc:
        return Rejected(
            f"payload starts with '{{' but is not valid JSON ({exc}); send a JSON "
            f'object like {{"prompt": "...", "id": "1"}} or plain text'
        )
    if not isinstance(data, dict):
        return Rejected('payload must be a JSON object like {"prompt": "..."}')
    return _prompt_from_object(data)


def _is_id(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def _prompt_from_object(data: dict[str, Any]) -> Prompt | Rejected:
    echo = {k: data[k] for k in ECHO_FIELDS if _is_id(data.get(k))}
    session = data.get("session") if isinstance(data.get("session"), str) else None

    def reject(error: str) -> Rejected:
        return Rejected(error, echo=echo, session=session)

    unknown = sorted(set(data) - PROMPT_FIELDS)
    if unknown:
        return reject(
            f"unknown field(s) {', '.join(map(repr, unknown))}; "
            f"allowed: {', '.join(sorted(PROMPT_FIELDS))}"
        )
    for key in ECHO_FIELDS:
        value = data.get(key)
        if value is not None and not _is_id(value):
            return reject(f"field {key!r} = {value!r} must be a string or an integer")
    if data.get("session") is not None and not isinstance(data["session"], str):
        return reject(f"field 'session' = {data['session']!r} must be a string")
    if not isinstance(data.get("stream", False), bool):
        return reject(f"field 'stream' = {data['stream']!r} must be true or false")
    prompt = data.get("prompt")
    if not isinstance(prompt, str):
        return reject(f"field 'prompt' = {prompt!r} must be a string")
    if not prompt.strip():
        return reject("empty prompt; put the question in the 'prompt' field")
    return Prompt(prompt.strip(), session=session, stream=data.get("stream", False), echo=echo)


def reply_payload(
    echo: dict[str, Any],
    session: str | None,
    *,
    text: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """``{"id", "session", "text", "tool_calls", "error"}`` plus ``transaction`` if sent."""
    return {
        "id": echo.get("id"),
        **echo,
        "session": session,
        "text": text,
        "tool_calls": tool_calls or [],
        "error": error,
    }
