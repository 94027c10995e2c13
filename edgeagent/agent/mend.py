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


def mendable(results: Sequence[tuple[ToolCall, ToolResult]], registry: ToolRegistry) -> bool:
    """Whether a step's calls all failed, all of read tools, one of them mendably.

    An acting tool is never mended: a forced read after its failure answered a state
    nobody asked for ("point the servo at purple" -> "The servo is at 70°"); its failure
    is the answer (:func:`~edgeagent.agent.answer.failed_to_act`)."""
    if not results or any(result.ok for _, result in results):
        return False
    reads = all(
        call.name in registry and registry.get(call.name).kind is ToolKind.READ
        for call, _ in results
    )
    return reads and any(result.mendable for _, result in results)


async def mend_read(
    turn: Looking, output: tuple[str, ParsedOutput], *, grammar: str, failures: Collection[str]
) -> tuple[str, ParsedOutput] | ErrorEvent:
    """After a read that failed, a step that answered instead of calling again (measured:
    it never does, even when the error names the fix) asked once more for a read call;
    a repeat of a failed call (by :func:`.step.signature`), or one with a value the user
    never said, leaves ``output`` as it was."""
    look = await turn.look(grammar)
    if isinstance(look, ErrorEvent):
        return look
    again, looked = look
    log.info("model answered after a failed read; mending: %r", again[:120])
    fresh = [turn.executor.resolve(ToolCall(c.name, c.arguments)) for c in looked.calls]
    repeats = any(signature(c) in failures for c in fresh)
    guessed = turn.checks.made_up(fresh, said=turn.said)
    if fresh and not looked.errors and not repeats and guessed is None:
        return look
    return output
