"""The contracts between the daemon and its front ends.

A :class:`Frontend` (MQTT, the Unix socket) is started, told to stop accepting, stopped
and asked for its status by the daemon; it submits the prompts it receives to a
:class:`Dispatcher` (the daemon, which queues them on its scheduler).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeGuard

from edgeagent.agent.events import Event
from edgeagent.errors import ProtocolError
from edgeagent.jsontypes import JSONValue
from edgeagent.tools.jsonish import MAX_DEPTH, nesting_depth

if TYPE_CHECKING:
    from edgeagent.tools.tool import ToolResult

MAX_JSON_DEPTH = MAX_DEPTH
"""Nesting allowed in a client's JSON: requests are flat objects; deeper is an attack."""

MAX_SESSION_CHARS = 64
SHOWN_CHARS = 60
"""A client's value quoted in an error message is cut to this many characters."""

REQUEST_FIELDS = ("id", "prompt", "session", "stream", "transaction")
"""Every field a prompt request may hold, on every front end."""
ECHO_FIELDS = ("id", "transaction")
"""Correlation fields copied unchanged from a request into each of its replies
(``transaction`` as zigbee2mqtt spells it)."""
STREAMING_FRONTENDS = frozenset({"socket"})
"""Front ends whose requests stream unless they say ``"stream": false``."""


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


@dataclass(frozen=True)
class ToolRequest:
    """One direct tool call from a client, no model involved: MCP's ``tools/call``, the
    dashboard's call form, the socket's ``{"op": "call"}``. It queues behind the turns
    like a prompt, so a call never interleaves with a turn's calls on the same device."""

    tool: str
    arguments: dict[str, JSONValue]
    frontend: str
    """The call policy keys on it, as for a :class:`Request`."""
    id: str | None = None


class Dispatcher(Protocol):
    """What a front end submits requests to, and asks about the daemon.

    Iterating ``submit(request)`` streams the turn's events and always ends with exactly
    one ``FinalAnswer`` or ``ErrorEvent``. When the queue is full the stream yields, at
    once, a single ``ErrorEvent("busy, N requests queued")``. Closing the stream early
    (``aclose()``: the client is gone) cancels the request.
    """

    def submit(self, request: Request) -> AsyncGenerator[Event, None]: ...

    async def call_tool(self, request: ToolRequest) -> ToolResult:
        """Run one tool call in the queue, under the policy of ``request.frontend``;
        every failure (busy, timeout, denied, bad arguments) is a failed result."""
        ...

    def reset_session(self, session: str, *, frontend: str) -> bool: ...

    def status(self) -> dict[str, JSONValue]:
        """The whole daemon's status, as ``edgeagent status --json`` prints it."""
        ...

    def tools(self) -> list[dict[str, JSONValue]]:
        """The enabled tools: name, description, kind, plugin, parameters (JSON schema)."""
        ...


class Frontend(Protocol):
    """A way in for prompts, as the daemon drives it.

    ``start()`` binds or connects (raising when it cannot serve at all);
    ``stop_accepting()`` refuses new prompts while the scheduler drains;
    ``stop(grace_s=...)`` lets replies in flight go out for up to ``grace_s``, then
    closes. ``stop`` is idempotent.
    """

    name: str
    """``mqtt`` or ``socket``: the key in ``degraded`` and the ``frontend`` of requests."""

    @property
    def degraded(self) -> str | None:
        """Why it serves with reduced function after ``start()`` (or ``None``)."""
        ...

    async def start(self) -> None: ...

    def stop_accepting(self) -> None: ...

    async def stop(self, *, grace_s: float = 0.0) -> None: ...

    def status(self) -> dict[str, JSONValue]:
        """This front end's part of ``edgeagent status``."""
        ...


def decode_json(text: str) -> JSONValue:
    """A client's JSON text as Python data, or :class:`ProtocolError` naming the problem:
    not JSON, nested deeper than :data:`MAX_JSON_DEPTH`, or holding a lone surrogate
    (``"\\ud800"``, which no UTF-8 reply could carry back)."""
    if nesting_depth(text) > MAX_JSON_DEPTH:
        raise ProtocolError(
            f"JSON nested deeper than {MAX_JSON_DEPTH} levels; send a flat object "
            f'like {{"prompt": "..."}}'
        )
    try:
        data: JSONValue = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(
            f'not valid JSON ({exc}); send one object like {{"prompt": "hello"}}'
        ) from None
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ProtocolError(
            f"JSON holds a lone surrogate ({exc.object[exc.start : exc.end]!r}), which is not "
            f"text; send valid Unicode"
        ) from None
    return data


def check_session(session: object) -> str | None:
    """The session name to use, or :class:`ProtocolError`.

    ``None`` is a fresh one-shot turn. A name is 1 to :data:`MAX_SESSION_CHARS`
    printable characters; the same rule holds on every front end, so an empty or
    oversized name is refused, never stored.
    """
    if session is None:
        return None
    if not isinstance(session, str):
        raise ProtocolError(f"session must be a string or null, got {session!r}")
    if not session.strip():
        raise ProtocolError(
            f'session {session!r} is empty; name it (e.g. "kitchen") or leave it out '
            f"for a one-shot turn"
        )
    if len(session) > MAX_SESSION_CHARS:
        raise ProtocolError(
            f"session name is {len(session)} characters; at most {MAX_SESSION_CHARS} allowed"
        )
    if not session.isprintable():
        raise ProtocolError(f"session {session!r} holds control characters; use printable text")
    return session


def shown(value: object) -> str:
    """A client's value for an error message: its repr, cut short."""
    return _cut(repr(value))


