"""Fixtures for the daemon tests: short socket paths, free ports, a scripted config."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A directory with a short path: Unix socket paths must fit in 108 bytes."""
    path = Path(tempfile.mkdtemp(prefix="ea-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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


class NotifyListener:
    """A test-made NOTIFY_SOCKET: a datagram socket that records what the daemon sends."""

    def __init__(self, path: Path | None = None, *, abstract: str | None = None) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        if abstract is not None:
            self.sock.bind(b"\0" + abstract.encode())
            self.address = "@" + abstract
        else:
            assert path is not None
            self.sock.bind(str(path))
            self.address = str(path)
        self.messages: list[tuple[float, dict[str, str]]] = []

    def receive(self, timeout: float) -> dict[str, str] | None:
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(4096)
        except TimeoutError:
            return None
        fields = dict(line.split("=", 1) for line in data.decode().splitlines() if "=" in line)
        self.messages.append((time.monotonic(), fields))
        return fields

    def wait_for(self, key: str, timeout: float) -> dict[str, str]:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            fields = self.receive(left)
            if fields is not None and key in fields:
                return fields
        raise AssertionError(f"no {key} within {timeout} s; got {self.messages}")

    def close(self) -> None:
        self.sock.close()


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


@pytest.fixture
def daemon_factory() -> Iterator[Callable[..., DaemonProcess]]:
    started: list[DaemonProcess] = []

    def start(config: Path, **kwargs: Any) -> DaemonProcess:
        daemon = DaemonProcess(config, **kwargs)
        started.append(daemon)
        return daemon

    yield start
    for daemon in started:
        daemon.stop()
