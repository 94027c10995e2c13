"""The Unix-socket front end, in process (streaming, errors, permissions) and as a daemon."""

from __future__ import annotations

import asyncio
import contextlib
import grp
import json
import os
import stat
import subprocess
import sys
import tomllib
from collections.abc import AsyncGenerator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from edgeagent.agent.context import SessionStore
from edgeagent.agent.events import Event
from edgeagent.cli import cli
from edgeagent.cli import daemon as cli_daemon
from edgeagent.config import SocketConfig
from edgeagent.errors import ConfigError
from edgeagent.frontends.base import Request, ToolRequest
from edgeagent.frontends.client import WELL_KNOWN_SOCKETS
from edgeagent.frontends.socket import SocketFrontend
from edgeagent.scheduler import Scheduler
from edgeagent.tools.tool import ToolResult
from tests.daemon.recording_agent import RecordingAgent, RecordingTools
from tests.daemon_process import DaemonProcess, write_daemon_config

Served = Callable[[SocketFrontend, RecordingAgent], Awaitable[None]]


class QueueWithTools:
    """The daemon's Dispatcher, cut down: a real scheduler, a fixed tool list."""

    def __init__(self, scheduler: Scheduler, tools: list[dict[str, Any]]) -> None:
        self.scheduler, self._tools = scheduler, tools

    def submit(self, request: Request) -> AsyncGenerator[Event, None]:
        return self.scheduler.submit(request)

    async def call_tool(self, request: ToolRequest) -> ToolResult:
        return await self.scheduler.call_tool(request)

    def reset_session(self, session: str, *, frontend: str) -> bool:
        return self.scheduler.reset_session(session, frontend=frontend)

    def status(self) -> dict[str, Any]:
        return self.scheduler.status()

    def tools(self) -> list[dict[str, Any]]:
        return self._tools


def serve(
    directory: Path,
    body: Served,
    *,
    tools: list[dict[str, Any]] | None = None,
    **socket_options: Any,
) -> None:
    async def main() -> None:
        agent = RecordingAgent()
        scheduler = Scheduler(
            agent=agent,
            tools=RecordingTools(),
            sessions=SessionStore(system_prompt="test"),
            queue_size=64,
            request_timeout_s=10,
        )
        scheduler.start()
        config = SocketConfig(path=directory / "ea.sock", **socket_options)
        frontend = SocketFrontend(
            config, dispatcher=QueueWithTools(scheduler, tools or [{"name": "led"}])
        )
        await frontend.start()
        try:
            await body(frontend, agent)
        finally:
            await frontend.stop()
            await scheduler.close()

    asyncio.run(main())


class Client:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def connect(cls, path: Path) -> Client:
        reader, writer = await asyncio.open_unix_connection(str(path), limit=1 << 20)
        return cls(reader, writer)

    async def send(self, message: dict[str, Any] | bytes) -> None:
        raw = message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n"
        self.writer.write(raw)
        await self.writer.drain()

    async def line(self) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.reader.readline(), 5)
        assert raw, "the daemon closed the connection"
        result: dict[str, Any] = json.loads(raw)
        return result

    async def until_end(self) -> list[dict[str, Any]]:
        lines = [await self.line()]
        while lines[-1]["type"] not in ("final", "error"):
            lines.append(await self.line())
        return lines

    async def close(self) -> None:
        self.writer.close()
        await self.writer.wait_closed()


def test_a_prompt_streams_text_then_final_with_its_id(short_dir: Path) -> None:
    async def body(frontend: SocketFrontend, agent: RecordingAgent) -> None:
        client = await Client.connect(frontend.path)
        await client.send({"id": 7, "prompt": "hello", "stream": True})
        lines = await client.until_end()
        assert [line["type"] for line in lines] == ["text", "final"]
        assert all(line["id"] == 7 for line in lines)
        assert lines[0]["text"] == "working on hello"
        assert lines[-1]["text"] == "hello: seen 1 user message(s)"
        # stream: false gets only the final line.
        await client.send({"id": "b", "prompt": "again", "stream": False})
        assert [line["type"] for line in await client.until_end()] == ["final"]
        await client.close()

    serve(short_dir, body)


