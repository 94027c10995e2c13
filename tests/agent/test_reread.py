"""A tool may read the request again for a value the model translates wrongly
(:attr:`~edgeagent.tools.tool.Tool.reread`), or fill in what a call names of earlier
results (:attr:`~edgeagent.tools.tool.Tool.recall`): the call runs with those values,
and the events and the answer show the call that ran."""

from __future__ import annotations

import dataclasses
from typing import Any

import edgeagent_math
import pytest

from edgeagent.agent.context import Conversation
from edgeagent.agent.events import FinalAnswer, ToolCallEvent
from edgeagent.agent.loop import Agent
from edgeagent.agent.review import NOTHING_EARLIER
from edgeagent.llm.base import InProcessLLM, Message
from edgeagent.llm.scripted import ScriptedEngine
from edgeagent.testing import load_plugin
from edgeagent.tools import tool, tools_from
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import Reread
from tests.agent.scripted_agent import call, run_turn


class Forecast:
    def __init__(self) -> None:
        self.days: list[str] = []

    @tool(answer=lambda r: f"Rain on {r}.")
    def weather(self, location: str, day: str = "today") -> str:
        """Forecast for a place."""
        self.days.append(day)
        return day


def said_tuesday(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    return {**arguments, "day": "tuesday"} if "martedì" in request else None


def broken(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    raise RuntimeError("a plugin bug")


def agent_for(forecast: Forecast, *, reread: Reread | None = said_tuesday) -> Agent:
    tools = tools_from(forecast, plugin="test")
    if reread is not None:
        tools = [dataclasses.replace(t, reread=reread) for t in tools]
    engine = ScriptedEngine(
        [("(?i)verona", call("weather", location="Verona", day="tomorrow"))], default="?"
    )
    return Agent(
        llm=InProcessLLM(engine),
        executor=ToolExecutor(ToolRegistry(tools)),
        call_format=get_call_format("json"),
        system_prompt="sys",
    )


def test_a_value_the_request_says_otherwise_runs_as_the_request_says_it() -> None:
    forecast = Forecast()
    events = run_turn(agent_for(forecast), "Che tempo farà a Verona martedì?")
    assert forecast.days == ["tuesday"]
    shown = [e for e in events if isinstance(e, ToolCallEvent)]
    assert [e.arguments for e in shown] == [{"location": "Verona", "day": "tuesday"}]
    answer = events[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == "Rain on tuesday."
    assert answer.tool_calls[0]["arguments"]["day"] == "tuesday"


def test_a_request_that_says_nothing_else_leaves_the_call_as_written() -> None:
    forecast = Forecast()
    run_turn(agent_for(forecast), "weather in Verona tomorrow")
    assert forecast.days == ["tomorrow"]


def test_a_tool_without_reread_runs_the_model_s_value() -> None:
    forecast = Forecast()
    run_turn(agent_for(forecast, reread=None), "Che tempo farà a Verona martedì?")
    assert forecast.days == ["tomorrow"]


def test_a_reread_that_raises_is_logged_and_the_call_runs_as_written(
    caplog: pytest.LogCaptureFixture,
) -> None:
    forecast = Forecast()
    events = run_turn(agent_for(forecast, reread=broken), "Che tempo farà a Verona martedì?")
    assert forecast.days == ["tomorrow"]
    assert isinstance(events[-1], FinalAnswer) and events[-1].text == "Rain on tomorrow."
    assert "weather: the reread hook failed" in caplog.text


def test_a_name_of_an_earlier_result_runs_as_the_number_a_tool_gave() -> None:
    # After 7 * 8 = 56, "minus six?" came as ``6 - 6``; written ``ans - 6`` it runs as
    # ``56 - 6``, and the answer shows the number the tool gave, not the name.
    loaded = load_plugin(edgeagent_math, name="math")
    engine = ScriptedEngine(
        [
            ("(?i)seven times eight", call("math", expression="7 * 8")),
            ("(?i)minus six", call("math", expression="ans - 6")),
        ],
        default="?",
    )
    agent = Agent(
        llm=InProcessLLM(engine),
        executor=ToolExecutor(loaded.registry),
        call_format=get_call_format("json"),
        system_prompt="sys",
    )
    conversation = agent.new_conversation("sums")
    run_turn(agent, "what's seven times eight", conversation)
    events = run_turn(agent, "minus six?", conversation)
    shown = [e for e in events if isinstance(e, ToolCallEvent)]
    assert [e.arguments for e in shown] == [{"expression": "56 - 6"}]
    answer = events[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == "56 - 6 = 50"
    # In a new conversation there is no earlier result: nothing runs, and the answer
    # says so (.review.nothing_earlier).
    events = run_turn(agent, "minus six?", agent.new_conversation("fresh"))
    assert not [e for e in events if isinstance(e, ToolCallEvent)]
    assert isinstance(events[-1], FinalAnswer) and events[-1].text == NOTHING_EARLIER
    loaded.close()


def test_a_conversation_s_results_are_its_successful_calls_only() -> None:
    primer: list[Message] = [
        {"role": "user", "content": "set the lamp to green"},
        {"role": "tool", "content": '{"ok": true, "result": {"brightness": 100}}'},
    ]
    conversation = Conversation.start("sys", session_id="r", primer=primer)
    conversation.messages += [
        {"role": "user", "content": "a"},
        {"role": "tool", "content": '{"ok": true, "result": {"angle": 30}}'},
        {"role": "tool", "content": '{"ok": false, "error": "no such file"}'},
        {"role": "tool", "content": '{"ok": true, "result": "2 notes.txt"}'},
        {"role": "tool", "content": "not json"},
    ]
    assert conversation.results() == [{"angle": 30}, "2 notes.txt"]


def test_a_call_the_executor_would_move_is_read_first_by_the_tool_the_model_named() -> None:
    # "undo that last change to the light" came as led with back: true, the servo's
    # argument: moved to the servo, it turned the camera back; the LED reads it as its
    # own undo, and the strip returns to where it was.
    import edgeagent_led
    import edgeagent_servo

    led = load_plugin(edgeagent_led, name="led", options={"backend": "mock"})
    servo = load_plugin(edgeagent_servo, name="servo", options={"backend": "mock"})
    registry = ToolRegistry([*led.registry, *servo.registry])
    engine = ScriptedEngine(
        [
            ("(?i)green at 90", call("led", color="green", brightness=90)),
            ("(?i)down to 20", call("led", brightness=20)),
            ("(?i)undo", call("led", back=True)),
            ("(?i)dim them", call("servo", brightness=35)),
        ],
        default="?",
    )
    agent = Agent(
        llm=InProcessLLM(engine),
        executor=ToolExecutor(registry),
        call_format=get_call_format("json"),
        system_prompt="sys",
    )
    conversation = agent.new_conversation("lamp")
    run_turn(agent, "the light green at 90", conversation)
    run_turn(agent, "light down to 20", conversation)
    answer = run_turn(agent, "undo that last change to the light", conversation)[-1]
    assert isinstance(answer, FinalAnswer)
    assert answer.text == "The LED strip is now green at 90% brightness."
    # A call moved to the tool that takes its arguments is read by that tool too.
    answer = run_turn(agent, "dim them to half as bright", conversation)[-1]
    assert isinstance(answer, FinalAnswer)
    assert answer.text == "The LED strip is now green at 45% brightness."
    led.close()
    servo.close()
