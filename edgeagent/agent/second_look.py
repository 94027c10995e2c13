"""A refusal's second look.

The model refuses requests a tool serves ("make them coral": "none of my tools can
change the color"). Where the engine has a grammar, a refusal is asked once more for a
call of a titled tool, which the side questions (:mod:`.checks`) check strictly before
it runs; a refusal they confirm stands, in the model's own words.

A read tool the checks refuse gets one more look without it: "show me my notes",
refused, was looked at again as ``ls notes``, which the checks refuse (listing is not
showing), and ``cat notes`` was never asked for.

A call the model made itself, which the checks refuse by its topic, gets a look at
the other tools (:func:`look_elsewhere`): "read out my notes" came as ``ls notes.txt``,
"take it down to 35" as ``math``.

A request to change files or the system that the refusal names as one ("ok delete
it": "none of my tools can delete files") gets no read tool on a second look: "ok
delete it" ran ``ls notes.txt``, and "clear the log please" ``tail log``, answers to
requests nobody made (three blind prompt sets, four turns).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from edgeagent.agent import asks, honesty
from edgeagent.agent.answer import names_device, names_its_device
from edgeagent.agent.checks import Refusal, SideChecks, last_to_act
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
    render: Callable[[Sequence[ToolCall]], str]
    """Calls as the model writes them (the call format's), for calls the checks trim."""
    ran: Callable[[], Sequence[str]] = tuple
    """The tools whose calls succeeded in the conversation's earlier turns, oldest first
    (read from the history only when a check asks)."""


async def second_look(
    turn: Looking,
    *,
    grammar: str,
    without: Mapping[str, str],
    refusal: str,
    elsewhere: Mapping[str, str] | None = None,
) -> tuple[str, ParsedOutput] | ErrorEvent | None:
    """After the ``refusal`` of the ``turn``'s request, one call under ``grammar`` that
    the checks confirm, as raw text and its parse; ``None``: the refusal stands.

    A call that fills in values the user never ``said`` is a guess, and the refusal
    stands. A read tool that guesses, or that the checks refuse, gets one more look
    under ``without`` (the grammar without that tool, by its name); at most one.
    So does an acting tool whose device the request does not name, where it names
    another's, under ``elsewhere`` (the other plugins' tools, by its name), where the
    look's call must act on a device the request names: "greenhouse grow lights to violet please",
    refused, came on a second look as the servo turned 15 degrees both ways (blind
    prompts).

    A read is no answer to a change the request asks and the refusal names ("ok
    delete it": "none of my tools can delete files"). Either alone is not enough: "what
    did I write in notes.txt?" says "write", and "anything about milk in todo.md?" was
    refused with "none of my tools can read or modify files"."""
    named_only = False
    for attempt in ("second", "third"):
        result = await turn.look(grammar)
        if isinstance(result, ErrorEvent):
            return result
        raw, parsed = result
        log.info("model refused; %s look: %r", attempt, raw[:120])
        if not parsed.calls or parsed.errors:
            return None
        checks, executor = turn.checks, turn.executor
        written = [executor.resolve(ToolCall(c.name, c.arguments)) for c in parsed.calls]
        if named_only and any(acting_on_unnamed(c, turn) for c in written):
            log.info("the %s look acts on a device the request never names", attempt)
            return None
        calls = checks.heard.said_only(written, said=turn.said, request=turn.prompt)
        if calls != written:
            raw, parsed = turn.render(calls), dataclasses.replace(parsed, calls=calls)
        unsaid = checks.heard.unsaid(calls, said=turn.said, request=turn.prompt)
        question = checks.made_up(calls, said=turn.said)
        if question and names_a_topic(calls, turn):
            # "Yarın yağmur yağacak mı?" (will it rain tomorrow?), asked back word for
            # word, came on a second look as the forecast for Oslo: the request asks
            # for a forecast and names no place, so the user is asked for one.
            log.info("the %s look's call guesses what the user must say", attempt)
            return question, ParsedOutput([], question)
        if question or unsaid or any(flags_only(c, turn) for c in calls):
            # A read tool's guess ("is solder on the todo list?" as math 1 + 1) gets
            # one more look without it, like a read the checks refuse.
            log.info("the %s look's call guesses a value", attempt)
        elif (
            asks.asks_a_change(turn.prompt)
            and honesty.refuses_a_change(refusal)
            and all(
                executor.registry.get(c.name).kind is ToolKind.READ
                for c in calls
                if c.name in executor.registry
            )
        ):
            log.info("a change was refused; the %s look's read changes nothing", attempt)
            return None
        elif (
            await checks.off_target(
                turn.prompt, calls, session=turn.session, strict=True, said=turn.said
            )
            is None
        ):
            return raw, parsed
        if len(calls) != 1 or calls[0].name not in executor.registry:
            return None
        if (
            acting_on_unnamed(calls[0], turn)
            and calls[0].name in (elsewhere or {})
            and names_a_device(turn)
        ):
            grammar, named_only = (elsewhere or {})[calls[0].name], True
        elif calls[0].name in without:
            grammar = without[calls[0].name]
        else:
            return None
    return None


def flags_only(call: ToolCall, turn: Looking) -> bool:
    """Whether ``call`` acts with nothing but flags (``center: true``, ``on: false``) on
    a device the ``turn``'s request does not name (its ``named_in``, or a word of its
    title): nothing in it is the user's. The model refused "can you restart it so it's
    fresh" and, on its second look, wrote the servo's ``center: true``, which both side
    questions let run (fresh53). "kill the lights" names the strip, and runs."""
    registry = turn.executor.registry
    tool = registry.get(call.name) if call.name in registry else None
    if tool is None or tool.kind is not ToolKind.ACT or not isinstance(call.arguments, dict):
        return False
    if any(not isinstance(v, bool) and v is not None for v in call.arguments.values()):
        return False
    undone = tool.undone_in is not None and tool.undone_in(turn.prompt)
    if undone and last_to_act(registry, turn.ran) == call.name:
        return False  # "hmm no, undo that": the device that changed last is meant
    return not names_its_device(turn.prompt, tool)


def names_a_topic(calls: Sequence[ToolCall], turn: Looking) -> bool:
    """Whether ``calls`` is one call of a read tool whose topic the ``turn``'s request
    names itself (its ``named_in``: "will it rain tomorrow?")."""
    registry = turn.executor.registry
    if len(calls) != 1 or calls[0].name not in registry:
        return False
    tool = registry.get(calls[0].name)
    named = tool.named_in is not None and tool.named_in(turn.prompt)
    return tool.kind is ToolKind.READ and named


def names_a_device(turn: Looking) -> bool:
    """Whether the ``turn``'s request names an acting tool's device (a word of its
    title). A look elsewhere for one that names none ("water the plants", "install
    nginx") cost a forced generation and found nothing to run: 11 of the 408's first
    107 turns, a second each."""
    return any(
        tool.kind is ToolKind.ACT and names_device(turn.prompt, tool)
        for tool in turn.executor.registry
    )


def acting_on_unnamed(call: ToolCall, turn: Looking) -> bool:
    """Whether ``call`` is of an acting tool whose device the ``turn``'s request does
    not name (a word of its title)."""
    registry = turn.executor.registry
    tool = registry.get(call.name) if call.name in registry else None
    return tool is not None and tool.kind is ToolKind.ACT and not names_device(turn.prompt, tool)


async def look_elsewhere(
    turn: Looking,
    *,
    calls: Sequence[ToolCall],
    refusal: Refusal,
    without: Mapping[str, str],
    elsewhere: Mapping[str, str],
) -> str | ToolCall | ErrorEvent:
    """After the checks refused the model's one call by its topic (``refusal``), the
    one call that a look at the other tools gives and the checks confirm (strictly, as
    any second look's); else the refusal's text.

    A wrapper (a titled read tool that runs another, as the shell's ``ls``) is looked
    at again first among its siblings (``without``): they read what it was called with
    ("read out my notes" came as ``ls notes.txt``). Then any refused call among the
    titled tools of the other plugins (``elsewhere``): "light's a bit harsh, take it
    down to 35" came as ``math``, "reading time, set the lamp to white at seventy" as
    ``uptime``, "and switch the grow light on at sixty percent" as the servo.

    A device the request does not name (a word of its title) is not acted on: the
    topic question let "light's a bit harsh, take it down to 35" move the camera.
    A request the other tools do not serve either ("who won the world cup in 2014?"
    sent to ``weather``) stays refused: the look's call faces the topic question and
    the capability question, and a value in it that the request itself does not say
    is a guess: "bees only fly above about 13 degrees, right?", sent to math, came on
    a look elsewhere as the weather in the city and on the day of an earlier turn."""
    if len(calls) != 1 or not refusal.off_topic:
        return refusal.text  # a change refused, or what the device cannot do
    name = calls[0].name
    registry = turn.executor.registry
    looks: list[tuple[str, Looking]] = []
    if name in without and registry.get(name).extra.get("wrapped"):
        looks.append((without[name], turn))  # the file an earlier turn named counts
    if name in elsewhere:
        looks.append((elsewhere[name], dataclasses.replace(turn, said=turn.prompt)))
    for grammar, looking in looks:
        again = await second_look(looking, grammar=grammar, without={}, refusal=refusal.text)
        if isinstance(again, ErrorEvent):
            return again
        if again is None:
            continue
        if not again[1].calls:
            return again[1].text  # a question back: a named forecast, no place said
        found = [turn.executor.resolve(ToolCall(c.name, c.arguments)) for c in again[1].calls]
        if len(found) != 1 or found[0].name not in registry:
            continue
        if acting_on_unnamed(found[0], turn):
            log.info("a look elsewhere acts on %s, which the request never names", found[0].name)
            continue
        return found[0]
    return refusal.text
