"""The client half of MCP in process, against real MCP servers in their own processes:
the thermostat written with the SDK (tests/mcp_servers/thermostat.py) over streamable
HTTP with a bearer token and over stdio, and another edgeagent's ``mcp serve --http``.

What the server recorded is what it really received: a call the executor refused
never reaches it.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from edgeagent.compose import ToolSet, build_executor, build_tools
from edgeagent.config import Config
from edgeagent.config_file import load_config
from edgeagent.tools.executor import ToolCall
from edgeagent.tools.tool import ToolKind, ToolResult
from tests.loopback import free_port
from tests.mcp_helpers import start_mcp_server, write_mcp_config, write_token
from tests.mcp_servers.running import (
    ROOT,
    HTTPThermostat,
    recorded,
    thermostat_command,
    thermostat_over_http,
)

pytest.importorskip("mcp", reason="the MCP SDK is the edgeagent[mcp] extra")

DEVICES = '[plugins.led]\nbackend = "mock"\n\n[plugins.servo]\nbackend = "mock"\n'


@pytest.fixture(scope="module")
def token(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_token(tmp_path_factory.mktemp("token") / "token")


@pytest.fixture(scope="module")
def thermostat(tmp_path_factory: pytest.TempPathFactory, token: Path) -> Iterator[HTTPThermostat]:
    with thermostat_over_http(tmp_path_factory.mktemp("thermostat"), token_file=token) as server:
        yield server


@pytest.fixture
def load(tmp_path: Path) -> Iterator[Callable[[str], tuple[Config, ToolSet]]]:
    """Config text (the [mcp.servers] tables) -> the config and its loaded tools; their
    connections are closed at teardown."""
    loaded: list[ToolSet] = []

    def build(servers: str) -> tuple[Config, ToolSet]:
        path = tmp_path / "edgeagent.toml"
        path.write_text(DEVICES + servers)
        config = load_config(path, env={})
        toolset = build_tools(config)
        loaded.append(toolset)
        return config, toolset

    yield build
    for toolset in loaded:
        toolset.disconnect()


def server(name: str, url: str, token: Path, extra: str = "") -> str:
    return f'\n[mcp.servers.{name}]\nurl = "{url}"\ntoken_file = "{token}"\n{extra}\n'


def run(config: Config, toolset: ToolSet, name: str, **args: Any) -> ToolResult:
    """``name`` called with ``args`` through the executor, as ``edgeagent tools call``."""
    executor = build_executor(config, toolset.registry)
    return asyncio.run(executor.execute(ToolCall(name, args), frontend="cli"))


def test_the_servers_tools_join_the_registry_as_first_class_tools(
    load: Callable[[str], tuple[Config, ToolSet]], thermostat: HTTPThermostat, token: Path
) -> None:
    _, toolset = load(server("thermo", thermostat.url, token, 'timeout_s = 3\nexclude = ["crash"]'))
    registry = toolset.registry
    remote = {t.name for t in registry if t.plugin == "mcp:thermo"}
    # weather is edgeagent's own tool: the server's goes by thermo_weather.
    assert remote == {
        "room_temperature", "set_heating", "thermo_weather", "lamp", "always_fails", "hang",
    }  # fmt: skip
    assert registry.get("weather").plugin == "weather"
    assert "led" in registry and "servo" in registry
    heating = registry.get("set_heating")
    assert heating.kind is ToolKind.ACT
    assert heating.timeout_s == 3.0
    assert heating.description == "Set the target temperature of a room's heating."
    assert heating.parameters == {
        "type": "object",
        "properties": {
            "room": {"type": "string"},
            "celsius": {
                "description": "Target temperature", "maximum": 30, "minimum": 5, "type": "number",
            },
        },
        "required": ["room", "celsius"],
    }  # fmt: skip
    assert registry.get("room_temperature").kind is ToolKind.READ  # readOnlyHint: true
    assert registry.get("lamp").kind is ToolKind.ACT  # no annotations: it may act
    assert toolset.mcp is not None
    status = toolset.mcp.status()["thermo"]
    assert isinstance(status, dict)
    assert (status["state"], status["tools"], status["transport"]) == ("up", 6, "http")


def test_calls_are_checked_before_they_are_sent_and_results_come_back(
    load: Callable[[str], tuple[Config, ToolSet]], thermostat: HTTPThermostat, token: Path
) -> None:
    config, toolset = load(server("thermo", thermostat.url, token))
    before = len(thermostat.calls())
    refused = {
        "celsius: must be 5-30, got 99": {"room": "kitchen", "celsius": 99},
        "missing required argument 'celsius'": {"room": "kitchen"},
        "unexpected argument 'fan'": {"room": "kitchen", "celsius": 20, "fan": "on"},
        "celsius: must be a number, got 'warm'": {"room": "kitchen", "celsius": "warm"},
        "finite": {"room": "kitchen", "celsius": float("nan")},
    }
    for error, args in refused.items():
        result = run(config, toolset, "set_heating", **args)
        assert not result.ok and error in (result.error or ""), (args, result)
    assert len(thermostat.calls()) == before  # none of them reached the server

    done = run(config, toolset, "set_heating", room="study", celsius=22.5)
    assert done == ToolResult.success("heating in the study set to 22.5 °C")
    assert thermostat.calls()[-1] == {
        "tool": "set_heating", "arguments": {"room": "study", "celsius": 22.5},
    }  # fmt: skip
    reading = run(config, toolset, "room_temperature", room="study")
    assert reading == ToolResult.success({"room": "study", "celsius": 21.5, "target": 22.5})
    outside = run(config, toolset, "thermo_weather")
    assert outside == ToolResult.success({"outside_celsius": 4.0})
    assert thermostat.calls()[-1]["tool"] == "weather"  # its name on the server
    failed = run(config, toolset, "always_fails")  # isError: the server's text
    assert not failed.ok and "always_fails" in (failed.error or "")


def test_include_and_a_policy_rule_that_names_the_server(
    load: Callable[[str], tuple[Config, ToolSet]], thermostat: HTTPThermostat, token: Path
) -> None:
    config, toolset = load(
        server("home", thermostat.url, token, 'include = ["room_temperature", "sauna"]')
        + server("office", thermostat.url, token, 'include = ["room_temperature"]')
        + '\n[tools.policy]\ndeny = { cli = ["mcp:office"] }\n'
    )
    # Servers in name order: the first keeps the name, the next one's is prefixed.
    remote = {t.name: t.plugin for t in toolset.registry if t.plugin.startswith("mcp:")}
    assert remote == {"room_temperature": "mcp:home", "office_room_temperature": "mcp:office"}
    assert toolset.mcp is not None
    assert any("'sauna'" in w and "does not list" in w for w in toolset.mcp.warnings())
    before = len(thermostat.calls())
    denied = run(config, toolset, "office_room_temperature", room="attic")
    assert not denied.ok
    assert "not allowed from cli" in (denied.error or "") and "mcp:office" in (denied.error or "")
    assert len(thermostat.calls()) == before
    assert run(config, toolset, "room_temperature", room="attic").ok


def test_a_hanging_tool_fails_within_timeout_s_and_the_server_stays_usable(
    load: Callable[[str], tuple[Config, ToolSet]], thermostat: HTTPThermostat, token: Path
) -> None:
    config, toolset = load(server("thermo", thermostat.url, token, "timeout_s = 1.5"))
    started = time.monotonic()
    result = run(config, toolset, "hang")
    took = time.monotonic() - started
    assert not result.ok and "1.5 s" in (result.error or ""), result
    assert 1.4 < took < 3.0
    assert run(config, toolset, "room_temperature", room="hall").ok


def test_servers_that_are_down_or_refuse_the_token_are_reported_and_the_rest_loads(
    load: Callable[[str], tuple[Config, ToolSet]],
    thermostat: HTTPThermostat,
    token: Path,
    tmp_path: Path,
) -> None:
    wrong = write_token(tmp_path / "wrong-token", "not-the-token")
    gone = f"http://127.0.0.1:{free_port()}/mcp"
    _, toolset = load(
        server("thermo", thermostat.url, token)
        + server("wrong", thermostat.url, wrong, "timeout_s = 3")
        + f'\n[mcp.servers.gone]\nurl = "{gone}"\ntimeout_s = 3\n'
    )
    assert toolset.mcp is not None
    status = toolset.mcp.status()
    assert isinstance(status["wrong"], dict) and isinstance(status["gone"], dict)
    assert status["wrong"]["state"] == "down"
    assert "HTTP 401" in str(status["wrong"]["error"])
    assert "[mcp.servers.wrong] token_file" in str(status["wrong"]["error"])
    assert status["gone"]["state"] == "down" and gone in str(status["gone"]["error"])
    for name in ("wrong", "gone"):
        assert status[name]["tools"] == 0  # type: ignore[index]
        assert "join when edgeagent restarts" in str(status[name]["note"])  # type: ignore[index]
    assert {t.plugin for t in toolset.registry if t.plugin.startswith("mcp:")} == {"mcp:thermo"}
    assert "led" in toolset.registry


def test_a_stdio_server_that_dies_mid_call_fails_that_call_and_is_started_again(
    load: Callable[[str], tuple[Config, ToolSet]], tmp_path: Path
) -> None:
    record = tmp_path / "stdio-calls.jsonl"
    command = ", ".join(f'"{part}"' for part in thermostat_command(record))
    config, toolset = load(
        f'\n[mcp.servers.thermo]\ncommand = [{command}]\nenv = {{PYTHONPATH = "{ROOT}"}}\n'
        "timeout_s = 20\n"
    )
    assert run(config, toolset, "room_temperature", room="loft").ok
    started = time.monotonic()
    crashed = run(config, toolset, "crash")
    assert not crashed.ok and "closed the connection" in (crashed.error or ""), crashed
    assert time.monotonic() - started < 5
    # The next call waits while the server is started again (within timeout_s).
    deadline = time.monotonic() + 30
    again = run(config, toolset, "room_temperature", room="loft")
    while not again.ok and time.monotonic() < deadline:
        time.sleep(0.5)
        again = run(config, toolset, "room_temperature", room="loft")
    assert again == ToolResult.success({"room": "loft", "celsius": 21.5, "target": None})
    assert [c["tool"] for c in recorded(record)] == [
        "room_temperature",
        "crash",
        "room_temperature",
    ]
    assert toolset.mcp is not None
    status = toolset.mcp.status()["thermo"]
    assert isinstance(status, dict) and (status["state"], status["connects"]) == ("up", 2)


def test_another_edgeagent_serving_mcp_lends_its_tools(
    load: Callable[[str], tuple[Config, ToolSet]], tmp_path: Path
) -> None:
    token = write_token(tmp_path / "pi-token")
    served = tmp_path / "pi"
    served.mkdir()
    with start_mcp_server(write_mcp_config(served, token_file=token)) as pi:
        config, toolset = load(server("pi", pi.url, token, "timeout_s = 10"))
        remote = {t.name: t for t in toolset.registry if t.plugin == "mcp:pi"}
        # Its math and led clash with this edgeagent's own; its ask does not.
        assert {"pi_math", "pi_led", "ask"} <= set(remote)
        assert "pi_shell" not in remote  # the server's policy keeps its shell from MCP
        assert remote["pi_math"].kind is ToolKind.READ and remote["pi_led"].kind is ToolKind.ACT
        assert run(config, toolset, "pi_math", expression="6*7") == ToolResult.success(
            {"expression": "6*7", "result": 42}
        )
        answered = run(config, toolset, "ask", prompt="hello")
        assert answered.ok and "Hello from the scripted model." in json.dumps(answered.result)


def test_a_server_that_exits_while_idle_is_noticed_without_a_call(
    load: Callable[[str], tuple[Config, ToolSet]],
    tmp_path: Path,
    token: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("edgeagent.mcp.connection.HEALTH_CHECK_S", 0.3)
    with thermostat_over_http(tmp_path, token_file=token) as doomed:
        _, toolset = load(server("thermo", doomed.url, token, "timeout_s = 2"))
        assert toolset.mcp is not None
        doomed.proc.terminate()
        doomed.proc.wait(10)
        deadline = time.monotonic() + 10
        while toolset.mcp.status()["thermo"]["state"] == "up":  # type: ignore[index]
            assert time.monotonic() < deadline, "the idle check did not notice"
            time.sleep(0.1)
    status = toolset.mcp.status()["thermo"]
    assert isinstance(status, dict) and status["tools"] == 7  # offered until it is back
    assert status["state"] in ("down", "connecting")
