"""Ports on 127.0.0.1 for the processes a test starts: a free one, and waiting for one."""

from __future__ import annotations

import socket
import subprocess
import time


def free_port() -> int:
    """A TCP port nothing listens on now (the kernel's pick; free until someone binds it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(
    port: int,
    *,
    timeout: float,
    process: subprocess.Popen[bytes] | None = None,
    host: str = "127.0.0.1",
) -> None:
    """Until something accepts connections on ``port``; fail early if ``process`` exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise AssertionError(f"{process.args!r} exited ({process.returncode}) before {port}")
        try:
            socket.create_connection((host, port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing accepted connections on {host}:{port} within {timeout} s")
