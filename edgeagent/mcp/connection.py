"""One MCP server's connection: the task that owns its SDK session, and its state.

Each ``[mcp.servers.<name>]`` gets a :class:`ServerConnection`, run by
:class:`edgeagent.mcp.client.MCPConnections` on the connections' own event loop. Its
one long-lived task enters ``async with Client(...)`` and leaves it again (the SDK's
anyio cancel scopes must be entered and left in the same task); tool calls reach it
through a queue and come back through futures. It connects (within ``timeout_s``),
serves calls until the connection is lost, and tries again after a backoff; an idle
connection is checked now and then, so a server that went away is noticed before the
next call needs it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edgeagent.config import MCPServerConfig
from edgeagent.errors import EdgeAgentError
from edgeagent.jsontypes import JSONValue
from edgeagent.tools.tool import ToolResult

if TYPE_CHECKING:
    from mcp import Client
    from mcp_types import Tool as RemoteTool

log = logging.getLogger(__name__)

RETRY_S = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0)
"""Waits between attempts to reach a server that is down; the last one repeats."""
HEALTH_CHECK_S = 30.0
"""An idle connection is checked (a tool listing) this often, so a server that went away
is noticed, and reconnected, before the next call needs it."""
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
                        f"MCP server {self.name!r}: the connection was lost during the call of "
                        f"{call.tool!r}; edgeagent reconnects to it"
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

    def unavailable(self, why: str) -> None:
        """It cannot be tried at all (it is not run)."""
        self._set(State.UNAVAILABLE, why)

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
            "connects": self.connects,
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
