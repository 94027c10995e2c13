"""The whole product as the e2e tests drive it: its config, and a handle on its pieces."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from tests.daemon_process import DaemonProcess
from tests.mqtt_broker import Broker

EDGEAGENT = (sys.executable, "-m", "edgeagent")
SHIPPED_WRAPPERS = Path(__file__).resolve().parents[2] / "config" / "tools.d"
DEVICE_ID = "e2e"


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
