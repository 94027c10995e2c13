"""``edgeagent --config X run`` as a subprocess, the way systemd starts it, and a config
for it on the scripted model with mock hardware."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from edgeagent.frontends.client import DaemonClient

SCRIPT = {
    "rules": [
        {"match": "(?i)^hello", "reply": "Hello from the scripted model."},
        {"match": "(?i)^count", "reply": "one two three four five six seven eight nine ten"},
    ],
    "default": "I only know scripted answers.",
    "chunk_size": 8,
}


def write_daemon_config(
    directory: Path,
    *,
    socket_path: Path,
    mqtt_port: int | None = None,
    extra: str = "",
    script: dict[str, object] | None = None,
    device_id: str = "bench",
) -> Path:
    """A config for a daemon on the scripted backend with no plugins' hardware needed."""
    (directory / "script.json").write_text(json.dumps(script or SCRIPT))
    (directory / "tools.d").mkdir(exist_ok=True)
    mqtt = (
        f'[mqtt]\nenabled = true\nhost = "127.0.0.1"\nport = {mqtt_port}\n'
        f'device_id = "{device_id}"\nprotocol = "5"\n'
        if mqtt_port is not None
        else "[mqtt]\nenabled = false\n"
    )
    text = f"""
[llm]
backend = "scripted"
script = "script.json"

[tools]
wrapped_dir = "tools.d"

[plugins.led]
backend = "mock"

[plugins.servo]
backend = "mock"

[socket]
path = "{socket_path}"

[daemon]
request_timeout_s = 10
shutdown_grace_s = 2
log_level = "INFO"

{mqtt}
{extra}
"""
    config = directory / "edgeagent.toml"
    config.write_text(text)
    return config


class DaemonProcess:
    """``edgeagent --config X run`` as a subprocess, the way systemd starts it."""

    def __init__(self, config: Path, *, env: dict[str, str] | None = None) -> None:
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("EDGEAGENT_")}
        full_env.update(env or {})
        self.log = config.parent / "daemon.log"
        self._log_file = self.log.open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "edgeagent", "--config", str(config), "run"],
            env=full_env,
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
        )

    def wait_for_socket(self, path: Path, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the daemon exited early:\n{self.output()}")
            if path.exists():
                try:
                    with socket.socket(socket.AF_UNIX) as probe:
                        probe.connect(str(path))
                    return
                except OSError:
                    pass
            time.sleep(0.05)
        raise AssertionError(f"no socket at {path} within {timeout} s:\n{self.output()}")

    def wait_ready(self, path: Path, timeout: float = 20) -> None:
        """Until the daemon reports ``ready`` over its socket (all front ends up)."""
        self.wait_for_socket(path, timeout)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with socket.socket(socket.AF_UNIX) as sock:
                sock.settimeout(5)
                sock.connect(str(path))
                sock.sendall(b'{"op": "status"}\n')
                if json.loads(sock.makefile("rb").readline())["status"]["state"] == "ready":
                    return
            time.sleep(0.05)
        raise AssertionError(f"the daemon was not ready within {timeout} s:\n{self.output()}")

    def output(self) -> str:
        self._log_file.flush()
        return self.log.read_text(errors="replace")

    def stop(self, timeout: float = 15) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self._log_file.close()
        return code


def status_over_socket(path: Path) -> dict[str, object]:
    """The daemon's status, asked the way `edgeagent status` asks it."""
    with DaemonClient(path, timeout_s=5) as client:
        reply = next(client.request({"op": "status"}))
    status: dict[str, object] = reply["status"]
    return status


ENDS_A_TURN = ("final", "error", "status", "tools", "reset")


def over_socket(
    path: Path, request: dict[str, Any], *, timeout: float = 30
) -> list[dict[str, Any]]:
    """One request line to the daemon's socket; every line of its answer, up to the one
    that ends it (``final``, ``error``, ``status``, ``tools`` or ``reset``)."""
    lines: list[dict[str, Any]] = []
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(timeout)
        sock.connect(str(path))
        sock.sendall(json.dumps(request).encode() + b"\n")
        for raw in sock.makefile("rb"):
            lines.append(json.loads(raw))
            if lines[-1]["type"] in ENDS_A_TURN:
                return lines
    raise AssertionError(f"the daemon closed the connection before answering: {lines}")
