"""An undo of the last change (:attr:`~edgeagent.tools.tool.Tool.undone_in`): a call of
the tool that made it faces no side question, whatever turns came between. "hmm no,
undo that" and "actually no, go back to where it was" were refused: asked alone, the
capability question said the strip and the servo could not do that (fresh35). A call of
another device's tool, for a request that names no device, is the undo of the one that
made the last change (:func:`~edgeagent.agent.review.undo_moved`; fresh39); one that
names the device it calls stays with it."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from edgeagent.agent.context import Conversation
from edgeagent.agent.loop import Agent
from edgeagent.llm.base import InProcessLLM
from edgeagent.llm.scripted import ScriptedEngine
from edgeagent.tools import tool, tools_from
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import ToolResult
from tests.agent.scripted_agent import run_turn


def fence(name: str, **arguments: Any) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


class Devices:
    def __init__(self) -> None:
        self.moves: list[tuple[str, Any]] = []

    @tool(name="servo", kind="act", title="the camera servo", answer=lambda r: f"At {r}°.")
    def servo(self, angle: int = 0, back: bool = False) -> int:
        """Point the camera."""
        self.moves.append(("servo", "back" if back else angle))
        return 0 if back else angle

    @tool(name="lamp", kind="act", title="the lamp", answer=lambda r: f"Lamp {r}.")
    def lamp(self, color: str = "", back: bool = False) -> str:
        """Colour the lamp."""
        self.moves.append(("lamp", "back" if back else color))
        return "as before" if back else color


def _undoes(request: str) -> bool:
    return "undo" in request or "where it was" in request


def _undo_read(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """The devices' reread: no arguments, for an undo, as ``back``."""
    return {"back": True} if not arguments and _undoes(request) else None


NAMES = {"servo": "camera", "lamp": "lamp"}


def agent_with(devices: Devices, *, named: tuple[str, ...] = ("servo", "lamp")) -> Agent:
    """Only the turns' own calls say yes; every side question is answered no. The
    tools ``named`` declare a ``named_in``."""
    engine = ScriptedEngine(
        [
            (r"^Request: \"point the camera 30 left\"", "yes"),
            (r"^Device: .*\nRequest: \"point the camera 30 left\"", "yes"),
            (r"^point the camera 30 left", fence("servo", angle=-30)),
            (r"^Request: \"lamp red\"", "yes"),
            (r"^Device: .*\nRequest: \"lamp red\"", "yes"),
            (r"^lamp red", fence("lamp", color="red")),
            (r"^perfect, thanks", "You're welcome!"),
            (r"^actually no, go back to where it was", fence("servo", back=True)),
            (r"^hmm no, undo that", fence("lamp", back=True)),
            (r"^put the camera back where it was", fence("servo", back=True)),
            # asked of the camera's undo where the servo declares no named_in
            (r"^Request: \"put the camera back where it was\"", "yes"),
            (r"^Device: .*\nRequest: \"put the camera back where it was\"", "yes"),
        ],
        default="no",
        context_window=4096,
    )
    tools = [
        replace(
            t,
            undone_in=_undoes,
            reread=_undo_read,
            named_in=(lambda request, word=NAMES[t.name]: word in request)
            if t.name in named
            else None,
        )
        for t in tools_from(devices, plugin="test")
    ]
    return Agent(
        llm=InProcessLLM(engine),
        executor=ToolExecutor(ToolRegistry(tools)),
        call_format=get_call_format("fence"),
        system_prompt="sys",
        check_target=True,
    )


def answers(agent: Agent, *prompts: str) -> list[str]:
    conversation = agent.new_conversation("s")
    return [run_turn(agent, p, conversation)[-1].text for p in prompts]


def test_an_undo_of_the_device_that_changed_last_runs_after_a_turn_between() -> None:
    devices = Devices()
    said = answers(
        agent_with(devices),
        "point the camera 30 left",
        "perfect, thanks",
        "actually no, go back to where it was",
    )
    assert devices.moves == [("servo", -30), ("servo", "back")]
    assert said[2] == "At 0°."


def test_an_undo_given_to_another_device_than_the_last_is_the_last_ones() -> None:
    # The lamp changed last: the servo's "back" (nothing named) is the lamp's undo.
    devices = Devices()
    said = answers(
        agent_with(devices),
        "point the camera 30 left",
        "lamp red",
        "actually no, go back to where it was",
    )
    assert devices.moves == [("servo", -30), ("lamp", "red"), ("lamp", "back")]
    assert said[2] == "Lamp as before."


def test_an_undo_that_names_its_device_stays_with_it() -> None:
    # The lamp changed last, and the request names the camera: the camera goes back.
    devices = Devices()
    said = answers(
        agent_with(devices),
        "point the camera 30 left",
        "lamp red",
        "put the camera back where it was",
    )
    assert devices.moves == [("servo", -30), ("lamp", "red"), ("servo", "back")]
    assert said[2] == "At 0°."


def test_an_undo_that_names_its_device_by_its_title_stays_with_it() -> None:
    # The servo declares no named_in: "camera", a word of its title, names it (fresh46:
    # "ok now put the camera back where it was" ran as the strip's undo).
    devices = Devices()
    said = answers(
        agent_with(devices, named=("lamp",)),
        "point the camera 30 left",
        "lamp red",
        "put the camera back where it was",
    )
    assert devices.moves == [("servo", -30), ("lamp", "red"), ("servo", "back")]
    assert said[2] == "At 0°."


def test_an_undo_in_the_turn_after_the_change_runs() -> None:
    devices = Devices()
    said = answers(agent_with(devices), "lamp red", "hmm no, undo that")
    assert devices.moves == [("lamp", "red"), ("lamp", "back")]
    assert said[1] == "Lamp as before."


def test_an_undo_with_no_change_before_it_faces_the_questions() -> None:
    devices = Devices()
    said = answers(agent_with(devices), "hmm no, undo that")
    assert devices.moves == []
    assert said[0].startswith("I can't do that here")


def test_ran_lists_the_calls_that_succeeded_in_earlier_turns() -> None:
    call_format = get_call_format("fence")
    conversation = Conversation.start("sys", session_id="s")

    def step(call: str, *results: ToolResult) -> None:
        conversation.messages.append({"role": "assistant", "content": call})
        for result in results:
            conversation.messages.append({"role": "tool", "content": result.to_json()})

    conversation.messages.append({"role": "user", "content": "first"})
    # A parse error's feedback comes before the call's own result.
    step(fence("lamp", color="red"), ToolResult.failure("unreadable"), ToolResult.success("red"))
    step(fence("servo", angle=5), ToolResult.failure("jammed"))
    conversation.messages.append({"role": "assistant", "content": "Done."})
    conversation.messages.append({"role": "user", "content": "now"})
    step(fence("servo", angle=9), ToolResult.success(9))  # this turn's: not yet earlier

    def names(text: str) -> list[str]:
        return [c.name for c in call_format.parse(text).calls]

    assert conversation.ran(names) == ["lamp"]
