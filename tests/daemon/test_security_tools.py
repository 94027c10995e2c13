"""Issue 9 against the real daemon, for the tools: a hung simulator (item 12) and the
shell's environment leak (item 6).

The daemon runs as systemd runs it (``python -m edgeagent run``), on the scripted model,
over its real Unix socket; the LED points at a simulator that drips its answer.
"""

from __future__ import annotations

import json
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.agent.scripted_agent import call
from tests.daemon_process import DaemonProcess, over_socket, write_daemon_config
from tests.simulators.drip_server import DripServer

SECRET = "hunter2-mqtt-secret"
PYTHON = Path(sys.executable).name[:15]  # the daemon's process name, as ps -C matches it


SCRIPT = {
    "rules": [
        {"match": "^led red", "reply": call("led", color="red")},
        {"match": "^ps env", "reply": call("shell", command="ps e -ww -C python -o args")},
        # The daemon's own interpreter by name: a busy machine's whole list passes the
        # output cap before the daemon's line.
        {"match": "^ps all", "reply": call("shell", command=f"ps -ww -o args -C {PYTHON}")},
        {"match": "^ps tool", "reply": call("ps", arguments=["eww", "-o", "args"])},
        {"match": "^proc env", "reply": call("shell", command="cat /proc/self/environ")},
        # Anything else is a tool result: the model repeats it, so whatever the tool
        # showed reaches the user's answer (and this test).
        {"match": "(?s)^(.*)$", "reply": "RESULT \\1"},
    ],
    "default": "I only know scripted answers.",
    "chunk_size": 4096,
}


@pytest.fixture
def drip() -> Iterator[DripServer]:
    with DripServer() as server:
        yield server


def make_config(short_dir: Path, *, led: str, daemon: str = "", roots: Path | None = None) -> Path:
    """The daemon config of conftest, with ``[plugins.led]`` and ``[daemon]`` adjusted."""
    sock_path = short_dir / "ea.sock"
    extra = '[agent]\ncall_format = "json"\nprimer = false\ncheck_target = false\n'
    if roots is not None:
        extra += f'\n[plugins.shell]\nroots = ["{roots}"]\n'
    config = write_daemon_config(short_dir, socket_path=sock_path, script=SCRIPT, extra=extra)
    text = config.read_text()
    text = text.replace('[plugins.led]\nbackend = "mock"\n', f"[plugins.led]\n{led}\n")
    text = text.replace("[daemon]\n", f"[daemon]\n{daemon}\n")
    config.write_text(text)
    return config


def ask(sock_path: Path, prompt: str) -> list[dict[str, Any]]:
    """Every event of one turn over the socket, up to the final one."""
    return over_socket(sock_path, {"prompt": prompt})


def sim_led(port: int, timeout_s: float) -> str:
    return f'backend = "sim"\ntimeout_s = {timeout_s:g}\n\n[simulator]\nport = {port}\n'


def test_a_hung_led_call_fails_in_its_timeout_and_the_next_is_not_stuck(
    short_dir: Path, daemon_factory: Callable[..., DaemonProcess], drip: DripServer
) -> None:
    """Item 12: each turn's LED call ends at the sim backend's 1 s deadline, with an
    error the user can read; the second is not queued behind the first one's lock."""
    daemon = daemon_factory(make_config(short_dir, led=sim_led(drip.port, 1)))
    sock_path = short_dir / "ea.sock"
    daemon.wait_ready(sock_path)
    for _ in range(2):
        started = time.monotonic()
        events = ask(sock_path, "led red")
        took = time.monotonic() - started
        results = [e for e in events if e["type"] == "tool_result"]
        assert [r["name"] for r in results] == ["led"], events
        assert "no complete answer" in results[0]["error"], results
        assert "busy" not in results[0]["error"] and "timed out" not in results[0]["error"]
        assert took < 1 + 3, events
    assert drip.connections >= 2


def test_sigterm_with_a_hung_led_stops_within_the_safe_state_timeout(
    short_dir: Path, daemon_factory: Callable[..., DaemonProcess], drip: DripServer
) -> None:
    """Item 12: an LED command hangs on the simulator when SIGTERM comes; darkening the
    LED at exit would hang too (its backend would wait 30 s), so the bounded safe-state
    step gives up after 1 s, says which device, and the daemon exits, well within
    systemd's stop timeout. (A device never used is not opened, so the turn uses it.)"""
    config = make_config(short_dir, led=sim_led(drip.port, 30), daemon="safe_state_timeout_s = 1")
    daemon = daemon_factory(config)
    sock_path = short_dir / "ea.sock"
    daemon.wait_ready(sock_path)
    client = socket.socket(socket.AF_UNIX)
    client.settimeout(10)
    client.connect(str(sock_path))
    client.sendall(b'{"prompt": "led red", "stream": true}\n')
    lines = client.makefile("rb")
    while json.loads(lines.readline())["type"] != "tool_call":
        pass  # until the LED call is under way, hanging on the dripping simulator
    started = time.monotonic()
    daemon.proc.send_signal(signal.SIGTERM)
    assert daemon.proc.wait(20) == 0
    took = time.monotonic() - started
    output = daemon.output()
    assert "safe state: LedController did not finish within 1 s" in output, output
    assert "[daemon] safe_state_timeout_s" in output
    assert drip.connections >= 1  # it did try to darken the strip
    assert took < 1 + 2 + 4, output  # the bound, the shutdown grace, process teardown
    assert "Traceback" not in output
    client.close()


def test_the_daemons_password_never_comes_back_from_the_shell(
    short_dir: Path, daemon_factory: Callable[..., DaemonProcess]
) -> None:
    """Item 6: the daemon runs with its MQTT password in the environment, as systemd's
    Environment= would set it; ps and /proc are asked for it every way the model might."""
    files = short_dir / "files"
    files.mkdir()
    daemon = daemon_factory(
        make_config(short_dir, led='backend = "mock"', roots=files),
        env={"EDGEAGENT_MQTT__PASSWORD": SECRET},
    )
    sock_path = short_dir / "ea.sock"
    daemon.wait_ready(sock_path)
    refusals = {
        "ps env": "ps option 'e'",
        "ps tool": "ps option 'e'",
        "proc env": "/proc/self/environ",
    }
    for prompt, refusal in refusals.items():
        events = ask(sock_path, prompt)
        assert SECRET not in json.dumps(events)
        results = [e for e in events if e["type"] == "tool_result"]
        assert len(results) == 1 and not results[0]["ok"], events
        assert refusal in results[0]["error"]
    events = ask(sock_path, "ps all")  # ps itself still works, the daemon in its list
    assert SECRET not in json.dumps(events)
    results = [e for e in events if e["type"] == "tool_result"]
    assert results[0]["ok"] and "-m edgeagent" in results[0]["result"]["output"]
