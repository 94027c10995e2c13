"""A read call whose user's words all come from an earlier turn is asked for only by a
request its tool's ``asked_in`` reads as asking (``carried.carried``): "guess i'm
packing a raincoat then", after a forecast, came as the same forecast again (blind
prompts); "how about Bergen?" names its own place and faces the topic question only."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Annotated, Any

from pydantic import Field

from edgeagent.agent.loop import Agent
from edgeagent.llm.base import InProcessLLM
from edgeagent.llm.scripted import ScriptedEngine
from edgeagent.tools import tool, tools_from
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import USER_WORDS
from tests.agent.scripted_agent import run_turn


def fence(name: str, **arguments: Any) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


class Forecasts:
    def __init__(self) -> None:
        self.asked: list[str] = []

    @tool(name="weather", title="the forecast", answer=lambda r: f"{r}: rain.")
    def weather(
        self, location: Annotated[str, Field(json_schema_extra=USER_WORDS)], day: str = "today"
    ) -> str:
        """Daily forecast."""
        self.asked.append(location)
        return location


def answers(*prompts: str, follow_up: str) -> tuple[list[str], list[str]]:
    """The answers to ``prompts``; every call's topic question says yes, and the last
    prompt's call is ``follow_up``."""
    forecasts = Forecasts()
    engine = ScriptedEngine(
        [
            (r"^Request: ", "yes"),
            (r"^weather in Oslo tomorrow", fence("weather", location="Oslo", day="tomorrow")),
            (rf"^{prompts[-1]}", follow_up),
        ],
        default="no",
        context_window=4096,
    )
    asks = [replace(t, asked_in=lambda r: "?" in r) for t in tools_from(forecasts, plugin="t")]
    agent = Agent(
        llm=InProcessLLM(engine),
        executor=ToolExecutor(ToolRegistry(asks)),
        call_format=get_call_format("fence"),
        system_prompt="sys",
        check_target=True,
    )
    conversation = agent.new_conversation("s")
    said = [run_turn(agent, p, conversation)[-1].text for p in prompts]
    return said, forecasts.asked


def test_a_call_carried_from_earlier_for_a_request_that_asks_none_is_refused() -> None:
    again = fence("weather", location="Oslo", day="tomorrow")
    said, asked = answers(
        "weather in Oslo tomorrow", "guess I'm packing a raincoat", follow_up=again
    )
    assert asked == ["Oslo"]
    assert said[1].startswith("I can't do that here")


def test_a_call_carried_from_earlier_for_a_request_that_asks_runs() -> None:
    again = fence("weather", location="Oslo", day="friday")
    said, asked = answers("weather in Oslo tomorrow", "and friday?", follow_up=again)
    assert asked == ["Oslo", "Oslo"]
    assert said[1] == "Oslo: rain."


def test_a_call_of_a_place_the_request_names_faces_the_topic_question_only() -> None:
    # The request asks nothing by asked_in's lights, but it names the place.
    bergen = fence("weather", location="Bergen", day="today")
    said, asked = answers("weather in Oslo tomorrow", "same for Bergen", follow_up=bergen)
    assert asked == ["Oslo", "Bergen"]
    assert said[1] == "Bergen: rain."


def test_a_number_in_groups_of_three_reads_as_thousands_and_as_a_decimal() -> None:
    from edgeagent.agent.carried import number, numbers_in

    def said(value: float, text: str) -> bool:
        return number(str(value)) in numbers_in(text)

    assert said(12400, "we budgeted 12,400 for the year")
    assert said(12.4, "we budgeted 12,400 for the year")
    assert said(1250000, "1,250,000 people")
    assert said(30.5, "it was 30,5 degrees")
    assert not said(305, "it was 30,5 degrees")
    assert not said(1240, "12,40 and 7")
