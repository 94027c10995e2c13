"""``edgeagent mcp serve``: this device's tools for any MCP client.

``serve`` speaks MCP on stdio by default (a desktop assistant or coding agent launches
it), or on streamable HTTP with ``--http`` (``[mcp] host``/``port``, which
``--host``/``--port`` override). It runs without a daemon; to serve MCP from the
running daemon instead, set ``[mcp] enabled = true``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys

import click
from pydantic import ValidationError

from edgeagent.cli import load
from edgeagent.config import MCPConfig
from edgeagent.errors import EdgeAgentError


@click.group()
def mcp() -> None:
    """The Model Context Protocol: serve this device's tools to MCP clients."""


@mcp.command()
@click.option("--http", "use_http", is_flag=True, help="Serve streamable HTTP, not stdio.")
@click.option("--host", default=None, help="Listen here with --http (default: [mcp] host).")
@click.option(
    "--port", type=click.IntRange(1, 65535), default=None,
    help="Listen on this port with --http (default: [mcp] port).",
)  # fmt: skip
@click.pass_context
def serve(ctx: click.Context, use_http: bool, host: str | None, port: int | None) -> None:
    """Serve the tools, and `ask` (a request to the on-device agent), over MCP.

    Every enabled tool the call policy lets front end `mcp` call is offered (all but the
    shell, by default); calls run one at a time. Logs go to stderr; on stdio, stdout
    carries only MCP messages.
    """
    config = load(ctx)
    root = logging.getLogger()
    if root.level != logging.DEBUG:  # -v wins over [daemon] log_level
        root.setLevel(config.daemon.log_level)
    if (host is not None or port is not None) and not use_http:
        raise click.UsageError("--host and --port are for --http; stdio listens nowhere")
    if host is not None:  # the rule of [mcp] host holds: off loopback only with a token
        try:
            MCPConfig.model_validate({**config.mcp.model_dump(), "host": host})
        except ValidationError as exc:
            raise click.BadParameter(exc.errors()[0]["msg"], param_hint="--host") from None
    from edgeagent.mcp import require_sdk

    try:
        require_sdk("edgeagent mcp serve")
        from edgeagent.mcp.standalone import serve as serve_mcp
        from edgeagent.mcp.standalone import stdout_for_protocol

        with contextlib.ExitStack() as stack:
            wire = None if use_http else stack.enter_context(stdout_for_protocol())
            asyncio.run(
                serve_mcp(
                    config,
                    transport="http" if use_http else "stdio",
                    host=host if host is not None else config.mcp.host,
                    port=port if port is not None else config.mcp.port,
                    wire=wire,
                )
            )
    except EdgeAgentError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    except OSError as exc:  # e.g. the port is taken
        click.echo(f"error: {exc.strerror or exc}", err=True)
        sys.exit(1)
