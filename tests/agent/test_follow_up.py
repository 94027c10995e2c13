"""A follow-up the model answers itself, which asks the last turn's read again with one
value said otherwise: "e dopodomani lì?" after the weather in Bologna."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from edgeagent.agent.events import FinalAnswer
from edgeagent.agent.loop import Agent
from edgeagent.tools import make_tool, tool
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from tests.agent.scripted_agent import run_turn
from tests.agent.stub_llm import StubLLM


def fence(name: str, **arguments: Any) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


class Home:
    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []
        self.turned: list[int] = []

    @tool(title="the weather or the forecast", answer=lambda r: f"{r['day']} in {r['place']}: sun")
    def weather(self, location: str, day: str = "today") -> dict[str, str]:
        """Weather for a place and day."""
        self.asked.append((location, day))
        return {"place": location, "day": day}

    @tool(kind="act", title="the camera servo", answer=lambda a: f"The servo is now at {a}°.")
    def servo(self, right: int) -> int:
        """Turn the camera right."""
        self.turned.append(right)
        return right


def day_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    said = "day after tomorrow" if "dopodomani" in request else None
    return None if said in (None, arguments.get("day")) else {**arguments, "day": said}


def turn_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    return {"right": 20} if "twenty" in request else None


class Script(StubLLM):
    def __init__(self, replies: list[str], *, no: str = "") -> None:
        self.replies, self.no = replies, no  # side questions about ``no`` are answered no
        self.sides: list[str] = []

    async def stream(self, request: Any) -> Any:
        if request.aside:
            question = request.messages[-1]["content"]
            self.sides.append(question)
            yield "no" if self.no and self.no in question else "yes"
        else:
            yield self.replies.pop(0)


def conversation(
    script: Script, home: Home, *prompts: str, reread: Any = day_said
) -> list[FinalAnswer]:
    tools = [
        replace(make_tool(home.weather, plugin="weather"), reread=reread),
        replace(make_tool(home.servo, plugin="servo"), reread=turn_said),
    ]
    agent = Agent(
        llm=script,  # type: ignore[arg-type]
        executor=ToolExecutor(ToolRegistry(tools)),
        call_format=get_call_format("fence"),
        system_prompt="sys",
        check_target=True,
    )
    talk = agent.new_conversation("s")
    answers = []
    for prompt in prompts:
        last = run_turn(agent, prompt, talk)[-1]
        assert isinstance(last, FinalAnswer), last
        answers.append(last)
    return answers


def test_a_follow_up_the_model_answers_itself_asks_the_last_read_again() -> None:
    home = Home()
    script = Script([fence("weather", location="Bologna", day="tomorrow"), "Dopodomani lì?"])
    answers = conversation(script, home, "meteo a Bologna domani?", "e dopodomani lì?")
    assert home.asked == [("Bologna", "tomorrow"), ("Bologna", "day after tomorrow")]
    assert answers[-1].text == "day after tomorrow in Bologna: sun"
    assert 'Request: "e dopodomani lì?"' in script.sides[-1]


def test_a_follow_up_the_model_alone_says_is_not_about_the_tool_keeps_its_answer() -> None:
    home = Home()
    script = Script(
        [fence("weather", location="Bologna", day="tomorrow"), "Buon viaggio!"], no="ciao"
    )
    answers = conversation(script, home, "meteo a Bologna domani?", "ciao, a dopodomani!")
    assert home.asked == [("Bologna", "tomorrow")]
    assert answers[-1].text == "Buon viaggio!"


def test_a_turn_without_a_call_may_come_between() -> None:
    home = Home()
    script = Script(
        [fence("weather", location="Bologna", day="tomorrow"), "Grazie a te!", "Dopodomani?"]
    )
    conversation(script, home, "meteo a Bologna domani?", "grazie!", "e dopodomani lì?")
    assert home.asked == [("Bologna", "tomorrow"), ("Bologna", "day after tomorrow")]


def test_a_request_that_changes_nothing_of_the_last_read_asks_nothing() -> None:
    home = Home()
    script = Script([fence("weather", location="Bologna", day="tomorrow"), "Prego!"])
    answers = conversation(script, home, "meteo a Bologna domani?", "grazie")
    assert home.asked == [("Bologna", "tomorrow")] and answers[-1].text == "Prego!"
    assert not [q for q in script.sides if "grazie" in q]


def test_an_acting_call_is_never_run_again_by_a_follow_up() -> None:
    home = Home()
    script = Script([fence("servo", right=10), "Sure, twenty more."])
    conversation(script, home, "camera ten to the right", "and twenty more")
    assert home.turned == [10]


def test_an_order_to_change_things_asks_no_read_again() -> None:
    # fresh66: "great, now wipe the log" after "the first 3 lines of it" ran head again.
    home = Home()
    script = Script([fence("weather", location="Bologna", day="tomorrow"), "I can't."])
    answers = conversation(script, home, "meteo a Bologna domani?", "now delete it, dopodomani")
    assert home.asked == [("Bologna", "tomorrow")] and answers[-1].text == "I can't."


def test_a_reading_that_only_leaves_out_what_the_last_call_gave_asks_nothing() -> None:
    def day_unsaid(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
        return {"location": arguments["location"]} if "grazie" in request else None

    home = Home()
    script = Script([fence("weather", location="Bologna", day="tomorrow"), "Prego!"])
    answers = conversation(script, home, "meteo a Bologna domani?", "grazie", reread=day_unsaid)
    assert home.asked == [("Bologna", "tomorrow")] and answers[-1].text == "Prego!"


def test_again_alone_does_the_last_thing_once_more_even_after_a_chat_turn() -> None:
    # fresh75: "again" after a turn of the camera and "can you feed the cat?" was
    # answered with the chat turn's refusal, copied.
    home = Home()
    script = Script([fence("servo", right=10), "I can't feed animals.", "I can't feed animals."])
    answers = conversation(script, home, "camera ten to the right", "feed the cat?", "again")
    assert home.turned == [10, 10]
    assert answers[-1].text == "The servo is now at 10°."


def test_again_with_more_said_is_no_bare_again() -> None:
    home = Home()
    script = Script([fence("servo", right=10), "Sure."])
    conversation(script, home, "camera ten to the right", "again, but the other way")
    assert home.turned == [10]
