"""A client of the daemon's Unix socket (:mod:`edgeagent.frontends.socket`).

``edgeagent ask`` and ``status``, the benchmarks and the tests talk to a running daemon
through :class:`DaemonClient`: a plain blocking socket, so a command starts in a
fraction of a second and imports nothing of the daemon. Failures are
:class:`~edgeagent.errors.DaemonError` leaves that say what to do; the CLI prints them.

Where the daemon listens: the ``[socket] path`` of the config in use. Without a config
file (``edgeagent ask`` run outside the checkout on a laptop, where only
``./config/edgeagent.toml`` names the socket) :func:`connect` tries each of
:data:`WELL_KNOWN_SOCKETS` in turn, so a daemon started from the shipped configs is
found from any working directory.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from edgeagent.agent.events import (
    ErrorEvent,
    Event,
    FinalAnswer,
    TextChunk,
    ToolCallEvent,
    ToolResultEvent,
    stats_from_dict,
)
from edgeagent.config import MAX_SOCKET_PATH_BYTES, SocketConfig
from edgeagent.errors import (
    DaemonError,
    DaemonNotRunningError,
    DaemonPermissionError,
    DaemonTimeoutError,
)

SYSTEM_SOCKET: Path = SocketConfig.model_fields["path"].default
"""The service's socket (systemd's RuntimeDirectory): the ``[socket] path`` default."""
LAPTOP_SOCKET = Path("/tmp/edgeagent/edgeagent.sock")
"""Where ``config/edgeagent.toml`` (``./scripts/up``, a laptop) puts the socket."""
WELL_KNOWN_SOCKETS = (SYSTEM_SOCKET, LAPTOP_SOCKET)
"""Tried in this order when no config file names the socket."""

START_HINT = "start it with `edgeagent run` or `systemctl start edgeagent`"


class DaemonClient:
    """One connection to the daemon's socket; ``request()`` yields its reply lines."""

    def __init__(self, path: Path, *, timeout_s: float | None = None) -> None:
        self.path = path
        size = len(os.fsencode(path))
        if size > MAX_SOCKET_PATH_BYTES:
            raise DaemonError(
                f"socket path {str(path)[:60]}... is {size} bytes long, more than the "
                f"{MAX_SOCKET_PATH_BYTES} a Unix socket path may have; give the path the "
                f"daemon listens on ([socket] path), e.g. {SYSTEM_SOCKET}"
            )
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout_s)
        try:
            self.sock.connect(str(path))
        except FileNotFoundError:
            self.sock.close()
            raise DaemonNotRunningError(
                f"edgeagent is not running (no socket at {path}); {START_HINT}"
            ) from None
        except ConnectionRefusedError:
            self.sock.close()
            raise DaemonNotRunningError(
                f"edgeagent is not running (the socket {path} refuses connections; a "
                f"daemon died without removing it); {START_HINT}"
            ) from None
        except PermissionError:
            self.sock.close()
            raise DaemonPermissionError(
                f"permission denied on {path}: add your user to the socket's group "
                f"([socket] group) and log in again, or use sudo"
            ) from None
        except TimeoutError:
            self.sock.close()
            raise DaemonTimeoutError(
                f"edgeagent did not accept the connection on {path} within {timeout_s:g} s"
            ) from None
        except OSError as exc:
            self.sock.close()
            raise DaemonError(
                f"cannot connect to {path}: {exc.strerror or exc}; give the socket the "
                f"daemon listens on ([socket] path or --socket)"
            ) from None
        self.file = self.sock.makefile("rb")

    def request(self, message: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Send one request line; yield every line the daemon answers, until the caller
        stops (a ``final`` or ``error`` line ends a prompt's answer)."""
        try:
            self.sock.sendall(json.dumps(message).encode() + b"\n")
        except OSError as exc:
            raise DaemonError(
                f"edgeagent closed the connection before the request was sent ({exc})"
            ) from None
        while True:
            try:
                line = self.file.readline()
            except TimeoutError:
                raise DaemonTimeoutError(
                    f"no answer from edgeagent within {self.sock.gettimeout():g} s"
                ) from None
            except OSError as exc:
                raise DaemonError(f"edgeagent broke off the connection ({exc})") from None
            if not line:
                raise DaemonError("edgeagent closed the connection before answering")
            try:
                reply = json.loads(line)
            except ValueError:
                raise DaemonError(
                    f"edgeagent sent a line that is not JSON: {line[:80]!r}"
                ) from None
            if not isinstance(reply, dict):
                raise DaemonError(f"edgeagent sent {reply!r} where an object was expected")
            yield reply

    def close(self) -> None:
        self.file.close()
        self.sock.close()

    def __enter__(self) -> DaemonClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect(paths: Sequence[Path], *, timeout_s: float | None = None) -> DaemonClient:
    """A client of the first of ``paths`` that a daemon answers on.

    When none does, the error is about the first path that exists but cannot be used (a
    permission problem says more than "not running"), else it lists every path tried.
    """
    if not paths:
        raise ValueError("connect() needs at least one socket path")
    failures: list[DaemonError] = []
    for path in paths:
        try:
            return DaemonClient(path, timeout_s=timeout_s)
        except DaemonError as exc:
            failures.append(exc)
    serious = [e for e in failures if not isinstance(e, DaemonNotRunningError)]
    if serious:
        raise serious[0]
    if len(paths) == 1:
        raise failures[0]
    raise DaemonNotRunningError(
        f"edgeagent is not running (no daemon on {' or '.join(map(str, paths))}); "
        f"{START_HINT}, or give --socket (or --config) if it listens elsewhere"
    )


_EVENT_TYPES: dict[str, type[Event]] = {
    "text": TextChunk,
    "tool_call": ToolCallEvent,
    "tool_result": ToolResultEvent,
    "final": FinalAnswer,
    "error": ErrorEvent,
}


def event_from_line(line: dict[str, Any]) -> Event | None:
    """The :class:`~edgeagent.agent.events.Event` a reply line carries (the inverse of
    ``event_to_dict``); ``None`` for lines that are not turn events (``status``...)."""
    cls = _EVENT_TYPES.get(str(line.get("type")))
    if cls is None:
        return None
    names = {f.name for f in dataclasses.fields(cls)} - {"type"}
    fields = {k: v for k, v in line.items() if k in names}
    if isinstance(fields.get("stats"), dict):
        fields["stats"] = stats_from_dict(fields["stats"])
    try:
        return cls(**fields)
    except TypeError:
        raise DaemonError(f"edgeagent sent an incomplete {line.get('type')} line") from None
