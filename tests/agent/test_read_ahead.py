"""Reading ahead: after a turn of a conversation the idle model reads the turn's end.

What a user notices: the next turn of a conversation starts on a model that has already
read the last tool results and answer, a new prompt is never held up by more than the
read-ahead's current chunk, and a one-shot question leaves nothing behind.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator

import pytest

from edgeagent.agent.context import Conversation
from edgeagent.agent.events import Event, FinalAnswer
from edgeagent.agent.loop import Agent
from edgeagent.agent.read_ahead import IDLE_S as READ_AHEAD_IDLE_S
from edgeagent.agent.read_ahead import ReadAhead
from edgeagent.errors import LLMError
from edgeagent.llm.base import CancelCheck, GenerateRequest, InProcessLLM
from edgeagent.llm.scripted import ScriptedEngine
from tests.agent.scripted_agent import call, make_agent

RULES = [
    ("LED red", "The LED is red."),
    ("(?i)make it red", call("set_led", color="red")),
    ("(?i)how are you", "Fine, thanks."),
]


async def turn(agent: Agent, prompt: str, conversation: Conversation) -> FinalAnswer:
    events: list[Event] = [
        e async for e in agent.run(prompt, conversation=conversation, frontend="cli")
    ]
    last = events[-1]
    assert isinstance(last, FinalAnswer), events
    return last


def reading_agent(engine: ScriptedEngine | None = None) -> tuple[Agent, ScriptedEngine]:
    """An agent that reads ahead, on ``engine`` or a scripted one of :data:`RULES`."""
    agent, engine, _ = make_agent(RULES, engine=engine)
    agent.read_ahead = True
    return agent, engine


def test_an_idle_model_reads_the_turns_results_and_answer_ahead() -> None:
    agent, engine = reading_agent()

    async def main() -> Conversation:
        conversation = agent.new_conversation("kitchen")
        await turn(agent, "make it red", conversation)
        assert not engine.read_aheads  # not while the user may still be sending
        await asyncio.sleep(READ_AHEAD_IDLE_S + 0.3)
        return conversation

    conversation = asyncio.run(main())
    (request,) = engine.read_aheads
    assert request.ahead and request.session == "kitchen"
    assert list(request.messages) == conversation.messages
    assert [m["role"] for m in request.messages[-2:]] == ["tool", "assistant"]
    assert all(not r.ahead for r in engine.requests)  # reading ahead generated nothing


def test_a_one_shot_question_is_not_read_ahead() -> None:
    agent, engine = reading_agent()

    async def main() -> None:
        await turn(agent, "how are you", agent.new_conversation())
        await asyncio.sleep(READ_AHEAD_IDLE_S + 0.3)

    asyncio.run(main())
    assert not engine.read_aheads


def test_off_by_default_on_the_agent() -> None:
    agent, engine, _ = make_agent(RULES)

    async def main() -> None:
        await turn(agent, "how are you", agent.new_conversation("s"))
        await asyncio.sleep(READ_AHEAD_IDLE_S + 0.3)

    asyncio.run(main())
    assert not engine.read_aheads


class SlowReader(ScriptedEngine):
    """Reads ahead in 50 ms chunks for up to 10 s, checking for a new request between."""

    def __init__(self, *args: object, fail: bool = False, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fail = fail
        self.chunks = 0
        self.interrupted = False

    def generate(self, request: GenerateRequest, *, cancelled: CancelCheck) -> Iterator[str]:
        if not request.ahead:
            yield from super().generate(request, cancelled=cancelled)
            return
        if self.fail:
            raise LLMError("the model worker crashed while reading ahead")
        for _ in range(200):
            if cancelled():
                self.interrupted = True
                return
            time.sleep(0.05)
            self.chunks += 1


def slow_agent(*, fail: bool = False) -> tuple[Agent, SlowReader]:
    engine = SlowReader(RULES, fail=fail)
    agent, _ = reading_agent(engine)
    return agent, engine


def test_a_new_prompt_interrupts_the_read_ahead_within_a_chunk() -> None:
    agent, engine = slow_agent()

    async def main() -> float:
        conversation = agent.new_conversation("s")
        await turn(agent, "how are you", conversation)
        await asyncio.sleep(READ_AHEAD_IDLE_S + 0.3)  # the read-ahead is under way
        began = time.perf_counter()
        answer = await turn(agent, "how are you", conversation)
        assert answer.text == "Fine, thanks."
        return time.perf_counter() - began

    waited = asyncio.run(main())
    assert engine.interrupted and 0 < engine.chunks < 200
    assert waited < 1.0  # not the 10 s the whole read-ahead would take


def test_a_failing_read_ahead_is_logged_and_the_next_turn_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="edgeagent.agent.read_ahead")
    agent, _ = slow_agent(fail=True)

    async def main() -> str:
        conversation = agent.new_conversation("s")
        await turn(agent, "how are you", conversation)
        await asyncio.sleep(READ_AHEAD_IDLE_S + 0.3)
        return (await turn(agent, "how are you", conversation)).text

    assert asyncio.run(main()) == "Fine, thanks."
    assert "reading ahead failed: the model worker crashed" in caplog.text


def test_a_newer_conversation_state_replaces_a_read_ahead_still_waiting() -> None:
    engine = ScriptedEngine(RULES)
    reader = ReadAhead(llm=InProcessLLM(engine), idle_s=0.2)

    async def main() -> None:
        reader.start([{"role": "user", "content": "first"}], session="s")
        reader.start([{"role": "user", "content": "second"}], session="s")
        await asyncio.sleep(0.6)
        await reader.stop()

    asyncio.run(main())
    assert [r.messages[-1]["content"] for r in engine.read_aheads] == ["second"]
