"""Mending a failed read: one more forced call when the model answers a failure.

Measured on Qwen2.5-Coder-1.5B (508 turns of the accuracy benchmark): after a failed
call the model never called a tool again in the same turn, even when the error named
the fix ("Files with a similar name: notes.txt", "'half' is not understood; use
numbers"). It answered with the error, asked back or refused. So when a step's reads
all failed and one failure is :attr:`~edgeagent.tools.tool.ToolResult.mendable`, the
loop asks once more with a grammar that admits only a read call; the answer is then
built from that call's result, or stays the model's when it repeats a failed call or
names a place no user message named (the made-up-place check of a turn's first calls).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence

from edgeagent.agent.events import ErrorEvent
from edgeagent.agent.second_look import Looking
from edgeagent.agent.step import signature
from edgeagent.tools.calls import ParsedOutput
from edgeagent.tools.executor import ToolCall
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import ToolKind, ToolResult

log = logging.getLogger(__name__)


def mendable(
    results: Sequence[tuple[ToolCall, ToolResult]], registry: ToolRegistry
) -> frozenset[str]:
    """The tools a step's calls ran as (:func:`runs_as`), where they all failed, all of
    read tools, one of them mendably; else none.

    An acting tool is never mended: a forced read after its failure answered a state
    nobody asked for ("point the servo at purple" -> "The servo is at 70°"); its failure
    is the answer (:func:`~edgeagent.agent.answer.failed_to_act`)."""
    if not results or any(result.ok for _, result in results):
        return frozenset()
    reads = all(
        call.name in registry and registry.get(call.name).kind is ToolKind.READ
        for call, _ in results
    )
    if not reads or not any(result.mendable for _, result in results):
        return frozenset()
    return frozenset(runs_as(call.name, registry) for call, _ in results)


def runs_as(name: str, registry: ToolRegistry) -> str:
    """The tool a call of ``name`` runs as: a ``.tool`` wrapper's target (``head`` and
    ``ls`` run as ``shell``), else the tool itself."""
    if name not in registry:
        return name
    tool = registry.get(name)
    return tool.runs_as[0] if tool.runs_as else tool.name


async def mend_read(
    turn: Looking,
    output: tuple[str, ParsedOutput],
    *,
    grammar: str,
    failures: Collection[str],
    tools: Collection[str],
) -> tuple[str, ParsedOutput] | ErrorEvent:
    """After a read that failed, a step that answered instead of calling again (measured:
    it never does, even when the error names the fix) asked once more for a read call;
    a repeat of a failed call (by :func:`.step.signature`), one with a value the user
    never said, or one of a tool that runs as none of the failed ``tools`` (their
    :func:`runs_as`) leaves ``output`` as it was: "How far away is the moon?" came as
    ``math`` with "384400", the model then answered it right, and the mend ran ``df``
    (blind prompts). Another tool is no mend of a read."""
    look = await turn.look(grammar)
    if isinstance(look, ErrorEvent):
        return look
    again, looked = look
    log.info("model answered after a failed read; mending: %r", again[:120])
    fresh = [turn.executor.resolve(ToolCall(c.name, c.arguments)) for c in looked.calls]
    repeats = any(signature(c) in failures for c in fresh)
    guessed = turn.checks.made_up(fresh, said=turn.said)
    registry = turn.executor.registry
    other = [c.name for c in fresh if runs_as(c.name, registry) not in tools]
    if other:
        log.info("the mending call is of another tool (%s); the answer stands", other[0])
    if fresh and not looked.errors and not repeats and guessed is None and not other:
        return look
    return output
