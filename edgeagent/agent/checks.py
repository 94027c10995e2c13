"""Side questions: the model, asked alone in one constrained word, checks its own step.

A 1.5B model in the middle of a conversation calls the LED for "turn on the fan" and
states the weather from memory; the same model asked one plain question outside the
conversation ("is this request about the LED strip?") mostly answers it right. These
checks ask that question before an acting call runs (:meth:`SideChecks.off_target`) and
when an answer states what only a tool can know (:meth:`SideChecks.needs_a_call`).
A side question never joins the conversation, and its KV cache stays.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from edgeagent.agent import asks, honesty
from edgeagent.agent.absent import absent_for
from edgeagent.agent.carried import (
    A_VALUE_BACK,
    carried,
    carries,
    file_named,
    is_number,
    leaves,
    numbers_in,
    value_named_back,
)
from edgeagent.agent.heard import Heard
from edgeagent.agent.honesty import (
    YES_NO,
    calculation_question,
    capability_question,
    kind_question,
    reader_question,
    target_question,
)
from edgeagent.errors import LLMError, NothingEarlierError
from edgeagent.llm.base import LLM, GenerateRequest
from edgeagent.tools.executor import ToolCall
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import Tool, ToolKind
from edgeagent.tools.words import named_place, plain, said_in_words, written_otherwise

log = logging.getLogger(__name__)


NO_DEVICE = "I can't do that here: none of my devices can do that."
"""The refusal of a request no device serves."""
_ONLY_READS = (
    "I can't do that here: {tool} only reads; none of my tools can change, delete or create files."
)


@dataclass(frozen=True)
class Refusal:
    """A call the checks refused: the answer, and why."""

    text: str
    """What the user is told."""
    off_topic: bool = False
    """The topic question said the request is about something else than the tool (not
    that the tool cannot do it, nor that it asks a read tool for a change): another
    tool may serve it (:func:`edgeagent.agent.second_look.look_elsewhere`)."""


class SideChecks:
    """The side questions of one agent, on its model and its tools."""

    def __init__(self, *, llm: LLM, registry: ToolRegistry) -> None:
        self.llm = llm
        self.registry = registry
        self.heard = Heard(registry=registry)
        """What the user said, for the calls of these tools."""

    async def off_target(
        self,
        prompt: str,
        calls: Sequence[ToolCall],
        *,
        session: str,
        strict: bool = False,
        earlier: tuple[str, str] = ("", ""),
        said: str = "",
        ran: Callable[[], Sequence[str]] = tuple,
    ) -> Refusal | ToolCall | None:
        """A refusal when the model calls an acting tool (or a titled read tool) for a
        request that, asked in one constrained word, it says the tool is not for; or,
        for a refused read tool, the call of another that fits (:meth:`instead`).

        ``strict``, for a call the model made only when asked again after it refused
        (a second look): a titled read tool faces the capability question too, and a
        refused one gives way to none. Without it "delete notes.txt", refused at first,
        ran ``ls notes.txt``: the topic question said it was about listing files.

        The refusal ends the turn. Tried: telling the model once why, so it could pick
        another tool. It did not pick one; it answered "the tool that fits is ls" or
        made up "notes.txt does not exist" (a state no tool reported).

        ``said``, everything the user said in the conversation (``prompt`` when not
        given): an acting call of a tool that says how its values are said
        (:attr:`~edgeagent.tools.tool.Tool.said_in`), with a text value none of it
        holds, is a guess and is refused, unless the request names the device
        (:meth:`_guessed`).

        A titled read tool that says what it answers (:attr:`~edgeagent.tools.tool.
        Tool.asked_in`: the shell's ``wc``, a count; a forecast whose place comes from
        an earlier turn, and, on a second look, any) is refused by its topic, without
        the question, for a request that asks no such thing.

        An acting call for a request that names a household device no tool here
        drives, and not the called tool's own, is refused before any question
        (:func:`~edgeagent.agent.absent.absent_for`).

        ``earlier``, the turn before (its request, and all of it as the model read it):
        a call that continues it (:meth:`_continues`) gets a "no" to this request alone
        asked again of both requests together.
        "and if I do that 4 times a week?" after "45 minutes at 9 calories a minute"
        called ``math`` with "405 * 4", and the topic question, asked of the follow-up
        alone, said it was no math problem (blind prompts).

        ``ran()``, the tools whose calls succeeded in the conversation's earlier turns
        (read only for a request to undo): a call that undoes the last change, of the
        tool that made it, is asked nothing (:meth:`_undoes`)."""
        for call in calls:
            if call.name not in self.registry:
                continue
            tool = self.registry.get(call.name)
            if tool.kind is not ToolKind.ACT and not tool.title:
                absent = absent_for(tool, prompt, installed=self.registry)
                if absent is not None:
                    log.info("%s for %r: the %s is no device here", tool.name, prompt[:60], absent)
                    return Refusal(NO_DEVICE)
                continue  # a read tool is checked when it names what it is about
            if self._named(call, prompt) or self._undoes(call, prompt, ran):
                log.info("%s is named or undone in %r: no side question", tool.name, prompt[:60])
                continue
            guess = self._guessed(call, prompt, said or prompt)
            if guess is not None:
                log.info("%s %r: %r was never said", tool.name, call.arguments, guess)
                return Refusal(NO_DEVICE)
            absent = absent_for(tool, prompt, installed=self.registry)
            if absent is not None:
                log.info("%s for %r: the %s is no device here", tool.name, prompt[:60], absent)
                return Refusal(NO_DEVICE)
            acts = tool.kind is ToolKind.ACT
            # A change asked of a wrapper that reads ("ok delete it" as ls notes.txt,
            # "clear the log please" as tail log) faces the reader question even on the
            # model's own call: the topic question says yes, it is about that file. An
            # order, not a question ("just delete everything in the logs folder" as df
            # logs: the reader question said yes; blind prompts), is refused outright.
            changes = not acts and tool.extra.get("wrapped") and asks.asks_a_change(prompt)
            if changes and not asks.asks_a_question(prompt):
                log.info("read call %s for an order to change: %r", tool.name, prompt[:60])
                return Refusal(_ONLY_READS.format(tool=tool.name))
            # On a second look, whatever the call carries: "is naples near rome?", sent
            # to math and refused, came on a look elsewhere as the forecast for Naples;
            # over every record, each of the nine weather calls that came so, for a
            # request that asks no forecast, was a wrong turn.
            asked_in = tool.asked_in if strict or carried(tool, call, prompt) else None
            if not changes and asked_in is not None and not asked_in(prompt):
                log.info("%s does not answer what %r asks", tool.name, prompt[:60])
                return _not_for(tool, off_topic=True)
            known = f"{said or prompt}\n{earlier[1]}"
            if not acts and self.heard.from_memory(call, prompt, known=known):
                kind = await self.ask(kind_question(prompt, tool.given_otherwise), session=session)
                log.info("%s, numbers nobody gave: %s? %r", call.name, tool.given_otherwise, kind)
                if kind == "no":
                    return _not_for(tool, off_topic=True)
            topic = tool.title or tool.description
            named = None if acts else file_named(call, prompt)
            if named is not None:
                # "what's on my todo list" as cat todo.txt: asked of the title alone,
                # the model said it was not about showing a file (three blind sets).
                topic = f"{topic} ({named})"
            if not acts and self._names_topic(call, prompt):
                answer = "yes"  # "will it rain in Oslo?" as a forecast: no need to ask
                log.info("%s: %r names its topic", tool.name, prompt[:60])
            else:
                answer = await self.ask(target_question(prompt, topic), session=session)
                log.info("target check: %r for %s -> %r", prompt[:60], tool.name, answer)
            both = f"{earlier[0]} {prompt}"
            # A correction the topic question takes alone, refused by the capability
            # question alone, is asked it again with the request it corrects: "nah,
            # crimson" after "rgb time, make it red", alone, the strip "could not do";
            # and asked only with the turn before, "actually go back to the previous
            # colour" after a square root was refused (blind prompts).
            corrected = bool(acts and answer == "yes" and earlier[0] and honesty.corrects(prompt))
            if answer == "no" and earlier[0] and self._continues(call, prompt, earlier):
                # The file the turn before named ("what does the todo list say"), too.
                if named is None and not acts and (named := file_named(call, both)):
                    topic = f"{topic} ({named})"
                answer = await self.ask(target_question(both, topic), session=session)
                log.info("target check with the turn before: %r -> %r", both[:90], answer)
            asked_more = answer == "yes" and bool(tool.title) and bool(acts or strict or changes)
            if asked_more:
                question = capability_question if acts else reader_question
                answer = await self.ask(question(prompt, tool.title), session=session)
                log.info("capability check: %r for %s -> %r", prompt[:60], tool.name, answer)
                if answer == "no" and corrected:
                    answer = await self.ask(question(both, tool.title), session=session)
                    log.info("capability check with the turn before: %r -> %r", both[:90], answer)
            if answer != "no":
                continue
            off_topic = not asked_more  # the topic question's own "no"
            if acts:
                return Refusal(NO_DEVICE, off_topic)
            if changes:
                return Refusal(_ONLY_READS.format(tool=tool.name))
            if not strict and len(calls) == 1:
                instead = await self.instead(prompt, tool.name, session=session)
                if instead is not None:
                    return instead
            return _not_for(tool, off_topic=off_topic)
        return None

    def _named(self, call: ToolCall, prompt: str) -> bool:
        """Whether ``prompt`` names the device of ``call``'s acting tool itself
        (:attr:`~edgeagent.tools.tool.Tool.named_in`) and the call holds only values it
        said: "kill the shop light" as ``led(on=false)``. Asked alone, the model said
        the LED strip could not "kill the lights" and that "could the light be sky
        blue?" was not about it (blind prompts). "make the lights feel like a Tuesday"
        as ``color: "blue"`` still faces the questions: nobody said blue."""
        tool = self.registry.get(call.name)
        if tool.kind is not ToolKind.ACT or tool.named_in is None or not call.arguments:
            return False
        return (
            tool.named_in(prompt) and self.heard.unsaid([call], said=prompt, request=prompt) is None
        )

    def _names_topic(self, call: ToolCall, prompt: str) -> bool:
        """Whether ``prompt`` names the topic of ``call``'s read tool itself
        (:attr:`~edgeagent.tools.tool.Tool.named_in`: "will it rain in Oslo?", "what's
        25 times 4") and every number in the call is one it says ("18% of 250" as
        ``18 * 250 / 100`` is asked): then the topic question is not asked. Its text is
        the model's own notation, and its words the tool's other checks judge (a
        place nobody said, :attr:`~edgeagent.tools.tool.Tool.user_words`). Over every
        record, the topic question said yes to each such weather and math call for a
        forecast or a sum, at about a second each."""
        tool = self.registry.get(call.name)
        if tool.named_in is None or not call.arguments or not tool.named_in(prompt):
            return False
        said = numbers_in(prompt)
        return all(numbers_in(str(v)) <= said for v in leaves(call.arguments))

    def _undoes(self, call: ToolCall, prompt: str, ran: Callable[[], Sequence[str]]) -> bool:
        """Whether ``prompt`` asks to undo the last change (the tool's
        :attr:`~edgeagent.tools.tool.Tool.undone_in`) and ``call``'s acting tool made
        it: of the tools that ``ran()`` in the conversation, the last acting one."""
        undone_in = self.registry.get(call.name).undone_in
        if undone_in is None or not undone_in(prompt):
            return False
        return last_to_act(self.registry, ran) == call.name

    def _guessed(self, call: ToolCall, prompt: str, said: str) -> str | None:
        """The text value of ``call``'s acting tool that no user message ``said``, where
        the tool says how its values are said (``said_in``) and ``prompt`` does not name
        its device; or its number no user message said, where the tool says when a
        request aims it (``aimed_in``) and ``prompt`` neither does nor refers back to a
        value ("point the camera to that angle"; "now move it to the kitchen" refers
        back to the camera only, and came as ``left: 90``: fresh36); ``None``: no guess.
        "¿Puedes encender el ahumador?" (a smoker) came as ``led`` with ``color:
        "red"``, and both side questions said yes (blind prompts)."""
        tool = self.registry.get(call.name)
        if tool.kind is not ToolKind.ACT:
            return None
        unheard = self.heard.unheard(call, said=said, request=prompt)
        values = list(leaves(call.arguments))
        named = tool.named_in is not None and tool.named_in(prompt)
        if tool.said_in is not None and not named:
            guesses = [v for v in values if isinstance(v, str) and unheard(v)]
            if guesses:
                return guesses[0]
        if tool.aimed_in is None or tool.aimed_in(prompt) or A_VALUE_BACK.search(prompt):
            return None
        numbers = [v for v in values if is_number(v)]
        return next((str(v) for v in numbers if unheard(v)), None)

    def _continues(self, call: ToolCall, prompt: str, earlier: tuple[str, str]) -> bool:
        """Whether a request the topic question refused may continue the turn before
        (``earlier``: its request, and all of it): a read call that carries a number
        or a file from there, or an acting call for a request that says "it" or "them" ("centre
        it over the crib, dead middle" after "how far off centre is the cot camera?",
        refused alone; blind prompts), where the request may go on from there at all
        (:func:`~edgeagent.agent.honesty.continues`: "who wrote pride and prejudice"
        came as ``math`` with ``ans * 2`` after a square root, and passed asked with
        it; blind prompts). The capability question that follows an acting
        call's "yes" is asked of this request alone: "turn on the fan, it's hot" after
        an LED turn is no LED request."""
        if self.registry.get(call.name).kind is ToolKind.ACT:
            return honesty.refers_back(prompt)
        return honesty.continues(prompt) and carries(call, prompt, earlier[1])

    def orders(self, request: str) -> bool:
        """Whether ``request`` gives an order to a device it names itself (an acting
        tool's :attr:`~edgeagent.tools.tool.Tool.named_in`), not put as a question: a
        text answer to it stands in for the deed ("ok lights off now, thanks" was
        answered "You're welcome!", "Doe het licht uit." "Ja, het licht is uit.", and
        "right, lights off, I'm out" "Goodbye!", with no call; blind prompts). Over
        every record, each first answer in text to such a request was a wrong turn."""
        if asks.asks_a_question(request):
            return False
        return any(
            t.kind is ToolKind.ACT and t.named_in is not None and t.named_in(request)
            for t in self.registry
        )

    def names_another(self, calls: Sequence[ToolCall], request: str) -> bool:
        """Whether the ``request`` names another tool's device or topic (its
        :attr:`~edgeagent.tools.tool.Tool.named_in`) and not that of any of the
        ``calls``' tools."""
        called = {c.name for c in calls if c.name in self.registry}
        for name in called:
            named_in = self.registry.get(name).named_in
            if named_in is not None and named_in(request):
                return False
        return any(
            t.named_in is not None and t.name not in called and t.named_in(request)
            for t in self.registry
        )

    def made_up(self, calls: Sequence[ToolCall], *, said: str) -> str | None:
        """A question back when a call's argument that must be the user's own words
        (:attr:`~edgeagent.tools.tool.Tool.user_words`) holds what no user message said.

        After "weather in Tokyo", "ugh, I hate rain" got the weather for Oslo, the city
        of the primer's example, and the next turns kept asking for Oslo. A name the
        user wrote in another script counts as said in the model's translation ("в
        Москве" as Moscow)."""
        heard = plain(said)
        for call in calls:
            if call.name not in self.registry:
                continue
            for name in self.registry.get(call.name).user_words:
                value = call.arguments.get(name)
                if not isinstance(value, str) or not value.strip():
                    continue  # missing or malformed: the executor's error says so
                first = plain(value.split(",")[0])
                if first and not _said(first, value, heard=heard, said=said):
                    log.info("%s %s=%r was never said by the user", call.name, name, value)
                    return f"Which {name} do you mean? I use only a {name} you name."
        return None

    def named_instead(
        self, calls: Sequence[ToolCall], *, request: str, said: str
    ) -> list[ToolCall]:
        """``calls`` with a user's-words argument that no user message ``said`` given
        the one place the ``request`` names (:func:`~edgeagent.tools.words.named_place`)
        instead: "weather in Osaka on sunday?" came as ``location: "Oslo"``, the
        primer's city, and was asked back (fresh18, fresh55). Without such a place the
        call stands, and :meth:`made_up` asks."""
        place = named_place(request)
        if place is None:
            return list(calls)
        heard = plain(said)
        fixed = []
        for call in calls:
            tool = self.registry.get(call.name) if call.name in self.registry else None
            for name in tool.user_words if tool is not None else ():
                value = call.arguments.get(name)
                first = plain(value.split(",")[0]) if isinstance(value, str) else ""
                if first and not _said(first, str(value), heard=heard, said=said):
                    log.info(
                        "%s %s=%r was never said; the request names %r",
                        call.name,
                        name,
                        value,
                        place,
                    )
                    call = ToolCall(call.name, {**call.arguments, name: place})
            fixed.append(call)
        return fixed

    def reread(self, calls: Sequence[ToolCall], *, request: str) -> list[ToolCall]:
        """``calls`` with the arguments their tools read again from the ``request``
        (:attr:`~edgeagent.tools.tool.Tool.reread`): "Che tempo farà a Verona martedì?"
        arrived as ``day: "tomorrow"`` and runs as ``day: "tuesday"``."""
        return self._rewrite(calls, "reread", request, how="read again from the request")

    def recall(
        self, calls: Sequence[ToolCall], *, earlier: Sequence[Any], request: str = ""
    ) -> list[ToolCall]:
        """``calls`` with what they name of the ``earlier`` results filled in by their
        tools (:attr:`~edgeagent.tools.tool.Tool.recall`): after 7 * 8 = 56, "minus
        six?" arrived as ``6 - 6``; written ``ans - 6``, it runs as ``56 - 6``; and an
        acting call with the last result's value the ``request`` names
        (:func:`~.carried.value_named_back`).

        Raises :class:`~edgeagent.errors.NothingEarlierError` where a call names an
        earlier result and there is none (:func:`.review.nothing_earlier`)."""
        calls = self._rewrite(calls, "recall", earlier, how="filled in from earlier results")
        return [value_named_back(self.registry, c, request, earlier) for c in calls]

    def _rewrite(
        self, calls: Sequence[ToolCall], hook: Literal["reread", "recall"], given: Any, *, how: str
    ) -> list[ToolCall]:
        """``calls`` with the arguments their tools' ``hook`` gives for ``given``; a
        hook that raises (a plugin's bug) leaves the call as the model wrote it."""
        rewritten = []
        for call in calls:
            tool = self.registry.get(call.name) if call.name in self.registry else None
            rewrite = None if tool is None else getattr(tool, hook)
            arguments = None
            if rewrite is not None and isinstance(call.arguments, dict):
                try:
                    arguments = rewrite(dict(call.arguments), given)
                except NothingEarlierError:
                    raise
                except Exception:
                    log.exception("%s: the %s hook failed", call.name, hook)
            if arguments is not None and arguments != call.arguments:
                log.info("%s %r %s: %r", call.name, call.arguments, how, arguments)
                call = ToolCall(call.name, arguments)
            rewritten.append(call)
        return rewritten

    async def instead(self, prompt: str, refused: str, *, session: str) -> ToolCall | None:
        """The call of the one other titled read tool that needs no arguments and that
        the model, asked the same question, says the request is about.

        "how much disk space is free?" reads as ``free`` (memory) to the model, which
        its own title check then refuses; ``df`` is what was meant, and needs nothing
        the model would have had to write. With two or more that fit, none is run.

        Only a tool that runs what the refused one runs (both wrap the shell, or neither
        wraps anything): "and after twelve hours?", a math follow-up the title check
        refused, ran ``uptime`` (blind prompts). And one that wraps nothing only of the
        refused one's plugin: "is that warm for them this time of year?" after a
        forecast, sent to math and refused, read the LED strip, whose light is warm
        (fresh69); over every record, each of the ten state reads that came so was a
        wrong turn."""
        own = self.registry.get(refused) if refused in self.registry else None
        runs = None if own is None else own.extra.get("wrapped")
        fitting = []
        for tool in self.registry:
            if tool.name == refused or tool.kind is ToolKind.ACT or not tool.title:
                continue
            if tool.extra.get("wrapped") != runs:
                continue
            if runs is None and (own is None or tool.plugin != own.plugin):
                continue
            if tool.parameters.get("required"):
                continue  # its arguments would be made up here
            answer = await self.ask(target_question(prompt, tool.title), session=session)
            log.info("instead check: %r for %s -> %r", prompt[:60], tool.name, answer)
            if answer == "yes":
                fitting.append(tool.name)
        if len(fitting) != 1:
            return None
        log.info("%s refused by its title; %s fits instead", refused, fitting[0])
        return ToolCall(fitting[0], {})

    async def needs_a_call(
        self,
        prompt: str,
        raw: str,
        text: str,
        *,
        shown: Collection[str] | None,
        session: str,
        earlier: str = "",
    ) -> bool:
        """Whether an answer from a turn where nothing ran states a value only a tool can
        know: a tool's result written out, weather or a disk figure, a device's state
        (when the model, asked alone, says the request is about a device it was shown),
        or a computed number (new, and the model, asked alone, calls it a calculation).

        A request without a number of its own starts from ``earlier`` (the turn before,
        as the model read it): "and what's that in kilos?" after "2244 grams" was
        answered "2.244 kilograms" from memory (blind prompts)."""
        if honesty.fakes_result(raw) or honesty.reports_measurement(raw):
            return True
        devices = [
            t.title
            for t in self.registry
            if t.kind is ToolKind.ACT and t.title and (shown is None or t.name in shown)
        ]
        if honesty.tells_device(text) and devices:
            # "The LED strip is set to 100%" or "is currently green" for "how bright is
            # it?": a state only a tool knows, when the request is about a device here.
            answer = await self.ask(target_question(prompt, " or ".join(devices)), session=session)
            log.info("state check: %r -> %r", prompt[:60], answer)
            return answer == "yes"
        given = prompt if honesty.has_number(prompt) else f"{earlier}\n{prompt}"
        if not honesty.has_number(given) or not honesty.new_numbers(text, given):
            return False  # a calculation starts from numbers ("who wrote Hamlet?" has none)
        answer = await self.ask(calculation_question(prompt), session=session)
        log.info("calculation check: %r -> %r", prompt[:60], answer)
        return answer == "yes"

    async def ask(self, question: str, *, session: str) -> str:
        """A yes/no question asked alone, outside the conversation (its KV cache stays):
        "yes", "no", or "" when the backend fails or answers neither (the checks are
        advice, never a reason to fail).

        One token is generated: under the grammar it already decides the answer ("y",
        "ye" or "yes"; "n" or "no"), and a second would cost a decode (0.05-0.08 s on
        2 cores) only to sample the end."""
        request = GenerateRequest(
            messages=[{"role": "user", "content": question}],
            session=session,
            max_tokens=1,
            temperature=0.0,
            grammar=YES_NO,
            aside=True,
        )
        words = ""
        try:
            async for piece in self.llm.stream(request):
                words += piece
        except LLMError as exc:
            log.warning("side question failed: %s", exc)
            return ""
        word = (words.strip().split() or [""])[0].strip(".,!'\"").lower()
        return next((a for a in ("yes", "no") if word and a.startswith(word)), "")


def _not_for(tool: Tool, *, off_topic: bool) -> Refusal:
    """The refusal of a read call whose tool the request is not for."""
    return Refusal(
        f"I can't do that here: {tool.name} is for {tool.title}, not for this.", off_topic
    )


def _said(first: str, value: str, *, heard: str, said: str) -> bool:
    """Whether the user's words (``said``; ``heard``, as :func:`plain` spells them) hold
    the name ``value`` (``first``, its first part, plain), as written or in another
    script (:func:`~edgeagent.tools.words.written_otherwise`)."""
    return said_in_words(first, heard) or written_otherwise(value.split(",")[0], said)


def last_to_act(registry: ToolRegistry, ran: Callable[[], Sequence[str]]) -> str | None:
    """The acting tool whose call last succeeded in the conversation's earlier turns
    (``ran()``, oldest first), or ``None``: the device an undo goes back on."""
    acting = [n for n in ran() if n in registry and registry.get(n).kind is ToolKind.ACT]
    return acting[-1] if acting else None
