"""The sd_notify datagram protocol, implemented directly (no libsystemd binding).

systemd passes ``NOTIFY_SOCKET`` (a filesystem path, or an abstract socket spelled with a
leading ``@``) to a ``Type=notify`` service; the service sends newline-separated
``KEY=value`` assignments in single datagrams: ``READY=1`` once it serves,
``STATUS=...`` for ``systemctl status``, ``WATCHDOG=1`` at least every
``WATCHDOG_USEC`` microseconds, and ``STOPPING=1`` when it begins to shut down.

Outside systemd (no ``NOTIFY_SOCKET``) every call is a no-op, so the daemon runs the
same way in a terminal.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping, MutableMapping

log = logging.getLogger(__name__)

NOTIFY_VARS = ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")


def _address(raw: str) -> str | bytes:
    """``@name`` is an abstract socket: a leading NUL byte on the wire."""
    if raw.startswith("@"):
        return b"\0" + raw[1:].encode()
    return raw


class Notifier:
    """Sends sd_notify datagrams to the service manager, if there is one.

    Send errors are logged once and never raised: a lost notification must not take the
    daemon down (systemd then restarts it for a missed READY or watchdog, which is the
    right outcome for a daemon that cannot reach it).
    """

    def __init__(
        self,
        notify_socket: str | None,
        *,
        watchdog_usec: int | None = None,
    ) -> None:
        self.address = _address(notify_socket) if notify_socket else None
        self.watchdog_usec = watchdog_usec if watchdog_usec and watchdog_usec > 0 else None
        self._sock: socket.socket | None = None
        self._warned = False

    @classmethod
    def from_env(
        cls, env: MutableMapping[str, str] | Mapping[str, str], *, unset: bool = False
    ) -> Notifier:
        """Read ``NOTIFY_SOCKET`` and ``WATCHDOG_USEC`` (honouring ``WATCHDOG_PID``).

        ``unset=True`` removes the variables afterwards, so that child processes (the
        model worker) do not inherit them and notify on the daemon's behalf.
        """
        notify_socket = env.get("NOTIFY_SOCKET") or None
        watchdog: int | None = None
        raw_usec = env.get("WATCHDOG_USEC")
        raw_pid = env.get("WATCHDOG_PID")
        if raw_usec:
            try:
                watchdog = int(raw_usec)
                if raw_pid and int(raw_pid) != os.getpid():
                    watchdog = None  # meant for another process (e.g. a wrapper)
            except ValueError:
                log.warning(
                    "ignoring WATCHDOG_USEC=%r: expected an integer of microseconds", raw_usec
                )
                watchdog = None
        if unset and isinstance(env, MutableMapping):
            for var in NOTIFY_VARS:
                env.pop(var, None)
        return cls(notify_socket, watchdog_usec=watchdog)

    @property
    def enabled(self) -> bool:
        return self.address is not None

    @property
    def watchdog_interval_s(self) -> float | None:
        """How often to ping: half the watchdog timeout, as sd_watchdog_enabled(3) advises."""
        if not self.enabled or self.watchdog_usec is None:
            return None
        return self.watchdog_usec / 2 / 1_000_000

    def notify(self, *assignments: str) -> bool:
        """Send ``KEY=value`` lines in one datagram. True when it was sent."""
        if self.address is None:
            return False
        payload = "\n".join(assignments).encode("utf-8", "replace")
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
                self._sock.setblocking(False)
            self._sock.sendto(payload, self.address)
        except OSError as exc:
            if not self._warned:
                log.warning("cannot notify systemd at NOTIFY_SOCKET=%r: %s", self.address, exc)
                self._warned = True
            return False
        return True

    def ready(self, status: str | None = None) -> bool:
        lines = ["READY=1", f"MAINPID={os.getpid()}"]
        if status:
            lines.append(f"STATUS={_one_line(status)}")
        return self.notify(*lines)

    def status(self, text: str) -> bool:
        return self.notify(f"STATUS={_one_line(text)}")

    def watchdog(self) -> bool:
        return self.notify("WATCHDOG=1")

    def stopping(self, status: str | None = None) -> bool:
        lines = ["STOPPING=1"]
        if status:
            lines.append(f"STATUS={_one_line(status)}")
        return self.notify(*lines)

    def close(self) -> None:
        """Close the datagram socket. Idempotent."""
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()


def _one_line(text: str) -> str:
    # A newline would start a new assignment in the datagram.
    return " ".join(text.split())
