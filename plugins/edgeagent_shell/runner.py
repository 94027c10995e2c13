"""Run one checked argv with no shell, a minimal environment, a deadline and an output cap.

The command never sees the daemon's environment (:data:`ENV` is all it gets), and
:func:`redact` blanks the daemon's secrets out of whatever a command prints anyway: the
last line of defence should a program on the allow-list print another process's
environment in a way the policy did not foresee.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
SECRET_WORDS = ("PASSWORD", "PASSWD", "SECRET", "TOKEN", "KEY", "CREDENTIAL")
MIN_SECRET_CHARS = 4
"""Shorter values are left alone: blanking every ``1`` or ``on`` would garble output."""
REDACTED = "[redacted]"


@dataclass(frozen=True)
class RunResult:
    exit_code: int | None
    """``None`` when the command was stopped (timeout or output cap)."""
    output: bytes
    truncated: bool
    timed_out: bool


def run_command(
    argv: list[str], *, cwd: Path, timeout_s: float, max_output_bytes: int
) -> RunResult:
    """Run ``argv``; stop it when it passes ``timeout_s`` or writes ``max_output_bytes``."""
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=ENV,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        shell=False,
        close_fds=True,
        start_new_session=True,  # its own process group, so a stop reaches any children
    )
    assert proc.stdout is not None
    chunks: list[bytes] = []
    size = 0
    truncated = timed_out = False
    deadline = time.monotonic() + timeout_s
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            if not sel.select(timeout=left):
                continue
            data = os.read(proc.stdout.fileno(), 65536)
            if not data:
                break
            chunks.append(data)
            size += len(data)
            if size > max_output_bytes:
                truncated = True
                break
    stopped = truncated or timed_out
    if stopped:
        _kill(proc)
    proc.stdout.close()
    try:  # a command may close its output and keep running; the deadline still holds
        code = proc.wait(timeout=max(deadline - time.monotonic(), 0.1))
    except subprocess.TimeoutExpired:
        _kill(proc)
        proc.wait()
        stopped = timed_out = True
    output = b"".join(chunks)[:max_output_bytes]
    return RunResult(None if stopped else code, output, truncated, timed_out)


def secret_values(environ: Mapping[str, str]) -> list[str]:
    """The values of ``environ``'s variables whose names say they hold a secret
    (``EDGEAGENT_MQTT__PASSWORD``, ``API_TOKEN``), longest first."""
    found = {
        value
        for name, value in environ.items()
        if any(word in name.upper() for word in SECRET_WORDS) and len(value) >= MIN_SECRET_CHARS
    }
    return sorted(found, key=len, reverse=True)


def redact(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    return text


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):  # it may have exited on its own
        os.killpg(proc.pid, signal.SIGKILL)