def test_many_concurrent_clients_each_get_their_own_answer(short_dir: Path) -> None:
    async def body(frontend: SocketFrontend, agent: RecordingAgent) -> None:
        async def one(i: int) -> dict[str, Any]:
            client = await Client.connect(frontend.path)
            await client.send({"id": f"c{i}", "prompt": f"prompt {i}"})
            lines = await client.until_end()
            await client.close()
            return lines[-1]

        finals = await asyncio.gather(*(one(i) for i in range(30)))
        assert {f["id"] for f in finals} == {f"c{i}" for i in range(30)}
        assert all(f["text"] == f"prompt {f['id'][1:]}: seen 1 user message(s)" for f in finals)
        assert sorted(agent.finished) == sorted(f"prompt {i}" for i in range(30))

    serve(short_dir, body)


def test_bad_lines_get_error_lines_and_the_connection_stays_usable(short_dir: Path) -> None:
    async def body(frontend: SocketFrontend, agent: RecordingAgent) -> None:
        client = await Client.connect(frontend.path)
        bad: list[tuple[bytes, str]] = [
            (b"{not json\n", "not valid JSON"),
            (b"\xff\xfe{}\n", "not valid UTF-8"),
            (b"[1, 2]\n", "expected a JSON object"),
            (b'{"prompt": ""}\n', '"prompt" must be a non-empty string'),
            (b'{"prompt": "x", "stream": "yes"}\n', '"stream" must be true or false'),
            (b'{"op": "explode"}\n', "unknown op 'explode'"),
            (b'{"op": "reset"}\n', '"reset" needs a "session"'),
            (b'{"op": "reset", "session": ""}\n', "session '' is empty"),
            (b'{"prompt": "x", "session": ""}\n', "session '' is empty"),
            (b'{"prompt": "x", "session": "a\\nb"}\n', "control characters"),
            (b'{"prompt": "x", "session": "' + b"k" * 65 + b'"}\n', "at most 64"),
            (b'{"prompt": "x", "session": "\\ud800"}\n', "lone surrogate"),
            (b'{"prompt": "x", "id": "\\udfff"}\n', "lone surrogate"),
            (b'{"prompt": "x", "id": [1]}\n', '"id" must be a string or an integer'),
            (b'{"op": "status", "id": {"a": 1}}\n', '"id" must be a string or an integer'),
            (b"[" * 1000 + b"]" * 1000 + b"\n", "nested deeper than 32"),
            (b'{"a":' * 1000 + b"1" + b"}" * 1000 + b"\n", "nested deeper than 32"),
        ]
        for raw, expected in bad:
            await client.send(raw)
            reply = await client.line()
            assert reply["type"] == "error" and expected in reply["message"], (raw, reply)
        await client.send({"id": 1, "prompt": "still works"})
        assert (await client.until_end())[-1]["type"] == "final"
        assert agent.started == ["still works"]
        await client.send({"op": "status"})
        assert (await client.line())["status"]["sessions"] == 0  # no bad name was stored
        await client.close()

    serve(short_dir, body)


def test_a_prompt_follows_the_shared_request_rules(short_dir: Path) -> None:
    """Unknown fields are refused as on MQTT; a transaction is echoed on every line."""

    async def body(frontend: SocketFrontend, agent: RecordingAgent) -> None:
        client = await Client.connect(frontend.path)
        await client.send({"id": "s1", "prompt": "hi", "sesion": "kitchen"})
        reply = await client.line()
        assert (reply["type"], reply["id"]) == ("error", "s1")
        assert 'unknown field(s) "sesion"' in reply["message"]
        await client.send({"transaction": "t9", "prompt": "  padded  "})
        lines = await client.until_end()
        assert all(line["transaction"] == "t9" and line["id"] is None for line in lines)
        assert agent.started == ["padded"]  # stripped, as on MQTT
        await client.send(b'{"id": 4, "transaction": "t4", "prompt": "\\ud800"}\n')
        error = await client.line()
        assert (error["type"], error["id"], error["transaction"]) == ("error", 4, "t4")
        assert "lone surrogate" in error["message"]
        await client.close()

    serve(short_dir, body)


