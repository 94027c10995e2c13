"""``edgeagent config check|show``: validate the configuration without starting anything."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from edgeagent.config import Config
from edgeagent.config_file import ENV_PREFIX, SEARCH_PATHS, load_config
from edgeagent.errors import ConfigError

if TYPE_CHECKING:
    from edgeagent.compose import ToolSet

SECRET_KEYS = frozenset({"password", "api_key"})


def _config_path(ctx: click.Context) -> Path | None:
    obj: dict[str, Any] = ctx.find_root().obj or {}
    path = obj.get("config_path")
    return path if isinstance(path, Path) or path is None else Path(path)


def _load_or_exit(ctx: click.Context) -> Config:
    path = _config_path(ctx)
    try:
        config = load_config(path)
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    obj = ctx.find_root().obj
    if isinstance(obj, dict):
        obj["config"] = config
    return config


def _env_overrides() -> list[str]:
    return sorted(v for v in os.environ if v.startswith(ENV_PREFIX) and "__" in v)


@click.group()
def config() -> None:
    """Check or show the effective configuration."""


@config.command()
@click.pass_context
def check(ctx: click.Context) -> None:
    """Validate the config file and environment, load plugins and .tool files.

    Opens no device (a running daemon may hold them): it shows which backend drives
    each one. Exits 0 when everything loads, 2 when anything is wrong.
    """
    config_ = _load_or_exit(ctx)
    if config_.source is not None:
        click.echo(f"config: {config_.source}")
    else:
        searched = ", ".join(str(p) for p in SEARCH_PATHS)
        click.echo(f"config: none found (searched {searched}); using the defaults")
    for var in _env_overrides():
        click.echo(f"override: {var}")

    from edgeagent.compose import build_tools

    problems: list[str] = []
    try:
        # Loading opens no device, and closing the tool set touches only devices that
        # were opened: none here, so hardware a running daemon uses is left alone.
        toolset = build_tools(config_)
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    try:
        _check_tools(config_, toolset, problems)
    finally:
        toolset.close()
        toolset.disconnect()


def _check_tools(config_: Config, toolset: ToolSet, problems: list[str]) -> None:
    report = toolset.report
    for name, reason in sorted(report.failed.items()):
        problems.append(f"plugin {name!r} failed to load: {reason}")
    problems.extend(f"duplicate tool: {d}" for d in report.duplicates)
    where = config_.resolve(config_.tools.wrapped_dir) if config_.tools.wrapped_dir else None
    problems.extend(f".tool file in {where}: {e}" for e in toolset.wrapped_errors)
    problems.extend(toolset.mcp.warnings() if toolset.mcp is not None else [])
    missing = sorted(set(config_.tools.enabled) - set(toolset.registry.names()))
    if missing:
        problems.append(
            f"tools.enabled = {config_.tools.enabled!r} names tools that are not loaded: "
            f"{', '.join(missing)}; loaded tools: {', '.join(toolset.registry.names()) or 'none'}"
        )
    if config_.llm.backend == "scripted":
        if config_.llm.script is None:
            problems.append("llm.backend = 'scripted' needs llm.script = \"<path to JSON script>\"")
        else:
            from edgeagent.llm.scripted import ScriptedEngine

            try:
                ScriptedEngine.from_file(config_.resolve(config_.llm.script))
            except ConfigError as exc:
                problems.append(f"llm.script: {exc}")

    if config_.mqtt.enabled:
        from edgeagent.daemon import mqtt_files

        mqtt = mqtt_files(config_)
        named = [("password_file", mqtt.password_file)] + [
            (f"tls.{key}", path)
            for key, path in (
                ("ca_certs", mqtt.tls.ca_certs),
                ("certfile", mqtt.tls.certfile),
                ("keyfile", mqtt.tls.keyfile),
            )
            if mqtt.tls.enabled
        ]
        problems.extend(
            f"mqtt.{key} = {path}: no such file; fix the path (relative paths start at the "
            f"config file's directory)"
            for key, path in named
            if path is not None and not path.is_file()
        )

    problems.extend(_mcp_server_problems(config_))

    from edgeagent.compose import build_executor

    try:
        policy = build_executor(config_, toolset.registry).policy
    except ConfigError as exc:
        problems.append(str(exc))
    else:
        problems.extend(
            f"tools.policy.{rule} names no loaded tool or plugin"
            for rule in policy.unknown_rules(toolset.registry)
        )
    click.echo(f"plugins: {', '.join(report.loaded) or 'none'}")
    if report.disabled:
        click.echo(f"plugins disabled ([tools] disabled_plugins): {', '.join(report.disabled)}")
    click.echo(f"tools: {', '.join(toolset.registry.names()) or 'none'}")
    devices = [(name, line) for name, lines in report.devices.items() for line in lines]
    if devices:
        click.echo("devices (opened by their first tool call):")
        for name, line in devices:
            click.echo(f"  {name}: {line}")
    if not problems:
        click.echo("policy ([tools.policy]; defaults in docs/security.md):")
        for front_end, text in policy.describe(toolset.registry).items():
            click.echo(f"  {front_end}: {text}")
    for problem in problems:
        click.echo(f"error: {problem}", err=True)
    if problems:
        click.echo(f"{len(problems)} problem(s) found", err=True)
        sys.exit(2)
    click.echo("ok")


def _mcp_server_problems(config_: Config) -> list[str]:
    """What would stop the MCP server: no SDK for ``[mcp] enabled``, a bad token file."""
    from edgeagent.mcp import require_sdk
    from edgeagent.mcp.token import read_token_file

    problems: list[str] = []
    if config_.mcp.enabled:
        try:
            require_sdk("[mcp] enabled = true")
        except ConfigError as exc:
            problems.append(str(exc))
    if config_.mcp.token_file is not None:
        try:
            read_token_file(config_.resolve(config_.mcp.token_file), key="[mcp] token_file")
        except ConfigError as exc:
            problems.append(str(exc))
    return problems


@config.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of TOML.")
@click.option("--secrets", is_flag=True, help="Show passwords and API keys unmasked.")
@click.pass_context
def show(ctx: click.Context, as_json: bool, secrets: bool) -> None:
    """Print the effective configuration (file + environment + defaults)."""
    config_ = _load_or_exit(ctx)
    data = config_.model_dump(mode="json")
    if not secrets:
        data = _mask(data)
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    source = config_.source or "defaults only"
    click.echo(f"# effective configuration ({source})")
    click.echo(to_toml(data))


def _mask(data: Any) -> Any:
    if isinstance(data, dict):
        return {
            k: ("***" if k in SECRET_KEYS and v is not None else _mask(v)) for k, v in data.items()
        }
    return data


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(str(value), ensure_ascii=False)


def _toml_key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() else json.dumps(key)


def to_toml(data: dict[str, Any], prefix: str = "") -> str:
    """Valid TOML for a dump of :class:`Config`; unset (``None``) keys become comments.

    Plain keys come first and every non-empty mapping becomes a ``[table]`` after them,
    because in TOML a key written after a table header belongs to that table.
    """
    lines: list[str] = []
    tables: list[str] = []
    for key, value in data.items():
        if isinstance(value, dict) and value:
            name = f"{prefix}.{_toml_key(key)}" if prefix else _toml_key(key)
            tables.append(f"\n[{name}]\n" + to_toml(value, name))
        elif value is None:
            lines.append(f"# {_toml_key(key)} = (unset)")
        else:
            lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
    return "\n".join(lines + tables).strip("\n")
