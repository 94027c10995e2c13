"""Mending a failed read: after a read call fails in a way other arguments could fix and
the model answers instead of calling again, one forced read call runs."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

from pydantic import Field

from edgeagent.agent.events import FinalAnswer, TextChunk
from edgeagent.agent.loop import Agent
from edgeagent.errors import ToolDeniedError, ToolError
from edgeagent.tools import tool, tools_from
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import USER_WORDS
from tests.agent.stub_llm import StubLLM


def fence(name: str, **arguments: Any) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


class Files:
    def __init__(self) -> None:
        self.read: list[str] = []
        self.moved: list[int] = []

    @tool(answer=lambda text: f"It says: {text}")
    def cat(self, file: str) -> str:
        """Show a file."""
        self.read.append(file)
        if file == "secret.txt":
            raise ToolDeniedError("secret.txt is outside the allowed folder")
        if file != "notes.txt":
            raise ToolError(f"{file}: no such file. Files with a similar name: notes.txt")
        return "Buy a new servo."

    @tool
    def weather(
        self, location: Annotated[str, Field(description="place", json_schema_extra=USER_WORDS)]
    ) -> str:
        """Weather for a place."""
        self.read.append(location)
        raise ToolError(f"no place called {location}")

    @tool(kind="act", title="the camera servo")
    def servo(self, angle: int) -> str:
        """Turn the servo."""
        self.moved.append(angle)
        raise ToolError("the servo is unplugged")

    @tool(answer=lambda angle: f"The servo is at {angle}°.")
    def servo_state(self) -> int:
        """Where the servo points."""
        self.read.append("servo_state")
        return 45


class Script(StubLLM):
    """Answers from two queues: generations with a grammar (``forced``) and without."""

    def __init__(self, *, free: list[str], forced: list[str]) -> None:
        self.free, self.forced = free, forced
        self.requests: list[Any] = []

    async def stream(self, request: Any) -> Any:
        self.requests.append(request)
        if request.aside:
            yield "yes"
        elif request.grammar and request.grammar.startswith("root ::= call"):
            yield self.forced.pop(0)
        else:
            yield self.free.pop(0)


def turn(script: Script, files: Files, prompt: str) -> list[Any]:
    agent = Agent(
        llm=script,  # type: ignore[arg-type]
        executor=ToolExecutor(ToolRegistry(tools_from(files, plugin="test"))),
        call_format=get_call_format("fence"),
        system_prompt="sys",
        call_grammar="root ::= call",
    )

    async def go() -> list[Any]:
        conversation = agent.new_conversation("s")
        return [e async for e in agent.run(prompt, conversation=conversation, frontend="cli")]

    return asyncio.run(go())


def final(events: list[Any]) -> FinalAnswer:
    assert isinstance(events[-1], FinalAnswer), events
    return events[-1]


def test_a_read_that_failed_mendably_is_called_again_and_answered_from_its_result() -> None:
    files = Files()
    script = Script(
        free=[fence("cat", file="example.txt"), "example.txt: no such file."],
        forced=[fence("cat", file="notes.txt")],
    )
    events = turn(script, files, "print it")
    assert files.read == ["example.txt", "notes.txt"]
    assert final(events).text == "It says: Buy a new servo."
    # The answer the mending call replaced was never streamed.
    assert not [e for e in events if isinstance(e, TextChunk)]


def test_a_refused_read_is_not_mended() -> None:
    files = Files()
    script = Script(free=[fence("cat", file="secret.txt"), "I can't read that file."], forced=[])
    answer = final(turn(script, files, "show secret.txt"))
    assert files.read == ["secret.txt"]
    assert answer.text == "I can't read that file."


def test_a_failed_act_is_not_followed_by_a_read() -> None:
    files = Files()
    script = Script(free=[fence("servo", angle=30), "The servo is unplugged."], forced=[])
    answer = final(turn(script, files, "turn the camera to 30"))
    assert files.moved == [30] and files.read == []
    assert answer.text == "The servo is unplugged."


def test_a_failed_act_answered_with_a_state_from_memory_is_answered_with_its_failure() -> None:
    # A stated device state after a turn that ran nothing forces a read of it; after a
    # failed acting call it must not: the user asked for a change, and it failed.
    files = Files()
    script = Script(
        free=[fence("servo", angle=30), "The servo is already at 30 degrees."],
        forced=[fence("servo_state")],
    )
    answer = final(turn(script, files, "turn the camera to 30"))
    assert files.moved == [30] and files.read == []
    assert answer.text == "Sorry, that did not work: servo failed: the servo is unplugged."
    assert not [r for r in script.requests if r.grammar]


def test_a_state_from_memory_in_a_turn_that_tried_nothing_is_read() -> None:
    files = Files()
    script = Script(free=["The servo is already at 30 degrees."], forced=[fence("servo_state")])
    answer = final(turn(script, files, "where is the camera pointing?"))
    assert files.moved == [] and files.read == ["servo_state"]
    assert answer.text == "The servo is at 45°."


def test_a_mending_call_that_repeats_the_failed_one_leaves_the_answer() -> None:
    files = Files()
    script = Script(
        free=[fence("cat", file="example.txt"), "example.txt is not there."],
        forced=[fence("cat", file="example.txt")],
    )
    answer = final(turn(script, files, "print example.txt"))
    assert files.read == ["example.txt"]  # not run twice
    assert answer.text == "example.txt is not there."


def test_a_turn_is_mended_once() -> None:
    files = Files()
    script = Script(
        free=[fence("cat", file="example.txt"), "No such file.", "Neither file is there."],
        forced=[fence("cat", file="other.txt")],
    )
    answer = final(turn(script, files, "print it"))
    assert files.read == ["example.txt", "other.txt"]
    assert answer.text == "Neither file is there."
    assert sum(1 for r in script.requests if r.grammar) == 1


def test_a_mending_call_with_a_place_nobody_named_is_not_run() -> None:
    files = Files()
    script = Script(
        free=[fence("weather", location="Atlantis"), "I could not find Atlantis."],
        forced=[fence("weather", location="Oslo")],  # the primer's city
    )
    answer = final(turn(script, files, "weather in Atlantis?"))
    assert files.read == ["Atlantis"]
    assert answer.text == "I could not find Atlantis."


def test_a_mending_call_of_another_tool_is_not_run() -> None:
    # "How far away is the moon from earth, roughly?" came as math "384400" (a number
    # alone), the model then answered it right, and the mend ran df (blind prompts).
    files = Files()
    script = Script(
        free=[fence("cat", file="moon.txt"), "About 384,400 km."],
        forced=[fence("servo_state")],
    )
    answer = final(turn(script, files, "How far away is the moon, roughly?"))
    assert files.read == ["moon.txt"]  # servo_state never ran
    assert answer.text == "About 384,400 km."
