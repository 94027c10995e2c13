"""Tool selection: with 40 tools loaded, each turn's manifest stays within
``[agent] max_manifest_tokens``, shows every local tool and the remote tools the request
is about, keeps what a conversation used, and changes nothing when all tools fit. With
``[agent] selected_tools = "after_primer"`` the remote tools are in a note after the
primer, so the conversation's start stays the same, byte for byte, whatever a turn
selects.

The agent is the one ``compose.build_agent`` assembles from a config, with the real
first-party plugins (LED and servo on their mock backends), 35 remote-style tools
(``plugin = "mcp:home"``) and the scripted model, which records every request it got.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Iterator
from typing import Annotated, Any

import pytest
from pydantic import Field

from edgeagent import compose
from edgeagent.agent.context import Conversation
from edgeagent.agent.events import Event, FinalAnswer
from edgeagent.agent.loop import Agent
from edgeagent.agent.prompt import render_manifest_text
from edgeagent.agent.selection import is_remote
from edgeagent.config import Config
from edgeagent.llm.base import InProcessLLM, Message
from edgeagent.llm.scripted import Rule, ScriptedEngine
from edgeagent.tools import Tool, make_tool, tool
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import ToolKind
from tests.agent.scripted_agent import call

BUDGET = 300
"""Manifest tokens (the scripted engine counts words): the local tools take about 180."""

# What a Home Assistant or calendar MCP server might bring, less the calendar tool below.
REMOTE = {
    "HassTurnOn": "Turns on, opens or presses a device or entity.",
    "HassTurnOff": "Turns off, closes or unlocks a device or entity.",
    "HassLightSet": "Sets the brightness or color of a Home Assistant light.",
    "HassClimateSetTemperature": "Sets the target temperature of a thermostat.",
    "HassClimateGetTemperature": "Gets the current temperature of an area.",
    "HassFanSetSpeed": "Sets a fan's speed by percentage.",
    "HassSetPosition": "Sets the position of blinds, curtains or a garage door.",
    "HassStartTimer": "Starts a new timer.",
    "HassCancelTimer": "Cancels a timer.",
    "HassTimerStatus": "Reports the status of the running timers.",
    "HassListAddItem": "Adds an item to a todo list or shopping list.",
    "HassListCompleteItem": "Checks off an item on a shopping list.",
    "HassMediaPause": "Pauses a media player.",
    "HassMediaUnpause": "Resumes a paused media player.",
    "HassMediaNext": "Skips a media player to the next track.",
    "HassSetVolume": "Sets the volume of a media player.",
    "HassVacuumStart": "Starts a vacuum cleaner.",
    "HassVacuumReturnToBase": "Sends a vacuum cleaner back to its dock.",
    "HassBroadcast": "Announces a message on the speakers of the house.",
    "GetLiveContext": "Gets the live state of the home's devices and sensors.",
    "get_current_time": "Gets the current time in a timezone.",
    "convert_time": "Converts a time between timezones.",
    "fetch": "Fetches a URL from the internet as markdown.",
    "web_search": "Searches the web for pages.",
    "wikipedia_summary": "Gets the summary of a Wikipedia article.",
    "create_note": "Saves a note.",
    "search_notes": "Searches saved notes.",
    "send_email": "Sends an email.",
    "read_email": "Reads the newest emails in the inbox.",
    "lock_door": "Locks the front door.",
    "unlock_door": "Unlocks the front door.",
    "doorbell_snapshot": "Takes a picture with the doorbell camera.",
    "plant_moisture": "Reads the soil moisture of the plants.",
    "car_battery": "Reads the charge of the car's battery.",
}
READERS = {"GetLiveContext", "get_current_time", "search_notes", "plant_moisture"}


class Calendar:
    """A remote calendar that records the requests it really received."""

    def __init__(self) -> None:
        self.requests: list[str] = []

    @tool
    def calendar_events(
        self, day: Annotated[str, Field(description="today, tomorrow or a date")] = "today"
    ) -> dict[str, Any]:
        """Lists the events on the user's calendar for a day."""
        self.requests.append(day)
        return {"day": day, "events": ["Dentist at 15:00"]}


def remote_tools(calendar: Calendar) -> list[Tool]:
    @tool(kind="act")
    def template(name: str = "", area: str = "") -> dict[str, Any]:
        """A remote tool."""
        return {"success": True}

    base = make_tool(template, plugin="mcp:home")
    tools = [
        dataclasses.replace(
            base, name=n, description=d, kind=ToolKind.READ if n in READERS else ToolKind.ACT
        )
        for n, d in REMOTE.items()
    ]
    return [*tools, make_tool(calendar.calendar_events, plugin="mcp:calendar")]


PLACES = ["system_prompt", "after_primer"]


def make_config(budget: int, always: list[str] | None = None, place: str = PLACES[0]) -> Config:
    return Config.model_validate(
        {
            "llm": {"backend": "scripted"},
            "agent": {
                "max_manifest_tokens": budget,
                "call_format": "json",
                "always_tools": always or [],
                "selected_tools": place,
            },
            "plugins": {"led": {"backend": "mock"}, "servo": {"backend": "mock"}},
            "tools": {"wrapped_dir": None},
        }
    )


