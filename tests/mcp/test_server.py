"""``edgeagent mcp serve`` with the SDK's real client, over stdio and streamable HTTP.

The server is a real subprocess on the scripted model; the LED and the servo drive the
simulator (a real HTTP server), whose state the tests read back. One server over HTTP
serves the whole module; a stdio server is launched by the client, as a desktop
assistant launches it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'edgeagent[mcp]')")

import httpx2  # comes with the SDK
from edgeagent_sim import create_app
from edgeagent_sim.server import SimulatorServer
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent

from tests.mcp_helpers import (
    MCPServerProcess,
    clean_env,
    serve_command,
    start_mcp_server,
    write_mcp_config,
    write_token,
)

TOKEN = "s3cret-token"
OFFERED = {"led", "led_state", "math", "servo", "servo_state", "weather", "ask"}
"""Every loaded tool but the shell, which front end mcp may not call by default."""


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="ea-mcp-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def simulator(workdir: Path) -> Iterator[str]:
    """The simulator on a free port; its URL."""
    app = create_app({"TESTING": True, "STATE_FILE": str(workdir / "simulator.json")})
    with SimulatorServer(app) as server:
        yield server.url


@pytest.fixture(scope="module")
def config(workdir: Path, simulator: str) -> Path:
    token = write_token(workdir / "token", TOKEN)
    return write_mcp_config(workdir, simulator_url=simulator, token_file=token)


@pytest.fixture(scope="module")
def http_server(config: Path) -> Iterator[MCPServerProcess]:
    with start_mcp_server(config) as server:
        yield server


@contextlib.asynccontextmanager
async def over_http(url: str, token: str | None = TOKEN) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=20) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


def text(result: CallToolResult) -> str:
    (content,) = result.content
    assert isinstance(content, TextContent)
    return content.text


def sim_led(simulator: str) -> dict[str, Any]:
    with httpx.Client(timeout=5, trust_env=False) as http:
        state: dict[str, Any] = http.get(f"{simulator}/api/led").json()
        return state


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, 60))


# --- what every transport must do: one check each ---------------------------------------


async def check_listing(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == OFFERED
    led, servo, math = tools["led"].annotations, tools["servo"].annotations, tools["math"]
    assert led is not None and servo is not None and math.annotations is not None
    # Setting a colour twice changes nothing more; turning left by 30 twice does.
    assert (led.read_only_hint, led.destructive_hint, led.idempotent_hint) == (False, False, True)
    assert (servo.read_only_hint, servo.destructive_hint, servo.idempotent_hint) == (
        False, False, False,
    )  # fmt: skip
    assert math.annotations.read_only_hint is True
    assert math.input_schema["required"] == ["expression"]
    brightness = tools["led"].input_schema["properties"]["brightness"]
    assert (brightness["minimum"], brightness["maximum"]) == (0, 100)
    assert tools["ask"].input_schema["required"] == ["prompt"]


async def check_math(client: Client) -> None:
    result = await client.call_tool("math", {"expression": "2^10 + 1"})
    assert not result.is_error
    assert text(result) == "2^10 + 1 = 1025"  # the tool's answer sentence
    assert result.structured_content == {"expression": "2^10 + 1", "result": 1025}


async def check_led(client: Client, simulator: str, color: str, hex_color: str) -> None:
    result = await client.call_tool("led", {"color": color, "brightness": 40})
    assert not result.is_error, text(result)
    assert text(result) == f"The LED strip is now {color} at 40% brightness."
    state = sim_led(simulator)
    assert state["on"] is True and state["brightness"] == 40
    assert set(state["pixels"]) == {hex_color}


async def check_invalid_arguments(client: Client) -> None:
    result = await client.call_tool("led", {"brightness": 150})
    assert result.is_error
    assert "brightness must be 0-100, got 150" in text(result)
    missing = await client.call_tool("math", {})
    assert missing.is_error
    assert "missing required argument 'expression'" in text(missing)


async def check_denied(client: Client) -> None:
    result = await client.call_tool("shell", {"command": "ls"})
    assert result.is_error
    assert "not allowed from mcp" in text(result)
    assert "[tools.policy] deny.mcp" in text(result)
    unknown = await client.call_tool("lamp", {"on": True})
    assert unknown.is_error
    assert text(unknown) == (
        "Unknown tool 'lamp'. Available tools: "
        "led, led_state, math, servo, servo_state, weather, ask"
    )


async def check_ask(client: Client) -> None:
    result = await client.call_tool("ask", {"prompt": "what is 6*7?"})
    assert not result.is_error, text(result)
    assert text(result) == "6*7 = 42"
    assert result.structured_content == {
        "answer": "6*7 = 42",
        "tool_calls": [
            {
                "name": "math",
                "arguments": {"expression": "6*7"},
                "ok": True,
                "result": {"expression": "6*7", "result": 42},
            }
        ],
    }
    empty = await client.call_tool("ask", {"prompt": "  "})
    assert empty.is_error and "prompt" in text(empty)


# --- streamable HTTP ------------------------------------------------------------------


def test_http_lists_the_tools_with_annotations(http_server: MCPServerProcess) -> None:
    async def main() -> None:
        async with over_http(http_server.url) as client:
            await check_listing(client)

    run(main())


def test_http_math_answers_in_text_and_structured_content(http_server: MCPServerProcess) -> None:
    async def main() -> None:
        async with over_http(http_server.url) as client:
            await check_math(client)

    run(main())


def test_http_led_call_changes_the_simulator(
    http_server: MCPServerProcess, simulator: str
) -> None:
    async def main() -> None:
        async with over_http(http_server.url) as client:
            await check_led(client, simulator, "red", "#ff0000")

    run(main())


def test_http_invalid_arguments_are_a_tool_error_naming_them(
    http_server: MCPServerProcess,
) -> None:
    async def main() -> None:
        async with over_http(http_server.url) as client:
            await check_invalid_arguments(client)

    run(main())


def test_http_denied_tool_is_a_tool_error_naming_the_policy(
    http_server: MCPServerProcess,
) -> None:
    async def main() -> None:
        async with over_http(http_server.url) as client:
            await check_denied(client)

    run(main())


def test_http_ask_runs_the_agent(http_server: MCPServerProcess) -> None:
    async def main() -> None:
        async with over_http(http_server.url) as client:
            await check_ask(client)

    run(main())


@pytest.mark.parametrize(
    ("authorization", "challenge"),
    [
        (None, 'Bearer realm="edgeagent"'),
        ("Bearer wrong-token", 'Bearer realm="edgeagent", error="invalid_token"'),
        (f"Basic {TOKEN}", 'Bearer realm="edgeagent", error="invalid_token"'),
        (f"Bearer {TOKEN}x", 'Bearer realm="edgeagent", error="invalid_token"'),
    ],
)
def test_http_refuses_a_missing_or_wrong_token(
    http_server: MCPServerProcess, authorization: str | None, challenge: str
) -> None:
    headers = {"Authorization": authorization} if authorization else {}
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}
    with httpx.Client(timeout=5, trust_env=False) as http:
        response = http.post(http_server.url, json=initialize, headers=headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == challenge
    assert "token_file" in response.json()["error_description"]


def test_http_token_in_the_url_for_a_client_that_sends_no_header(
    http_server: MCPServerProcess,
) -> None:
    """Home Assistant's MCP integration takes a URL and sends no token of its own."""

    async def main() -> None:
        async with Client(f"{http_server.url}/{TOKEN}") as client:
            await check_math(client)

    run(main())
    discover = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}
    with httpx.Client(timeout=5, trust_env=False) as http:
        for wrong in (f"/{TOKEN}x", "/", f"/a/{TOKEN}"):
            assert http.post(http_server.url + wrong, json=discover).status_code == 401, wrong


