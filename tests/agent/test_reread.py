"""A tool may read the request again for a value the model translates wrongly
(:attr:`~edgeagent.tools.tool.Tool.reread`): the call runs with the request's value, and
the events and the answer show the call that ran."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from edgeagent.agent.events import FinalAnswer, ToolCallEvent
from edgeagent.agent.loop import Agent
from edgeagent.llm.base import InProcessLLM
from edgeagent.llm.scripted import ScriptedEngine
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
    assert "weather: reading the request again failed" in caplog.text
