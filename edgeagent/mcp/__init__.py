"""MCP both ways: ``edgeagent mcp serve`` and the client of ``[mcp.servers.<name>]``.

The official SDK (``mcp`` 2.x, the ``edgeagent[mcp]`` extra) is imported only inside
this package, and only when MCP is used, so ``import edgeagent`` and a Pi without the
extra never load it. :func:`require_sdk` is the one check that it is there.

Server side: :mod:`edgeagent.mcp.server` (the tools and ``ask`` over the low-level
SDK server), :mod:`edgeagent.mcp.http` (streamable HTTP under uvicorn, the bearer
token), :mod:`edgeagent.mcp.token` (reading ``token_file``),
:mod:`edgeagent.mcp.standalone` (``edgeagent mcp serve`` without a daemon); the
daemon's front end is :mod:`edgeagent.frontends.mcp`.
"""

from __future__ import annotations

import importlib.util

from edgeagent.errors import ConfigError

FRONTEND = "mcp"
"""The front end MCP clients' calls run under: the call policy keys on it."""
ASK_TOOL = "ask"
"""The one tool the server adds to the registry's: a request to the on-device agent."""
SERVER_NAME = "edgeagent"
"""How the server introduces itself to clients (``serverInfo.name``)."""
HTTP_PATH = "/mcp"
"""Where streamable HTTP is served: ``http://<host>:<port>/mcp``."""
INSTALL_HINT = "pip install 'edgeagent[mcp]'"


def require_sdk(what: str) -> None:
    """Raise :class:`ConfigError` naming ``what`` needs it when the MCP SDK is missing."""
    if importlib.util.find_spec("mcp") is None:
        raise ConfigError(
            f"{what} needs the MCP SDK, which is not installed; install it with {INSTALL_HINT}"
        )
