"""A refusal's second look.

The model refuses requests a tool serves ("make them coral": "none of my tools can
change the color"). Where the engine has a grammar, a refusal is asked once more for a
call of a titled tool, which the side questions (:mod:`.checks`) check strictly before
it runs; a refusal they confirm stands, in the model's own words.

A read tool the checks refuse gets one more look without it: "show me my notes",
refused, was looked at again as ``ls notes``, which the checks refuse (listing is not
showing), and ``cat notes`` was never asked for.

A wrapper's call the model made itself, which the checks refuse by its title, gets the
same look without that tool (:func:`reader_instead`): "read out my notes" came as
``ls notes.txt``.

A refusal of a change to files or the system ("none of my tools can delete files")
gets no read tool on a second look: "ok delete it" ran ``ls notes.txt``, and "clear
the log please" ``tail log``, answers to requests nobody made (three blind prompt
sets, four turns).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from edgeagent.agent import honesty
from edgeagent.agent.checks import SideChecks
from edgeagent.agent.events import ErrorEvent
from edgeagent.tools.calls import ParsedOutput
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.tool import ToolKind

log = logging.getLogger(__name__)

Look = Callable[[str], Awaitable["tuple[str, ParsedOutput] | ErrorEvent"]]
"""One generation that a grammar allows to be only a call: its raw text and parse."""


@dataclass(frozen=True)
class Looking:
    """What a look needs of its turn."""

    look: Look
    checks: SideChecks
    executor: ToolExecutor
    prompt: str
    """The request being answered."""
    said: str
    """Everything the user said in the conversation."""
    session: str


async def second_look(
    turn: Looking, *, grammar: str, without: Mapping[str, str], refusal: str
) -> tuple[str, ParsedOutput] | ErrorEvent | None:
    """After the ``refusal`` of the ``turn``'s request, one call under ``grammar`` that
    the checks confirm, as raw text and its parse; ``None``: the refusal stands.

    A call that fills in values the user never ``said`` is a guess, and the refusal
    stands. A read tool the checks refuse gets one more look under ``without`` (the
    grammar without that tool, by its name); at most one."""
    for attempt in ("second", "third"):
        result = await turn.look(grammar)
        if isinstance(result, ErrorEvent):
            return result
        raw, parsed = result
        log.info("model refused; %s look: %r", attempt, raw[:120])
        if not parsed.calls or parsed.errors:
            return None
        checks, executor = turn.checks, turn.executor
        calls = [executor.resolve(ToolCall(c.name, c.arguments)) for c in parsed.calls]
        unsaid = checks.unsaid(calls, said=turn.said, request=turn.prompt)
        if checks.made_up(calls, said=turn.said) or unsaid:
            log.info("the %s look's call guesses a value; the refusal stands", attempt)
            return None
        if honesty.refuses_a_change(refusal) and all(
            executor.registry.get(c.name).kind is ToolKind.READ
            for c in calls
            if c.name in executor.registry
        ):
            log.info("a change was refused; the %s look's read changes nothing", attempt)
            return None
        if await checks.off_target(turn.prompt, calls, session=turn.session, strict=True) is None:
            return raw, parsed
        if len(calls) != 1 or calls[0].name not in without:
            return None
        grammar = without[calls[0].name]
    return None


async def reader_instead(
    turn: Looking, *, calls: Sequence[ToolCall], refusal: str, without: Mapping[str, str]
) -> str | ToolCall | ErrorEvent:
    """After the checks refused the model's one call of a wrapper (a titled read tool
    that runs another, as the shell's ``ls``) by its title (``refusal``), the one call
    that a look under the grammar without that tool gives and the checks confirm;
    else the ``refusal``.

    Only a wrapper: its siblings read what it was called with. A general-knowledge
    question sent to ``weather`` or ``math`` (eleven of the 408 turns) stays refused
    with no look, which would force a call of some other tool."""
    if len(calls) != 1 or calls[0].name not in without or honesty.refuses_a_change(refusal):
        return refusal  # a change refused: no read serves it
    if not turn.executor.registry.get(calls[0].name).extra.get("wrapped"):
        return refusal
    again = await second_look(turn, grammar=without[calls[0].name], without={}, refusal=refusal)
    if again is None or isinstance(again, ErrorEvent):
        return again or refusal
    found = [turn.executor.resolve(ToolCall(c.name, c.arguments)) for c in again[1].calls]
    return found[0] if len(found) == 1 else refusal
