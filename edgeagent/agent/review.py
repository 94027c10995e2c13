"""A step's output reviewed before anything runs.

A 1.5B model answers what only a tool knows and calls a device for a request it does
not serve. Each function here takes one step's output (its raw text and parse, or its
calls) and gives what the turn goes on with: the same output, another generation that
the grammar allows to be only a call, or the refusal that ends the turn. The loop
(:mod:`.loop`) runs them in order and keeps the history; none of them touches it.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from edgeagent.agent import asks, honesty
from edgeagent.agent.answer import acted, failed_to_act, names_its_device
from edgeagent.agent.checks import SideChecks, last_to_act
from edgeagent.agent.events import ErrorEvent
from edgeagent.agent.second_look import Looking, look_elsewhere, second_look
from edgeagent.errors import NothingEarlierError
from edgeagent.tools.calls import ParsedOutput
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import ToolKind
from edgeagent.tools.words import names_a_file

log = logging.getLogger(__name__)

Output = tuple[str, ParsedOutput]
"""A generation's raw text and what it parses to."""

NOTHING_EARLIER = (
    "Nothing earlier in this conversation gave a result to go on from: say in full what "
    "you want, with its numbers."
)


async def answered_itself(
    turn: Looking,
    output: Output,
    *,
    grammar: str,
    records: list[dict[str, Any]],
    shown: Collection[str] | None,
    earlier: str,
    refused: bool = False,
) -> Output | ErrorEvent:
    """A step that wrote a tool's answer, or a value only a tool can know, itself
    (:meth:`~edgeagent.agent.checks.SideChecks.needs_a_call`), or worked a sum out
    itself in a turn where no call succeeded (:func:`.honesty.writes_calculation`),
    asked again under ``grammar``, which allows only a valid call of a read tool; else
    ``output``.

    ``refused``: a step of the turn failed in a way no other call mends (a tool that
    is not there, a refusal, math's "a number alone ... answer without the math tool").
    Its answer then is not asked again for a value only a tool can know: "how many legs
    does a spider have" came as ``math("4")``, refused, answered "A spider has 8 legs.",
    and was made ``math("4 + 4")`` (fresh31).

    A question about a file it names (:func:`asks_of_a_file`), where nothing was tried,
    is answered from the file."""
    raw, parsed = output
    registry = turn.executor.registry
    if parsed.calls or acted(records) or failed_to_act(records, registry):
        return output
    if not any(r.get("ok") for r in records) and honesty.writes_calculation(parsed.text):
        log.info("model worked a sum out itself; retrying with a call")
        return await turn.look(grammar)
    if refused:
        return output
    if not records and asks_of_a_file(turn.prompt):
        log.info("model answered a question about a file unread; retrying with a call")
        return await turn.look(grammar)
    if not await turn.checks.needs_a_call(
        turn.prompt, raw, parsed.text, shown=shown, session=turn.session, earlier=earlier
    ):
        return output
    log.info("model answered with a tool's value itself; retrying with a call")
    return await turn.look(grammar)


def asks_of_a_file(request: str) -> bool:
    """Whether ``request`` asks a question of a file it names and asks no change: "is
    servo mentioned anywhere in notes.txt?" was answered "No, the servo is not mentioned
    in notes.txt." with nothing read, and "anything about milk in todo.md?" refused
    (blind prompts; every such text answer in the benchmarks' records was wrong, and
    every change asked of a named file was refused right)."""
    questioned = names_a_file(request) and asks.asks_a_question(request)
    return questioned and not asks.asks_a_change(request)


async def checked_calls(
    turn: Looking,
    calls: list[ToolCall],
    *,
    recheck: str | None,
    without: Mapping[str, str],
    elsewhere: Mapping[str, str],
    earlier: tuple[str, str],
) -> list[ToolCall] | str | ErrorEvent:
    """The calls to run of a step the side questions check (the first of its turn,
    not already checked): ``calls``, or the one call of a look elsewhere; or the
    refusal that ends the turn instead.

    A refused call gets a look elsewhere (:func:`~.second_look.look_elsewhere`) when
    the turn has a second look's grammar (``recheck``)."""
    refusal = await turn.checks.off_target(
        turn.prompt, calls, session=turn.session, earlier=earlier, said=turn.said, ran=turn.ran
    )
    if refusal is None:
        return calls
    if isinstance(refusal, ToolCall):
        return [refusal]  # the history shows the call that ran
    if not recheck:
        return refusal.text
    found = await look_elsewhere(
        turn, calls=calls, refusal=refusal, without=without, elsewhere=elsewhere
    )
    return [found] if isinstance(found, ToolCall) else found