def test_an_over_long_line_is_refused_and_the_next_line_served(short_dir: Path) -> None:
    async def body(frontend: SocketFrontend, agent: RecordingAgent) -> None:
        client = await Client.connect(frontend.path)
        huge = json.dumps({"prompt": "x" * 5000}).encode() + b"\n"
        await client.send(huge + json.dumps({"id": 2, "prompt": "short"}).encode() + b"\n")
        error = await client.line()
        assert error["type"] == "error"
        assert "longer than 1024 bytes" in error["message"]
        final = (await client.until_end())[-1]
        assert (final["type"], final["id"]) == ("final", 2)
        assert agent.started == ["short"]
        await client.close()

    serve(short_dir, body, max_line_bytes=1024)


def test_an_error_about_a_request_carries_its_id(short_dir: Path) -> None:
    async def body(frontend: SocketFrontend, agent: RecordingAgent) -> None:
        client = await Client.connect(frontend.path)
        await client.send({"id": "q7", "prompt": "x", "session": " "})
        reply = await client.line()
        assert (reply["type"], reply["id"]) == ("error", "q7")
        assert "session ' ' is empty" in reply["message"]
        await client.close()

    serve(short_dir, body)


def test_an_idle_connection_is_closed_but_one_awaiting_its_answer_is_not(
    short_dir: Path,
) -> None:
    async def body(frontend: SocketFrontend, agent: RecordingAgent) -> None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        idle, waiting = await Client.connect(frontend.path), await Client.connect(frontend.path)
        await idle.send(b'{"prompt": "half a li')
        await waiting.send({"id": 1, "prompt": "slow answer"})
        assert (await waiting.line())["type"] == "text"
        error = await idle.line()
        assert error["type"] == "error"
        assert "no complete line for 0.5 s ([socket] idle_timeout_s)" in error["message"]
        assert await asyncio.wait_for(idle.reader.read(), 2) == b""  # closed
        assert 0.5 <= loop.time() - started < 2
        await asyncio.sleep(1.0)  # twice the timeout, the request still running
        agent.release.set()
        final = (await waiting.until_end())[-1]
        assert (final["type"], final["id"]) == ("final", 1)
        assert agent.cancelled == []
        await waiting.close()

    serve(short_dir, body, idle_timeout_s=0.5)


def test_a_client_that_reads_no_replies_is_cut_off(short_dir: Path) -> None:
    async def body(frontend: SocketFrontend, agent: RecordingAgent) -> None:
        client = await Client.connect(frontend.path)
        # 100,000 status replies (10 MB and more) do not fit in the socket's buffers and
        # the client's 2 MiB read buffer: the daemon blocks writing until the client
        # reads, which this one does not. (20,000 did fit where a status line is ~100 B.)
        client.writer.write(b'{"op": "status"}\n' * 100_000)
        # Read nothing until the daemon has dropped the client (how long it takes to
        # fill the buffers depends on the machine's speed).
        for _ in range(300):
            await asyncio.sleep(0.1)
            if frontend.status()["clients"] == 0:
                break
        assert frontend.status()["clients"] == 0, "the client that reads nothing was kept"
        replies = 0
        # What reached the client before the drop is status lines only (no error line
        # is queued to a client that reads nothing); its unsent requests may break.
        with contextlib.suppress(ConnectionError):
            while line := await asyncio.wait_for(client.reader.readline(), 5):
                assert json.loads(line)["type"] == "status"
                replies += 1
        assert replies < 100_000  # dropped, not served to the end
        other = await Client.connect(frontend.path)
        await other.send({"op": "status"})
        assert (await other.line())["type"] == "status"
        await other.close()

    serve(short_dir, body, idle_timeout_s=0.5)


