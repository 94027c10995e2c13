"""The client half of MCP: the tools of each ``[mcp.servers.<name>]`` join the registry.

:func:`connect_servers` (called by :func:`edgeagent.compose.build_tools`) connects to
every configured server, side by side and each within its ``timeout_s``, lists its
tools and adds them to the registry as first-class tools (see
:mod:`edgeagent.mcp.remote`): the executor validates, applies the call policy and the
timeout, and every call ends in a ``ToolResult``.

The connections run on an event loop of their own, in one thread, because the parts
that load tools are synchronous (``edgeagent tools list``) and the SDK's anyio cancel
scopes must be entered and left in the same task: each server has one long-lived task
that owns its ``async with Client(...)``; a tool call reaches it through a queue and
comes back through a future, from whichever loop or thread made it.

A server that cannot be reached at start is logged, shown in ``edgeagent status``
(``mcp_servers``) and retried with backoff; it does not stop anything. The tool set is
fixed once the agent is built, so the tools of a server that was down at start join at
the next restart (its status says so). A server that drops later is reconnected; its
calls fail cleanly meanwhile. A call to a hung or dead server ends in a failed result
within ``timeout_s``.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import threading
import time
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edgeagent.config import Config, MCPServerConfig
from edgeagent.errors import EdgeAgentError, ToolDefinitionError
from edgeagent.jsontypes import JSONValue
from edgeagent.mcp import INSTALL_HINT
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import Tool, ToolResult

if TYPE_CHECKING:
    from mcp import Client
    from mcp_types import Tool as RemoteTool

log = logging.getLogger(__name__)

RETRY_S = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
"""Waits between attempts to reach a server that is down; the last one repeats."""
HEALTH_CHECK_S = 30.0
"""An idle connection is checked (a tool listing) this often, so a server that went away
is noticed, and reconnected, before the next call needs it."""
START_MARGIN_S = 5.0
"""At start, the wait for every server is its ``timeout_s`` plus this (closing a failed
attempt: a stdio server gets SIGTERM, then KILL)."""
CLOSE_TIMEOUT_S = 5.0
"""The longest closing the connections may take (a stdio server gets SIGTERM, then KILL)."""
MAX_LIST_PAGES = 20


class State(StrEnum):
    """Where one server's connection stands."""

    CONNECTING = "connecting"
    UP = "up"
    DOWN = "down"
    UNAVAILABLE = "unavailable"
    """It cannot be tried at all (the SDK is not installed)."""


@dataclass
class _Call:
    tool: str
    arguments: dict[str, Any]
    done: asyncio.Future[ToolResult]
    cancel: Any = None
    """The anyio cancel scope of the call in flight, once it is sent."""


