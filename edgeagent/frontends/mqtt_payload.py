"""What travels on the MQTT topics: prompt payloads in, reply payloads out.

Pure functions, no client: a prompt is plain text, or a JSON object when it starts with
``{``; anything else becomes a :class:`Rejected` that still carries the ``id`` when one
could be read, so the error reply reaches the right asker. :func:`check_response_topic`
decides where an MQTT v5 asker may have its reply sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from edgeagent.agent.events import ErrorEvent, FinalAnswer
from edgeagent.config import MQTTConfig
from edgeagent.errors import ProtocolError
from edgeagent.frontends.base import (
    Request,
    check_session,
    decode_json,
    echo_fields,
    echo_fields_of_text,
    parse_request,
)


@dataclass(frozen=True)
class Topics:
    """Every topic of one device, under ``[mqtt] base_topic``."""

    ask: str
    reply: str
    stream: str
    tool: str
    status: str
    tools: str
    info: str
    answer: str
    """Retained: the last answer, as Home Assistant's answer sensor reads it."""
    events: str
    """Home Assistant's event entity: ``answer``, ``tool_call``, ``error``."""
    diagnostics: str
    """Retained: model, busy/idle, last turn latency, context use."""
    fleet: str

    @classmethod
    def under(cls, config: MQTTConfig) -> Topics:
        base = config.base_topic
        return cls(
            ask=f"{base}/ask",
            reply=f"{base}/reply",
            stream=f"{base}/stream",
            tool=f"{base}/event/tool",
            status=f"{base}/status",
            tools=f"{base}/tools",
            info=f"{base}/info",
            answer=f"{base}/answer",
            events=f"{base}/event/turn",
            diagnostics=f"{base}/diagnostics",
            fleet=config.fleet_topic,
        )


@dataclass(frozen=True)
class Outgoing:
    """One message to publish (QoS 1)."""

    topic: str
    payload: str
    retain: bool = False


@dataclass(frozen=True)
class Prompt:
    """A prompt taken from MQTT: the request, and the fields its replies echo."""

    request: Request
    echo: dict[str, str | int] = field(default_factory=dict)


@dataclass(frozen=True)
class Rejected:
    """A payload that cannot become a request; ``echo`` holds the id if one was readable."""

    error: str
    echo: dict[str, str | int] = field(default_factory=dict)
    session: str | None = None


def payload_too_large(size: int, *, max_bytes: int) -> Rejected:
    """The reply to a payload over the limit (checked before anything is kept)."""
    return Rejected(
        f"payload of {size} bytes is over the {max_bytes}-byte limit "
        f"([mqtt] max_payload_bytes); send a shorter prompt"
    )


def parse_prompt(payload: bytes, *, max_bytes: int) -> Prompt | Rejected:
    """Plain text, or a JSON object when the payload starts with ``{``; the object is
    checked by :func:`~edgeagent.frontends.base.parse_request`, as on every front end."""
    if len(payload) > max_bytes:
        return payload_too_large(len(payload), max_bytes=max_bytes)
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Rejected(
            f"payload is not valid UTF-8 ({exc.reason} at byte {exc.start}); "
            f"send UTF-8 text or a JSON object"
        )
    data: Any
    if not text.lstrip().startswith("{"):
        if not text.strip():
            return Rejected('empty prompt; send the prompt as text or as {"prompt": "..."}')
        data = {"prompt": text}
    else:
        try:
            data = decode_json(text)
        except ProtocolError as exc:
            return Rejected(str(exc), echo=echo_fields_of_text(text))
    echo = echo_fields(data)
    try:
        request = parse_request(data, frontend="mqtt")
    except ProtocolError as exc:
        return Rejected(str(exc), echo=echo, session=_usable_session(data))
    return Prompt(request, echo)


def _usable_session(data: Any) -> str | None:
    """The session to name in an error reply; an unusable name is not echoed back (it
    may be long or hold control characters)."""
    try:
        return check_session(data.get("session")) if isinstance(data, dict) else None
    except ProtocolError:
        return None


def reply_payload(
    echo: dict[str, str | int], session: str | None, outcome: FinalAnswer | ErrorEvent
) -> dict[str, Any]:
    """``{"id", "session", "text", "tool_calls", "error"}`` plus ``transaction`` if sent,
    and zigbee2mqtt's envelope over them: ``status`` (``ok``/``error``) and ``data``
    (the answer; ``{}`` for an error)."""
    answer: dict[str, Any]
    if isinstance(outcome, ErrorEvent):
        answer = {"text": None, "tool_calls": [], "error": outcome.message}
        envelope: dict[str, Any] = {"status": "error", "data": {}}
    else:
        answer = {"text": outcome.text, "tool_calls": outcome.tool_calls, "error": None}
        envelope = {
            "status": "ok",
            "data": {"text": outcome.text, "tool_calls": outcome.tool_calls},
        }
    return {"id": echo.get("id"), **echo, "session": session, **answer, **envelope}


def reserved_topics(config: MQTTConfig) -> tuple[str, ...]:
    """Where an MQTT v5 response topic must not point: the daemon's own topics, Home
    Assistant's discovery prefix and birth topic, and the fleet topic."""
    return (
        config.base_topic,
        config.homeassistant_prefix,
        config.homeassistant_status_topic,
        config.fleet_topic,
    )


def check_response_topic(
    topic: str, *, reserved: Sequence[str], allowed_prefixes: Sequence[str]
) -> None:
    """Refuse an MQTT v5 response topic that a reply must not go to, with
    :class:`ProtocolError` naming why: wildcards, ``$`` (broker) topics, control
    characters, anything at or under a ``reserved`` prefix (the daemon's own topics,
    Home Assistant's discovery prefix), and, when ``allowed_prefixes`` is not empty,
    anything outside them. Prefixes match whole topic levels."""
    for wildcard in "+#":
        if wildcard in topic:
            raise ProtocolError(
                f"response topic {topic!r} holds the wildcard {wildcard!r}; a reply needs "
                f"one concrete topic, e.g. 'clients/<you>/reply'"
            )
    if topic.startswith("$"):
        raise ProtocolError(
            f"response topic {topic!r} starts with '$', which the broker reserves; "
            f"name a topic of your own, e.g. 'clients/<you>/reply'"
        )
    if not topic.isprintable():
        raise ProtocolError(f"response topic {topic!r} holds control characters")
    for prefix in reserved:
        if _under(topic, prefix):
            raise ProtocolError(
                f"response topic {topic!r} is under {prefix.rstrip('/')!r}, which edgeagent "
                f"or Home Assistant owns; name a topic of your own, e.g. 'clients/<you>/reply'"
            )
    if allowed_prefixes and not any(_under(topic, p) for p in allowed_prefixes):
        raise ProtocolError(
            f"response topic {topic!r} is not under an allowed prefix ([mqtt] "
            f"response_topic_prefixes: {', '.join(map(repr, allowed_prefixes))}); "
            f"use one of them or leave the response topic out"
        )


def _under(topic: str, prefix: str) -> bool:
    prefix = prefix.rstrip("/")
    return topic == prefix or topic.startswith(prefix + "/")
