"""The client half of MCP through a real daemon (``edgeagent run`` on the scripted
model) and the real CLI, against the thermostat MCP server (written with the SDK) over
streamable HTTP: the agent calls remote tools, the policy applies to them, a hanging
tool times out, a server that is not there or dies is reported in ``edgeagent status``,
and the daemon keeps serving."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.daemon_process import DaemonProcess, over_socket, status_over_socket, write_daemon_config
from tests.loopback import free_port
from tests.mcp_helpers import clean_env, write_token
from tests.mcp_servers.running import HTTPThermostat, thermostat_over_http

pytest.importorskip("mcp", reason="the MCP SDK is the edgeagent[mcp] extra")


def call(name: str, arguments: str) -> str:
    """The scripted model's tool call; ``arguments`` is JSON text (``\\1`` expands)."""
    return f'<tool_call>{{"name": "{name}", "arguments": {arguments}}}</tool_call>'


SCRIPT = {
    "rules": [
        # A tool result is the last message: rules that answer from one come first.
        {"match": "heating in the", "reply": "The heating is set."},
        {
            "match": "^heat the (\\w+) to (\\d+)",
            "reply": call("set_heating", '{"room": "\\1", "celsius": \\2}'),
        },
        {"match": "^how warm", "reply": call("room_temperature", '{"room": "hall"}')},
        {"match": "^switch the workshop lamp", "reply": call("workshop_lamp", '{"on": true}')},
        {"match": "^hang", "reply": call("hang", "{}")},
        {"match": "^crash", "reply": call("crash", "{}")},
        {"match": "(?i)^hello", "reply": "Hello from the scripted model."},
    ],
    "default": "I only know scripted answers.",
    "chunk_size": 64,
}


def daemon_config(short_dir: Path, thermostat: HTTPThermostat, servers: str = "") -> Path:
    token = write_token(short_dir / "token")
    thermo = f'[mcp.servers.thermo]\nurl = "{thermostat.url}"\ntoken_file = "{token}"\n'
    extra = f"""
[agent]
call_format = "json"
primer = false
check_target = false

{thermo}timeout_s = 2
{servers}
"""
    return write_daemon_config(
        short_dir, socket_path=short_dir / "ea.sock", script=SCRIPT, extra=extra
    )


@pytest.fixture
def thermostat(tmp_path: Path) -> Iterator[HTTPThermostat]:
    """The thermostat, asking for the token write_token writes (so does the daemon's)."""
    with thermostat_over_http(tmp_path, token_file=write_token(tmp_path / "token")) as server:
        yield server


@pytest.fixture
def daemons() -> Iterator[list[DaemonProcess]]:
    started: list[DaemonProcess] = []
    yield started
    for daemon in started:
        daemon.stop()


def ask(short_dir: Path, prompt: str) -> dict[str, Any]:
    return over_socket(short_dir / "ea.sock", {"prompt": prompt, "stream": False})[-1]


