"""A call that names an earlier result in a conversation that holds none (math's
``ans`` on a first turn) is the model copying the primer's worked follow-up: it never
runs as written. It gets one look among the acting tools, whose call must hold only
values the request says; else the answer says there is nothing earlier, and the turn
leaves no trace in the history."""

from __future__ import annotations

from typing import Any

import edgeagent_math
import pytest

from edgeagent.agent.events import FinalAnswer, ToolCallEvent
from edgeagent.agent.loop import Agent
from edgeagent.agent.review import NOTHING_EARLIER
from edgeagent.testing import load_plugin
from edgeagent.tools import tool, tools_from
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from tests.agent.scripted_agent import run_turn
from tests.agent.stub_llm import StubLLM
from tests.agent.test_honesty import fence


class Strip:
    def __init__(self) -> None:
        self.levels: list[int] = []

    @tool(kind="act", title="the LED strip", answer=lambda r: f"The LED strip is now at {r}%.")
    def led(self, brightness: int) -> int:
        """Set the LED strip's brightness."""
        self.levels.append(brightness)
        return brightness


class Model(StubLLM):
    """Writes ``written`` unforced and ``forced`` under a grammar; says "yes" to every
    side question."""

    def __init__(self, *, written: str, forced: str) -> None:
        self.written, self.forced = written, forced
        self.grammars: list[str] = []

    async def stream(self, request: Any) -> Any:
        if request.aside:
            yield "yes"
        elif request.grammar:
            self.grammars.append(request.grammar)
            yield self.forced
        else:
            yield self.written


@pytest.fixture
def math_tools() -> Any:
    loaded = load_plugin(edgeagent_math, name="math")
    yield list(loaded.registry)
    loaded.close()


def agent_for(model: Model, strip: Strip, math_tools: list[Any], *, act: str | None) -> Agent:
    return Agent(
        llm=model,  # type: ignore[arg-type]
        executor=ToolExecutor(ToolRegistry([*math_tools, *tools_from(strip, plugin="test")])),
        call_format=get_call_format("fence"),
        system_prompt="sys",
        recheck_grammar="root ::= call",
        act_grammar=act,
        check_target=True,
    )


def test_a_first_turn_s_ans_is_looked_at_among_the_acting_tools(math_tools: Any) -> None:
    # "dim it to 20%" came as math("ans * 0.2"), failed, and was mended as "20% of 150".
    strip = Strip()
    model = Model(written=fence("math", expression="ans * 0.2"), forced=fence("led", brightness=20))
    agent = agent_for(model, strip, math_tools, act="root ::= act")
    events = run_turn(agent, "dim it to 20%")
    assert strip.levels == [20]
    assert [e.name for e in events if isinstance(e, ToolCallEvent)] == ["led"]
    answer = events[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == "The LED strip is now at 20%."
    assert model.grammars == ["root ::= act"]


def test_a_look_that_guesses_a_value_leaves_nothing_run(math_tools: Any) -> None:
    # "do the thing from before" came as math("ans * 3") and, looked at elsewhere,
    # read the servo.
    strip = Strip()
    model = Model(written=fence("math", expression="ans * 3"), forced=fence("led", brightness=60))
    agent = agent_for(model, strip, math_tools, act="root ::= act")
    conversation = agent.new_conversation("s")
    events = run_turn(agent, "do the thing from before", conversation)
    assert strip.levels == []
    assert not [e for e in events if isinstance(e, ToolCallEvent)]
    answer = events[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == NOTHING_EARLIER
    assert answer.tool_calls == []
    assert not conversation.turn_starts()  # no trace for the model to copy


def test_without_a_grammar_the_answer_says_there_is_nothing_earlier(math_tools: Any) -> None:
    strip = Strip()
    model = Model(written=fence("math", expression="ANS * 2"), forced=fence("led", brightness=40))
    events = run_turn(agent_for(model, strip, math_tools, act=None), "double it")
    assert strip.levels == [] and model.grammars == []
    answer = events[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == NOTHING_EARLIER