def read_again(
    written: Sequence[ToolCall],
    checks: SideChecks,
    executor: ToolExecutor,
    *,
    request: str,
    ran: Callable[[], Sequence[str]] = tuple,
) -> list[ToolCall]:
    """``written`` as they run: an undo moved to the device that made the last change
    (:func:`undo_moved`; ``ran``: the tools whose calls succeeded in the conversation's
    earlier turns), read again from the ``request`` by the tools the model
    named (:meth:`~edgeagent.agent.checks.SideChecks.reread`), then resolved
    (:meth:`~edgeagent.tools.executor.ToolExecutor.resolve`), and a call moved to
    another tool read again by that one. "undo that last change to the light" came as
    ``led`` with ``back: true``, the servo's argument: moved first, it ran as the
    servo's undo; the LED reads it as its own (blind prompts). "dim them to 35" came
    as ``servo`` with ``brightness: 35``: moved, the LED reads it."""
    written = undo_moved(written, executor.registry, request=request, ran=ran)
    named = checks.reread([ToolCall(c.name, c.arguments) for c in written], request=request)
    calls = []
    for call in named:
        moved = executor.resolve(call)
        if moved.name != call.name:
            moved = checks.reread([moved], request=request)[0]
        calls.append(moved)
    return calls


def undo_moved(
    calls: Sequence[ToolCall],
    registry: ToolRegistry,
    *,
    request: str,
    ran: Callable[[], Sequence[str]],
) -> list[ToolCall]:
    """``calls``, or, where the ``request`` asks to undo and names no device, and the
    model's one call is of an acting tool that did not make the conversation's last
    change, the undo of the tool that did, as that tool reads it from the request alone
    (its ``reread`` of no arguments; none: the calls as written). "hmm no, undo that
    last change", after the strip went orange and then brighter, came as the servo's
    ``back``, which nothing had moved (fresh39), and so did "undo that" after a colour
    (fresh27). A device is named by its ``named_in`` or a word of its title: "ok now put
    the camera back where it was", after the strip changed, ran as the strip's undo (the
    servo declares no ``named_in``; fresh46)."""
    if len(calls) != 1 or calls[0].name not in registry:
        return list(calls)
    tool = registry.get(calls[0].name)
    if tool.kind is not ToolKind.ACT or names_its_device(request, tool):
        return list(calls)
    undone = [t for t in registry if t.undone_in is not None and t.undone_in(request)]
    if not undone:
        return list(calls)  # the history is read only for an undo
    last_name = last_to_act(registry, ran)
    if last_name is None or last_name == tool.name:
        return list(calls)
    last = registry.get(last_name)
    if (
        last not in undone
        or last.reread is None
        or any(
            names_its_device(request, other)
            for other in registry
            if other.kind is ToolKind.ACT and other.name != last.name
        )
    ):
        return list(calls)
    try:
        undo = last.reread({}, request)
    except Exception:
        log.exception("%s: its reread failed", last.name)
        return list(calls)
    if not undo:
        return list(calls)  # nothing remembered to go back to
    log.info("undo asked of %s, which made no last change: %s %r", tool.name, last.name, undo)
    return [ToolCall(last.name, undo)]


async def nothing_earlier(
    turn: Looking, error: NothingEarlierError, *, grammar: str | None
) -> list[ToolCall] | str | ErrorEvent:
    """The calls to run instead of one that names an earlier result in a conversation
    that holds none (``error``, from its tool's ``recall``); or the answer that says so.

    The model copied the primer's worked follow-up (``ans * 3``) for first turns that
    refer to a device ("dim it to 20%", "make it brighter, double it") or to nothing
    ("do the thing from before"): a math call then ran ``ans * 0.2``, failed, and was
    mended as ``20% of 150``, or was refused and looked at elsewhere as a state read
    (three blind prompt sets). So it gets one look among the acting tools
    (``grammar``; none: no look), whose call must hold only values the request itself
    says and pass the checks strictly, as any second look's."""
    log.info("%s", error)
    if grammar is None:
        return NOTHING_EARLIER
    alone = dataclasses.replace(turn, said=turn.prompt)
    found = await second_look(alone, grammar=grammar, without={}, refusal=NOTHING_EARLIER)
    if isinstance(found, ErrorEvent):
        return found
    if found is None or not found[1].calls:
        return NOTHING_EARLIER
    return [turn.executor.resolve(ToolCall(c.name, c.arguments)) for c in found[1].calls]
