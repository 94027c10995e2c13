"""Streamable HTTP for the MCP server: the SDK's app behind a bearer token, served by
uvicorn inside the caller's asyncio loop (the daemon's, or ``edgeagent mcp serve``'s).

The SDK keeps its DNS-rebinding protection for a loopback ``host`` (a web page cannot
reach the server through a name that resolves to 127.0.0.1). With a token, every
request must carry ``Authorization: Bearer <token>``, or go to ``/mcp/<token>``, the
form for a client that takes only a URL (Home Assistant's MCP integration sends a
header only after OAuth, which edgeagent does not run); anything else gets 401 with a
``WWW-Authenticate`` header, before the SDK sees it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from typing import Any

import uvicorn
from mcp.server.lowlevel import Server

from edgeagent.mcp import HTTP_PATH
from edgeagent.mcp.token import bearer_matches, path_token_matches

log = logging.getLogger(__name__)

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

REALM = "edgeagent"


class BearerToken:
    """ASGI middleware: HTTP requests without ``Bearer <token>`` are answered 401."""

    def __init__(self, app: ASGIApp, *, token: str) -> None:
        self.app = app
        self._token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan: the SDK's session manager starts here
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v for k, v in scope.get("headers", [])}
        raw = headers.get("authorization")
        if bearer_matches(raw.decode("latin-1") if raw is not None else None, self._token):
            await self.app(scope, receive, send)
            return
        if path_token_matches(str(scope.get("path", "")), HTTP_PATH, self._token):
            # /mcp/<token> is /mcp: the SDK's app sees the path it serves.
            inner = {**scope, "path": HTTP_PATH, "raw_path": HTTP_PATH.encode()}
            await self.app(inner, receive, send)
            return
        # RFC 6750: no credentials -> the scheme alone; wrong ones -> invalid_token.
        challenge = f'Bearer realm="{REALM}"'
        if raw is not None:
            challenge += ', error="invalid_token"'
        body = json.dumps(
            {
                "error": "invalid_token" if raw is not None else "unauthorized",
                "error_description": "send Authorization: Bearer <the token in the "
                "server's [mcp] token_file>, or use the URL /mcp/<that token>",
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", challenge.encode()),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def http_app(server: Server[Any], *, host: str, token: str | None) -> ASGIApp:
    """The SDK's streamable HTTP app at :data:`HTTP_PATH`, behind the token if any."""
    app: ASGIApp = server.streamable_http_app(streamable_http_path=HTTP_PATH, host=host)
    return BearerToken(app, token=token) if token is not None else app


class _Uvicorn(uvicorn.Server):
    """uvicorn that leaves the process's signals to its owner (the daemon's handlers)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class HTTPServer:
    """An ASGI app served on ``host``:``port`` from a task of the running loop.

    ``start()`` binds first, so a port in use is an :class:`OSError` naming it (uvicorn
    would exit the process); ``stop(grace_s=...)`` lets open requests finish, then
    closes. ``stop`` is idempotent.
    """

    def __init__(self, app: ASGIApp, *, host: str, port: int, what: str = "[mcp]") -> None:
        self.app = app
        self.host = host
        self.port = port
        self.what = what
        self._server: _Uvicorn | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{HTTP_PATH}"

    async def start(self) -> None:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        try:
            sock = socket.create_server((self.host, self.port), family=family)
        except OSError as exc:
            raise OSError(
                exc.errno,
                f"cannot listen on {self.host}:{self.port} ({exc.strerror or exc}); set "
                f"{self.what} host and port to a free address",
            ) from None
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app,
            log_config=None,
            access_log=False,
            lifespan="on",
            ws="none",
            timeout_graceful_shutdown=2,
        )
        self._server = server = _Uvicorn(config)
        self._task = asyncio.create_task(self._serve(server, sock), name="edgeagent-mcp-http")
        while not server.started:
            if self._task.done():
                self._task.result()  # raises what stopped it
                raise RuntimeError(f"the MCP HTTP server on {self.url} stopped while starting")
            await asyncio.sleep(0.02)
        log.info("MCP over streamable HTTP on %s", self.url)

    @staticmethod
    async def _serve(server: _Uvicorn, sock: socket.socket) -> None:
        try:
            await server.serve(sockets=[sock])
        except SystemExit as exc:  # uvicorn's way to say the app's start-up failed
            raise RuntimeError(f"the MCP HTTP app failed to start (exit {exc.code})") from None
        finally:
            sock.close()

    async def stop(self, *, grace_s: float = 2.0) -> None:
        task, self._task = self._task, None
        if task is None or self._server is None:
            return
        self._server.should_exit = True
        done, _ = await asyncio.wait({task}, timeout=grace_s + 1.0)
        if not done:
            self._server.force_exit = True
            task.cancel()
            await asyncio.wait({task})
        if not task.cancelled() and task.exception() is not None:
            log.warning("the MCP HTTP server stopped with an error: %s", task.exception())
