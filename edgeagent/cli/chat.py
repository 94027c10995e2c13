"""``edgeagent chat``: an interactive REPL over the configured model and tools.

Acting tools ask for confirmation first (front end ``chat`` is in ``[tools.policy]
confirm_act`` by default). Tool calls and results are shown dimmed between the
streamed answer text.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable, Coroutine
from typing import Any

import click

from edgeagent.agent.context import Conversation, measure
from edgeagent.agent.loop import Agent
from edgeagent.cli import load
from edgeagent.cli.render import TurnRenderer, short
from edgeagent.compose import ToolSet, build_runtime
from edgeagent.config import Config
from edgeagent.errors import EdgeAgentError
from edgeagent.tools.tool import Tool

FRONTEND = "chat"
HELP = "Commands: /clear (forget the conversation), /context (token use), /exit"
Reader = Callable[[], str]
Runner = Callable[[Coroutine[Any, Any, Any]], Any]


async def _confirm(tool: Tool, arguments: dict[str, Any]) -> bool:
    # Asked on the event loop's own thread on purpose: nothing else runs while the user
    # decides, and a thread blocked on stdin could not be stopped by Ctrl-C at exit.
    given = {k: v for k, v in arguments.items() if v is not None}  # hide unset optionals
    return click.confirm(f"Run {tool.name}({short(given)})?", default=False)


async def _turn(agent: Agent, prompt: str, conversation: Conversation) -> None:
    renderer = TurnRenderer()  # the same terminal view as `edgeagent ask`
    async for event in agent.run(prompt, conversation=conversation, frontend=FRONTEND):
        renderer.show(event)


async def _show_context(agent: Agent, conversation: Conversation) -> None:
    usage = await measure(conversation.messages, agent.llm)
    turns = len(conversation.turn_starts())
    click.echo(
        f"context: {usage.used} / {usage.window} tokens ({usage.fraction:.0%}); "
        f"{turns} turn(s) held, {conversation.dropped_turns} dropped; trimming at "
        f"{agent.context_threshold:.0%}"
    )


def repl(agent: Agent, *, read: Reader, run: Runner) -> None:
    """Read prompts until /exit or end of input; one conversation, cleared by /clear.

    ``run`` runs a coroutine to completion on the chat's one event loop; input is read
    outside it, so Ctrl-C at the prompt exits and Ctrl-C during a turn stops that turn.
    """
    conversation = agent.new_conversation("chat")
    click.echo(f"edgeagent chat. {HELP}")
    while True:
        try:
            line = read().strip()
        except (EOFError, KeyboardInterrupt):
            click.echo()
            return
        if not line:
            continue
        if line.startswith("/"):
            command = line.split()[0].lower()
            if command in ("/exit", "/quit"):
                return
            if command == "/clear":
                conversation.clear()
                click.echo("conversation cleared")
            elif command == "/context":
                try:
                    run(_show_context(agent, conversation))
                except EdgeAgentError as exc:
                    click.secho(f"error: {exc}", fg="red", err=True)
            else:
                click.echo(f"unknown command {command!r}. {HELP}")
            continue
        try:
            run(_turn(agent, line, conversation))
        except KeyboardInterrupt:
            click.echo("\n(interrupted)")


def _read_line() -> str:
    return input("you> ")


def _warn_about(tools: ToolSet) -> None:
    for name, reason in tools.report.failed.items():
        click.secho(f"warning: plugin {name!r} not loaded: {reason}", fg="yellow", err=True)
    for problem in tools.wrapped_errors:
        click.secho(f"warning: {problem}", fg="yellow", err=True)
    for problem in tools.mcp.warnings() if tools.mcp is not None else []:
        click.secho(f"warning: {problem}", fg="yellow", err=True)


def _main(config: Config, runner: asyncio.Runner) -> int:
    # One event loop for the whole chat: the runtime is entered and left on it, and
    # each turn runs on it while input is read outside it (see repl).
    parts = contextlib.AsyncExitStack()
    try:
        runtime = runner.run(
            parts.enter_async_context(build_runtime(config, confirm=_confirm, on_tools=_warn_about))
        )
        repl(runtime.agent, read=_read_line, run=runner.run)
    except EdgeAgentError as exc:
        click.secho(f"error: {exc}", fg="red", err=True)
        return 2
    finally:
        runner.run(parts.aclose())  # devices into their safe state, the model released
    return 0


@click.command()
@click.pass_context
def chat(ctx: click.Context) -> None:
    """Chat with the model; it may call the loaded tools (acting tools ask first)."""
    config = load(ctx)
    with asyncio.Runner() as runner:
        code = _main(config, runner)
    sys.exit(code)
