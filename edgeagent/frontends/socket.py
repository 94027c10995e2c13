"""The Unix-socket front end: newline-delimited JSON for local programs.

A client writes one JSON object per line:

* ``{"id": "1", "prompt": "turn the LED red", "session": "kitchen", "stream": true}``
  runs a turn; the daemon answers with event lines ``{"type": "text"|"tool_call"|
  "tool_result"|"final"|"error", "id": "1", ...}`` (``stream: false``: only the last).
  The fields follow :func:`~edgeagent.frontends.base.parse_request`, as on MQTT;
  ``stream`` defaults to true here, and a ``transaction`` is echoed like the ``id``.
* ``{"op": "status"}``, ``{"op": "tools"}``, ``{"op": "reset", "session": "kitchen"}``
  and ``{"op": "cancel", "id": "1"}`` answer with one line of ``type`` ``status``,
  ``tools``, ``reset`` or ``cancelled``.
* ``{"op": "call", "tool": "led", "arguments": {"color": "red"}}`` runs one tool call,
  no model involved, queued like a prompt; one ``tool_result`` line answers.
* ``{"op": "trace"}`` answers ``{"type": "tracing", "history": N}``, then streams
  ``trace`` lines (:mod:`edgeagent.trace`; the first N are recent history) until the
  client closes the connection or cancels it by its ``id``; not idle meanwhile.
* ``"via": "dashboard"`` on any of these: a local program speaking for another front end
  (the dashboard's console). Its policy and its sessions are that front end's.

A bad line (not JSON, not UTF-8, too long or too deeply nested, wrong fields, a bad
``id`` or ``session``) gets an ``error`` line naming the problem and the connection
stays usable. Several requests may be in flight on one connection; their lines carry
their ``id``. A client that disconnects (EOF) cancels its requests, so keep the
connection open until the ``final`` line arrives.

Nothing is held forever: beyond ``[socket] max_connections`` clients a new one gets an
``error`` line and is closed; a connection with no request in flight that sends no
complete line for ``[socket] idle_timeout_s`` gets an ``error`` line and is closed, and
so is one that reads none of its replies for that long.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import socket
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from edgeagent.agent.events import ErrorEvent, FinalAnswer, TextChunk, event_to_dict
from edgeagent.config import SocketConfig
from edgeagent.errors import ProtocolError
from edgeagent.frontends.base import (
    Dispatcher,
    Request,
    ToolRequest,
    check_id,
    check_session,
    decode_json,
    echo_fields,
    echo_fields_of_text,
    parse_request,
    parse_tool_request,
    shown,
)
from edgeagent.frontends.socket_file import bind_socket
from edgeagent.jsontypes import JSONValue
from edgeagent.trace import TraceHub

log = logging.getLogger(__name__)

LISTEN_BACKLOG = 100
ACCEPT_RETRY_S = 1.0
"""Pause before accepting again when the process is out of file descriptors."""
CLOSING_WRITE_S = 1.0
"""How long a client we are closing on gets to take its last error line."""
_OUT_OF_RESOURCES = (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)


class SocketFrontend:
    """Serves the daemon over a Unix stream socket. ``start()``/``stop()``; idempotent stop."""

    name = "socket"

    def __init__(
        self, config: SocketConfig, *, dispatcher: Dispatcher, trace: TraceHub | None = None
    ) -> None:
        self.config = config
        self.path = Path(config.path)
        self.dispatcher = dispatcher
        self.trace = trace
        self.degraded: str | None = None
        """Why the socket works with reduced function (e.g. its group does not exist)."""
        self._accept_task: asyncio.Task[None] | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._open: set[_Connection] = set()
        self._inode: int | None = None

    async def start(self) -> None:
        listener = self._bind()
        listener.setblocking(False)
        listener.listen(LISTEN_BACKLOG)
        self._accept_task = asyncio.create_task(self._accept(listener), name="socket-accept")
        log.info("listening on %s", self.path)

    def _bind(self) -> socket.socket:
        bound = bind_socket(self.path, group=self.config.group)
        self.degraded = bound.degraded
        self._inode = bound.inode
        return bound.sock

    def status(self) -> dict[str, JSONValue]:
        return {"path": str(self.path), "clients": len(self._open)}

    def stop_accepting(self) -> None:
        """Close the listening socket; connected clients still get their answers."""
        if self._accept_task is not None:
            self._accept_task.cancel()

    async def stop(self, *, grace_s: float = 0.0) -> None:
        """Stop accepting, give requests ``grace_s`` to send their last line, cancel the
        rest, remove the socket file. Idempotent."""
        accept, self._accept_task = self._accept_task, None
        if accept is not None:
            accept.cancel()
            await asyncio.gather(accept, return_exceptions=True)
        # Only answers get the grace period: a trace watcher would hold it to the end.
        requests = {t for conn in self._open for t in conn.requests if t not in conn.watches}
        if requests and grace_s > 0:
            await asyncio.wait(requests, timeout=grace_s)
        for task in list(self._connections):
            task.cancel()
        if self._connections:
            await asyncio.gather(*self._connections, return_exceptions=True)
        self._unlink()

    def _unlink(self) -> None:
        # Only remove the file we created: a newer daemon may have replaced it.
        with contextlib.suppress(FileNotFoundError):
            if self._inode is not None and self.path.stat().st_ino == self._inode:
                self.path.unlink()
        self._inode = None

    # --- accepting ---------------------------------------------------------------------

    async def _accept(self, listener: socket.socket) -> None:
        """Accept clients until cancelled. Out of file descriptors, say so once and retry
        each second: asyncio's own server logs a traceback per attempt, thousands a
        second, and its retries multiply."""
        loop = asyncio.get_running_loop()
        starved_since: float | None = None
        try:
            while True:
                try:
                    conn, _ = await loop.sock_accept(listener)
                except OSError as exc:
                    if exc.errno in (errno.ECONNABORTED, errno.EPROTO):
                        continue  # that client gave up before it was accepted
                    if exc.errno not in _OUT_OF_RESOURCES:
                        log.warning("socket %s: accept failed: %s", self.path, exc)
                        await asyncio.sleep(ACCEPT_RETRY_S)  # never spin on an error
                        continue
                    if starved_since is None:
                        starved_since = loop.time()
                        log.warning(
                            "socket %s: cannot accept a client (%s) with %d connected; "
                            "retrying every %g s. Raise the open-file limit (LimitNOFILE) "
                            "or lower [socket] max_connections",
                            self.path,
                            exc.strerror or exc,
                            len(self._connections),
                            ACCEPT_RETRY_S,
                        )
                    await asyncio.sleep(ACCEPT_RETRY_S)
                    continue
                if starved_since is not None:
                    log.warning(
                        "socket %s: accepting clients again after %.1f s",
                        self.path,
                        loop.time() - starved_since,
                    )
                    starved_since = None
                task = asyncio.create_task(self._connected(conn))
                self._connections.add(task)
                task.add_done_callback(self._connections.discard)
        finally:
            listener.close()

    async def _connected(self, conn: socket.socket) -> None:
        try:
            reader, writer = await asyncio.open_unix_connection(
                sock=conn, limit=self.config.max_line_bytes + 1
            )
        except OSError:
            conn.close()
            return
        if len(self._open) >= self.config.max_connections:
            log.warning(
                "socket %s: refused a client, %d already connected ([socket] max_connections)",
                self.path,
                len(self._open),
            )
            await _say_and_close(
                writer,
                f"too many connections: at most {self.config.max_connections} at once "
                f"([socket] max_connections); close one or try again later",
            )
            return
        await self._serve(reader, writer)

    # --- one connection --------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = _Connection(self, writer)
        self._open.add(conn)
        idle_s = self.config.idle_timeout_s
        try:
            while True:
                try:
                    line = await asyncio.wait_for(reader.readuntil(b"\n"), idle_s)
                except TimeoutError:
                    if conn.requests:
                        continue  # waiting for its answers is not idling
                    await conn.send_error(
                        None,
                        f"no complete line for {idle_s:g} s ([socket] idle_timeout_s); "
                        f"closing the connection",
                        timeout_s=CLOSING_WRITE_S,
                    )
                    break
                except asyncio.IncompleteReadError as exc:
                    if exc.partial.strip():
                        await conn.handle_line(exc.partial)
                    break
                except asyncio.LimitOverrunError:
                    try:
                        ended = await asyncio.wait_for(
                            _discard_line(reader, self.config.max_line_bytes + 1), idle_s
                        )
                    except TimeoutError:
                        ended = False  # an endless line, drip-fed
                    if not ended:
                        break
                    await conn.send_error(
                        None,
                        f"line longer than {self.config.max_line_bytes} bytes "
                        f"([socket] max_line_bytes); split the request or raise the limit",
                    )
                    continue
                await conn.handle_line(line)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self._open.discard(conn)
            await conn.close()


async def _discard_line(reader: asyncio.StreamReader, limit: int) -> bool:
    """Skip to the end of an over-long line. False when the client went away first."""
    while True:
        try:
            await reader.readuntil(b"\n")
            return True
        except asyncio.LimitOverrunError as exc:
            await reader.readexactly(exc.consumed)
        except asyncio.IncompleteReadError:
            return False


async def _say_and_close(writer: asyncio.StreamWriter, message: str) -> None:
    """One error line to a client we will not serve, then close; never wait long."""
    with contextlib.suppress(Exception):
        writer.write(_encode({"type": "error", "id": None, "message": message}))
        await asyncio.wait_for(writer.drain(), CLOSING_WRITE_S)
    writer.close()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(writer.wait_closed(), CLOSING_WRITE_S)


class _Connection:
    def __init__(self, frontend: SocketFrontend, writer: asyncio.StreamWriter) -> None:
        self.frontend = frontend
        self.dispatcher = frontend.dispatcher
        self.writer = writer
        self.requests: dict[asyncio.Task[None], str | None] = {}
        self.watches: set[asyncio.Task[None]] = set()
        """The requests among them that stream the trace (they never end by themselves)."""
        self._write_lock = asyncio.Lock()

    async def send(self, payload: dict[str, Any], *, timeout_s: float | None = None) -> None:
        """Write one line. A client that reads nothing for ``timeout_s`` (default
        ``[socket] idle_timeout_s``) is cut off: it would hold its requests forever."""
        data = _encode(payload)
        wait_s = self.frontend.config.idle_timeout_s if timeout_s is None else timeout_s
        async with self._write_lock:
            if self.writer.is_closing():
                raise ConnectionResetError("the client went away")
            self.writer.write(data)
            try:
                await asyncio.wait_for(self.writer.drain(), wait_s)
            except TimeoutError:
                log.info("socket client dropped: it read no reply for %g s", wait_s)
                self.writer.transport.abort()
                raise ConnectionResetError(f"the client read no reply for {wait_s:g} s") from None

    async def send_error(
        self,
        echo: dict[str, str | int] | None,
        message: str,
        *,
        timeout_s: float | None = None,
    ) -> None:
        """An ``error`` line; ``echo`` is the ``id`` (and ``transaction``) of the line it
        answers, where they could be read."""
        log.info("socket client error: %s", message)
        echo = echo or {}
        await self.send(
            {"type": "error", "id": echo.get("id"), **echo, "message": message},
            timeout_s=timeout_s,
        )

    async def handle_line(self, raw: bytes) -> None:
        if not raw.strip():
            return
        echo: dict[str, str | int] = {}
        try:
            message = _decode(raw)
            echo = echo_fields(message)
            await self._answer(message, check_id("id", message.get("id")))
        except _Undecodable as exc:
            await self.send_error(exc.echo, str(exc))
        except ProtocolError as exc:
            await self.send_error(echo, str(exc))
        except ConnectionError:
            raise
        except Exception:  # a bug must cost one request, not the connection
            log.exception("socket request failed")
            await self.send_error(echo, "internal error; see the daemon's log")

    async def _answer(self, message: dict[str, Any], request_id: str | int | None) -> None:
        frontend = _via(message)
        op = message.get("op")
        if op is None:
            request = parse_request(message, frontend=frontend)
            self._spawn(self._run(request, echo_fields(message)), request.id)
        elif op == "status":
            await self.send(
                {"type": "status", "id": request_id, "status": self.dispatcher.status()}
            )
        elif op == "tools":
            await self.send({"type": "tools", "id": request_id, "tools": self.dispatcher.tools()})
        elif op == "call":
            call = parse_tool_request(message, frontend=frontend)
            self._spawn(self._call(call, echo_fields(message)), call.id)
        elif op == "trace":
            watch = self._spawn(self._trace(message), request_id)
            self.watches.add(watch)
            watch.add_done_callback(self.watches.discard)
        elif op == "reset":
            session = check_session(message.get("session"))
            if session is None:
                raise ProtocolError(
                    '"reset" needs a "session" name, e.g. {"op": "reset", "session": "kitchen"}'
                )
            existed = self.dispatcher.reset_session(session, frontend=frontend)
            await self.send(
                {"type": "reset", "id": request_id, "session": session, "existed": existed}
            )
        elif op == "cancel":
            wanted = None if request_id is None else str(request_id)
            hits = [t for t, rid in self.requests.items() if rid is not None and rid == wanted]
            for task in hits:
                task.cancel()
            await self.send({"type": "cancelled", "id": request_id, "found": bool(hits)})
        else:
            raise ProtocolError(
                f"unknown op {shown(op)}; expected one of status, tools, call, reset, cancel, "
                f'trace, or a prompt {{"prompt": "..."}}'
            )

    def _spawn(
        self, job: Coroutine[Any, Any, None], request_id: str | int | None
    ) -> asyncio.Task[None]:
        """Run a request beside the others; it can be cancelled by its id."""
        task = asyncio.create_task(job)
        self.requests[task] = None if request_id is None else str(request_id)
        task.add_done_callback(self.requests.pop)
        return task

    async def _run(self, request: Request, echo: dict[str, str | int]) -> None:
        stream = self.dispatcher.submit(request)
        try:
            async with contextlib.aclosing(stream):
                async for event in stream:
                    if not request.stream and not isinstance(event, FinalAnswer | ErrorEvent):
                        continue
                    if isinstance(event, TextChunk) and not event.text:
                        continue
                    # id (and transaction) echoed unchanged, as the client sent them.
                    payload = {**event_to_dict(event), "id": echo.get("id"), **echo}
                    await self.send(payload)
        except (ConnectionError, OSError) as exc:
            if getattr(exc, "errno", None) not in (None, errno.EPIPE, errno.ECONNRESET):
                log.warning("socket client write failed: %s", exc)
            # The stream was closed above, which cancelled the request.

    async def _call(self, call: ToolRequest, echo: dict[str, str | int]) -> None:
        result = await self.dispatcher.call_tool(call)
        payload = {"type": "tool_result", "name": call.tool, **result.to_dict()}
        with contextlib.suppress(ConnectionError, OSError):
            await self.send({**payload, "id": echo.get("id"), **echo})

    async def _trace(self, message: dict[str, Any]) -> None:
        echo, hub = echo_fields(message), self.frontend.trace
        with contextlib.suppress(ConnectionError, OSError):
            if hub is None:
                return await self.send_error(echo, "this daemon keeps no trace")
            with hub.subscribe() as lines:
                head = {"id": echo.get("id"), **echo}
                await self.send({"type": "tracing", **head, "history": lines.backlog})
                async for line in lines:
                    await self.send({"type": "trace", **head, **line})

    async def close(self) -> None:
        for task in list(self.requests):
            task.cancel()
        if self.requests:
            await asyncio.gather(*self.requests, return_exceptions=True)
        with contextlib.suppress(Exception):
            self.writer.close()
            await asyncio.wait_for(self.writer.wait_closed(), CLOSING_WRITE_S)


VIA = ("dashboard",)
"""The front ends a socket client may speak for. Only ones no more trusted than the
socket itself: the dashboard's default policy is narrower than the socket's."""


def _via(message: dict[str, Any]) -> str:
    """The front end a request is from: ``socket``, or its ``via`` (removed from it)."""
    via = message.pop("via", None)
    if via is None:
        return "socket"
    if via not in VIA:
        raise ProtocolError(f'"via" must be one of {", ".join(VIA)}, got {shown(via)}')
    return str(via)


def _encode(payload: dict[str, Any]) -> bytes:
    """One reply line. Text that is not Unicode (a lone surrogate, e.g. from a file name
    decoded with ``surrogateescape``) is sent \\u-escaped rather than killing the writer."""
    try:
        return json.dumps(payload, ensure_ascii=False, default=str).encode() + b"\n"
    except UnicodeEncodeError:
        return json.dumps(payload, default=str).encode() + b"\n"


class _Undecodable(ProtocolError):
    """A line that is not JSON; ``echo`` holds the id fields that could still be read."""

    def __init__(self, message: str, echo: dict[str, str | int]) -> None:
        super().__init__(message)
        self.echo = echo


def _decode(raw: bytes) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(
            f"line is not valid UTF-8 (byte {exc.start}); send UTF-8 JSON"
        ) from None
    try:
        message = decode_json(text)
    except ProtocolError as exc:
        raise _Undecodable(str(exc), echo_fields_of_text(text)) from None
    if not isinstance(message, dict):
        raise ProtocolError(f"expected a JSON object per line, got {type(message).__name__}")
    return message
