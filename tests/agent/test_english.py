"""A place written in another script reaches a tool that wants it in English in
English, where the model's name for it is how it reads (edgeagent.agent.english)."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from edgeagent.agent.checks import SideChecks
from edgeagent.agent.english import in_english
from edgeagent.agent.loop import Agent
from edgeagent.llm.base import InProcessLLM
from edgeagent.llm.scripted import ScriptedEngine
from edgeagent.tools import tool, tools_from
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import USER_WORDS
from tests.agent.scripted_agent import run_turn
from tests.agent.test_honesty import fence, final


class Forecast:
    def __init__(self) -> None:
        self.asked: list[str] = []

    @tool(name="weather", answer=lambda r: f"{r['place']}: sunny")
    def weather(self, location: str, note: str = "") -> dict[str, Any]:
        """Forecast for a place."""
        self.asked.append(location)
        return {"place": location}


def registry_for(forecast: Forecast, *, english: bool = True) -> ToolRegistry:
    (weather,) = tools_from(forecast, plugin="test")
    weather = dataclasses.replace(
        weather,
        parameters={
            **weather.parameters,
            "properties": {
                **weather.parameters["properties"],
                "location": {**weather.parameters["properties"]["location"], **USER_WORDS},
            },
        },
        in_english=("location",) if english else (),
    )
    return ToolRegistry([weather])


NAMES = {
    "北京": "Beijing",
    "大阪": "Osaka",
    "横浜": "Osaka",  # measured: the one place the model named wrong
    "서울": "Seoul",
    "Москва": "Moscow",
    "上海": "Paris",
}
SAME = [(r'Is "大阪" the same place as Osaka\?', "yes")]  # every other pair: "no"


def engine_for(replies: dict[str, str]) -> ScriptedEngine:
    return ScriptedEngine(
        [
            (rf'What is the place "{native}" called in English\?', said)
            for native, said in replies.items()
        ]
        + SAME
        + [
            (r"^北京明天", fence("weather", location="北京")),
            (r"^大阪", fence("weather", location="大阪")),
        ],
        default="no",
        context_window=4096,
    )


def english(
    calls: list[ToolCall], engine: ScriptedEngine, registry: ToolRegistry
) -> list[ToolCall]:
    checks = SideChecks(llm=InProcessLLM(engine), registry=registry)
    return asyncio.run(in_english(calls, checks=checks, session="s"))


@pytest.mark.parametrize(
    ("written", "given"),
    [
        ("北京", "Beijing"),  # reads as BeiJing
        ("서울", "Seoul"),
        ("Москва", "Moscow"),
        # Kanji read as Chinese (DaBan): the model, asked alone, says they are the same.
        ("大阪", "Osaka"),
        ("横浜", "横浜"),  # ... and that these are not
        ("上海", "上海"),  # the model's "Paris" is not how it reads, nor the same
        ("Berlin", "Berlin"),  # Latin letters: not asked
        ("Łódź", "Łódź"),  # nor Latin letters with marks (Open-Meteo wants them)
        ("Tromsø", "Tromsø"),
    ],
)
def test_a_name_in_another_script_is_given_in_english_where_it_reads_so(
    written: str, given: str
) -> None:
    forecast = Forecast()
    engine = engine_for(NAMES)
    (call,) = english([ToolCall("weather", {"location": written})], engine, registry_for(forecast))
    assert call.arguments == {"location": given}
    asked = [r for r in engine.requests if "called in English" in str(r.messages[-1]["content"])]
    assert len(asked) == (0 if written in ("Berlin", "Łódź", "Tromsø") else 1)


def test_only_the_parameters_a_tool_names_are_given_in_english() -> None:
    forecast = Forecast()
    engine = engine_for(NAMES)
    calls = [ToolCall("weather", {"location": "北京", "note": "北京"})]
    (call,) = english(calls, engine, registry_for(forecast))
    assert call.arguments == {"location": "Beijing", "note": "北京"}
    (call,) = english(calls, engine, registry_for(forecast, english=False))
    assert call.arguments == {"location": "北京", "note": "北京"}


def test_a_sentence_is_no_name() -> None:
    # Without a grammar (the Hailo path) the model may answer in a sentence.
    forecast = Forecast()
    engine = engine_for({"北京": "The place in English is Beijing."})
    (call,) = english([ToolCall("weather", {"location": "北京"})], engine, registry_for(forecast))
    assert call.arguments == {"location": "北京"}


def test_the_forecast_for_a_place_written_in_chinese_is_asked_in_english() -> None:
    forecast = Forecast()
    agent = Agent(
        llm=InProcessLLM(engine_for(NAMES)),
        executor=ToolExecutor(registry_for(forecast)),
        call_format=get_call_format("fence"),
        system_prompt="sys",
    )
    answer = final(run_turn(agent, "北京明天天气怎么样？"))
    assert forecast.asked == ["Beijing"]
    assert answer.text == "Beijing: sunny"
