"""The console: the dashboard's way to the running daemon (``/console/api/...``).

* ``GET status``, ``GET tools``: the daemon's ``status`` and ``tools`` ops; 503 with the
  reason while the daemon cannot be reached (the page shows "daemon not running").
* ``POST ask`` ``{"prompt", "session"}``: a turn as the ``dashboard`` front end, its
  event lines relayed as they come (newline-delimited JSON).
* ``POST reset`` ``{"session"}``: a new conversation for the browser tab.
* ``POST call`` ``{"tool", "arguments"}``: one direct tool call (the daemon's op
  ``call``, under the dashboard's call policy).
* ``GET trace``: Server-Sent Events of the daemon's trace (its op ``trace``): ``daemon``
  (running or not, and why), ``tracing`` (history follows), ``trace`` (one line each).
  When the daemon is gone the stream ends and the browser comes back after ``retry``,
  which is how the page recovers by itself when the daemon starts again.

The app answers loopback ``Host`` names only (:mod:`edgeagent_sim.hosts`). A page on
another site can still make a browser POST to 127.0.0.1, so the POST endpoints also
refuse cross-site requests (:func:`same_origin_json`): they take JSON only, which a
form cannot send and which a cross-site script cannot send without a CORS preflight
this app never grants, and they check ``Sec-Fetch-Site`` and ``Origin``.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Response, current_app, jsonify, request

from edgeagent_sim.console_daemon import DaemonLink, DaemonUnavailable

bp = Blueprint("console", __name__, url_prefix="/console/api")

RETRY_MS = 2000
"""How soon the browser asks for the trace again after the stream ended."""
ASK_IDLE_S = 30.0
"""A blank line every so often while a turn runs: how a vanished browser is noticed."""
FRIENDLY_SITES = frozenset({"same-origin", "none"})
"""``Sec-Fetch-Site`` values of a request this page (or the user, typing) made."""


def _link() -> DaemonLink:
    path = current_app.config.get("DAEMON_SOCKET")
    return DaemonLink(Path(path) if path else None)


def _unavailable(exc: DaemonUnavailable) -> tuple[Response, int]:
    return jsonify(error=str(exc), daemon=False), 503


@bp.before_request
def same_origin_json() -> tuple[Response, int] | None:
    """Refuse a POST that a page on another site made a browser send (CSRF)."""
    if request.method != "POST":
        return None
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site not in FRIENDLY_SITES:
        return jsonify(error=f"cross-site request refused (Sec-Fetch-Site: {site})"), 403
    origin = request.headers.get("Origin")
    if origin is not None:
        parts = urlsplit(origin)
        if origin == "null" or parts.netloc.lower() != request.host.lower():
            return jsonify(
                error=f"cross-origin request refused: Origin {origin!r} is not this "
                f"dashboard (http://{request.host}); use the console on its own page"
            ), 403
    if not request.is_json:
        return jsonify(
            error=f"expected Content-Type: application/json, got {request.mimetype or 'none'!r}"
        ), 415
    return None


def _request_id() -> str:
    """Each request its own id, so the trace tells the console's turns apart."""
    return f"console-{secrets.token_hex(3)}"


def _body() -> dict[str, Any]:
    body = request.get_json(silent=True)
    return body if isinstance(body, dict) else {}


@bp.get("/status")
def status() -> Response | tuple[Response, int]:
    try:
        reply = _link().one({"op": "status"})
    except DaemonUnavailable as exc:
        return _unavailable(exc)
    return jsonify(daemon=True, status=reply.get("status", {}))


@bp.get("/tools")
def tools() -> Response | tuple[Response, int]:
    try:
        reply = _link().one({"op": "tools"})
    except DaemonUnavailable as exc:
        return _unavailable(exc)
    return jsonify(daemon=True, tools=reply.get("tools", []))


@bp.post("/reset")
def reset() -> Response | tuple[Response, int]:
    try:
        reply = _link().one({"op": "reset", "session": _body().get("session")})
    except DaemonUnavailable as exc:
        return _unavailable(exc)
    return jsonify(reply), 400 if reply.get("type") == "error" else 200


@bp.post("/call")
def call() -> Response | tuple[Response, int]:
    body = _body()
    message = {"op": "call", "id": _request_id(), "tool": body.get("tool")}
    message["arguments"] = body.get("arguments", {})
    try:
        reply = _link().one(message)
    except DaemonUnavailable as exc:
        return _unavailable(exc)
    return jsonify(reply), 400 if reply.get("type") == "error" else 200


@bp.post("/ask")
def ask() -> Response | tuple[Response, int]:
    body = _body()
    message = {"id": _request_id(), "prompt": body.get("prompt"), "stream": True}
    if body.get("session") is not None:
        message["session"] = body["session"]
    lines = _link().lines(message, idle_s=ASK_IDLE_S)
    try:
        first = next(lines)  # connecting happens here: a missing daemon is a 503
    except DaemonUnavailable as exc:
        return _unavailable(exc)
    except StopIteration:
        return _unavailable(DaemonUnavailable("edgeagent closed the connection"))

    def relay() -> Iterator[str]:
        line = first
        try:
            while True:
                yield "\n" if line is None else json.dumps(line) + "\n"
                if line is not None and line.get("type") in ("final", "error"):
                    return
                line = next(lines, {"type": "error", "message": "edgeagent went away"})
        finally:
            lines.close()  # the connection: a browser that left cancels its turn

    return Response(relay(), mimetype="application/x-ndjson", headers={"Cache-Control": "no-cache"})


def _event(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"


@bp.get("/trace")
def trace() -> Response:
    link = _link()
    keepalive = float(current_app.config["SSE_KEEPALIVE_S"])

    def stream() -> Iterator[str]:
        yield f"retry: {RETRY_MS}\n\n"
        lines = link.lines({"op": "trace", "id": "console"}, idle_s=keepalive)
        try:
            for line in lines:
                if line is None:
                    yield ": keepalive\n\n"
                elif line.get("type") == "tracing":
                    yield _event("daemon", {"running": True})
                    yield _event("tracing", line)
                elif line.get("type") == "trace":
                    yield _event("trace", line)
            yield _event("daemon", {"running": False, "error": "edgeagent stopped"})
        except DaemonUnavailable as exc:
            yield _event("daemon", {"running": False, "error": str(exc)})
        finally:
            lines.close()

    return Response(
        stream(),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
