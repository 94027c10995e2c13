"""An answer that is an earlier answer of the conversation again, in a turn where no
call succeeded: "print it out for me" got the log lines of the turn before, "snap a pic"
the refusal of another request."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from edgeagent.agent.answer import unrepeated
from edgeagent.agent.events import FinalAnswer
from edgeagent.agent.loop import Agent
from edgeagent.tools import tool, tools_from
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import USER_WORDS
from tests.agent.scripted_agent import run_turn
from tests.agent.stub_llm import StubLLM

REFUSAL = "I can't do that here: none of my tools can take photos."


class Script(StubLLM):
    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)

    async def stream(self, request: Any) -> Any:
        yield self.replies.pop(0)


def test_a_refusal_said_again_names_the_request_it_refuses() -> None:
    agent = Agent(
        llm=Script(REFUSAL, REFUSAL),  # type: ignore[arg-type]
        executor=ToolExecutor(ToolRegistry()),
        call_format=get_call_format("fence"),
        system_prompt="sys",
    )
    talk = agent.new_conversation("s")
    answers = []
    for prompt in ("snap a pic of the feeder", "and a video?"):
        events = run_turn(agent, prompt, talk)
        assert isinstance(events[-1], FinalAnswer)
        answers.append(events[-1].text)
    assert answers == [REFUSAL, REFUSAL.rstrip(".") + ' ("and a video?").']
    assert talk.messages[-1] == {"role": "assistant", "content": answers[-1]}


def test_anything_else_said_again_did_not_understand_the_request() -> None:
    log = "line 28: ok\nline 29: ok\nline 30: ok"
    assert unrepeated(log, prompt="print it out for me", earlier=["hi", log]) == (
        'Sorry, I did not understand "print it out for me". Could you say it another way?'
    )


def test_a_short_or_new_answer_stays() -> None:
    assert unrepeated("You're welcome!", prompt="thanks", earlier=["You're welcome!"]) == (
        "You're welcome!"
    )
    assert unrepeated(REFUSAL, prompt="snap a pic", earlier=["The strip is now red."]) == REFUSAL


def test_a_repeat_in_a_turn_that_left_no_trace_rewrites_no_earlier_answer() -> None:
    # The checks' refusals delete their turn from the history: the last assistant
    # message is then an earlier turn's, which must stay as it was.
    agent = Agent(
        llm=Script(),  # type: ignore[arg-type]
        executor=ToolExecutor(ToolRegistry()),
        call_format=get_call_format("fence"),
        system_prompt="sys",
    )
    talk = agent.new_conversation("s")
    talk.messages += [
        {"role": "user", "content": "snap a pic"},
        {"role": "assistant", "content": REFUSAL},
    ]
    talk.reword("and a video?", REFUSAL, "new words")
    assert talk.messages[-1] == {"role": "assistant", "content": REFUSAL}
    talk.messages.append({"role": "user", "content": "and a video?"})
    talk.reword("and a video?", REFUSAL, "new words")
    assert talk.messages[-1] == {"role": "user", "content": "and a video?"}


class Forecast:
    @tool(title="the weather forecast")
    def weather(self, location: Annotated[str, Field(json_schema_extra=USER_WORDS)]) -> str:
        """The forecast for a place."""
        return f"Rain in {location}."


def test_a_question_back_that_left_no_trace_is_not_asked_again_word_for_word() -> None:
    # "Which location do you mean?" leaves no trace in the history, and was asked
    # again two turns later, word for word (fresh42).
    guess = '```json\n{"name": "weather", "arguments": {"location": "Oslo"}}\n```'
    agent = Agent(
        llm=Script(guess, guess),  # type: ignore[arg-type]
        executor=ToolExecutor(ToolRegistry(tools_from(Forecast(), plugin="test"))),
        call_format=get_call_format("fence"),
        system_prompt="sys",
    )
    talk = agent.new_conversation("s")
    first = run_turn(agent, "will it rain on sunday?", talk)[-1]
    again = run_turn(agent, "what's the difference between weather and climate?", talk)[-1]
    assert isinstance(first, FinalAnswer) and first.text.startswith("Which location")
    assert isinstance(again, FinalAnswer) and again.text == (
        "Sorry, I did not understand \"what's the difference between weather and "
        'climate?". Could you say it another way?'
    )
    talk.clear()
    assert talk.answered == []
