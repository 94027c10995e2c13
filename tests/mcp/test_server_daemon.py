"""``edgeagent run`` with ``[mcp] enabled = true``: the daemon serves MCP itself, and
MCP calls queue on its scheduler with the other front ends' prompts.

The scripted model streams slowly here (``chunk_delay_s``), so that a turn of the agent
holds the queue long enough for a direct call to wait behind it.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'edgeagent[mcp]')")

from mcp import Client
from mcp_types import CallToolResult, TextContent

from tests.daemon_process import DaemonProcess, status_over_socket
from tests.mcp_helpers import EDGEAGENT, MATH_CALL, clean_env, write_mcp_config

QUEUE_WAIT_S = 0.5
SCRIPT: dict[str, object] = {
    "rules": [
        {"match": "(?i)^hello", "reply": "Hello from the scripted model."},
        {"match": "(?i)^tell me a story", "reply": "Once upon a time " * 16},
        {"match": "(?i)^what is (.+)\\?$", "reply": MATH_CALL},
    ],
    "default": "I only know scripted answers.",
    "chunk_size": 8,
    "chunk_delay_s": 0.1,
}
"""The story takes about 3.4 s to stream: long enough to hold the queue."""


class Daemon:
    def __init__(self, process: DaemonProcess, socket_path: Path, config: Path) -> None:
        self.process = process
        self.socket_path = socket_path
        self.config = config

    def status(self) -> dict[str, Any]:
        return status_over_socket(self.socket_path)

    @property
    def url(self) -> str:
        url = self.status()["mcp"]["url"]
        assert isinstance(url, str)
        return url


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    directory = Path(tempfile.mkdtemp(prefix="ea-mcpd-", dir="/tmp"))
    socket_path = directory / "ea.sock"
    extra = f'[socket]\npath = "{socket_path}"\n'
    config = write_mcp_config(directory, script=SCRIPT, extra=extra)
    text = config.read_text().replace(
        "[mcp]\n", f"[mcp]\nenabled = true\nqueue_wait_s = {QUEUE_WAIT_S}\n"
    )
    config.write_text(text)
    process = DaemonProcess(config)
    try:
        process.wait_ready(socket_path)
        yield Daemon(process, socket_path, config)
    finally:
        code = process.stop()
        shutil.rmtree(directory, ignore_errors=True)
        assert code == 0


def text(result: CallToolResult) -> str:
    (content,) = result.content
    assert isinstance(content, TextContent)
    return content.text


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, 60))


def test_daemon_serves_mcp_and_counts_its_calls_in_the_queue(daemon: Daemon) -> None:
    before = daemon.status()
    assert before["mcp"]["enabled"] is True
    assert before["mcp"]["url"].startswith("http://127.0.0.1:")

    async def main() -> None:
        async with Client(daemon.url) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert names == {"led", "led_state", "math", "servo", "servo_state", "weather", "ask"}
            result = await client.call_tool("math", {"expression": "3 * 14"})
            assert text(result) == "3 * 14 = 42"
            answer = await client.call_tool("ask", {"prompt": "hello"})
            assert text(answer) == "Hello from the scripted model."

    run(main())
    after = daemon.status()
    # Both went through the daemon's queue, as requests served.
    assert after["requests"]["served"] == before["requests"]["served"] + 2
    assert after["mcp"]["calls"] == before["mcp"]["calls"] + 2
    shown = subprocess.run(
        [*EDGEAGENT, "--config", str(daemon.config), "status"], env=clean_env(),
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert f"mcp:       {daemon.url}, {after['mcp']['calls']} calls\n" in shown.stdout


def test_a_call_stuck_behind_a_turn_fails_in_time_and_does_not_run(daemon: Daemon) -> None:
    """Home Assistant gives a call 10 s: one that cannot start within [mcp] queue_wait_s
    is answered with an error, taken out of the queue, and never runs later."""

    async def main() -> None:
        async with Client(daemon.url) as client:
            story = asyncio.create_task(client.call_tool("ask", {"prompt": "tell me a story"}))
            while (await asyncio.to_thread(daemon.status))["in_flight"] == 0:
                await asyncio.sleep(0.05)  # until the turn has started and holds the queue
            started = time.monotonic()
            refused = await client.call_tool("led", {"color": "red"})
            waited = time.monotonic() - started
            assert refused.is_error
            assert "led was not run" in text(refused)
            assert "[mcp] queue_wait_s" in text(refused)
            assert QUEUE_WAIT_S <= waited < QUEUE_WAIT_S + 3  # well inside HA's 10 s
            told = await story
            assert text(told).startswith("Once upon a time")
            state = await client.call_tool("led_state", {})
            assert text(state) == "The LED strip is off."  # the refused call never ran

    run(main())


def test_loopback_server_refuses_a_foreign_host_header(daemon: Daemon) -> None:
    """DNS rebinding: a web page whose name resolves to 127.0.0.1 must not reach it."""
    discover = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}
    with httpx.Client(timeout=5, trust_env=False) as http:
        response = http.post(daemon.url, json=discover, headers={"Host": "evil.example"})
    assert response.status_code in (403, 421), response.text
