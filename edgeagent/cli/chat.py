"""``edgeagent chat``: an interactive REPL over the configured model and tools.

Acting tools ask for confirmation first (front end ``chat`` is in ``[tools.policy]
confirm_act`` by default). Tool calls and results are shown dimmed between the
streamed answer text.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import sys
from collections.abc import Callable, Coroutine
from typing import Any

import click

from edgeagent.agent.context import Conversation, measure
from edgeagent.agent.events import (
    ErrorEvent,
    FinalAnswer,
    TextChunk,
    ToolCallEvent,
    ToolResultEvent,
)
from edgeagent.agent.loop import Agent
from edgeagent.cli import load
from edgeagent.config import Config
from edgeagent.errors import EdgeAgentError
from edgeagent.tools.tool import Tool

FRONTEND = "chat"
HELP = "Commands: /clear (forget the conversation), /context (token use), /exit"
Reader = Callable[[], str]
Runner = Callable[[Coroutine[Any, Any, Any]], Any]


def _short(value: Any, limit: int = 200) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


async def _confirm(tool: Tool, arguments: dict[str, Any]) -> bool:
    # Asked on the event loop's own thread on purpose: nothing else runs while the user
    # decides, and a thread blocked on stdin could not be stopped by Ctrl-C at exit.
    given = {k: v for k, v in arguments.items() if v is not None}  # hide unset optionals
    return click.confirm(f"Run {tool.name}({_short(given)})?", default=False)


async def _turn(agent: Agent, prompt: str, conversation: Conversation) -> None:
    streamed = False
    async for event in agent.run(prompt, conversation=conversation, frontend=FRONTEND):
        if isinstance(event, TextChunk):
            click.echo(event.text, nl=False)
            streamed = True
        elif isinstance(event, ToolCallEvent):
            if streamed:
                click.echo()
                streamed = False
            click.secho(f"  -> {event.name}({_short(event.arguments)})", dim=True)
        elif isinstance(event, ToolResultEvent):
            outcome = _short(event.result) if event.ok else f"error: {event.error}"
            click.secho(f"  <- {event.name}: {outcome}", dim=True)
        elif isinstance(event, FinalAnswer):
            if not streamed and event.text:
                click.echo(event.text, nl=False)
            click.echo()
        elif isinstance(event, ErrorEvent):
            if streamed:
                click.echo()
            click.secho(f"error: {event.message}", fg="red", err=True)


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


def _main(config: Config, runner: asyncio.Runner) -> int:
    from edgeagent import compose

    build_llm = getattr(compose, "build_llm", None)
    if build_llm is None:
        click.echo(
            "error: this build cannot create a model backend yet (compose.build_llm is "
            "missing); use `edgeagent run` with a configured backend",
            err=True,
        )
        return 2
    toolset = compose.build_tools(config)
    for name, reason in toolset.report.failed.items():
        click.secho(f"warning: plugin {name!r} not loaded: {reason}", fg="yellow", err=True)
    for problem in toolset.wrapped_errors:
        click.secho(f"warning: {problem}", fg="yellow", err=True)
    llm: Any = None
    try:
        executor = compose.build_executor(config, toolset.registry, confirm=_confirm)
        llm = build_llm(config)
        starter = getattr(llm, "start", None)
        if starter is not None:
            started = starter()
            if inspect.isawaitable(started):
                runner.run(started)  # type: ignore[arg-type]
        agent = compose.build_agent(config, llm=llm, executor=executor, registry=toolset.registry)
        repl(agent, read=_read_line, run=runner.run)
    except EdgeAgentError as exc:
        click.secho(f"error: {exc}", fg="red", err=True)
        return 2
    finally:
        try:
            if llm is not None:
                runner.run(llm.aclose())
        finally:
            toolset.close()
    return 0


@click.command()
@click.pass_context
def chat(ctx: click.Context) -> None:
    """Chat with the model; it may call the loaded tools (acting tools ask first)."""
    config = load(ctx)
    with asyncio.Runner() as runner:
        code = _main(config, runner)
    sys.exit(code)
