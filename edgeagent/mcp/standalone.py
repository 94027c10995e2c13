"""``edgeagent mcp serve``: the MCP server without a daemon.

It assembles what the daemon does (:func:`edgeagent.compose.build_runtime`, a
:class:`~edgeagent.scheduler.Scheduler` in front of it, so calls and ``ask`` turns run
one at a time) and serves MCP on stdio, for a client that launches it, or on streamable
HTTP. Don't run it beside a daemon that drives the same hardware: each would open the
devices.

On stdio, stdout is the protocol's: before anything starts, file descriptor 1 is
pointed at stderr (for this process, the model's worker and any child) and only a
private copy of the original carries MCP messages. Logs go to stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import signal
import sys
from collections.abc import Iterator
from typing import Literal

from edgeagent.agent.context import SessionStore
from edgeagent.compose import ToolSet, build_runtime
from edgeagent.config import Config
from edgeagent.mcp import FRONTEND
from edgeagent.mcp.server import ToolServer
from edgeagent.mcp.token import read_token_file
from edgeagent.scheduler import Scheduler

log = logging.getLogger(__name__)

Transport = Literal["stdio", "http"]

STDIN_EXIT_S = 1.0
"""After a stop signal on stdio, how long the server may take to end its session."""


@contextlib.contextmanager
def stdout_for_protocol() -> Iterator[io.TextIOWrapper]:
    """The original stdout, as a private stream for MCP messages, while fd 1 (and so
    ``print``, C libraries and child processes) writes to stderr instead. Restored on
    exit."""
    sys.stdout.flush()
    wire_fd = os.dup(1)
    os.dup2(2, 1)
    wire = io.TextIOWrapper(os.fdopen(wire_fd, "wb"), encoding="utf-8", newline="\n")
    try:
        yield wire
    finally:
        with contextlib.suppress(OSError):
            wire.flush()
        os.dup2(wire_fd, 1)
        with contextlib.suppress(OSError):
            wire.close()


def _log_tools(tools: ToolSet) -> None:
    for name, reason in tools.report.failed.items():
        log.error("plugin %s did not load: %s", name, reason)
    for problem in [*tools.report.duplicates, *tools.wrapped_errors]:
        log.error("tools: %s", problem)


async def serve(
    config: Config, *, transport: Transport, host: str, port: int, wire: io.TextIOWrapper | None
) -> None:
    """Serve until the client goes (stdio: end of input) or SIGTERM/SIGINT, then close
    like the daemon: the queue drained, the devices in their safe state, the model
    released. ``wire`` is stdio's output (:func:`stdout_for_protocol`).

    A stop signal on stdio while the client keeps its end open leaves a thread blocked
    on reading stdin, which nothing can interrupt: once everything is closed, the
    process exits at once rather than wait for input that may never come."""
    token = None
    if transport == "http" and config.mcp.token_file is not None:
        # Before the model loads: a bad token file is a start-up error, said at once.
        token = read_token_file(config.resolve(config.mcp.token_file), key="[mcp] token_file")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    clean = True
    try:
        async with build_runtime(
            config, on_tools=_log_tools, safe_state=config.daemon.safe_state_on_exit
        ) as runtime:
            agent = runtime.agent
            scheduler = Scheduler(
                agent=agent,
                tools=runtime.executor,
                sessions=SessionStore(system_prompt=agent.system_prompt, primer=agent.primer),
                queue_size=config.daemon.queue_size,
                request_timeout_s=config.daemon.request_timeout_s,
                session_idle_s=config.daemon.session_idle_s,
            )
            scheduler.start()
            tools = ToolServer(
                tools=runtime.tools.registry,
                policy=runtime.executor.policy,
                backend=scheduler,
                queue_wait_s=config.mcp.queue_wait_s,
            )
            offered = ", ".join(t.name for t in tools.offered())
            log.info("MCP tools for front end %s: %s, ask", FRONTEND, offered)
            try:
                if transport == "http":
                    await _serve_http(tools, host=host, port=port, token=token, stop=stop)
                else:
                    assert wire is not None
                    clean = await _serve_stdio(tools, wire=wire, stop=stop)
            finally:
                tools.accepting = False
                await scheduler.close(grace_s=config.daemon.shutdown_grace_s)
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
    if not clean:
        log.info("stopped; not waiting for the client to close stdin")
        logging.shutdown()
        os._exit(0)


async def _serve_http(
    tools: ToolServer, *, host: str, port: int, token: str | None, stop: asyncio.Event
) -> None:
    from edgeagent.mcp.http import HTTPServer, http_app

    server = HTTPServer(http_app(tools.sdk_server(), host=host, token=token), host=host, port=port)
    await server.start()
    auth = "a bearer token" if token is not None else "no token (loopback only)"
    log.info("serving MCP on %s with %s", server.url, auth)
    try:
        await stop.wait()
    finally:
        tools.accepting = False
        await server.stop(grace_s=2.0)


async def _serve_stdio(tools: ToolServer, *, wire: io.TextIOWrapper, stop: asyncio.Event) -> bool:
    import anyio
    from mcp.server.stdio import stdio_server

    server = tools.sdk_server()

    async def run() -> None:
        async with stdio_server(stdout=anyio.wrap_file(wire)) as (read, write):
            await server.run(read, write, server.create_initialization_options())

    serving = asyncio.create_task(run(), name="edgeagent-mcp-stdio")
    stopping = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({serving, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    if serving.done():
        serving.result()  # a failure of the transport is the command's failure
        return True
    serving.cancel()
    done, _ = await asyncio.wait({serving}, timeout=STDIN_EXIT_S)
    return bool(done)
