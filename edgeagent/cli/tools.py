"""``edgeagent tools list|show|manifest|call``: inspect and try the loaded tools."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from edgeagent.cli import load
from edgeagent.compose import ToolSet, build_executor, build_tools
from edgeagent.config import Config
from edgeagent.tools.executor import ToolCall
from edgeagent.tools.render import MANIFEST_FORMATS
from edgeagent.tools.tool import Tool

# Known model names -> GGUF file names in [llm] models_dir (see edgeagent.llm.models).
_MODEL_FILES = {
    "qwen-coder-1.5b": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    "smollm2": "smollm2-135m-instruct-q4_1.gguf",
}


def _load_tools(config: Config) -> ToolSet:
    """The configured tools. Loading them opens no device: `tools list`, `show` and
    `manifest` never claim a pin or a bus that a running daemon holds; `tools call` opens
    only the device its tool drives. Their safe-state hooks are deliberately never run
    here: a one-shot command leaves the devices as its tool call set them (`tools call
    led` keeps the strip red), and must not reset hardware that a running daemon uses."""
    toolset = build_tools(config)
    for plugin, reason in toolset.report.failed.items():
        click.echo(f"warning: plugin {plugin!r} skipped: {reason}", err=True)
    for error in toolset.wrapped_errors:
        click.echo(f"warning: {error}", err=True)
    for warning in toolset.mcp.warnings() if toolset.mcp is not None else []:
        click.echo(f"warning: {warning}", err=True)
    return toolset


def _describe(tool: Tool) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.description,
        "kind": str(tool.kind),
        "plugin": tool.plugin,
        "timeout_s": tool.timeout_s,
        "title": tool.title,
        "wrappable": tool.wrappable,
        "parameters": tool.parameters,
    }


def model_path(config: Config) -> Path | None:
    """The configured GGUF file, if it exists: a path, or a known name in models_dir."""
    as_path = Path(config.llm.model).expanduser()
    if as_path.is_file():
        return as_path
    filename = _MODEL_FILES.get(config.llm.model)
    if filename is None:
        return None
    candidate = config.llm.models_dir.expanduser() / filename
    return candidate if candidate.is_file() else None


def token_counter(config: Config) -> tuple[Callable[[str], int], str]:
    """Count in the model's own tokens, or estimate (chars/4) when that is impossible."""
    path = model_path(config)
    reason = f"no GGUF file for [llm] model = {config.llm.model!r}"
    if path is not None:
        try:
            from llama_cpp import Llama
        except ImportError:
            reason = "llama_cpp is not installed"
        else:
            llm = Llama(model_path=str(path), vocab_only=True, verbose=False)

            def count(text: str) -> int:
                return len(llm.tokenize(text.encode(), add_bos=False, special=False))

            return count, f"tokens of {path.name}"
    return (lambda text: (len(text) + 3) // 4), f"estimate: characters/4, {reason}"


@click.group()
def tools() -> None:
    """Inspect the loaded tools, render their manifest, or call one."""


@tools.command("list")
@click.pass_context
def list_tools(ctx: click.Context) -> None:
    """Name, kind, plugin and description of every enabled tool."""
    toolset = _load_tools(load(ctx))
    toolset.disconnect()
    rows = [
        (t.name, str(t.kind), t.plugin, t.description.splitlines()[0]) for t in toolset.registry
    ]
    if not rows:
        click.echo("no tools loaded")
        return
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for row in rows:
        click.echo(
            "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False)) + f"  {row[3]}"
        )


@tools.command()
@click.argument("name")
@click.pass_context
def show(ctx: click.Context, name: str) -> None:
    """One tool's metadata and JSON schema, as JSON."""
    toolset = _load_tools(load(ctx))
    toolset.disconnect()
    if name not in toolset.registry:
        available = ", ".join(toolset.registry.names()) or "none"
        click.echo(f"error: unknown tool {name!r}. Available tools: {available}", err=True)
        sys.exit(2)
    click.echo(json.dumps(_describe(toolset.registry.get(name)), indent=2, ensure_ascii=False))


@tools.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(MANIFEST_FORMATS),
    default=None,
    help="Manifest format (default: [agent] manifest_format).",
)
@click.option("--count-tokens", is_flag=True, help="Also print its size in the model's tokens.")
@click.pass_context
def manifest(ctx: click.Context, fmt: str | None, count_tokens: bool) -> None:
    """Render the tool manifest the model sees."""
    from edgeagent.agent.prompt import build_system_prompt, render_manifest_text
    from edgeagent.compose import resolve_call_format
    from edgeagent.tools.calls import get_call_format

    config = load(ctx)
    fmt = fmt or config.agent.manifest_format
    toolset = _load_tools(config)
    toolset.disconnect()
    tools_ = list(toolset.registry)
    rendered = toolset.registry.manifest(fmt)
    click.echo(rendered if isinstance(rendered, str) else json.dumps(rendered, indent=2))
    if count_tokens:
        count, unit = token_counter(config)
        prompt = build_system_prompt(
            tools_,
            manifest_format=fmt,
            call_format=get_call_format(resolve_call_format(config)),
            persona=config.agent.system_prompt,
        )
        click.echo(f"\nmanifest: {count(render_manifest_text(tools_, fmt))} ({unit})")
        click.echo(f"system prompt with this manifest: {count(prompt)} ({unit})")


@tools.command()
@click.argument("name")
@click.argument("arguments", default="{}")
@click.pass_context
def call(ctx: click.Context, name: str, arguments: str) -> None:
    """Validate and run one tool: ARGUMENTS is a JSON object.

    Prints the result as JSON. Exits 0 when the tool succeeded, 1 when it failed (the
    error is in the result), 2 when ARGUMENTS is not a JSON object.
    """
    try:
        args = json.loads(arguments)
    except ValueError as exc:
        click.echo(f"error: ARGUMENTS is not valid JSON ({exc}): {arguments!r}", err=True)
        sys.exit(2)
    if not isinstance(args, dict):
        click.echo(
            f'error: ARGUMENTS must be a JSON object like \'{{"color": "red"}}\', '
            f"got {arguments!r}",
            err=True,
        )
        sys.exit(2)
    config = load(ctx)
    toolset = _load_tools(config)
    executor = build_executor(config, toolset.registry)
    try:
        result = asyncio.run(executor.execute(ToolCall(name, args), frontend="cli"))
    finally:
        toolset.disconnect()
    click.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False, default=str))
    sys.exit(0 if result.ok else 1)
