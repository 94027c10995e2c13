"""The ``edgeagent`` command. Subcommands load lazily, so start-up stays fast."""

from __future__ import annotations

import importlib
import logging
import sys
from pathlib import Path
from typing import Any

import click

from edgeagent.config import Config
from edgeagent.config_file import find_config, load_config
from edgeagent.errors import ConfigError

COMMANDS = {
    "ask": "edgeagent.cli.daemon:ask",
    "calls": "edgeagent.cli.calls:calls",
    "chat": "edgeagent.cli.chat:chat",
    "config": "edgeagent.cli.config_cmd:config",
    "install-service": "edgeagent.cli.service:install_service",
    "mcp": "edgeagent.cli.mcp_cmd:mcp",
    "model": "edgeagent.cli.model:model",
    "run": "edgeagent.cli.daemon:run",
    "sim": "edgeagent.cli.sim:sim",
    "status": "edgeagent.cli.daemon:status",
    "tools": "edgeagent.cli.tools:tools",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, attr = target.split(":")
        command = getattr(importlib.import_module(module), attr)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup)
@click.option(
    "--config",
    "config_path",
    # Not readable=True: load_config says why a file cannot be read and what to do.
    type=click.Path(path_type=Path, dir_okay=False, readable=False),
    default=None,
    help="Config file (default: $EDGEAGENT_CONFIG, ./config/edgeagent.toml, /etc/edgeagent/).",
)
@click.option("-v", "--verbose", is_flag=True, help="Log debug messages.")
@click.pass_context
def cli(ctx: click.Context, config_path: Path | None, verbose: bool) -> None:
    """edgeagent: a local LLM in charge of real hardware."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    ctx.obj = {"config_path": find_config(config_path)}


def load(ctx: click.Context) -> Config:
    """The validated config for this invocation; a bad one exits 2 with the reason."""
    obj: dict[str, Any] = ctx.find_root().obj or {}
    if "config" not in obj:
        try:
            obj["config"] = load_config(obj.get("config_path"))
        except ConfigError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
    config = obj["config"]
    assert isinstance(config, Config)
    return config


def main() -> None:
    cli(prog_name="edgeagent")
