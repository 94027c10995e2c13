"""The console's way to the daemon: its Unix socket, one short connection per request.

The Flask app serves each request in its own thread, so this is blocking code over
:class:`edgeagent.frontends.client.DaemonClient`, which says in its errors why the
daemon cannot be reached. Every request speaks for the ``dashboard`` front end
(``"via": "dashboard"``): the daemon applies that front end's call policy (the shell is
denied by default) and keeps its sessions apart from the socket's.
"""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

from edgeagent.errors import DaemonError
from edgeagent.frontends.client import DaemonClient

VIA = "dashboard"
CONNECT_TIMEOUT_S = 2.0
MAX_LINE_BYTES = 4 << 20
"""A reply line longer than this is the daemon misbehaving, not something to buffer."""


class DaemonUnavailable(Exception):
    """The daemon cannot be reached (not running, no permission, not configured)."""


class DaemonLink:
    """Requests to the daemon at ``path`` (``[socket] path``); ``None``: none configured."""

    def __init__(self, path: Path | None, *, timeout_s: float = 10.0) -> None:
        self.path = path
        self.timeout_s = timeout_s

    def _connect(self) -> DaemonClient:
        if self.path is None:
            raise DaemonUnavailable(
                "no daemon socket configured: start the dashboard with `edgeagent sim`, "
                "which reads [socket] path from the same config as `edgeagent run`"
            )
        try:
            return DaemonClient(self.path, timeout_s=CONNECT_TIMEOUT_S)
        except DaemonError as exc:
            raise DaemonUnavailable(str(exc)) from None

    def one(self, message: dict[str, Any]) -> dict[str, Any]:
        """A request answered by one line (``status``, ``tools``, ``reset``, ``call``)."""
        with contextlib.closing(self.lines(message, idle_s=self.timeout_s)) as lines:
            for line in lines:
                if line is None:
                    raise DaemonUnavailable(f"edgeagent did not answer within {self.timeout_s:g} s")
                return line
        raise DaemonUnavailable("edgeagent closed the connection before answering")

    def lines(
        self, message: dict[str, Any], *, idle_s: float
    ) -> Generator[dict[str, Any] | None, None, None]:
        """Send ``message`` (as the dashboard); yield each reply line, and ``None`` after
        each ``idle_s`` without one (so a relay can see whether its browser is still
        there). Ends when the daemon closes the connection; closing the iterator closes
        the connection, which cancels what the request started."""
        client = self._connect()
        try:
            sock = client.sock
            try:
                sock.sendall(json.dumps({**message, "via": VIA}).encode() + b"\n")
            except OSError as exc:
                raise DaemonUnavailable(f"edgeagent closed the connection ({exc})") from None
            sock.settimeout(idle_s)
            yield from _read_lines(sock)
        finally:
            client.close()


def _read_lines(sock: socket.socket) -> Iterator[dict[str, Any] | None]:
    buffer = b""
    while True:
        while b"\n" in buffer:
            raw, buffer = buffer.split(b"\n", 1)
            if raw.strip():
                line = json.loads(raw)
                if isinstance(line, dict):
                    yield line
        if len(buffer) > MAX_LINE_BYTES:
            raise DaemonUnavailable(f"edgeagent sent a line over {MAX_LINE_BYTES} bytes")
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            yield None
            continue
        except OSError:
            return
        if not chunk:
            return
        buffer += chunk