@dataclass
class ServerConnection:
    """One ``[mcp.servers.<name>]``: the task that owns its session, its state, its tools.

    Everything but :meth:`status` runs on the connections' own event loop.
    """

    name: str
    config: MCPServerConfig
    token_file: Path | None = None
    cwd: Path | None = None
    state: State = State.CONNECTING
    error: str | None = None
    listing: list[RemoteTool] | None = None
    """What it listed when first reached (``None``: not reached yet)."""
    offered: list[str] = field(default_factory=list)
    """The names its tools go by in the registry."""
    problems: list[str] = field(default_factory=list)
    connects: int = 0
    changed_at: float = field(default_factory=time.monotonic)
    retry_at: float | None = None
    first_attempt: threading.Event = field(default_factory=threading.Event)
    _calls: asyncio.Queue[_Call | None] | None = None
    _settled: asyncio.Event | None = None
    """Set while the state is up or down, clear while connecting."""
    _lost: str | None = None
    _failures: int = 0
    _logged: str | None = None
    _http_status: int | None = None

    # --- the owner task ---------------------------------------------------------------

    async def run(self) -> None:
        """Connect, serve calls until the connection is lost, wait, connect again."""
        self._calls, self._settled = asyncio.Queue(), asyncio.Event()
        while True:
            try:
                await self._session()
            except Exception as exc:  # the SDK raises groups of transport errors
                self._went_down(self._explain(exc))
            finally:
                self.first_attempt.set()
                self._fail_queued()
            self._failures += 1
            delay = RETRY_S[min(self._failures, len(RETRY_S)) - 1]
            self.retry_at = time.monotonic() + delay
            await asyncio.sleep(delay)

    async def _session(self) -> None:
        from mcp import Client

        self._set(State.CONNECTING)
        self._lost, self._http_status = None, None
        async with contextlib.AsyncExitStack() as stack:
            async with asyncio.timeout(self.config.timeout_s):
                client = await stack.enter_async_context(Client(await self._transport(stack)))
                listed = await _list_tools(client)
            self._came_up(listed)
            await self._serve(client)

    async def _transport(self, stack: contextlib.AsyncExitStack) -> Any:
        """The SDK transport for this server: stdio for ``command``, else streamable HTTP
        with ``Authorization: Bearer`` from ``token_file``."""
        if self.config.command:
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            program, *args = self.config.command
            params = StdioServerParameters(
                command=program, args=args, env=dict(self.config.env) or None, cwd=self.cwd
            )
            return stdio_client(params)
        import httpx2
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT

        headers = {}
        if self.token_file is not None:
            from edgeagent.mcp.token import read_token_file

            key = f"[mcp.servers.{self.name}] token_file"
            headers["Authorization"] = f"Bearer {read_token_file(self.token_file, key=key)}"

        async def note_status(response: httpx2.Response) -> None:
            self._http_status = response.status_code

        http = await stack.enter_async_context(
            httpx2.AsyncClient(
                headers=headers,
                timeout=httpx2.Timeout(self.config.timeout_s, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
                event_hooks={"response": [note_status]},
            )
        )
        return streamable_http_client(str(self.config.url), http_client=http)

    async def _serve(self, client: Client) -> None:
        """Run calls as they come, each in its own task; check an idle connection."""
        import anyio

        assert self._calls is not None
        async with anyio.create_task_group() as running:
            while True:
                try:
                    async with asyncio.timeout(HEALTH_CHECK_S):
                        call = await self._calls.get()
                except TimeoutError:
                    async with asyncio.timeout(self.config.timeout_s):
                        await client.list_tools(cache_mode="bypass")
                    continue
                if self._lost is not None:
                    raise _ConnectionLost(self._lost)
                if call is not None:
                    running.start_soon(self._send, client, call)

    async def _send(self, client: Client, call: _Call) -> None:
        import anyio
        from mcp.shared.exceptions import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        from edgeagent.mcp.remote import to_result

        if call.done.done():  # the caller gave up while it was queued
            return
        result: ToolResult | None = None
        try:
            with anyio.CancelScope() as call.cancel:
                try:
                    answer = await client.call_tool(
                        call.tool, call.arguments, read_timeout_seconds=self.config.timeout_s
                    )
                except MCPError as exc:
                    result = ToolResult.failure(self._call_failed(call.tool, exc.message))
                    if exc.code == CONNECTION_CLOSED:
                        self._connection_lost(exc.message)
                        result = ToolResult.failure(
                            f"MCP server {self.name!r} closed the connection during the call "
                            f"of {call.tool!r}; edgeagent reconnects to it"
                        )
                    elif exc.code == REQUEST_TIMEOUT:
                        result = ToolResult.failure(
                            f"MCP server {self.name!r} did not answer {call.tool!r} within "
                            f"{self.config.timeout_s:g} s ([mcp.servers.{self.name}] timeout_s)"
                        )
                except Exception as exc:
                    self._connection_lost(self._explain(exc))
                    result = ToolResult.failure(self._call_failed(call.tool, self._explain(exc)))
                else:
                    result = to_result(answer)
        finally:
            if not call.done.done():
                call.done.set_result(
                    result
                    or ToolResult.failure(
                        f"MCP server {self.name!r}: the connection was lost during the call"
                    )
                )

    def _call_failed(self, tool: str, why: str) -> str:
        return f"MCP server {self.name!r} failed to run {tool!r}: {why}"

    def _connection_lost(self, why: str) -> None:
        """A call found the connection gone: leave the session (and reconnect)."""
        self._lost = why
        if self._calls is not None:
            self._calls.put_nowait(None)  # wakes the serving loop

    def _fail_queued(self) -> None:
        while self._calls is not None and not self._calls.empty():
            call = self._calls.get_nowait()
            if call is not None and not call.done.done():
                call.done.set_result(ToolResult.failure(self.unreachable()))

    # --- calls, from the connections' loop ----------------------------------------------

    async def call(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        """Send one call through the owner task; a failed result when it is down. While
        it reconnects, the call waits (the executor's timeout bounds the wait)."""
        if self.state is State.CONNECTING and self._settled is not None:
            await self._settled.wait()
        if self.state is not State.UP or self._calls is None:
            return ToolResult.failure(self.unreachable())
        call = _Call(tool, arguments, asyncio.get_running_loop().create_future())
        self._calls.put_nowait(call)
        try:
            return await call.done
        except asyncio.CancelledError:  # the executor's timeout: stop the call there too
            if call.cancel is not None:
                call.cancel.cancel()
            raise

    def unreachable(self) -> str:
        """Why a call cannot be sent now, for the model and the user."""
        if self.state is State.CONNECTING:
            return f"MCP server {self.name!r} is reconnecting; try again in a moment"
        retry = ""
        if self.retry_at is not None and self.state is State.DOWN:
            retry = f"; the next try is in {max(0.0, self.retry_at - time.monotonic()):.0f} s"
        return f"MCP server {self.name!r} is {self.state} ({self.error or 'not connected'}){retry}"

    # --- state ------------------------------------------------------------------------

    def _set(self, state: State, error: str | None = None) -> None:
        if (state is State.UP) != (self.state is State.UP):  # retries keep "down since"
            self.changed_at = time.monotonic()
        self.state, self.error = state, error
        if self._settled is not None:
            if state is State.CONNECTING:
                self._settled.clear()
            else:
                self._settled.set()

    def _came_up(self, listed: list[RemoteTool]) -> None:
        self.connects += 1
        self.retry_at, self._failures, self._logged = None, 0, None
        self._set(State.UP)
        self.first_attempt.set()
        if self.listing is None:
            self.listing = listed
            log.info("MCP server %r: connected, %d tools listed", self.name, len(listed))
            return
        log.info("MCP server %r: connected again", self.name)
        new = sorted({t.name for t in listed} - {t.name for t in self.listing})
        if new:
            log.warning(
                "MCP server %r now lists %s, which join when edgeagent restarts",
                self.name,
                ", ".join(new),
            )

    def _went_down(self, error: str) -> None:
        if error != self._logged:  # each retry that fails the same way is not news
            joins = "" if self.listing is not None else "; its tools join when edgeagent restarts"
            log.error("MCP server %r is down: %s%s", self.name, error, joins)
            self._logged = error
        self._set(State.DOWN, error)

    def _explain(self, exc: BaseException) -> str:
        """One line saying why the connection failed (what the SDK raised is a group)."""
        leaf = next(_leaves(exc), exc)
        if self._http_status in (401, 403):
            return (
                f"HTTP {self._http_status} from {self.config.url}: the server refused the "
                f"token; check [mcp.servers.{self.name}] token_file"
            )
        if isinstance(leaf, TimeoutError):
            return (
                f"no answer within {self.config.timeout_s:g} s "
                f"([mcp.servers.{self.name}] timeout_s)"
            )
        if isinstance(leaf, EdgeAgentError):
            return str(leaf)
        if isinstance(leaf, _ConnectionLost):
            return f"the connection was lost ({leaf})"
        if isinstance(leaf, FileNotFoundError | PermissionError) and self.config.command:
            return f"cannot start {self.config.command[0]!r}: {leaf.strerror or leaf}"
        if self._http_status is not None and self._http_status >= 400:
            return f"HTTP {self._http_status} from {self.config.url}"
        text = str(leaf) or type(leaf).__name__
        said = f"{type(leaf).__name__}: {text}" if type(leaf).__name__ not in text else text
        return said if self.config.command else f"{self.config.url}: {said}"

    def status(self) -> dict[str, JSONValue]:
        """What ``edgeagent status`` shows under ``mcp_servers``."""
        command = self.config.command
        out: dict[str, JSONValue] = {
            "state": str(self.state),
            "transport": "stdio" if command else "http",
            "target": " ".join(command) if command else str(self.config.url),
            "tools": len(self.offered),
            "since_s": round(time.monotonic() - self.changed_at, 1),
        }
        if self.error:
            out["error"] = self.error
        if self.retry_at is not None and self.state is State.DOWN:
            out["retry_in_s"] = round(max(0.0, self.retry_at - time.monotonic()), 1)
        if self.listing is None and self.state is not State.UNAVAILABLE:
            out["note"] = "not reached at start: its tools join when edgeagent restarts"
        if self.problems:
            out["problems"] = list(self.problems)
        return out


class _ConnectionLost(Exception):
    """A call found the session's connection closed."""


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    """The exceptions inside (nested) groups, cancellations left out."""
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _leaves(inner)
    elif not isinstance(exc, asyncio.CancelledError):
        yield exc


async def _list_tools(client: Client) -> list[RemoteTool]:
    tools: list[RemoteTool] = []
    cursor: str | None = None
    for _ in range(MAX_LIST_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools += page.tools
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


class MCPConnections:
    """The connections to every ``[mcp.servers.<name>]``, on their own loop and thread.

    ``start()`` connects (each server within its ``timeout_s``), :meth:`tools` gives
    the tools of those that answered, :meth:`status` is for ``edgeagent status``, and
    ``close()`` (idempotent, bounded) ends the sessions and stops the thread.
    """

    def __init__(
        self, servers: Mapping[str, MCPServerConfig], *, config_dir: Path | None = None
    ) -> None:
        def resolve(path: Path | None) -> Path | None:
            if path is None or config_dir is None or path.expanduser().is_absolute():
                return None if path is None else path.expanduser()
            return config_dir / path

        self.servers = {
            name: ServerConnection(
                name, server, token_file=resolve(server.token_file), cwd=config_dir
            )
            for name, server in sorted(servers.items())
        }
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        """Connect to every server; return when each is up or has failed its first try."""
        from edgeagent.mcp import require_sdk

        if not self.servers:
            return
        httpx_log = logging.getLogger("httpx2")
        if httpx_log.level == logging.NOTSET:  # not a line per call and per health check
            httpx_log.setLevel(logging.WARNING)
        try:
            require_sdk("[mcp.servers]")
        except EdgeAgentError:
            for server in self.servers.values():
                server._set(State.UNAVAILABLE, f"the MCP SDK is not installed: {INSTALL_HINT}")
                log.error("MCP server %r: %s", server.name, server.error)
            return
        # The SDK's import (seconds on a Pi) is no part of any server's timeout_s.
        for module in ("mcp", "mcp.client.stdio", "mcp.client.streamable_http"):
            importlib.import_module(module)

        loop = self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._run_loop, args=(loop,), name="edgeagent-mcp", daemon=True
        )
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start_tasks(), loop).result()
        deadline = (
            time.monotonic()
            + START_MARGIN_S
            + max(s.config.timeout_s for s in self.servers.values())
        )
        for server in self.servers.values():
            server.first_attempt.wait(max(0.0, deadline - time.monotonic()))

    @staticmethod
    def _run_loop(loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    async def _start_tasks(self) -> None:
        for server in self.servers.values():
            self._tasks.append(asyncio.create_task(server.run(), name=f"mcp-{server.name}"))

    def tools(self, *, taken: Collection[str]) -> list[Tool]:
        """The tools of the servers that answered, named so that none clashes with
        ``taken`` or each other; ``include``/``exclude`` applied. What is skipped is
        logged and listed in the server's status."""
        from edgeagent.mcp.remote import local_name, make_remote_tool

        names = set(taken)
        made: list[Tool] = []
        for server in self.servers.values():
            listed = {t.name: t for t in server.listing or []}
            wanted = server.config.include or list(listed)
            for missing in sorted(set(server.config.include) - set(listed)):
                if server.listing is not None:
                    server.problems.append(
                        f"include names {missing!r}, which the server does not list; it "
                        f"lists: {', '.join(sorted(listed)) or 'nothing'}"
                    )
            for remote_name in wanted:
                remote = listed.get(remote_name)
                if remote is None or remote_name in server.config.exclude:
                    continue
                name = local_name(remote_name, server=server.name, taken=names)
                if name is None:
                    server.problems.append(
                        f"tool {remote_name!r} skipped: its name and {server.name}_"
                        f"{remote_name} are both taken; exclude it or another tool"
                    )
                    continue
                try:
                    tool = make_remote_tool(
                        remote,
                        server=server.name,
                        name=name,
                        timeout_s=server.config.timeout_s,
                        call=_Caller(self, server.name),
                    )
                except ToolDefinitionError as exc:
                    server.problems.append(f"{exc}; the tool is skipped")
                    continue
                names.add(name)
                made.append(tool)
                server.offered.append(name)
            for problem in server.problems:
                log.warning("MCP server %r: %s", server.name, problem)
        return made

    async def call(self, server: str, tool: str, arguments: dict[str, Any]) -> ToolResult:
        """One call of ``tool`` on ``server``, from any event loop; cancelling it (the
        executor's timeout) cancels the call on the server's connection too."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return ToolResult.failure(f"MCP server {server!r}: the connections are closed")
        running = asyncio.run_coroutine_threadsafe(self.servers[server].call(tool, arguments), loop)
        return await asyncio.wrap_future(running)

    def status(self) -> dict[str, JSONValue]:
        return {name: server.status() for name, server in self.servers.items()}

    def warnings(self) -> list[str]:
        """One line per server that is not up, and per tool it could not offer."""
        lines: list[str] = []
        for server in self.servers.values():
            if server.state is not State.UP:
                lines.append(f"MCP server {server.name!r} is {server.state}: {server.error}")
            lines += [f"MCP server {server.name!r}: {p}" for p in server.problems]
        return lines

    def close(self, timeout_s: float = CLOSE_TIMEOUT_S) -> None:
        """End every session (a stdio server's process too) and stop the thread.
        Idempotent; bounded by ``timeout_s``."""
        loop, self._loop = self._loop, None
        if loop is None:
            return
        deadline = time.monotonic() + timeout_s
        stopping = asyncio.run_coroutine_threadsafe(self._stop_tasks(timeout_s), loop)
        try:
            stopping.result(timeout_s)
        except Exception as exc:
            log.warning("MCP connections did not close within %g s: %s", timeout_s, exc)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:  # a daemon thread: one left behind cannot hold the exit
            self._thread.join(max(0.5, deadline - time.monotonic()))

    async def _stop_tasks(self, timeout_s: float) -> None:
        for task in self._tasks:
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=timeout_s)


@dataclass(frozen=True)
class _Caller:
    """Sends a remote tool's calls to its server (what :class:`~edgeagent.mcp.remote`
    tools are given as ``call``)."""

    connections: MCPConnections
    server: str

    async def __call__(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        return await self.connections.call(self.server, tool, arguments)


def connect_servers(config: Config, registry: ToolRegistry) -> MCPConnections:
    """Connect to ``[mcp.servers]`` and add their tools to ``registry`` (named so that
    none clashes with what it holds). The caller owns the result and closes it."""
    connections = MCPConnections(
        config.mcp.servers, config_dir=config.source.parent if config.source else None
    )
    connections.start()
    for tool in connections.tools(taken=registry.names()):
        registry.add(tool)
    return connections