def test_http_sdk_client_with_a_wrong_token_cannot_connect(http_server: MCPServerProcess) -> None:
    async def main() -> None:
        async with over_http(http_server.url, token="wrong-token") as client:
            await client.list_tools()

    # The SDK reports the 401 as a generic error response; the test above reads the 401.
    with pytest.raises(ExceptionGroup) as caught:
        run(main())
    assert caught.group_contains(MCPError)


def test_http_refuses_a_token_file_others_can_read(workdir: Path, simulator: str) -> None:
    directory = workdir / "open-token"
    directory.mkdir()
    token = write_token(directory / "token")
    token.chmod(0o644)
    config = write_mcp_config(directory, simulator_url=simulator, token_file=token)
    done = subprocess.run(
        serve_command(config, "--http"), env=clean_env(), capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    assert f"[mcp] token_file = {token} is open to other users (mode 0644)" in done.stderr
    assert f"chmod 600 {token}" in done.stderr
    assert done.stdout == ""


# --- stdio ------------------------------------------------------------------------------


def test_stdio_serves_the_same_tools_and_calls(config: Path, simulator: str) -> None:
    """One session does it all: every check above, over a server the client launched."""
    command = serve_command(config)
    errors = config.parent / "stdio-stderr.log"

    async def main() -> None:
        params = StdioServerParameters(command=command[0], args=command[1:], env=clean_env())
        with errors.open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                await check_listing(client)
                await check_math(client)
                await check_led(client, simulator, "blue", "#0000ff")
                await check_invalid_arguments(client)
                await check_denied(client)
                await check_ask(client)

    run(main())
    # Logs go to stderr: stdout carried MCP messages only (or the client would have failed).
    assert "MCP tools for front end mcp" in errors.read_text()



def test_http_off_loopback_without_a_token_is_refused(workdir: Path) -> None:
    directory = workdir / "no-token"
    directory.mkdir()
    config = write_mcp_config(directory)
    done = subprocess.run(
        serve_command(config, "--http", "--host", "0.0.0.0"), env=clean_env(),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "'0.0.0.0' is not a loopback address, and no token_file is set" in done.stderr


def test_stdio_server_stops_on_sigterm_while_the_client_holds_stdin(config: Path) -> None:
    """A launcher that quits sends SIGTERM without closing the pipe first."""
    hello = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "test", "version": "1"}},
    }  # fmt: skip
    errors = config.parent / "sigterm-stderr.log"
    with errors.open("w") as errlog:
        proc = subprocess.Popen(
            serve_command(config), env=clean_env(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errlog,
        )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write((json.dumps(hello) + "\n").encode())
        proc.stdin.flush()
        reply = json.loads(proc.stdout.readline())
        assert reply["result"]["serverInfo"]["name"] == "edgeagent"
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
        assert time.monotonic() - started < 5
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
        proc.stdout.close()
    assert "stopped; not waiting for the client to close stdin" in errors.read_text()