RULES: list[Rule] = [
    ("Dentist", "You have the dentist at 15:00."),
    (r"(?i)calendar", call("calendar_events", day="today")),
    (r"(?i)tomorrow", call("calendar_events", day="tomorrow")),
    (r"(?i)red", call("led", color="red")),
]


@dataclasses.dataclass
class Rig:
    agent: Agent
    engine: ScriptedEngine
    calendar: Calendar
    tools: list[Tool]


@pytest.fixture
def rig_for() -> Iterator[Any]:
    closers: list[compose.ToolSet] = []

    def make(
        budget: int = BUDGET,
        *,
        remote: bool = True,
        always: list[str] | None = None,
        place: str = PLACES[0],
    ) -> Rig:
        config = make_config(budget, always, place)
        toolset = compose.build_tools(config)
        closers.append(toolset)
        calendar = Calendar()
        registry = ToolRegistry([*toolset.registry, *(remote_tools(calendar) if remote else [])])
        engine = ScriptedEngine(RULES, default="Hello!", context_window=4096)
        executor = compose.build_executor(config, registry)
        agent = compose.build_agent(
            config, llm=InProcessLLM(engine), executor=executor, registry=registry
        )
        return Rig(agent, engine, calendar, list(registry))

    yield make
    for toolset in closers:
        toolset.close()


def run(agent: Agent, prompt: str, conversation: Conversation) -> list[Event]:
    async def main() -> list[Event]:
        return [e async for e in agent.run(prompt, conversation=conversation, frontend="cli")]

    return asyncio.run(main())


def first_sent(rig: Rig, prompt: str, conversation: Conversation) -> list[Message]:
    """Run a turn; the messages of its first generation (side questions come later)."""
    start = len(rig.engine.requests)
    run(rig.agent, prompt, conversation)
    return list(rig.engine.requests[start].messages)


def shown_tools(system_prompt: str) -> list[str]:
    """The tool names of the manifest in a system message, in its order."""
    if "Tools:\n" not in system_prompt:
        return []
    manifest = system_prompt.split("Tools:\n", 1)[1].split("\n\n", 1)[0]
    return [re.match(r"\w+", line)[0] for line in manifest.splitlines()]  # type: ignore[index]


def shown(messages: list[Message]) -> list[str]:
    """Every tool the model was shown: the system prompt's, then the note's."""
    return [n for m in messages if m["role"] == "system" for n in shown_tools(m["content"])]


def tokens(rig: Rig, text: str) -> int:
    count = rig.engine.count_tokens
    return count([{"role": "system", "content": text}]) - count([{"role": "system", "content": ""}])


def manifest_tokens(rig: Rig, names: list[str]) -> int:
    by_name = {t.name: t for t in rig.tools}
    return tokens(rig, render_manifest_text([by_name[n] for n in names], "concise"))


def shown_tokens(rig: Rig, messages: list[Message]) -> int:
    """The manifest tokens a turn showed: the system prompt's tools and the note."""
    notes = [m["content"] for m in messages[1:] if m["role"] == "system"]
    return manifest_tokens(rig, shown_tools(messages[0]["content"])) + sum(
        tokens(rig, note) for note in notes
    )


@pytest.mark.parametrize("place", PLACES)
def test_forty_tools_stay_within_the_budget_and_show_every_local_tool(
    rig_for: Any, place: str
) -> None:
    rig = rig_for(place=place)
    assert len(rig.tools) >= 40
    local = sorted(t.name for t in rig.tools if not is_remote(t))
    assert {"led", "servo", "weather", "shell", "math"} <= set(local)
    assert manifest_tokens(rig, [t.name for t in rig.tools]) > BUDGET
    for prompt in ["what's on my calendar today?", "thanks!", "turn the lamp red", "fan on"]:
        conversation = rig.agent.new_conversation()
        sent = first_sent(rig, prompt, conversation)
        assert sent == conversation.messages[: len(sent)]
        assert shown_tokens(rig, sent) <= BUDGET, prompt
        names = shown(sent)
        assert names[: len(local)] == local, "local tools first, in registry order"
        assert len(names) < len(rig.tools)
        if place == "after_primer":
            assert shown_tools(sent[0]["content"]) == local
        else:
            assert shown_tools(sent[0]["content"]) == names


