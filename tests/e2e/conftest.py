"""The whole product on the default local model: mosquitto, the simulator, the daemon.

One stack per test module, because loading Qwen2.5-Coder-1.5B takes seconds and each
turn on a small CPU takes tens of seconds: every piece is a real process, started the
way a user starts it (``mosquitto -c``, ``edgeagent sim``, ``edgeagent run``).
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.daemon.conftest import DaemonProcess
from tests.frontends.mqtt_broker import MOSQUITTO, Broker, free_port

EDGEAGENT = (sys.executable, "-m", "edgeagent")
SHIPPED_WRAPPERS = Path(__file__).resolve().parents[2] / "config" / "tools.d"
QWEN = Path("~/.cache/edgeagent/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf").expanduser()
DEVICE_ID = "e2e"
READY_TIMEOUT_S = 240.0
"""Model load plus the worker start on 2 shared cores, with room to spare."""


@dataclass
class Stack:
    config: Path
    socket_path: Path
    broker: Broker
    simulator_url: str
    daemon: DaemonProcess
    topic_base: str = f"edgeagent/{DEVICE_ID}"

    def led(self) -> dict[str, Any]:
        """The simulator's LED strip, as its dashboard shows it."""
        return self._call("get", "led")

    def set_led(self, **update: Any) -> dict[str, Any]:
        return self._call("post", "led", update)

    def servo(self) -> dict[str, Any]:
        """The simulator's servo, as its dashboard shows it."""
        return self._call("get", "servo")

    def set_servo(self, **update: Any) -> dict[str, Any]:
        return self._call("post", "servo", update)

    def ask(self, *args: str, timeout_s: float) -> list[dict[str, Any]]:
        """``edgeagent ask --json ARGS...`` against the daemon: the events it printed."""
        started = time.monotonic()
        done = subprocess.run(
            [
                *EDGEAGENT,
                "--config",
                str(self.config),
                "ask",
                "--json",
                "--timeout",
                str(timeout_s),
                *args,
            ],
            capture_output=True,
            text=True,
            timeout=timeout_s + 30,
        )
        print(f"\n{args[-1]!r}: {time.monotonic() - started:.1f} s\n{done.stdout}")
        assert done.returncode == 0, f"ask failed ({done.returncode}): {done.stderr}\n{done.stdout}"
        events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
        assert events and events[-1]["type"] == "final", f"no final event: {events}"
        return events

    def _call(
        self, method: str, device: str, update: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        with httpx.Client(timeout=5, trust_env=False) as http:
            response = http.request(method, f"{self.simulator_url}/api/{device}", json=update)
            response.raise_for_status()
            state: dict[str, Any] = response.json()
            return state


def write_config(directory: Path, *, socket_path: Path, mqtt_port: int, sim_port: int) -> Path:
    """The default model and agent settings and the shipped ``.tool`` wrappers; only the
    addresses point at the test's pieces."""
    wrappers = directory / "tools.d"
    wrappers.mkdir()
    for shipped in SHIPPED_WRAPPERS.glob("*.tool"):
        shutil.copy(shipped, wrappers / shipped.name)
    config = directory / "edgeagent.toml"
    config.write_text(
        f"""
[llm]
backend = "llamacpp"
model = "qwen-coder-1.5b"

[tools]
wrapped_dir = "tools.d"

[plugins.led]
backend = "sim"

[plugins.servo]
backend = "sim"

[simulator]
host = "127.0.0.1"
port = {sim_port}
state_file = "{directory / "simulator.json"}"

[mqtt]
enabled = true
host = "127.0.0.1"
port = {mqtt_port}
device_id = "{DEVICE_ID}"
protocol = "5"

[socket]
path = "{socket_path}"

[daemon]
request_timeout_s = 240
shutdown_grace_s = 5
log_level = "INFO"
"""
    )
    return config


def wait_for_port(port: int, proc: subprocess.Popen[bytes], log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"`edgeagent sim` exited early:\n{log.read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"`edgeagent sim` did not listen on {port} in {timeout} s")


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    if MOSQUITTO is None:
        pytest.skip("mosquitto is not installed (apt-get install mosquitto)")
    if not QWEN.is_file():
        pytest.skip(f"{QWEN} is not cached; run `edgeagent model fetch qwen-coder-1.5b`")
    # A short path: a Unix socket path must fit in 108 bytes.
    directory = Path(tempfile.mkdtemp(prefix="ea-e2e-", dir="/tmp"))
    broker = Broker(workdir=directory / "broker")
    broker.workdir.mkdir()
    sim_port = free_port()
    socket_path = directory / "edgeagent.sock"
    config = write_config(
        directory, socket_path=socket_path, mqtt_port=broker.port, sim_port=sim_port
    )
    sim_log = directory / "sim.log"
    sim: subprocess.Popen[bytes] | None = None
    daemon: DaemonProcess | None = None
    try:
        broker.start()
        with sim_log.open("wb") as out:
            sim = subprocess.Popen(
                [sys.executable, "-m", "edgeagent", "--config", str(config), "sim"],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        wait_for_port(sim_port, sim, sim_log, timeout=20)
        started = time.monotonic()
        daemon = DaemonProcess(config)
        daemon.wait_ready(socket_path, timeout=READY_TIMEOUT_S)
        print(f"\ndaemon ready on Qwen2.5-Coder-1.5B in {time.monotonic() - started:.1f} s")
        yield Stack(
            config=config,
            socket_path=socket_path,
            broker=broker,
            simulator_url=f"http://127.0.0.1:{sim_port}",
            daemon=daemon,
        )
    finally:
        if daemon is not None:
            daemon.stop()
        if sim is not None:
            sim.terminate()
            try:
                sim.wait(10)
            except subprocess.TimeoutExpired:
                sim.kill()
                sim.wait(5)
        broker.stop()
        shutil.rmtree(directory, ignore_errors=True)
