"""The agent loop: generate, parse calls, validate, execute, feed results back, repeat.

One :meth:`Agent.run` is one turn. Every step is an event (streamed text, each tool
call, each result) and the turn ends with exactly one :class:`FinalAnswer` or
:class:`ErrorEvent`. Failures are data at the model boundary: a bad call comes back to
the model as a tool result it can read and correct; only the step limit, the repeat
guard, a context overflow or a backend failure end the turn with an error.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from typing import Any

from edgeagent.agent import honesty, review
from edgeagent.agent.answer import (
    acted,
    built_answer,
    text_answer,
    then_acts,
    unrepeated,
)
from edgeagent.agent.carried import sets_from_device
from edgeagent.agent.checks import NO_DEVICE, SideChecks
from edgeagent.agent.context import Conversation, as_read, fit_context
from edgeagent.agent.decline import NAME as DECLINE
from edgeagent.agent.decline import decline_answer
from edgeagent.agent.english import in_english
from edgeagent.agent.events import (
    ErrorEvent,
    Event,
    FinalAnswer,
    TextChunk,
)
from edgeagent.agent.follow_up import asked_again
from edgeagent.agent.mend import mend_read, mendable
from edgeagent.agent.meter import TurnMeter
from edgeagent.agent.read_ahead import ReadAhead
from edgeagent.agent.sanitize import DEFAULT_MAX_TOOL_CHARS, sanitize, tool_content
from edgeagent.agent.second_look import Looking, second_look
from edgeagent.agent.selection import ToolSelector, TurnTools
from edgeagent.agent.step import StepRunner, describe_call
from edgeagent.agent.stream import Generating
from edgeagent.errors import ContextOverflowError, LLMError, NothingEarlierError
from edgeagent.llm.base import LLM, Message
from edgeagent.tools.calls import CallFormat
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.fill import fill_for
from edgeagent.tools.tool import ToolResult

log = logging.getLogger(__name__)


class Agent:
    """Runs turns of a conversation against one LLM and one tool executor."""

    def __init__(
        self,
        *,
        llm: LLM,
        executor: ToolExecutor,
        call_format: CallFormat,
        system_prompt: str,
        max_steps: int = 5,
        max_calls_per_step: int = 4,
        context_threshold: float = 0.8,
        max_tokens: int = 256,
        temperature: float = 0.0,
        grammar: str | None = None,
        native_tools: Sequence[dict[str, Any]] | None = None,
        max_tool_chars: int = DEFAULT_MAX_TOOL_CHARS,
        primer: Sequence[Message] = (),
        stop: Sequence[str] = (),
        call_grammar: str | None = None,
        recheck_grammar: str | None = None,
        recheck_without: Mapping[str, str] | None = None,
        recheck_elsewhere: Mapping[str, str] | None = None,
        act_grammar: str | None = None,
        decline: bool = False,
        check_target: bool = False,
        selector: ToolSelector | None = None,
        read_ahead: bool = False,
    ) -> None:
        if max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, got {max_steps}")
        self.llm = llm
        self.executor = executor
        self.call_format = call_format
        self.system_prompt = system_prompt
        self.max_steps = max_steps
        self.max_calls_per_step = max_calls_per_step
        self.context_threshold = context_threshold
        self.max_tool_chars = max_tool_chars
        self.primer = tuple(primer)
        self.call_grammar = call_grammar
        """Admits exactly one call of a read tool: for a value only a tool can know."""
        self.recheck_grammar = recheck_grammar
        """Admits exactly one call of a titled tool: a refusal's second look."""
        self.recheck_without = dict(recheck_without or {})
        """The second look's grammar without one titled read tool, by its name."""
        self.recheck_elsewhere = dict(recheck_elsewhere or {})
        """A look's grammar after the checks refused a call by its topic: the titled
        tools of the other plugins, by the refused tool's name."""
        self.act_grammar = act_grammar
        """Admits exactly one call of an acting tool: after a read the request acts on."""
        self.decline = decline
        """The model may answer with a ``decline`` call (edgeagent.agent.decline)."""
        self.check_target = check_target
        """Ask the model alone whether the request is about an acting tool's device."""
        self.selector = selector
        """Chooses each turn's tools when the manifest of all of them is over budget."""
        self.read_ahead = read_ahead
        """After a turn of a conversation, read its tool results and answer into the
        model's context while the user reads and types (:mod:`.read_ahead`)."""
        self.checks = SideChecks(llm=llm, registry=executor.registry)
        self._generating = Generating(
            llm=llm,
            call_format=call_format,
            stop=tuple(stop),
            max_tokens=max_tokens,
            temperature=temperature,
            grammar=grammar,
            native_tools=native_tools,
            fill=fill_for(call_format),
        )
        """The model, its sampling and the grammar of a turn that shows every tool."""
        self._reader = ReadAhead(llm=llm)
        self._runner = StepRunner(
            executor=executor,
            call_format=call_format,
            tool_content=self._tool_content,
        )

    @property
    def grammar(self) -> str | None:
        """[llm.llamacpp] grammar: every step's, where a turn shows every tool."""
        return self._generating.grammar

    @property
    def stop(self) -> tuple[str, ...]:
        """The stop words of the model's profile."""
        return self._generating.stop

    def new_conversation(self, session_id: str | None = None) -> Conversation:
        """A conversation that starts with this agent's system prompt and primer."""
        return Conversation.start(
            self.system_prompt,
            session_id=session_id,
            one_shot=session_id is None,
            primer=self.primer,
        )

    async def run(
        self, prompt: str, *, conversation: Conversation, frontend: str
    ) -> AsyncIterator[Event]:
        """One turn: stream events; end with exactly one FinalAnswer or ErrorEvent, which
        carries the turn's figures (``stats``)."""
        await self.stop_reading_ahead()
        meter = TurnMeter()
        earlier = [
            str(m["content"])
            for m in conversation.messages[conversation.kept :]
            if m["role"] == "assistant"
        ] + conversation.answered
        stream = self._turn(prompt, conversation=conversation, frontend=frontend, meter=meter)
        async with contextlib.aclosing(stream):
            async for event in stream:
                if isinstance(event, FinalAnswer) and not acted(event.tool_calls):
                    said = unrepeated(event.text, prompt=prompt, earlier=earlier)
                    if said != event.text:
                        conversation.reword(prompt, event.text, said)
                        event = dataclasses.replace(event, text=said)
                if isinstance(event, FinalAnswer):
                    conversation.answer(event.text)
                if isinstance(event, FinalAnswer | ErrorEvent):
                    event = dataclasses.replace(event, stats=meter.stats())
                yield event
        if self.read_ahead and not conversation.one_shot:
            self._reader.start(conversation.messages, session=conversation.id)

    async def stop_reading_ahead(self) -> None:
        """Interrupt a read-ahead and wait until the model is free (at most one chunk)."""
        await self._reader.stop()

    async def _turn(
        self, prompt: str, *, conversation: Conversation, frontend: str, meter: TurnMeter
    ) -> AsyncGenerator[Event, None]:
        messages = conversation.messages
        try:
            turn = await self._select_tools(conversation, prompt)
        except LLMError as exc:
            yield ErrorEvent(f"The model backend failed while measuring the tools: {exc}")
            return
        call_grammar = self.call_grammar if turn is None else turn.call_grammar
        recheck = self.recheck_grammar if turn is None else turn.recheck_grammar
        without = self.recheck_without if turn is None else turn.recheck_without
        elsewhere = self.recheck_elsewhere if turn is None else turn.recheck_elsewhere
        act_grammar = self.act_grammar if turn is None else turn.act_grammar
        if not self.check_target:
            recheck = None  # a second look is safe only with the checks before a call
        # A prompt cannot carry template control tokens either (llama.cpp tokenizes
        # contents as text, but the Hailo host tokenizer parses the rendered template);
        # its spelled-out numbers are read as digits (.numerals).
        messages.append({"role": "user", "content": as_read(prompt)})
        # An order to a device the request names: a text answer stands in for the deed,
        # so it is held back and gets the second look a refusal gets (.checks.orders).
        ordered = bool(recheck) and self.checks.orders(conversation.request())
        records: list[dict[str, Any]] = []
        failures: dict[str, str] = {}  # signature -> error, for the repeat guard
        mend: frozenset[str] = frozenset()  # the tools of the last step's failed reads
        mended = False
        read_first: str | None = None  # a read step's answer, while the request then acts
        refused = False  # a step's calls all failed, and no other call mends them
        for step in range(1, self.max_steps + 1):
            try:
                usage = await fit_context(
                    conversation,
                    self.llm,
                    threshold=self.context_threshold,
                    reserve=self._generating.max_tokens,
                )
            except ContextOverflowError as exc:
                yield ErrorEvent(str(exc))
                return
            except LLMError as exc:
                yield ErrorEvent(f"The model backend failed while measuring the context: {exc}")
                return
            meter.prompt_tokens = usage.used
            raw = ""
            generation = self._generating.generate(
                conversation,
                trusted=acted(records),
                meter=meter,
                grammar=act_grammar if read_first is not None else None,
                hold_refusal=bool(recheck) and not records,
                quiet=(mend and not mended) or read_first is not None or (ordered and not records),
            )
            async for event in generation:
                if isinstance(event, ErrorEvent):
                    yield event
                    return
                if isinstance(event, TextChunk):
                    yield event
                else:
                    raw = event
            parsed = self.call_format.parse(raw)
            followed = False  # the call is the last turn's read, asked again (.follow_up)
            if not parsed.calls and not parsed.errors and not records and self.check_target:
                asked = await asked_again(
                    conversation,
                    request=conversation.request(),
                    call_format=self.call_format,
                    checks=self.checks,
                )
                if asked is not None:
                    log.info("model answered a follow-up itself; asking %s again", asked.name)
                    raw = self.call_format.render_call([asked])
                    parsed, followed = self.call_format.parse(raw), True
            looking = self._looking(conversation, meter)
            if call_grammar and not parsed.calls and not (ordered and not records):
                # It wrote a tool's answer, or a value only a tool can know, itself: it
                # meant to call one (.review). Not an order's first answer: a read is
                # no answer to it ("Sluk lyset, tak." answered "The LED strip is now
                # off." was read as led_state; fresh42); its look is among the acting
                # tools, below.
                reviewed = await review.answered_itself(
                    looking,
                    (raw, parsed),
                    grammar=call_grammar,
                    records=records,
                    shown=None if conversation.selection is None else conversation.selection.names,
                    earlier=conversation.earlier_turn(),
                    refused=refused,
                )
                if isinstance(reviewed, ErrorEvent):
                    yield reviewed
                    return
                raw, parsed = reviewed
            if mend and not mended and call_grammar and not parsed.calls and not parsed.errors:
                # Its read failed, and it answered instead of calling again (.mend).
                mended = True
                reviewed = await mend_read(
                    looking, (raw, parsed), grammar=call_grammar, failures=failures, tools=mend
                )
                if isinstance(reviewed, ErrorEvent):
                    yield reviewed
                    return
                raw, parsed = reviewed
            checked = followed  # the calls passed their checks (a follow-up's, a second look's)
            stood_in = honesty.stands_in(parsed.text, asked=conversation.request())
            if (
                recheck
                and not records
                and not parsed.calls
                and not parsed.errors
                and (stood_in or ordered)
            ):
                # An order's look is among the acting tools: among all the titled ones,
                # "Doe het licht uit." came as led_state.
                second = await second_look(
                    looking,
                    grammar=recheck if stood_in or act_grammar is None else act_grammar,
                    without=without,
                    refusal=parsed.text,
                    elsewhere=elsewhere,
                )
                if isinstance(second, ErrorEvent):
                    yield second
                    return
                if second is None:
                    # The checks agree with the model's own refusal: that is the answer.
                    # A promise ("Ja, ich kann die Heizung anmachen.") they find no tool
                    # for is a refusal too, said plainly.
                    said = NO_DEVICE if honesty.promises(parsed.text) else parsed.text
                    answer = self._answer(conversation, said, raw, records, prompt=prompt)
                    yield FinalAnswer(answer, tool_calls=records, steps=step)
                    return
                raw, parsed = second
                checked = True
            # After a read the request acts on, the act's value is the read's, not one
            # of the request's words ("10 more" read a computed -20 as a turn of 10).
            calls = review.read_again(
                parsed.calls,
                self.checks,
                self.executor,
                request=conversation.request() if read_first is None else "",
                ran=looking.ran,
            )
            try:
                calls = self.checks.recall(
                    calls, earlier=conversation.results(), request=conversation.request()
                )
            except NothingEarlierError as nothing:
                # A copy of the primer's follow-up in a conversation with no result.
                found = await review.nothing_earlier(looking, nothing, grammar=act_grammar)
                if isinstance(found, ErrorEvent):
                    yield found
                    return
                if isinstance(found, str):
                    del messages[conversation.turn_starts()[-1] :]
                    yield FinalAnswer(found, tool_calls=records, steps=step)
                    return
                request = conversation.request()
                calls = review.read_again(
                    found, self.checks, self.executor, request=request, ran=looking.ran
                )
                checked = True
            declined = [c for c in calls if self.decline and c.name == DECLINE]
            calls = [c for c in calls if c not in declined]
            skipped, calls = calls[self.max_calls_per_step :], calls[: self.max_calls_per_step]
            if declined and not calls and not records:
                answer = decline_answer(declined[0].arguments)
                messages += [
                    {"role": "assistant", "content": self.call_format.render_call(declined[:1])},
                    {"role": "tool", "content": ToolResult.success(answer).to_json()},
                    {"role": "assistant", "content": answer},
                ]
                yield FinalAnswer(answer, tool_calls=records, steps=step)
                return
            if not calls and not parsed.errors and read_first is not None:
                # It read, then did not act (or its act failed): the read's answer, as
                # built, and the failure.
                failed = [r for r in records if not r.get("ok")]
                answer = read_first
                if failed:
                    answer += "\n" + honesty.did_not_work(failed[-1])
                messages.append({"role": "assistant", "content": sanitize(answer)})
                yield FinalAnswer(answer, tool_calls=records, steps=step)
                return
            if not calls and not parsed.errors:
                answer = self._answer(conversation, parsed.text, raw, records, prompt=prompt)
                yield FinalAnswer(answer, tool_calls=records, steps=step)
                return
            if not records:
                calls = self.checks.named_instead(
                    calls, request=conversation.request(), said=conversation.said()
                )
            question = None if records else self.checks.made_up(calls, said=conversation.said())
            if question is not None and self.check_target:
                # "wat colour is the light at the moment?" came as the forecast for "your
                # location" (fresh68): a request that names another tool's device is
                # not asked for a place; the side questions judge the call.
                question = (
                    None if self.checks.names_another(calls, conversation.request()) else question
                )
            if question is not None:
                # Like a refusal, the exchange leaves no trace for the model to copy.
                del messages[conversation.turn_starts()[-1] :]
                yield FinalAnswer(question, tool_calls=records, steps=step)
                return
            if calls and not records and self.check_target and not checked:
                checked_calls = await review.checked_calls(
                    looking,
                    calls,
                    recheck=recheck,
                    without=without,
                    elsewhere=elsewhere,
                    earlier=conversation.followed(),
                )
                if isinstance(checked_calls, ErrorEvent):
                    yield checked_calls
                    return
                if isinstance(checked_calls, str):
                    del messages[conversation.turn_starts()[-1] :]
                    yield FinalAnswer(checked_calls, tool_calls=records, steps=step)
                    return
                calls = checked_calls
            # A place written in another script, in English where its tool wants it so.
            calls = await in_english(calls, checks=self.checks, session=conversation.id)
            if step == self.max_steps:
                wanted = ", ".join(describe_call(c) for c in calls) or "a malformed tool call"
                yield ErrorEvent(
                    f"Stopped after {self.max_steps} steps (the [agent] max_steps limit) "
                    f"without a final answer; the model still wanted {wanted}. Ask again "
                    f"more simply, or raise max_steps"
                )
                return
            results: list[tuple[ToolCall, ToolResult]] = []
            running = self._runner.run(
                calls,
                raw=raw,
                errors=parsed.errors,
                skipped=skipped,
                limit=self.max_calls_per_step,
                step=step,
                frontend=frontend,
                meter=meter,
                records=records,
                failures=failures,
                messages=messages,
                results=results,
            )
            async for ran in running:
                yield ran
                if isinstance(ran, ErrorEvent | FinalAnswer):
                    return  # a repeat of a failed call
            mend = mendable(results, self.executor.registry)
            refused = refused or (bool(results) and not any(r.ok or r.mendable for _, r in results))
            step_records = records[len(records) - len(calls) :]
            built = built_answer(step_records, self.executor.registry)
            if (
                built is not None
                and read_first is None
                and not parsed.errors
                and not skipped
                and step < self.max_steps
                and (
                    then_acts(step_records, self.executor.registry, conversation.request())
                    or sets_from_device(
                        self.executor.registry,
                        step_records,
                        conversation.request(),
                        followed=conversation.followed()[1],
                        acted=conversation.followed_ran(self._called),
                    )
                )
            ):
                # "take a third of that and use it as the brightness": the read is half
                # of it; the model sees its result and, where the engine has a grammar,
                # must call an acting tool (.answer.then_acts). Measured without: it
                # wrote the read's answer again ("4 * 10 = 40"). So for "now half of
                # that" after a brightness (.carried.sets_from_device).
                log.info("the request acts on what it read; one more step")
                read_first = built
                continue
            if built is not None and read_first is not None:
                built = read_first if built == read_first else f"{read_first}\n{built}"
            if built is not None and not parsed.errors and not skipped:
                # Every call of the step succeeded and its tool words its own result:
                # the answer is built from the results, never generated (it cannot claim
                # what did not happen, and it saves a generation).
                # The history gets it sanitised: a built answer quotes tool output.
                messages.append({"role": "assistant", "content": sanitize(built)})
                yield FinalAnswer(built, tool_calls=records, steps=step)
                return

    def _looking(self, conversation: Conversation, meter: TurnMeter) -> Looking:
        """What a second look needs of this turn."""
        return Looking(
            lambda grammar: self._generating.forced_call(
                conversation, grammar=grammar, meter=meter
            ),
            checks=self.checks,
            executor=self.executor,
            prompt=conversation.request(),
            said=conversation.said(),
            session=conversation.id,
            render=self.call_format.render_call,
            ran=lambda: conversation.ran(self._called),
        )

    def _called(self, text: str) -> list[str]:
        """The tools an assistant message calls, as the call format reads them."""
        return [c.name for c in self.call_format.parse(text).calls]

    async def prepare(self) -> None:
        """Measure the tools; under selection, conversations start with the always-shown
        tools' prompt (what every turn shares, and the daemon primes)."""
        if self.selector and (stable := await self.selector.stable(self._tokens)):
            self.system_prompt = stable.system_prompt

    async def _select_tools(self, conversation: Conversation, prompt: str) -> TurnTools | None:
        """The turn's tools when a selection chooses them; ``None``: every tool."""
        if self.selector is None:
            return None
        earlier = None if conversation.selection is None else conversation.selection.names
        turn = await self.selector.select(prompt, shown=earlier, count=self._tokens)
        if turn is not None:
            conversation.show_tools(turn.system_prompt, turn.note)
            conversation.selection = turn
        return turn

    async def _tokens(self, text: str) -> int:
        return await self.llm.count_tokens([{"role": "system", "content": text}])

    def _answer(
        self,
        conversation: Conversation,
        text: str,
        raw: str,
        records: list[dict[str, Any]],
        *,
        prompt: str,
    ) -> str:
        """The turn's answer from the model's own text, checked, into the history."""
        return text_answer(
            conversation,
            text,
            prompt=prompt,
            raw=raw,
            records=records,
            examples=self.primer,
            registry=self.executor.registry,
        )

    def _tool_content(self, result: ToolResult) -> str:
        return tool_content(result, max_chars=self.max_tool_chars)
