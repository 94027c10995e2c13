"""An acting call for a request that names the last result's value ("at that
percentage", "that many degrees") is given that value
(:func:`edgeagent.agent.carried.value_named_back`): "put the lights on at that
percentage", after a square root of 12, came as ``brightness: 50`` (fresh47)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from edgeagent.agent.carried import value_named_back
from edgeagent.agent.loop import Agent
from edgeagent.llm.base import InProcessLLM
from edgeagent.llm.scripted import ScriptedEngine
from edgeagent.tools import tool, tools_from
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from tests.agent.scripted_agent import run_turn


class Bench:
    def __init__(self) -> None:
        self.levels: list[int] = []

    @tool(name="lamp", kind="act", title="the lamp", answer=lambda r: f"Lamp at {r}%.")
    def lamp(self, brightness: int = 100, on: bool = True) -> int:
        """Dim the lamp."""
        self.levels.append(brightness)
        return brightness

    @tool(name="math")
    def math(self, expression: str) -> dict[str, Any]:
        """Calculate."""
        return {"expression": expression, "result": 12}


def registry() -> ToolRegistry:
    return ToolRegistry(tools_from(Bench(), plugin="test"))


@pytest.mark.parametrize(
    ("request_", "earlier", "written", "runs"),
    [
        ("put the lights on at that percentage", [{"result": 12}], 50, 12),
        ("set the lamp to that number", [{"expression": "6 * 7", "result": 42}], 40, 42),
        ("point the camera that many degrees to the right", [{"result": 15}], 30, 15),
        ("same number as the camera angle", [{"angle": 45}], 30, 30),  # no "that number"
        ("now set it to double that angle", [{"angle": 20}], 40, 40),  # computed from it
        ("that result divided by six", [{"result": 60}], 10, 10),  # computed from it
        ("now turn it back the same amount the other way", [{"angle": 20}], 50, 50),
        ("dim it to that value", [{"angle": 45}], 45, 45),  # already so
        ("that percentage, no, 30", [{"result": 12}], 30, 30),  # a number said
        ("lamp at that percentage", [{"a": 1, "b": 2}], 50, 50),  # several numbers
        ("lamp at that percentage", [], 50, 50),  # nothing earlier
        ("lamp at that percentage", ["12 lines"], 50, 50),  # a text, not a number
    ],
)
def test_the_last_results_value_named_back_is_the_one_that_runs(
    request_: str, earlier: list[Any], written: int, runs: int
) -> None:
    call = ToolCall("lamp", {"brightness": written, "on": True})
    named = value_named_back(registry(), call, request_, earlier)
    assert named.arguments == {"brightness": runs, "on": True}


def test_a_read_call_is_left_as_written() -> None:
    call = ToolCall("math", {"expression": "50"})
    assert value_named_back(registry(), call, "that number", [{"result": 12}]) is call


def fence(name: str, **arguments: Any) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def test_a_conversation_sets_the_lamp_to_the_result_named_back() -> None:
    bench = Bench()
    engine = ScriptedEngine(
        [
            (r"^what's the square root of 144", fence("math", expression="sqrt(144)")),
            (r"^put the lamp on at that percentage", fence("lamp", brightness=50)),
        ],
        default="yes",
        context_window=4096,
    )
    agent = Agent(
        llm=InProcessLLM(engine),
        executor=ToolExecutor(ToolRegistry(tools_from(bench, plugin="test"))),
        call_format=get_call_format("fence"),
        system_prompt="sys",
        check_target=True,
    )
    conversation = agent.new_conversation("s")
    run_turn(agent, "what's the square root of 144", conversation)
    said = run_turn(agent, "put the lamp on at that percentage", conversation)[-1].text
    assert bench.levels == [12]
    assert said == "Lamp at 12%."
