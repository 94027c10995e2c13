"""The daemon's MCP front end (``[mcp] enabled = true``): streamable HTTP on ``[mcp]
host``/``port``, with the token of ``[mcp] token_file``.

MCP clients (Home Assistant's MCP integration, desktop assistants) list the daemon's
tools and call them, or ``ask`` its agent; every call queues on the daemon's scheduler
like a prompt, under the call policy of front end ``mcp``. The MCP SDK is imported at
``start()``: without the ``edgeagent[mcp]`` extra the front end fails to start, says
what to install, and the daemon serves on without it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from edgeagent.config import Config, MCPConfig
from edgeagent.jsontypes import JSONValue
from edgeagent.tools.policy import CallPolicy
from edgeagent.tools.tool import Tool

if TYPE_CHECKING:
    from edgeagent.compose import Runtime
    from edgeagent.mcp.http import HTTPServer
    from edgeagent.mcp.server import MCPBackend, ToolServer


class MCPFrontend:
    """MCP over streamable HTTP, served from the daemon's loop."""

    name = "mcp"

    def __init__(
        self,
        config: MCPConfig,
        *,
        token_file: Path | None,
        tools: Iterable[Tool],
        policy: CallPolicy,
        dispatcher: MCPBackend,
    ) -> None:
        """``token_file``: ``[mcp] token_file`` resolved against the config's directory."""
        self.config = config
        self.token_file = token_file
        self._tools = list(tools)
        self._policy = policy
        self._dispatcher = dispatcher
        self._server: ToolServer | None = None
        self._http: HTTPServer | None = None

    @classmethod
    def from_config(
        cls, config: Config, *, runtime: Runtime, dispatcher: MCPBackend
    ) -> MCPFrontend:
        """The front end for ``config``'s ``[mcp]``, offering ``runtime``'s tools."""
        token = config.mcp.token_file
        return cls(
            config.mcp,
            token_file=config.resolve(token) if token is not None else None,
            tools=runtime.tools.registry,
            policy=runtime.executor.policy,
            dispatcher=dispatcher,
        )

    @property
    def degraded(self) -> str | None:
        return None

    async def start(self) -> None:
        from edgeagent.mcp import require_sdk

        require_sdk("[mcp] enabled = true")
        from edgeagent.mcp.http import HTTPServer, http_app
        from edgeagent.mcp.server import ToolServer
        from edgeagent.mcp.token import read_token_file

        token = None
        if self.token_file is not None:
            token = read_token_file(self.token_file, key="[mcp] token_file")
        self._server = server = ToolServer(
            tools=self._tools,
            policy=self._policy,
            backend=self._dispatcher,
            queue_wait_s=self.config.queue_wait_s,
        )
        app = http_app(server.sdk_server(), host=self.config.host, token=token)
        http = HTTPServer(app, host=self.config.host, port=self.config.port)
        await http.start()
        self._http = http

    def stop_accepting(self) -> None:
        if self._server is not None:
            self._server.accepting = False

    async def stop(self, *, grace_s: float = 0.0) -> None:
        self.stop_accepting()
        http, self._http = self._http, None
        if http is not None:
            await http.stop(grace_s=grace_s)

    def status(self) -> dict[str, JSONValue]:
        return {
            "enabled": True,
            "url": self._http.url if self._http is not None else None,
            "token": self.token_file is not None,
            "calls": self._server.calls if self._server is not None else 0,
        }
