"""A read that is half of a request that then acts: "take a third of that and use it as
the brightness" ran ``math`` and its answer ended the turn, the strip as it was."""

from __future__ import annotations

import json
from typing import Any

from edgeagent.agent.events import FinalAnswer, TextChunk
from edgeagent.agent.loop import Agent
from edgeagent.errors import ToolError
from edgeagent.tools import tool, tools_from
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import Tool
from tests.agent.scripted_agent import run_turn
from tests.agent.stub_llm import StubLLM


def fence(name: str, **arguments: Any) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


class Strip:
    def __init__(self) -> None:
        self.brightness = 60
        self.set: list[int] = []

    @tool(
        kind="act",
        title="the LED strip (lights, lamp, colors, brightness)",
        answer=lambda b: f"The strip is now at {b}%.",
    )
    def led(self, brightness: int) -> int:
        """Set the strip's brightness."""
        if brightness > 100:
            raise ToolError(f"brightness {brightness} is over 100")
        self.set.append(brightness)
        self.brightness = brightness
        return brightness

    @tool(answer=lambda b: f"The strip is at {b}%.")
    def led_state(self) -> int:
        """Read the strip."""
        return self.brightness


class Calc:
    @tool(answer=lambda r: f"= {r:g}")
    def math(self, expression: str) -> float:
        """Calculate."""
        return float(eval(expression, {}))  # the test's own expressions


class Script(StubLLM):
    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.requests: list[Any] = []

    async def stream(self, request: Any) -> Any:
        self.requests.append(request)
        yield self.replies.pop(0)


def scripted_agent(script: Script, tools: list[Tool], *, act_grammar: str | None = None) -> Agent:
    """An agent that writes ``script``'s replies and calls ``tools``."""
    return Agent(
        llm=script,  # type: ignore[arg-type]
        executor=ToolExecutor(ToolRegistry(tools)),
        call_format=get_call_format("fence"),
        system_prompt="sys",
        act_grammar=act_grammar,
    )


def strip_and_calc(strip: Strip) -> list[Tool]:
    return [*tools_from(strip, plugin="led"), *tools_from(Calc(), plugin="math")]


def turn(script: Script, strip: Strip, prompt: str, *, act_grammar: str | None = None) -> list[Any]:
    agent = scripted_agent(script, strip_and_calc(strip), act_grammar=act_grammar)
    return run_turn(agent, prompt, agent.new_conversation("s"))


def final(events: list[Any]) -> FinalAnswer:
    assert isinstance(events[-1], FinalAnswer), events
    return events[-1]


def test_a_computed_brightness_is_set_after_the_computation() -> None:
    strip = Strip()
    script = Script(fence("math", expression="90 / 3"), fence("led", brightness=30))
    answer = final(turn(script, strip, "now take a third of 90 and use it as the brightness"))
    assert strip.set == [30]
    assert answer.text == "= 30\nThe strip is now at 30%."


def test_with_a_grammar_the_step_after_the_computation_must_call_an_acting_tool() -> None:
    strip = Strip()
    script = Script(fence("math", expression="4 * 10"), fence("led", brightness=40))
    answer = final(turn(script, strip, "put the light at that many times ten", act_grammar="act"))
    assert [r.grammar for r in script.requests] == [None, "act"]
    assert strip.set == [40] and answer.text == "= 40\nThe strip is now at 40%."


def test_a_computed_level_lowered_to_is_set_too() -> None:
    strip = Strip()
    script = Script(fence("math", expression="200 / 8"), fence("led", brightness=25))
    answer = final(turn(script, strip, "divide 200 by 8 and lower the strip to that"))
    assert strip.set == [25] and answer.text == "= 25\nThe strip is now at 25%."


def test_a_computation_the_model_then_only_talks_about_keeps_its_built_answer() -> None:
    strip = Strip()
    script = Script(fence("math", expression="90 / 3"), "The brightness is now 30%.")
    events = turn(script, strip, "take a third of 90 and set the lamp to that")
    assert strip.set == []
    assert final(events).text == "= 30"  # not the claim nothing backs
    assert not [e for e in events if isinstance(e, TextChunk)]


def test_a_failed_act_after_the_computation_is_told() -> None:
    strip = Strip()
    script = Script(fence("math", expression="90 * 3"), fence("led", brightness=270), "Done!")
    answer = final(turn(script, strip, "triple 90 and use it as the brightness"))
    assert strip.set == []
    assert answer.text == "= 270\nSorry, that did not work: led failed: brightness 270 is over 100."


def test_a_level_halved_or_doubled_by_a_computation_is_set_too() -> None:
    # "ok now halve the brightness" and "bit brighter, double it" ran math alone (blind
    # prompts).
    strip = Strip()
    script = Script(fence("math", expression="60 / 2"), fence("led", brightness=30))
    answer = final(turn(script, strip, "ok now halve the brightness"))
    assert strip.set == [30] and answer.text == "= 30\nThe strip is now at 30%."


def test_a_question_about_a_computed_level_acts_on_nothing() -> None:
    strip = Strip()
    script = Script(fence("math", expression="60 * 2"))
    answer = final(turn(script, strip, "what's double the brightness of 60?"))
    assert answer.text == "= 120" and strip.set == [] and len(script.requests) == 1


def test_a_computation_without_an_act_ends_the_turn() -> None:
    strip = Strip()
    script = Script(fence("math", expression="90 / 3"))
    answer = final(turn(script, strip, "what's a third of the lamp's 90 watts?"))
    assert answer.text == "= 30" and len(script.requests) == 1


def test_a_read_of_the_device_itself_is_the_answer() -> None:
    strip = Strip()
    script = Script(fence("led_state"))
    answer = final(turn(script, strip, "what brightness did you set the strip to?"))
    assert answer.text == "The strip is at 60%." and strip.set == []
    assert len(script.requests) == 1
