"""The Unix-socket front end: newline-delimited JSON for local programs.

A client writes one JSON object per line:

* ``{"id": "1", "prompt": "turn the LED red", "session": "kitchen", "stream": true}``
  runs a turn; the daemon answers with event lines ``{"type": "text"|"tool_call"|
  "tool_result"|"final"|"error", "id": "1", ...}`` (``stream: false``: only the last).
* ``{"op": "status"}``, ``{"op": "tools"}``, ``{"op": "reset", "session": "kitchen"}``
  and ``{"op": "cancel", "id": "1"}`` answer with one line of ``type`` ``status``,
  ``tools``, ``reset`` or ``cancelled``.

A bad line (not JSON, not UTF-8, too long, wrong fields) gets an ``error`` line and the
connection stays usable. Several requests may be in flight on one connection; their
lines carry their ``id``. A client that disconnects (EOF) cancels its requests, so keep
the connection open until the ``final`` line arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import grp
import json
import logging
import os
import socket
from pathlib import Path
from typing import Any

from edgeagent.agent.events import ErrorEvent, FinalAnswer, TextChunk, event_to_dict
from edgeagent.config import SocketConfig
from edgeagent.errors import ConfigError, ProtocolError
from edgeagent.frontends.base import Dispatcher, Request

log = logging.getLogger(__name__)

SOCKET_MODE = 0o660


class SocketFrontend:
    """Serves the daemon over a Unix stream socket. ``start()``/``stop()``; idempotent stop."""

    name = "socket"

    def __init__(self, config: SocketConfig, *, dispatcher: Dispatcher) -> None:
        self.config = config
        self.path = Path(config.path)
        self.dispatcher = dispatcher
        self.degraded: str | None = None
        """Why the socket works with reduced function (e.g. its group does not exist)."""
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._open: set[_Connection] = set()
        self._inode: int | None = None

    async def start(self) -> None:
        sock = self._bind()
        # The reader limit is the line limit, plus room for the newline itself.
        self._server = await asyncio.start_unix_server(
            self._serve, sock=sock, limit=self.config.max_line_bytes + 1
        )
        log.info("listening on %s", self.path)

    def _bind(self) -> socket.socket:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale(self.path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # umask so the socket is never briefly world-accessible between bind and chmod.
        old_umask = os.umask(0o117)
        try:
            sock.bind(str(self.path))
        except OSError as exc:
            sock.close()
            raise ConfigError(
                f"Cannot create the socket {self.path} ([socket] path): {exc.strerror}; "
                f"pick a writable directory or run under systemd (RuntimeDirectory=edgeagent)"
            ) from None
        finally:
            os.umask(old_umask)
        os.chmod(self.path, SOCKET_MODE)
        if self.config.group:
            try:
                os.chown(self.path, -1, grp.getgrnam(self.config.group).gr_gid)
            except KeyError:
                self.degraded = f"group {self.config.group!r} ([socket] group) does not exist"
            except PermissionError:
                self.degraded = (
                    f"cannot give the socket to group {self.config.group!r}: this user is "
                    f"not a member of it"
                )
            if self.degraded:
                log.error(
                    "socket %s: %s; it keeps the daemon's own group", self.path, self.degraded
                )
        self._inode = self.path.stat().st_ino
        return sock

    def stop_accepting(self) -> None:
        """Close the listening socket; connected clients still get their answers."""
        if self._server is not None:
            self._server.close()

    async def stop(self, *, grace_s: float = 0.0) -> None:
        """Stop accepting, give requests ``grace_s`` to send their last line, cancel the
        rest, remove the socket file. Idempotent."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
        requests = {task for conn in self._open for task in conn.requests}
        if requests and grace_s > 0:
            await asyncio.wait(requests, timeout=grace_s)
        for task in list(self._connections):
            task.cancel()
        if self._connections:
            await asyncio.gather(*self._connections, return_exceptions=True)
        if server is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(server.wait_closed(), 1.0)
        self._unlink()

    def _unlink(self) -> None:
        # Only remove the file we created: a newer daemon may have replaced it.
        with contextlib.suppress(FileNotFoundError):
            if self._inode is not None and self.path.stat().st_ino == self._inode:
                self.path.unlink()
        self._inode = None

    # --- one connection --------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        conn = _Connection(self, writer)
        self._open.add(conn)
        try:
            while True:
                try:
                    line = await reader.readuntil(b"\n")
                except asyncio.IncompleteReadError as exc:
                    if exc.partial.strip():
                        await conn.handle_line(exc.partial)
                    break
                except asyncio.LimitOverrunError:
                    if not await _discard_line(reader, self.config.max_line_bytes + 1):
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
            await conn.close()
            self._open.discard(conn)
            self._connections.discard(task)


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


