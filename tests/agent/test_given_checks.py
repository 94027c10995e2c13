"""A read call on numbers nobody gave (``Tool.given_in``): "how many planets are in the
solar system?" came as ``math`` with ``50 * 3`` (fresh72); the model, asked alone
whether the request is a unit conversion, says no, and nothing runs."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from edgeagent_math.given import gives_numbers

from edgeagent.agent.loop import Agent
from edgeagent.llm.base import InProcessLLM
from edgeagent.llm.scripted import Rule, ScriptedEngine
from edgeagent.tools import tool, tools_from
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from tests.agent.scripted_agent import run_turn
from tests.agent.test_honesty import fence, final

CONVERSION = r"Is this a unit conversion\?"


class Calculator:
    """A titled read tool that says when a request gives its numbers."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    @tool(name="math", title="a math problem", answer=lambda r: f"= {r['result']}")
    def math(self, expression: str) -> dict[str, Any]:
        """Evaluate arithmetic."""
        self.asked.append(expression)
        return {"result": {"45*9": 405}.get(expression, 1)}


def agent_for(rules: list[Rule]) -> tuple[Agent, Calculator, ScriptedEngine]:
    calculator = Calculator()
    (math,) = tools_from(calculator, plugin="test")
    math = dataclasses.replace(math, given_in=gives_numbers, given_otherwise="a unit conversion")
    engine = ScriptedEngine(
        [
            *rules,
            (r"Is this request about a math problem\?", "yes"),
            (r"^how many planets", fence("math", expression="50 * 3")),
            (r"^how many seconds", fence("math", expression="7 * 24 * 60 * 60")),
            (r"^what is 12 times 4", fence("math", expression="12 * 4")),
            (r"^45 minutes", fence("math", expression="45*9")),
            (r"^and for a week of that", fence("math", expression="405 * 7")),
            (r"^and twice that", fence("math", expression="405 * 2")),
        ],
        default="no",
        context_window=4096,
    )
    agent = Agent(
        llm=InProcessLLM(engine),
        executor=ToolExecutor(ToolRegistry([math])),
        call_format=get_call_format("fence"),
        system_prompt="sys",
        check_target=True,
    )
    return agent, calculator, engine


def asked_kind(engine: ScriptedEngine) -> list[str]:
    return [
        str(r.messages[-1]["content"])
        for r in engine.requests
        if "unit conversion" in str(r.messages[-1]["content"])
    ]


def test_a_calculation_on_numbers_nobody_gave_is_refused_when_it_is_no_conversion() -> None:
    agent, calculator, engine = agent_for([(CONVERSION, "no")])
    answer = final(run_turn(agent, "how many planets are in the solar system?"))
    assert calculator.asked == []
    assert answer.text == "I can't do that here: math is for a math problem, not for this."
    assert len(asked_kind(engine)) == 1


def test_a_conversion_that_gives_no_number_runs() -> None:
    agent, calculator, _ = agent_for([(CONVERSION, "yes")])
    final(run_turn(agent, "how many seconds are in a week"))
    assert calculator.asked == ["7 * 24 * 60 * 60"]


def test_a_request_that_gives_its_numbers_is_not_asked_whether_it_converts() -> None:
    agent, calculator, engine = agent_for([(CONVERSION, "no")])
    final(run_turn(agent, "what is 12 times 4"))
    assert calculator.asked == ["12 * 4"]
    assert asked_kind(engine) == []


def test_a_call_that_goes_on_from_the_turn_befores_result_is_not_asked() -> None:
    # "405" is the result the follow-up goes on from; "7" nobody gave.
    agent, calculator, engine = agent_for([(CONVERSION, "no")])
    conversation = agent.new_conversation("s")
    final(run_turn(agent, "45 minutes at 9 a minute?", conversation))
    final(run_turn(agent, "and for a week of that", conversation))
    assert calculator.asked == ["45*9", "405 * 7"]
    assert asked_kind(engine) == []


def test_only_numbers_nobody_gave_are_asked_about_in_a_conversation_too() -> None:
    agent, calculator, engine = agent_for([(CONVERSION, "no")])
    conversation = agent.new_conversation("s")
    final(run_turn(agent, "45 minutes at 9 a minute?", conversation))
    answer = final(run_turn(agent, "how many planets are in the solar system?", conversation))
    assert calculator.asked == ["45*9"]
    assert asked_kind(engine) == [
        'Request: "how many planets are in the solar system?"\n'
        "Is this a unit conversion? Answer yes or no."
    ]
    assert answer.text.startswith("I can't do that here")


@pytest.mark.parametrize(
    ("request_", "gives"),
    [
        ("how many planets are in the solar system?", False),
        ("what's the boiling point of water in fahrenheit", False),
        ("¿Cuántos años tiene el universo?", False),
        ("how far is boston from new york roughly?", False),
        ("how many seconds are in a week", False),
        ("what is 12 times 4", True),
        ("what is seven factorial", True),
        ("Ile to jest dwanaście do potęgi trzeciej?", True),  # Polish, which text2num lacks
        ("sju gånger åtta", True),  # Swedish
        ("und die Hälfte davon?", True),
        ("now double that", True),
        ("三百六十五乘以二十四是多少？", True),
        ("dwadzieścia razy trzy", True),
        ("what's 15% of it", True),
    ],
)
def test_gives_numbers(request_: str, gives: bool) -> None:
    assert gives_numbers(request_) is gives
