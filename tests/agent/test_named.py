"""A request that names the acting tool's device itself faces no side question, nor a
read tool's topic its topic question (:attr:`edgeagent.tools.tool.Tool.named_in`); a
value nobody said, for a request that does not name it, is a guess
(:attr:`~edgeagent.tools.tool.Tool.said_in`)."""

from __future__ import annotations

import dataclasses

import pytest
from edgeagent_led.names import names_the_strip
from edgeagent_math.named import names_a_calculation

from edgeagent.agent.loop import Agent
from edgeagent.llm.base import InProcessLLM
from edgeagent.llm.scripted import Rule, ScriptedEngine
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import make_tool, tool
from tests.agent.scripted_agent import run_turn
from tests.agent.test_honesty import Strip, fence, final, make


def named_agent(rules: list[Rule]) -> tuple[Agent, ScriptedEngine, Strip]:
    """An agent whose ``led`` is named by the LED plugin's words, every side question
    answered "no"."""
    agent, engine, strip = make([(r"Answer yes or no", "no"), *rules], named_in=names_the_strip)
    agent.check_target = True
    return agent, engine, strip


def test_a_call_for_a_request_that_names_the_light_runs_without_a_side_question() -> None:
    agent, engine, strip = named_agent([(r"(?i)sky blue", fence("led", color="skyblue"))])
    answer = final(run_turn(agent, "so dreary in here, could the light be sky blue?"))
    assert strip.commands == ["skyblue"]
    assert answer.text == "The LED strip is now skyblue."
    assert not any(r.aside for r in engine.requests)


@pytest.mark.parametrize(
    ("prompt", "color"),
    [
        # the request names no light: the side question's "no" stands
        ("alarm phase: red, 100%", "red"),
        # it names a light, but the model chose a value nobody said
        ("make the lights feel like a Tuesday", "blue"),
        # another device's light
        ("switch on the heat lamp in the shed", "orange"),
    ],
)
def test_a_call_the_request_does_not_name_still_faces_the_side_questions(
    prompt: str, color: str
) -> None:
    agent, engine, strip = named_agent([(r".", fence("led", color=color))])
    answer = final(run_turn(agent, prompt))
    assert strip.commands == []
    assert answer.text.startswith("I can't do that here")
    assert any(r.aside for r in engine.requests)


def guessing_agent(rules: list[Rule]) -> tuple[Agent, ScriptedEngine, Strip]:
    """An agent whose ``led`` says its values (French colours), every side question
    answered "yes"."""
    agent, engine, strip = make(
        [(r"Answer yes or no", "yes"), *rules],
        named_in=names_the_strip,
        said_in=lambda request: {"pink"} if "rose" in request else set(),
    )
    agent.check_target = True
    return agent, engine, strip


@pytest.mark.parametrize(
    "prompt", ["¿Puedes encender el ahumador?", "Tu peux aussi ouvrir la fenêtre ?"]
)
def test_an_acting_call_with_a_value_nobody_said_is_refused(prompt: str) -> None:
    # The smoker and the window came as the LED in red, and both questions said yes.
    agent, engine, strip = guessing_agent([(r".", fence("led", color="red"))])
    answer = final(run_turn(agent, prompt))
    assert strip.commands == []
    assert answer.text == "I can't do that here: none of my devices can do that."
    assert not any(r.aside for r in engine.requests)  # refused before any question


@pytest.mark.parametrize(
    ("prompt", "color"),
    [
        ("make it red please", "red"),
        ("Mets la bande en rose", "pink"),  # said in another language (said_in)
        ("could the light be red?", "red"),  # named: no question, and red was said
        ("the lights please, warm white", "white"),
    ],
)
def test_an_acting_call_with_values_the_user_said_runs(prompt: str, color: str) -> None:
    agent, _, strip = guessing_agent([(r".", fence("led", color=color))])
    final(run_turn(agent, prompt))
    assert strip.commands == [color]


def test_a_value_said_in_an_earlier_turn_counts_as_said() -> None:
    agent, _, strip = guessing_agent([(r".", fence("led", color="teal"))])
    conversation = agent.new_conversation("g1")
    final(run_turn(agent, "teal, please", conversation))
    final(run_turn(agent, "again, do it once more", conversation))
    assert strip.commands == ["teal", "teal"]


def topic_agent(rules: list[Rule]) -> tuple[Agent, ScriptedEngine, list[str]]:
    """An agent with a titled read tool (``math``) named by the math plugin's words,
    every side question answered "no"."""
    asked: list[str] = []

    @tool(name="math", title="a math problem to calculate", answer=lambda r: f"= {r}")
    def math(expression: str) -> int:
        """Evaluate arithmetic."""
        asked.append(expression)
        return 100

    engine = ScriptedEngine([(r"Answer yes or no", "no"), *rules], default="Okay.")
    registry = ToolRegistry([dataclasses.replace(make_tool(math), named_in=names_a_calculation)])
    agent = Agent(
        llm=InProcessLLM(engine),
        executor=ToolExecutor(registry),
        call_format=get_call_format("fence"),
        system_prompt="sys",
        check_target=True,
    )
    return agent, engine, asked


@pytest.mark.parametrize(
    ("prompt", "expression"),
    [
        ("what's 25 times 4?", "25 * 4"),
        ("(48 + 12) / 4 - 7", "(48 + 12) / 4 - 7"),
        # a number no float reads as written: compared as written
        ("what's 1,234.5 times 2", "1,234.5 * 2"),
    ],
)
def test_a_read_call_for_a_request_that_names_its_topic_skips_the_topic_question(
    prompt: str, expression: str
) -> None:
    agent, engine, asked = topic_agent([(r"^(?!Request)", fence("math", expression=expression))])
    answer = final(run_turn(agent, prompt))
    assert asked == [expression]
    assert answer.text == "= 100"
    assert not any(r.aside for r in engine.requests)


@pytest.mark.parametrize(
    ("prompt", "expression"),
    [
        # a number the request does not say: the model's own
        ("what is 18% of 250", "18 * 250 / 100"),
        # no calculation named or written
        ("73 means best regards, what does 88 mean", "ans * 73"),
    ],
)
def test_a_read_call_the_request_does_not_name_still_faces_the_topic_question(
    prompt: str, expression: str
) -> None:
    agent, engine, asked = topic_agent([(r"^(?!Request)", fence("math", expression=expression))])
    answer = final(run_turn(agent, prompt))
    assert asked == []
    assert answer.text.startswith("I can't do that here")
    assert any(r.aside for r in engine.requests)