def test_the_start_of_every_conversation_stays_the_same_whatever_a_turn_selects(
    rig_for: Any,
) -> None:
    rig = rig_for(place="after_primer")
    asyncio.run(rig.agent.prepare())  # what the daemon does before priming the start
    start = rig.agent.new_conversation().messages
    assert len(start) > 1, "the primer follows the system prompt"
    assert shown_tools(start[0]["content"]) == [t.name for t in rig.tools if not is_remote(t)]
    selections = set()
    for prompt in ["what's on my calendar today?", "pause the media player", "hello there"]:
        sent = first_sent(rig, prompt, rig.agent.new_conversation())
        assert sent[: len(start)] == start, prompt  # the primed state serves every turn
        selections.add(tuple(shown(sent)))
    assert len(selections) == 3
    # Within a conversation a newly selected tool changes the note, never the start.
    conversation = rig.agent.new_conversation("hall")
    run(rig.agent, "what's on my calendar today?", conversation)
    sent = first_sent(rig, "pause the media player", conversation)
    assert sent[: len(start)] == start
    note = sent[len(start)]
    assert note["role"] == "system" and shown_tools(note["content"])[:1] == ["calendar_events"]
    assert "HassMediaPause" in shown_tools(note["content"])


def test_the_remote_tool_a_request_names_is_shown_and_called(rig_for: Any) -> None:
    rig = rig_for()
    conversation = rig.agent.new_conversation()
    events = run(rig.agent, "what's on my calendar today?", conversation)
    assert "calendar_events" in shown(list(rig.engine.requests[0].messages))
    assert rig.calendar.requests == ["today"]
    assert isinstance(events[-1], FinalAnswer)
    assert events[-1].text == "You have the dentist at 15:00."
    # A request about nothing remote shows no remote tool at all.
    run(rig.agent, "hello there", fresh := rig.agent.new_conversation())
    assert not [n for n in shown(fresh.messages) if n in REMOTE]


@pytest.mark.parametrize("place", PLACES)
def test_a_conversation_keeps_the_tools_it_was_shown(rig_for: Any, place: str) -> None:
    rig = rig_for(place=place)
    conversation = rig.agent.new_conversation("kitchen")
    run(rig.agent, "what's on my calendar today?", conversation)
    first = shown(conversation.messages)
    # The follow-up names no tool; the calendar is still there, in the same place, so
    # the cached prefix of the prompt still holds.
    second = shown(first_sent(rig, "and tomorrow?", conversation))
    assert second[: len(first)] == first
    assert rig.calendar.requests == ["today", "tomorrow"]
    # A later request about another remote tool adds it after the ones shown before.
    run(rig.agent, "pause the media player", conversation)
    third = shown(conversation.messages)
    assert third[: len(first)] == first and "HassMediaPause" in third[len(first) :]
    assert shown_tokens(rig, conversation.messages) <= BUDGET
    # The model saw the conversation as it is stored: the current prompt, then the turns.
    sent = first_sent(rig, "and the day after?", conversation)
    assert sent == conversation.messages[: len(sent)]


def test_nothing_changes_when_every_tool_fits(rig_for: Any) -> None:
    local = rig_for(remote=False)
    assert manifest_tokens(local, [t.name for t in local.tools]) <= BUDGET
    conversation = local.agent.new_conversation()
    before = local.agent.system_prompt
    asyncio.run(local.agent.prepare())
    assert local.agent.system_prompt == before
    sent = first_sent(local, "turn the lamp red", conversation)
    assert sent[0]["content"] == local.agent.system_prompt
    assert [m for m in sent[1:] if m["role"] == "system"] == []
    assert conversation.selection is None
    # A budget of 0 turns selection off: every one of the 40 tools, byte for byte.
    everything = rig_for(0)
    conversation = everything.agent.new_conversation()
    run(everything.agent, "what's on my calendar today?", conversation)
    sent = everything.engine.requests[0].messages[0]["content"]
    assert sent == everything.agent.system_prompt
    assert sorted(shown_tools(sent)) == sorted(t.name for t in everything.tools)


def test_the_forced_call_grammar_offers_only_the_shown_read_tools(
    rig_for: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("llama_cpp")  # the grammar is built only where llama.cpp runs
    monkeypatch.setattr(compose, "_runs_llama_cpp", lambda config: True)
    rig = rig_for(place="after_primer")  # the grammar has the note's tools too
    conversation = rig.agent.new_conversation()
    run(rig.agent, "what's on my calendar today?", conversation)
    selection = conversation.selection
    assert selection is not None and selection.call_grammar is not None
    assert '\\"calendar_events\\"' in selection.call_grammar
    assert '\\"led_state\\"' in selection.call_grammar
    assert "GetLiveContext" not in selection.call_grammar  # a read tool it was not shown
    assert "GetLiveContext" in (rig.agent.call_grammar or "")  # the unselected agent's


def test_always_tools_pins_a_remote_server_and_names_what_it_does_not_know(
    rig_for: Any, caplog: pytest.LogCaptureFixture
) -> None:
    rig = rig_for(always=["mcp:calendar", "HassTurnOn", "calender"])
    assert "'calender', which is no loaded tool or plugin" in caplog.text
    conversation = rig.agent.new_conversation()
    sent = first_sent(rig, "hello there", conversation)
    assert {"calendar_events", "HassTurnOn"} <= set(shown_tools(sent[0]["content"]))
    assert shown_tokens(rig, sent) <= BUDGET