def _cut(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def _is_id(value: object) -> TypeGuard[str | int]:
    return isinstance(value, str | int) and not isinstance(value, bool)


def check_id(name: str, value: object) -> str | int | None:
    """A correlation field (``id`` or ``transaction``) as sent, or :class:`ProtocolError`:
    replies echo it unchanged, so only a string, an integer or ``null`` will do."""
    if value is None or _is_id(value):
        return value
    raise ProtocolError(f'"{name}" must be a string or an integer, got {shown(value)}')


def echo_fields(obj: object) -> dict[str, str | int]:
    """The ``id`` and ``transaction`` of a request where they can be echoed unchanged.

    Never raises: an error reply about the rest of the request still carries them, so it
    reaches the right asker. A field that is missing, ``null`` or unusable is left out.
    """
    if not isinstance(obj, dict):
        return {}
    return {key: obj[key] for key in ECHO_FIELDS if _is_id(obj.get(key)) and _encodable(obj[key])}


def echo_fields_of_text(text: str) -> dict[str, str | int]:
    """:func:`echo_fields` of JSON text that :func:`decode_json` refused (a lone surrogate
    in the prompt should not cost the asker its id); ``{}`` when it does not parse."""
    try:
        return echo_fields(json.loads(text))
    except (ValueError, RecursionError):
        return {}


def _encodable(value: object) -> bool:
    try:
        str(value).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def parse_request(obj: object, *, frontend: str) -> Request:
    """A client's decoded request as a :class:`Request`, or :class:`ProtocolError` naming
    the first problem. The same rules hold on every front end:

    * The request is a JSON object with only the fields in :data:`REQUEST_FIELDS`: a
      misspelled ``sesion`` is refused, naming it, rather than silently running a
      one-shot turn.
    * ``id`` and ``transaction`` are strings, integers or ``null``; every reply echoes
      them as sent (:func:`echo_fields`). ``Request.id`` is the ``id``, else the
      ``transaction``, as text.
    * ``prompt`` is a string with something besides whitespace; surrounding whitespace
      is stripped.
    * ``session`` follows :func:`check_session`.
    * ``stream`` is ``true`` or ``false``. Left out, it is ``true`` on the front ends in
      :data:`STREAMING_FRONTENDS` (the socket: its event lines share the client's
      connection) and ``false`` elsewhere (MQTT streams to a topic of its own, which a
      client subscribes to on purpose).

    What comes before this is the front end's: reading bytes as UTF-8 and JSON
    (:func:`decode_json`), MQTT's plain-text prompts (``{"prompt": text}``) and the
    socket's ``op`` messages, which are not prompts.
    """
    if not isinstance(obj, dict):
        raise ProtocolError(
            f'expected a JSON object like {{"prompt": "..."}}, got {type(obj).__name__}'
        )
    unknown = sorted(set(obj) - set(REQUEST_FIELDS))
    if unknown:
        raise ProtocolError(
            f"unknown field(s) {', '.join(_cut(json.dumps(k)) for k in unknown)}; a request takes "
            f"{', '.join(REQUEST_FIELDS)}"
        )
    ids = {key: check_id(key, obj.get(key)) for key in ECHO_FIELDS}
    prompt = obj.get("prompt")
    if not isinstance(prompt, str):
        raise ProtocolError(
            f'"prompt" must be a non-empty string, got {shown(prompt)}; send e.g. '
            f'{{"prompt": "turn the LED red"}}'
        )
    if not prompt.strip():
        raise ProtocolError(
            f'"prompt" must be a non-empty string, got {shown(prompt)} (an empty prompt); '
            f"put the question there"
        )
    stream = obj.get("stream", frontend in STREAMING_FRONTENDS)
    if not isinstance(stream, bool):
        raise ProtocolError(f'"stream" must be true or false, got {shown(stream)}')
    session = check_session(obj.get("session"))
    request_id = ids["id"] if ids["id"] is not None else ids["transaction"]
    return Request(
        prompt=prompt.strip(),
        frontend=frontend,
        id=None if request_id is None else str(request_id),
        session=session,
        stream=stream,
    )


TOOL_REQUEST_FIELDS = ("op", "id", "tool", "arguments", "transaction")
"""Every field of a direct call, ``{"op": "call", "tool": "led", "arguments": {...}}``."""


def parse_tool_request(obj: dict[str, JSONValue], *, frontend: str) -> ToolRequest:
    """A client's ``{"op": "call"}`` as a :class:`ToolRequest`, or :class:`ProtocolError`
    naming the first problem (same rules as :func:`parse_request` for ids and fields)."""
    unknown = sorted(set(obj) - set(TOOL_REQUEST_FIELDS))
    if unknown:
        raise ProtocolError(
            f"unknown field(s) {', '.join(_cut(json.dumps(k)) for k in unknown)}; a call takes "
            f"{', '.join(TOOL_REQUEST_FIELDS)}"
        )
    ids = {key: check_id(key, obj.get(key)) for key in ECHO_FIELDS}
    tool = obj.get("tool")
    if not isinstance(tool, str) or not tool.strip():
        raise ProtocolError(
            f'"tool" must name a tool, got {shown(tool)}; send e.g. '
            f'{{"op": "call", "tool": "led", "arguments": {{"color": "red"}}}}'
        )
    arguments = obj.get("arguments", {})
    if not isinstance(arguments, dict):
        raise ProtocolError(f'"arguments" must be a JSON object, got {shown(arguments)}')
    request_id = ids["id"] if ids["id"] is not None else ids["transaction"]
    return ToolRequest(
        tool=tool.strip(),
        arguments=arguments,
        frontend=frontend,
        id=None if request_id is None else str(request_id),
    )