def test_a_reply_holding_text_that_is_not_unicode_is_escaped_not_fatal(
    short_dir: Path,
) -> None:
    # A wrapped tool's file name read with surrogateescape: not encodable as UTF-8.
    async def body(frontend: SocketFrontend, agent: RecordingAgent) -> None:
        client = await Client.connect(frontend.path)
        await client.send({"op": "tools", "id": "t"})
        reply = await client.line()
        assert reply == {"type": "tools", "id": "t", "tools": [{"name": "lamp\udcff"}]}
        await client.send({"prompt": "still here"})
        assert (await client.until_end())[-1]["type"] == "final"
        await client.close()

    serve(short_dir, body, tools=[{"name": "lamp\udcff"}])


def test_cancel_finds_a_request_by_a_numeric_id(short_dir: Path) -> None:
    async def body(frontend: SocketFrontend, agent: RecordingAgent) -> None:
        client = await Client.connect(frontend.path)
        await client.send({"id": 5, "prompt": "slow to cancel"})
        assert (await client.line())["type"] == "text"
        await client.send({"op": "cancel", "id": 5})
        assert await client.line() == {"type": "cancelled", "id": 5, "found": True}
        for _ in range(100):
            if agent.cancelled:
                break
            await asyncio.sleep(0.02)
        assert agent.cancelled == ["slow to cancel"]
        await client.close()

    serve(short_dir, body)


def test_ops_status_tools_and_reset(short_dir: Path) -> None:
    async def body(frontend: SocketFrontend, agent: RecordingAgent) -> None:
        client = await Client.connect(frontend.path)
        await client.send({"prompt": "remember", "session": "kitchen"})
        await client.until_end()
        await client.send({"op": "status", "id": "s"})
        status = await client.line()
        assert status["type"] == "status" and status["id"] == "s"
        assert status["status"]["requests"]["served"] == 1
        assert status["status"]["sessions"] == 1
        await client.send({"op": "tools"})
        assert (await client.line())["tools"] == [{"name": "led"}]
        await client.send({"op": "reset", "session": "kitchen"})
        assert (await client.line())["existed"] is True
        await client.send({"prompt": "fresh", "session": "kitchen"})
        assert (await client.until_end())[-1]["text"] == "fresh: seen 1 user message(s)"
        await client.close()

    serve(short_dir, body)


def test_op_call_runs_one_tool_call_as_the_socket_or_as_the_dashboard(short_dir: Path) -> None:
    async def body(frontend: SocketFrontend, agent: RecordingAgent) -> None:
        client = await Client.connect(frontend.path)
        await client.send({"op": "call", "id": 7, "tool": "echo", "arguments": {"a": [1]}})
        assert await client.line() == {
            "type": "tool_result", "id": 7, "name": "echo", "ok": True, "result": {"a": [1]}
        }  # fmt: skip
        await client.send({"op": "call", "tool": "nope", "via": "dashboard"})
        reply = await client.line()
        assert reply["ok"] is False and "unknown tool 'nope'" in reply["error"]
        await client.send({"prompt": "hello", "via": "dashboard", "session": "tab1"})
        assert (await client.until_end())[-1]["type"] == "final"
        for bad, why in [
            ({"op": "call", "tool": "echo", "via": "mqtt"}, '"via" must be one of dashboard'),
            ({"op": "call"}, '"tool" must name a tool'),
            ({"op": "call", "tool": "echo", "arguments": [1]}, '"arguments" must be a JSON'),
            ({"op": "call", "tool": "echo", "prompt": "x"}, 'unknown field(s) "prompt"'),
        ]:
            await client.send(bad)
            error = await client.line()
            assert error["type"] == "error" and why in error["message"], error
        await client.close()
        tools = frontend.dispatcher.scheduler.tools  # type: ignore[attr-defined]
        assert isinstance(tools, RecordingTools)
        assert tools.calls == [("echo", "socket"), ("nope", "dashboard")]
        assert frontend.dispatcher.scheduler.sessions.reset("dashboard/tab1")  # type: ignore[attr-defined]

    serve(short_dir, body)


