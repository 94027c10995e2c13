"""``edgeagent calls parse``: run the agent's own call parser on raw model output."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict

import click

from edgeagent.cli import load
from edgeagent.compose import resolve_call_format
from edgeagent.tools.calls import CALL_FORMATS, get_call_format


@click.group()
def calls() -> None:
    """Tool call formats: see what the parser makes of model output."""


@calls.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(CALL_FORMATS),
    default=None,
    help="Call format (default: [agent] call_format). Each accepts every call shape.",
)
@click.pass_context
def parse(ctx: click.Context, fmt: str | None) -> None:
    """Read raw model output on stdin; print the calls and the answer text as JSON."""
    fmt = fmt or resolve_call_format(load(ctx))
    parsed = get_call_format(fmt).parse(sys.stdin.read())
    out: dict[str, object] = {"calls": [asdict(c) for c in parsed.calls], "text": parsed.text}
    if parsed.errors:
        out["errors"] = parsed.errors
    click.echo(json.dumps(out, indent=2, ensure_ascii=False))
