"""The client half of MCP: the tools of each ``[mcp.servers.<name>]`` join the registry.

:func:`connect_servers` (called by :func:`edgeagent.compose.build_tools`) connects to
every configured server, side by side and each within its ``timeout_s``, lists its
tools and adds them to the registry as first-class tools (see
:mod:`edgeagent.mcp.remote`): the executor validates, applies the call policy and the
timeout, and every call ends in a ``ToolResult``.

The connections run on an event loop of their own, in one thread, because the parts
that load tools are synchronous (``edgeagent tools list``) and the SDK's anyio cancel
scopes must be entered and left in the same task: each server has one long-lived task
that owns its ``async with Client(...)`` (:mod:`edgeagent.mcp.connection`); a tool
call reaches it through a queue and comes back through a future, from whichever loop
or thread made it.

A server that cannot be reached at start is logged, shown in ``edgeagent status``
(``mcp_servers``) and retried with backoff; it does not stop anything. The tool set is
fixed once the agent is built, so the tools of a server that was down at start join at
the next restart (its status says so). A server that drops later is reconnected; its
calls fail cleanly meanwhile. A call to a hung or dead server ends in a failed result
within ``timeout_s``.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import threading
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edgeagent.config import Config, MCPServerConfig
from edgeagent.errors import EdgeAgentError, ToolDefinitionError
from edgeagent.jsontypes import JSONValue
from edgeagent.mcp import INSTALL_HINT
from edgeagent.mcp.connection import ServerConnection, State
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import Tool, ToolResult

log = logging.getLogger(__name__)

START_MARGIN_S = 5.0
"""At start, the wait for every server is its ``timeout_s`` plus this (closing a failed
attempt: a stdio server gets SIGTERM, then KILL)."""
CLOSE_TIMEOUT_S = 5.0
"""The longest closing the connections may take (a stdio server gets SIGTERM, then KILL)."""


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
                server.unavailable(f"the MCP SDK is not installed: {INSTALL_HINT}")
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