class _Connection:
    def __init__(self, frontend: SocketFrontend, writer: asyncio.StreamWriter) -> None:
        self.frontend = frontend
        self.dispatcher = frontend.dispatcher
        self.writer = writer
        self.requests: dict[asyncio.Task[None], str | None] = {}
        self._write_lock = asyncio.Lock()

    async def send(self, payload: dict[str, Any]) -> None:
        data = json.dumps(payload, ensure_ascii=False, default=str).encode() + b"\n"
        async with self._write_lock:
            self.writer.write(data)
            await self.writer.drain()

    async def send_error(self, request_id: Any, message: str) -> None:
        log.info("socket client error: %s", message)
        await self.send({"type": "error", "id": request_id, "message": message})

    async def handle_line(self, raw: bytes) -> None:
        if not raw.strip():
            return
        try:
            message = _decode(raw)
        except ProtocolError as exc:
            await self.send_error(None, str(exc))
            return
        request_id = message.get("id")
        op = message.get("op")
        try:
            if op is None:
                request = _to_request(message)
                task = asyncio.create_task(self._run(request, request_id))
                self.requests[task] = request.id
                task.add_done_callback(self.requests.pop)
            elif op == "status":
                await self.send(
                    {"type": "status", "id": request_id, "status": self.dispatcher.status()}
                )
            elif op == "tools":
                await self.send(
                    {"type": "tools", "id": request_id, "tools": self.dispatcher.tools()}
                )
            elif op == "reset":
                session = message.get("session")
                if not isinstance(session, str) or not session:
                    raise ProtocolError(
                        '"reset" needs a "session" name, e.g. {"op": "reset", "session": "kitchen"}'
                    )
                existed = self.dispatcher.reset_session(session)
                await self.send(
                    {"type": "reset", "id": request_id, "session": session, "existed": existed}
                )
            elif op == "cancel":
                hits = [
                    t for t, rid in self.requests.items() if rid is not None and rid == request_id
                ]
                for task in hits:
                    task.cancel()
                await self.send({"type": "cancelled", "id": request_id, "found": bool(hits)})
            else:
                raise ProtocolError(
                    f"unknown op {op!r}; expected one of status, tools, reset, cancel, "
                    f'or a prompt {{"prompt": "..."}}'
                )
        except ProtocolError as exc:
            await self.send_error(request_id, str(exc))

    async def _run(self, request: Request, request_id: Any) -> None:
        stream = self.dispatcher.submit(request)
        try:
            async with contextlib.aclosing(stream):  # type: ignore[type-var]
                async for event in stream:
                    if not request.stream and not isinstance(event, FinalAnswer | ErrorEvent):
                        continue
                    if isinstance(event, TextChunk) and not event.text:
                        continue
                    payload = event_to_dict(event)
                    payload["id"] = request_id  # echoed unchanged, as the client sent it
                    await self.send(payload)
        except (ConnectionError, OSError) as exc:
            if getattr(exc, "errno", None) not in (None, errno.EPIPE, errno.ECONNRESET):
                log.warning("socket client write failed: %s", exc)
            # The stream was closed above, which cancelled the request.

    async def close(self) -> None:
        for task in list(self.requests):
            task.cancel()
        if self.requests:
            await asyncio.gather(*self.requests, return_exceptions=True)
        with contextlib.suppress(Exception):
            self.writer.close()
            await asyncio.wait_for(self.writer.wait_closed(), 1.0)


def _decode(raw: bytes) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(
            f"line is not valid UTF-8 (byte {exc.start}); send UTF-8 JSON"
        ) from None
    try:
        message = json.loads(text)
    except ValueError as exc:
        raise ProtocolError(
            f'line is not valid JSON ({exc}); send one object per line, e.g. {{"prompt": "hello"}}'
        ) from None
    if not isinstance(message, dict):
        raise ProtocolError(f"expected a JSON object per line, got {type(message).__name__}")
    return message


def _to_request(message: dict[str, Any]) -> Request:
    prompt = message.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise ProtocolError(f'"prompt" must be a non-empty string, got {prompt!r}')
    session = message.get("session")
    if session is not None and not isinstance(session, str):
        raise ProtocolError(f'"session" must be a string or null, got {session!r}')
    stream = message.get("stream", True)
    if not isinstance(stream, bool):
        raise ProtocolError(f'"stream" must be true or false, got {stream!r}')
    request_id = message.get("id")
    if request_id is not None and not isinstance(request_id, str | int):
        raise ProtocolError(f'"id" must be a string or number, got {request_id!r}')
    return Request(
        prompt=prompt,
        frontend="socket",
        id=None if request_id is None else str(request_id),
        session=session or None,
        stream=stream,
    )


def _remove_stale(path: Path) -> None:
    """Remove a socket file left by a crashed daemon; refuse if one is still serving."""
    if not path.exists() and not path.is_symlink():
        return
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except (ConnectionRefusedError, FileNotFoundError):
        path.unlink(missing_ok=True)
        return
    except OSError as exc:
        raise ConfigError(
            f"{path} exists and is not a usable socket ({exc.strerror}); remove it"
        ) from None
    finally:
        probe.close()
    raise ConfigError(
        f"Another edgeagent is already serving on {path}; stop it first "
        f"(`systemctl stop edgeagent`) or set a different [socket] path"
    )