def test_a_client_that_disconnects_cancels_its_request(short_dir: Path) -> None:
    async def body(frontend: SocketFrontend, agent: RecordingAgent) -> None:
        client = await Client.connect(frontend.path)
        await client.send({"id": 1, "prompt": "slow and abandoned"})
        assert (await client.line())["type"] == "text"  # it is running
        await client.close()
        for _ in range(100):
            if agent.cancelled:
                break
            await asyncio.sleep(0.02)
        assert agent.cancelled == ["slow and abandoned"]

    serve(short_dir, body)


def test_socket_file_is_0660_with_the_configured_group_and_removed_on_stop(
    short_dir: Path,
) -> None:
    group = grp.getgrgid(os.getgid()).gr_name
    seen: dict[str, Any] = {}

    async def body(frontend: SocketFrontend, agent: RecordingAgent) -> None:
        st = frontend.path.stat()
        seen.update(mode=stat.S_IMODE(st.st_mode), sock=stat.S_ISSOCK(st.st_mode), gid=st.st_gid)
        seen["degraded"] = frontend.degraded

    serve(short_dir, body, group=group)
    assert seen == {"mode": 0o660, "sock": True, "gid": os.getgid(), "degraded": None}
    assert not (short_dir / "ea.sock").exists()


def test_a_missing_group_is_reported_not_silent(short_dir: Path) -> None:
    seen: dict[str, Any] = {}

    async def body(frontend: SocketFrontend, agent: RecordingAgent) -> None:
        seen["degraded"] = frontend.degraded

    serve(short_dir, body, group="no-such-group-xyz")
    assert "no-such-group-xyz" in seen["degraded"]


def test_a_stale_socket_is_replaced_but_a_live_daemon_is_not(short_dir: Path) -> None:
    import socket as pysocket

    stale = pysocket.socket(pysocket.AF_UNIX)
    stale.bind(str(short_dir / "ea.sock"))
    stale.close()  # the file stays, nobody listens: a crashed daemon's leftover

    async def body(frontend: SocketFrontend, agent: RecordingAgent) -> None:
        second = SocketFrontend(SocketConfig(path=frontend.path), dispatcher=frontend.dispatcher)
        with pytest.raises(ConfigError, match="already serving"):
            await second.start()
        client = await Client.connect(frontend.path)
        await client.send({"prompt": "alive"})
        assert (await client.until_end())[-1]["type"] == "final"
        await client.close()

    serve(short_dir, body)