def edgeagent(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "edgeagent", "--config", str(config), *args],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_agent_calls_remote_tools_under_the_policy_and_a_hang_times_out(
    short_dir: Path, thermostat: HTTPThermostat, daemons: list[DaemonProcess]
) -> None:
    gone = f"http://127.0.0.1:{free_port()}/mcp"
    config = daemon_config(
        short_dir,
        thermostat,
        f'[mcp.servers.workshop]\nurl = "{thermostat.url}"\ntoken_file = "{short_dir / "token"}"\n'
        f'include = ["lamp"]\n\n[mcp.servers.gone]\nurl = "{gone}"\ntimeout_s = 2\n\n'
        '[tools.policy]\ndeny = { socket = ["mcp:workshop"] }\n',
    )
    # `edgeagent tools list` shows the remote tools with their server.
    listing = edgeagent(config, "tools", "list")
    assert listing.returncode == 0, listing.stderr
    rows = {line.split()[0]: line.split()[1:3] for line in listing.stdout.splitlines()}
    assert rows["set_heating"] == ["act", "mcp:thermo"]
    assert rows["room_temperature"] == ["read", "mcp:thermo"]
    assert rows["workshop_lamp"] == ["act", "mcp:workshop"]  # "lamp" is thermo's
    assert rows["led"] == ["act", "led"]
    assert "MCP server 'gone' is down" in listing.stderr
    called = edgeagent(config, "tools", "call", "room_temperature", '{"room": "cellar"}')
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["result"]["room"] == "cellar"

    daemon = DaemonProcess(config)
    daemons.append(daemon)
    daemon.wait_ready(short_dir / "ea.sock", timeout=60)

    answer = ask(short_dir, "heat the kitchen to 22")
    assert answer["type"] == "final", answer
    assert answer["tool_calls"][0]["name"] == "set_heating" and answer["tool_calls"][0]["ok"]
    assert answer["text"] == "The heating is set."
    assert thermostat.calls()[-1] == {
        "tool": "set_heating", "arguments": {"room": "kitchen", "celsius": 22},
    }  # fmt: skip

    # The socket may not use the workshop server: refused before anything is sent.
    before = len(thermostat.calls())
    denied = ask(short_dir, "switch the workshop lamp on")
    assert denied["tool_calls"][0]["ok"] is False
    assert "not allowed from socket" in denied["tool_calls"][0]["error"]
    assert len(thermostat.calls()) == before

    started = time.monotonic()
    hung = ask(short_dir, "hang on")
    assert hung["type"] == "final"
    assert hung["tool_calls"][0]["ok"] is False and "2 s" in hung["tool_calls"][0]["error"]
    assert time.monotonic() - started < 8

    status = status_over_socket(short_dir / "ea.sock")
    servers = status["mcp_servers"]
    assert isinstance(servers, dict)
    assert servers["thermo"]["state"] == "up" and servers["thermo"]["tools"] == 7
    assert servers["gone"]["state"] == "down" and gone in servers["gone"]["error"]
    # The daemon retries a down server; a status taken during a retry says "connecting",
    # so read it again (a few seconds at most) until the retry is over.
    deadline = time.monotonic() + 10
    while True:
        shown = edgeagent(config, "status")
        assert shown.returncode == 0, shown.stderr
        lines = shown.stdout.splitlines()
        gone_line = next(line for line in lines if line.startswith("mcp:gone:"))
        if "connecting for" not in gone_line or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert "down for" in gone_line and "join when edgeagent restarts" in gone_line
    assert ask(short_dir, "how warm is it")["tool_calls"][0]["ok"]
    assert "Traceback" not in daemon.output()


def test_a_server_that_dies_mid_call_is_reported_and_the_daemon_keeps_serving(
    short_dir: Path, thermostat: HTTPThermostat, daemons: list[DaemonProcess]
) -> None:
    daemon = DaemonProcess(daemon_config(short_dir, thermostat))
    daemons.append(daemon)
    daemon.wait_ready(short_dir / "ea.sock", timeout=60)
    assert ask(short_dir, "how warm is it")["tool_calls"][0]["ok"]

    crashed = ask(short_dir, "crash the thermostat")
    assert crashed["type"] == "final", crashed
    assert crashed["tool_calls"][0]["ok"] is False
    assert thermostat.proc.wait(5) == 3  # the server really died in the call
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        thermo = status_over_socket(short_dir / "ea.sock")["mcp_servers"]["thermo"]  # type: ignore[index]
        if thermo["state"] == "down":
            break
        time.sleep(0.2)
    assert thermo["state"] == "down" and thermo["tools"] == 7, thermo
    failed = ask(short_dir, "how warm is it")["tool_calls"][0]
    assert failed["ok"] is False and "MCP server 'thermo' is down" in failed["error"]
    assert ask(short_dir, "hello")["text"] == "Hello from the scripted model."
    assert "Traceback" not in daemon.output()