def edgeagent(config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "edgeagent", "--config", str(config), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_ask_and_status_against_a_running_daemon(
    short_dir: Path, daemon_factory: Callable[..., DaemonProcess]
) -> None:
    sock_path = short_dir / "ea.sock"
    config = write_daemon_config(short_dir, socket_path=sock_path)
    daemon = daemon_factory(config)
    daemon.wait_ready(sock_path)
    assert stat.S_IMODE(sock_path.stat().st_mode) == 0o660

    answer = edgeagent(config, "ask", "hello", "there")
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout == "Hello from the scripted model.\n"

    raw = edgeagent(config, "ask", "--json", "count to ten")
    assert raw.returncode == 0, raw.stderr
    events = [json.loads(line) for line in raw.stdout.splitlines()]
    assert [e["type"] for e in events[:-1]] == ["text"] * (len(events) - 1)
    assert len(events) > 2  # streamed in chunks
    assert "".join(e["text"] for e in events[:-1]) == events[-1]["text"]
    assert events[-1]["text"] == "one two three four five six seven eight nine ten"

    assert edgeagent(config, "ask", "--session", "kitchen", "hello").returncode == 0

    status = edgeagent(config, "status", "--json")
    assert status.returncode == 0, status.stderr
    info = json.loads(status.stdout)
    assert info["requests"]["served"] == 3
    assert info["sessions"] == 1  # only the named session is kept
    assert info["backend"] == "scripted" and info["state"] == "ready"
    assert "led" in info["tools"] and info["mqtt"] == {"enabled": False, "connected": False}
    pretty = edgeagent(config, "status")
    assert "served 3, failed 0" in pretty.stdout
    assert daemon.stop() == 0
    assert not sock_path.exists()


def test_ask_exits_non_zero_with_a_clear_message_when_not_running(short_dir: Path) -> None:
    sock_path = short_dir / "ea.sock"
    config = write_daemon_config(short_dir, socket_path=sock_path)
    result = edgeagent(config, "ask", "hello")
    assert result.returncode == 3
    assert f"edgeagent is not running (no socket at {sock_path})" in result.stderr
    assert "`edgeagent run` or `systemctl start edgeagent`" in result.stderr
    assert edgeagent(config, "status").returncode == 3


def test_ask_finds_the_daemon_from_any_working_directory(
    short_dir: Path,
    daemon_factory: Callable[..., DaemonProcess],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No config file where `ask` runs: it tries the well-known sockets in turn, so a
    daemon started from the laptop config is found (here the list points at short_dir:
    the real paths may hold a developer's daemon)."""
    system, laptop = short_dir / "system.sock", short_dir / "laptop.sock"
    monkeypatch.setattr(cli_daemon, "WELL_KNOWN_SOCKETS", (system, laptop))
    daemon = daemon_factory(write_daemon_config(short_dir, socket_path=laptop))
    daemon.wait_ready(laptop)
    for var in [v for v in os.environ if v.startswith("EDGEAGENT_")]:
        monkeypatch.delenv(var)
    monkeypatch.setattr("edgeagent.config_file.SEARCH_PATHS", (Path("config/edgeagent.toml"),))
    for cwd in (short_dir / "elsewhere", Path("/")):
        cwd.mkdir(exist_ok=True)
        monkeypatch.chdir(cwd)
        answer = CliRunner().invoke(cli, ["ask", "hello"])
        assert (answer.exit_code, answer.output) == (0, "Hello from the scripted model.\n")
        status = CliRunner().invoke(cli, ["status", "--json"])
        assert status.exit_code == 0 and json.loads(status.output)["socket"] == str(laptop)
    assert daemon.stop() == 0
    gone = CliRunner().invoke(cli, ["ask", "hello"])
    assert gone.exit_code == 3
    assert f"no daemon on {system} or {laptop}" in gone.output


def test_status_with_a_socket_path_too_long_says_so(short_dir: Path) -> None:
    config = write_daemon_config(short_dir, socket_path=short_dir / "ea.sock")
    long_path = "/tmp/" + "d" * 150 + "/ea.sock"
    result = edgeagent(config, "status", "--socket", long_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "is 163 bytes long, more than the 107 a Unix socket path may have" in result.stderr


def test_the_shipped_configs_listen_on_a_well_known_socket() -> None:
    """The list `ask` tries without a config names where the shipped configs listen."""
    root = Path(__file__).resolve().parents[2] / "config"
    for name in ("edgeagent.toml", "edgeagent.pi.toml"):
        with (root / name).open("rb") as file:
            path = Path(tomllib.load(file)["socket"]["path"])
        assert path in WELL_KNOWN_SOCKETS, name
    assert WELL_KNOWN_SOCKETS[0] == SocketConfig().path  # the default comes first
