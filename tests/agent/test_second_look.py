"""A refusal's second look: when the model refuses a request, it is asked once more for
a call of a titled tool, which the side questions check before it runs. A refusal they
confirm stands, in the model's own words; nothing runs and the refusal is not streamed
ahead of a call that replaces it."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import pytest
from edgeagent_weather.asked import asks_a_forecast, names_the_weather
from pydantic import Field

from edgeagent.agent import honesty
from edgeagent.agent.checks import SideChecks
from edgeagent.agent.events import FinalAnswer, TextChunk
from edgeagent.agent.loop import Agent
from edgeagent.tools import tool, tools_from
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import USER_WORDS
from edgeagent.tools.words import names_file
from tests.agent.scripted_agent import run_turn
from tests.agent.stub_llm import StubLLM

REFUSAL = "I can't do that here: none of my tools can change the color of the LED strip."


def fence(name: str, **arguments: Any) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


class Strip:
    def __init__(self) -> None:
        self.colors: list[str] = []

    @tool(kind="act", title="the LED strip", answer=lambda r: f"The LED strip is now {r}.")
    def led(self, color: str) -> str:
        """Set the LED strip colour."""
        self.colors.append(color)
        return color


class Files:
    def __init__(self) -> None:
        self.listed: list[str] = []

    @tool(title="List directory")
    def ls(self, path: str) -> str:
        """List a directory."""
        self.listed.append(path)
        return path


class Shelf:
    """Two titled read tools: listing a file is not showing it."""

    def __init__(self) -> None:
        self.listed: list[str] = []
        self.shown: list[str] = []

    @tool(title="List directory")
    def ls(self, path: str) -> str:
        """List a directory."""
        self.listed.append(path)
        return path

    @tool(title="Show a file")
    def cat(self, path: str) -> str:
        """Show a file."""
        self.shown.append(path)
        return f"{path}: buy milk"


class Model(StubLLM):
    """Refuses (``said``) unless a grammar forces a call (``forced``); a side question
    gets ``side`` ("no" to the capability question with ``can="no"``). Stands in for
    llama.cpp's constrained decoding."""

    def __init__(self, *, said: str, forced: str, side: str, can: str = "yes") -> None:
        self.can = can
        self.said, self.forced, self.side = said, forced, side
        self.requests: list[Any] = []

    async def stream(self, request: Any) -> Any:
        self.requests.append(request)
        if request.aside:
            asked = request.messages[0]["content"]
            yield self.can if asked.startswith(("Tool:", "Device:")) else self.side
        elif request.grammar:
            yield self.forced
        else:
            for start in range(0, len(self.said), 5):
                yield self.said[start : start + 5]


def agent_for(
    model: Model,
    strip: object,
    *,
    recheck: str | None = "root ::= call",
    without: dict[str, str] | None = None,
    elsewhere: dict[str, str] | None = None,
    wrapped: bool = False,
    asked: dict[str, Callable[[str], bool]] | None = None,
    named: dict[str, Callable[[str], bool]] | None = None,
    act: str | None = None,
    read: str | None = None,
) -> Agent:
    """``wrapped``: the tools wrap one tool, as the shell's ``ls`` and ``cat`` do;
    ``asked`` and ``named``: the ``asked_in`` and ``named_in`` of tools by name."""
    tools = tools_from(strip, plugin="test")
    if wrapped:
        tools = [dataclasses.replace(t, extra={"wrapped": "shell"}) for t in tools]
    asked, named = asked or {}, named or {}
    tools = [
        dataclasses.replace(t, asked_in=asked.get(t.name), named_in=named.get(t.name))
        for t in tools
    ]
    return Agent(
        llm=model,  # type: ignore[arg-type]
        executor=ToolExecutor(ToolRegistry(tools)),
        call_format=get_call_format("fence"),
        system_prompt="sys",
        recheck_grammar=recheck,
        recheck_without=without,
        recheck_elsewhere=elsewhere,
        act_grammar=act,
        call_grammar=read,
        check_target=True,
    )


@pytest.mark.parametrize(
    ("prompt", "looked"),
    [
        ("ok lights off now, thanks", True),  # answered "You're welcome!" (fresh31)
        ("are the lights off?", False),  # a question: its text answer stands
        ("thanks, that's all", False),  # names no device
    ],
)
def test_a_text_answer_to_an_order_to_a_named_device_gets_a_second_look(
    prompt: str, looked: bool
) -> None:
    strip = Strip()
    model = Model(said="You're welcome!", forced=fence("led", color="off"), side="yes")
    named = {"led": lambda request: "light" in request}
    agent = agent_for(model, strip, named=named, act="root ::= act")
    events = run_turn(agent, prompt)
    answer = events[-1]
    assert isinstance(answer, FinalAnswer)
    assert strip.colors == (["off"] if looked else [])
    assert answer.text == ("The LED strip is now off." if looked else "You're welcome!")
    if looked:  # held back: the text the call replaced never showed
        assert not [e for e in events if isinstance(e, TextChunk)]
        # the look is among the acting tools ("Doe het licht uit." came as led_state)
        assert [r.grammar for r in model.requests if r.grammar] == ["root ::= act"]


def test_an_order_answered_with_a_claim_gets_its_look_among_the_acting_tools() -> None:
    # "Sluk lyset, tak." was answered "The LED strip is now off.", and the forced read
    # for a value only a tool knows read the strip instead (fresh42).
    lamp = StripWithState()
    model = Looks(
        {"root ::= act": fence("led", color="red"), "root ::= read": fence("led_state")},
        said="The LED strip is now red.",
    )
    named = {"led": lambda request: "lys" in request}
    agent = agent_for(model, lamp, named=named, act="root ::= act", read="root ::= read")
    answer = run_turn(agent, "lyset i stuen red, tak")[-1]
    assert isinstance(answer, FinalAnswer) and lamp.colors == ["red"] and not lamp.read
    assert [r.grammar for r in model.requests if r.grammar] == ["root ::= act"]


class StripWithState(Strip):
    def __init__(self) -> None:
        super().__init__()
        self.read = 0

    @tool(title="the LED strip's state")
    def led_state(self) -> str:
        """Whether the strip is on, and its colour."""
        self.read += 1
        return "on, white"


class Reader(Model):
    """Forces a call by grammar (``forced``: grammar -> call); "List directory" is
    not what the request is about, "Show a file" is."""

    def __init__(self, *, said: str, forced: dict[str, str], about: tuple[str, ...]) -> None:
        super().__init__(said=said, forced="", side="no")
        self.calls_for = forced
        self.about = about

    async def stream(self, request: Any) -> Any:
        self.requests.append(request)
        if request.aside:
            asked = request.messages[0]["content"]
            yield "yes" if any(title in asked for title in self.about) else "no"
        elif request.grammar:
            yield self.calls_for[request.grammar]
        elif request.messages[-1]["role"] == "tool":
            yield "Your notes say: buy milk."
        else:
            yield self.said


def test_a_refused_request_the_checks_say_a_tool_serves_runs_the_tool() -> None:
    strip = Strip()
    model = Model(said=REFUSAL, forced=fence("led", color="coral"), side="yes")
    events = run_turn(agent_for(model, strip), "make them coral")
    answer = events[-1]
    assert isinstance(answer, FinalAnswer)
    assert strip.colors == ["coral"]
    assert answer.text == "The LED strip is now coral."
    # The refusal never reached the user ahead of the change that replaced it.
    assert not any(isinstance(e, TextChunk) and "can't" in e.text for e in events)
    assert [r.grammar for r in model.requests if not r.aside] == [None, "root ::= call"]


def test_a_refusal_in_another_language_gets_the_second_look_too() -> None:
    # "Quels processus tournent en ce moment ?" got "Je ne peux pas vous aider avec
    # cela." and no call: only English refusals had a second look.
    strip = Strip()
    model = Model(
        said="Je ne peux pas vous aider avec cela.", forced=fence("led", color="coral"), side="yes"
    )
    answer = run_turn(agent_for(model, strip), "Tu peux la mettre en coral ?")[-1]
    assert isinstance(answer, FinalAnswer) and strip.colors == ["coral"]


PROMISE = "Ja, ich kann die Lampe korallenrot machen."


def test_a_promise_instead_of_a_call_gets_a_second_look_that_runs_the_tool() -> None:
    # "kannst du die Kamera um 15 Grad nach links drehen?" was answered "Ja, kann ich
    # die Kamera um 15 Grad nach links drehen." and nothing turned.
    strip = Strip()
    model = Model(said=PROMISE, forced=fence("led", color="coral"), side="yes")
    events = run_turn(agent_for(model, strip), "Kannst du sie coral machen?")
    answer = events[-1]
    assert isinstance(answer, FinalAnswer) and strip.colors == ["coral"]
    assert answer.text == "The LED strip is now coral."
    shown = "".join(e.text for e in events if isinstance(e, TextChunk))
    assert "Lampe" not in shown  # the promise was held back once it read as one


def test_a_promise_the_checks_find_no_tool_for_is_said_as_the_refusal_it_is() -> None:
    # "Kannst du auch die Heizung anmachen?" got "Ja, ich kann die Heizung anmachen."
    strip = Strip()
    model = Model(said=PROMISE, forced=fence("led", color="white"), side="no")
    answer = run_turn(agent_for(model, strip), "Kannst du auch die Heizung anmachen?")[-1]
    assert isinstance(answer, FinalAnswer)
    assert strip.colors == [] and answer.tool_calls == []
    assert answer.text == "I can't do that here: none of my devices can do that."


ASKED = "Olá! Podes pôr a luz em coral? Quero ler."


def test_the_request_asked_back_gets_a_second_look_that_runs_the_tool() -> None:
    # "Olá! Como vai estar o tempo em Lisboa amanhã? Quero ir surfar." came back as
    # "Olá! Como vai o tempo em Lisboa amanhã? Quero ir surfar." and nothing ran.
    strip = Strip()
    back = "Olá! Podes pôr a luz coral? Quero ler."
    model = Model(said=back, forced=fence("led", color="coral"), side="yes")
    events = run_turn(agent_for(model, strip), ASKED)
    answer = events[-1]
    assert isinstance(answer, FinalAnswer) and strip.colors == ["coral"]
    shown = "".join(e.text for e in events if isinstance(e, TextChunk))
    assert "ler" not in shown  # held back while it read as the request again


class Sky:
    def __init__(self) -> None:
        self.asked: list[str] = []

    @tool(title="the forecast for a town and a day")
    def weather(self, location: Annotated[str, Field(json_schema_extra=USER_WORDS)]) -> str:
        """Forecast for a place."""
        self.asked.append(location)
        return f"sun in {location}"


@pytest.mark.parametrize(
    ("prompt", "asked", "answered"),
    [
        # Turkish "will it rain tomorrow?", asked back word for word, came on a second
        # look as the forecast for Oslo, the primer's city.
        ("Yarın yağmur yağacak mı?", [], "Which location do you mean?"),
        # A place said runs (what the stub model then answers is no matter here).
        ("Yarın Oslo'da yağmur yağacak mı?", ["Oslo"], ""),
    ],
)
def test_a_second_look_that_guesses_the_place_of_a_named_forecast_asks_for_it(
    prompt: str, asked: list[str], answered: str
) -> None:
    sky = Sky()
    model = Model(said=prompt, forced=fence("weather", location="Oslo"), side="yes")
    answer = run_turn(agent_for(model, sky, named={"weather": names_the_weather}), prompt)[-1]
    assert isinstance(answer, FinalAnswer) and sky.asked == asked
    assert answered in answer.text


def test_the_request_asked_back_that_no_tool_serves_is_not_the_answer() -> None:
    strip = Strip()
    back = "Olá! Podes pôr a luz coral? Quero ler."
    model = Model(said=back, forced=fence("led", color="white"), side="no")
    answer = run_turn(agent_for(model, strip), ASKED)[-1]
    assert isinstance(answer, FinalAnswer) and strip.colors == []
    assert answer.text == "Sorry, I did not understand that. Could you say it another way?"


@pytest.mark.parametrize(
    ("text", "asked", "back"),
    [
        (
            "Olá! Como vai o tempo em Lisboa amanhã? Quero ir surfar.",
            "Olá! Como vai estar o tempo em Lisboa amanhã? Quero ir surfar.",
            True,
        ),
        ("Dopodomani lì?", "e dopodomani lì?", True),
        (
            "Is it going to be windy in Edinburgh tomorrow?",
            "is it going to be windy in Edinburgh tomorrow",
            True,
        ),
        # A question restated as its answer asks nothing back.
        (
            "It is not safe to look directly at the sun.",
            "is it safe to look directly at the sun?",
            False,
        ),
        (
            "Yes, fog is a cloud sitting on the ground.",
            "is fog just a cloud sitting on the ground?",
            False,
        ),
        # A question of its own.
        ("Which colour do you mean?", "make it nice", False),
        ("Do you mean the LED strip?", "is the LED strip on?", False),
        ("Hi?", "hi?", False),  # too short to tell
        ("明日の大阪の天気は？", "明日の大阪の天気は？", True),
    ],
)
def test_asks_back(text: str, asked: str, back: bool) -> None:
    assert honesty.asks_back(text, asked) is back


@pytest.mark.parametrize(
    ("text", "promised"),
    [
        ("Ja, ich kann die Heizung anmachen.", True),
        ("Ja, kann ich den Luftbefeuchter anschalten.", True),
        ("Ja, ik kan de gordijnen dichtdoen.", True),
        ("Ja, kan jag släcka ledlisten.", True),  # fresh50
        ("Ja, jeg kan tænde lyset.", True),
        ("Yes, I can turn the camera 15 degrees left.", True),
        ("Oui, je peux allumer le four.", True),
        ("I can hear you.", False),
        ("Yes, fog is a cloud sitting on the ground.", False),
        ("I can help with files, the LED strip and the camera.", False),
        ("Ja, Schlangen können Farben sehen.", False),
        ("Sure, I'll tell you one: why did the LED cross the road?", False),
        ("Yes, I can help. Here are three ideas for the party.", False),
    ],
)
def test_promises(text: str, promised: bool) -> None:
    assert honesty.promises(text) is promised


def test_a_refusal_the_checks_confirm_stands_and_nothing_runs() -> None:
    strip = Strip()
    model = Model(said=REFUSAL, forced=fence("led", color="white"), side="no")
    agent = agent_for(model, strip)
    conversation = agent.new_conversation("s")
    answer = run_turn(agent, "turn on the ceiling fan", conversation)[-1]
    assert isinstance(answer, FinalAnswer)
    assert strip.colors == [] and answer.tool_calls == []
    assert answer.text == REFUSAL  # the model's own words, not a fixed sentence
    assert conversation.messages[-1] == {"role": "assistant", "content": REFUSAL}


def test_a_second_look_call_with_values_the_user_never_said_is_a_guess() -> None:
    # "make the lights feel like a Tuesday": refused, then {"color": "blue"} on a second
    # look. The checks are never asked: the refusal stands.
    strip = Strip()
    refusal = "I can't do that here: I can't make lights feel like a day."
    model = Model(said=refusal, forced=fence("led", color="blue"), side="yes")
    answer = run_turn(agent_for(model, strip), "make the lights feel like a Tuesday")[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == refusal
    assert strip.colors == [] and not any(r.aside for r in model.requests)


class Lamp:
    def __init__(self) -> None:
        self.set: list[dict[str, Any]] = []

    @tool(kind="act", title="the LED strip", answer=lambda r: f"The LED strip is now {r}.")
    def led(self, color: str | None = None, brightness: int | None = None) -> str:
        """Set the LED strip colour and brightness."""
        self.set.append({"color": color, "brightness": brightness})
        return f"{color} at {brightness}"


def test_a_second_look_call_runs_without_the_values_the_user_never_said() -> None:
    # "gimme some gold on the shelf lights": refused, then gold at a brightness of 100
    # nobody asked for on a second look. It runs as gold, the brightness as it was.
    lamp = Lamp()
    model = Model(said=REFUSAL, forced=fence("led", color="gold", brightness=100), side="yes")
    agent = agent_for(model, lamp)
    conversation = agent.new_conversation("s")
    answer = run_turn(agent, "gimme some gold on the shelf lights", conversation)[-1]
    assert isinstance(answer, FinalAnswer)
    assert lamp.set == [{"color": "gold", "brightness": None}]
    assert answer.text == "The LED strip is now gold at None."
    calls = [m["content"] for m in conversation.messages if m["role"] == "assistant"]
    assert fence("led", color="gold") in calls  # the history shows the call that ran


@pytest.mark.parametrize(
    ("arguments", "said", "kept"),
    [
        ({"color": "gold", "brightness": 100}, "gimme some gold", {"color": "gold"}),
        ({"color": "gold", "brightness": 100}, "gold at full, 100", None),  # all said
        # Nothing said left (a guess, for unsaid to judge), or nothing unsaid: as written.
        ({"color": "blue", "brightness": 50}, "make them feel like a Tuesday", None),
        ({"color": "red"}, "make it do the thing", None),
        ({"color": "blue"}, "blue please", None),
    ],
)
def test_said_only(arguments: dict[str, Any], said: str, kept: dict[str, Any] | None) -> None:
    checks = agent_for(Model(said="", forced="", side=""), Lamp()).checks
    (call,) = checks.heard.said_only([ToolCall("led", arguments)], said=said)
    assert call.arguments == (kept or arguments)


@pytest.mark.parametrize(
    ("arguments", "said", "unsaid"),
    [
        ({"color": "coral"}, "make them coral", None),
        ({"on": False}, "kill the lights", None),
        ({"arguments": ["-n", "3", "notes.txt"]}, "last 3 lines of notes.txt", None),
        ({"left": -30}, "30 degrees left", None),
        ({"brightness": 5.0}, "dim it to 5 percent", None),
        ({"color": "red"}, "make it do the thing", "red"),
        ({"color": "blue", "brightness": 50}, "make the lights blue", "50"),
        # A file named by its stem is said; one named by nothing the user said is not.
        ({"arguments": ["todo.md"]}, "display the todo list", None),
        ({"arguments": ["notes.txt"]}, "show me notes", None),
        ({"arguments": ["shopping.txt"]}, "display the todo list", "shopping.txt"),
        ({"arguments": ["todo.txt.bak"]}, "display the todo list", "todo.txt.bak"),
        # A word typed with one slip is said; a short word one letter off is not.
        ({"color": "yellow"}, "tunr the lihgts to yelow", None),
        ({"color": "purple"}, "purpel please", None),
        ({"color": "red"}, "make the bed", "red"),
    ],
)
def test_unsaid(arguments: dict[str, Any], said: str, unsaid: str | None) -> None:
    checks = agent_for(Model(said="", forced="", side=""), Strip()).checks
    assert checks.heard.unsaid([ToolCall("led", arguments)], said=said) == unsaid


def test_a_read_call_on_a_second_look_must_also_pass_the_capability_question() -> None:
    files = Files()
    refusal = "I can't do that here: that is not something my tools do."
    model = Model(said=refusal, forced=fence("ls", path="notes.txt"), side="yes", can="no")
    answer = run_turn(agent_for(model, files), "translate notes.txt to French")[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == refusal
    assert files.listed == []
    questions = [r.messages[0]["content"] for r in model.requests if r.aside]
    assert questions[-1].startswith("Tool: List directory. It only reads")


@pytest.mark.parametrize(
    "refusal",
    [
        "I can't do that here: none of my tools can delete files.",
        "I can't do that here: my tools can read files but never change or delete them.",
        "Sorry, I cannot empty the log file.",
    ],
)
def test_a_refused_change_gets_no_read_on_a_second_look(refusal: str) -> None:
    # "ok delete it" ran ``ls notes.txt`` on a second look, every check saying yes.
    files = Files()
    model = Model(said=refusal, forced=fence("ls", path="notes.txt"), side="yes")
    answer = run_turn(agent_for(model, files), "ok delete it")[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == refusal
    assert files.listed == [] and answer.tool_calls == []


def test_a_refused_change_may_still_be_a_device_s() -> None:
    # The reason names a change, but an acting tool makes changes: "clear the lights".
    strip = Strip()
    refusal = "I can't do that here: none of my tools can clear the lights."
    model = Model(said=refusal, forced=fence("led", color="white"), side="yes")
    answer = run_turn(agent_for(model, strip), "make the lights white")[-1]
    assert isinstance(answer, FinalAnswer) and strip.colors == ["white"]


NOTES_REFUSAL = "I can't do that here: none of my tools can show notes."
WITHOUT = {"ls": "without ls", "cat": "without cat"}


def test_a_refused_read_tool_gets_one_more_look_without_it() -> None:
    # "show me notes": refused, looked at again as ls notes (listing is not showing),
    # then, without ls, cat notes.txt, which the checks confirm and which runs.
    shelf = Shelf()
    model = Reader(
        said=NOTES_REFUSAL,
        forced={
            "root ::= call": fence("ls", path="notes"),
            "without ls": fence("cat", path="notes.txt"),
        },
        about=("Show a file",),
    )
    answer = run_turn(agent_for(model, shelf, without=WITHOUT), "show me notes")[-1]
    assert isinstance(answer, FinalAnswer)
    assert shelf.listed == [] and shelf.shown == ["notes.txt"]
    assert answer.text == "Your notes say: buy milk."
    forced = [r.grammar for r in model.requests if not r.aside and r.grammar]
    assert forced[:2] == ["root ::= call", "without ls"]


def test_a_third_look_the_checks_refuse_too_leaves_the_refusal_and_runs_nothing() -> None:
    shelf = Shelf()
    model = Reader(
        said="I can't do that here: that is not something my tools do.",
        forced={
            "root ::= call": fence("ls", path="notes.txt"),
            "without ls": fence("cat", path="notes.txt"),
        },
        about=(),
    )
    answer = run_turn(agent_for(model, shelf, without=WITHOUT), "translate notes.txt to French")[-1]
    assert isinstance(answer, FinalAnswer)
    assert answer.text == "I can't do that here: that is not something my tools do."
    assert shelf.listed == [] and shelf.shown == []
    # One more look, not one per tool: cat's own grammar-without is never asked.
    forced = [r.grammar for r in model.requests if not r.aside and r.grammar]
    assert forced == ["root ::= call", "without ls"]


def test_a_read_tool_s_guess_gets_one_more_look_without_it() -> None:
    # "is solder on the todo list?", refused, came on a second look as math 1 + 1: a
    # value nobody said; without that tool, the read that serves it.
    shelf = Shelf()
    model = Reader(
        said="I can't do that here: I don't have a todo list.",
        forced={
            "root ::= call": fence("ls", path="secrets"),
            "without ls": fence("cat", path="notes.txt"),
        },
        about=("Show a file",),
    )
    answer = run_turn(agent_for(model, shelf, without=WITHOUT), "what's in my notes?")[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == "Your notes say: buy milk."
    assert shelf.listed == [] and shelf.shown == ["notes.txt"]


@pytest.mark.parametrize(
    ("prompt", "refusal"),
    [
        # The request says "write"; the refusal names no change.
        ("what did I write in notes.txt?", "I can't do that here: I can't read files."),
        # The refusal names a change; the request asks none.
        ("anything about milk in notes.txt?", "Sorry, I can't read or modify files."),
    ],
)
def test_a_read_is_barred_only_by_a_change_the_request_asks_and_the_refusal_names(
    prompt: str, refusal: str
) -> None:
    files = Files()
    model = Model(said=refusal, forced=fence("ls", path="notes.txt"), side="yes")
    answer = run_turn(agent_for(model, files), prompt)[-1]
    assert isinstance(answer, FinalAnswer) and files.listed == ["notes.txt"]


def lister(*, about: tuple[str, ...]) -> Reader:
    """A model that calls ``ls notes.txt`` itself and, without ``ls``, ``cat``."""
    return Reader(
        said=fence("ls", path="notes.txt"),
        forced={"without ls": fence("cat", path="notes.txt")},
        about=about,
    )


def test_a_wrapper_s_call_refused_by_its_title_gets_one_look_without_it() -> None:
    # "read out my notes" came as ls notes.txt, which the checks refuse (listing is not
    # showing); without ls, the model calls cat notes.txt, which they confirm.
    shelf = Shelf()
    model = lister(about=("Show a file",))
    agent = agent_for(model, shelf, without=WITHOUT, wrapped=True)
    answer = run_turn(agent, "read out my notes")[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == "Your notes say: buy milk."
    assert shelf.listed == [] and shelf.shown == ["notes.txt"]
    assert [r.grammar for r in model.requests if not r.aside] == [None, "without ls", None]


def test_a_wrapper_s_call_refused_by_its_title_stays_refused_when_no_other_fits() -> None:
    shelf = Shelf()
    model = lister(about=())
    agent = agent_for(model, shelf, without=WITHOUT, wrapped=True)
    answer = run_turn(agent, "translate notes.txt into French")[-1]
    assert isinstance(answer, FinalAnswer)
    assert answer.text == "I can't do that here: ls is for List directory, not for this."
    assert shelf.listed == [] and shelf.shown == [] and answer.tool_calls == []


def test_a_wrapper_s_call_for_a_request_it_does_not_answer_gets_one_look_without_it() -> None:
    # "what's on my todo list?" came as wc todo, and the topic question said yes: a
    # tool that says what it answers (asked_in: a count) is refused without asking,
    # and the look without it reads the file.
    shelf = Shelf()
    model = Reader(
        said=fence("ls", path="todo.md"),
        forced={"without ls": fence("cat", path="todo.md")},
        about=("List directory", "Show a file"),
    )
    asked = {"ls": lambda request: "how many" in request}
    agent = agent_for(model, shelf, without=WITHOUT, wrapped=True, asked=asked)
    answer = run_turn(agent, "what's on my todo list?")[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == "Your notes say: buy milk."
    assert shelf.listed == [] and shelf.shown == ["todo.md"]


class Desk:
    """Two plugins' worth: a strip that acts, and math that reads."""

    def __init__(self) -> None:
        self.colors: list[str] = []
        self.sums: list[str] = []

    @tool(kind="act", title="the LED strip", answer=lambda r: f"The LED strip is now {r}.")
    def led(self, color: str) -> str:
        """Set the LED strip colour."""
        self.colors.append(color)
        return color

    @tool(title="a math problem", answer=lambda r: f"= {r}")
    def math(self, expression: str) -> str:
        """Calculate."""
        self.sums.append(expression)
        return expression


class Elsewhere(Model):
    """Calls ``said`` itself; under the grammar of the other plugins' tools,
    ``forced``; says yes to the side questions that name a title in ``about``."""

    def __init__(self, *, said: str, forced: str, about: tuple[str, ...], can: str = "yes"):
        super().__init__(said=said, forced=forced, side="no", can=can)
        self.about = about

    async def stream(self, request: Any) -> Any:
        self.requests.append(request)
        if request.aside:
            asked = request.messages[0]["content"]
            if asked.startswith(("Tool:", "Device:")):
                yield self.can
            else:
                yield "yes" if any(title in asked for title in self.about) else "no"
        elif request.grammar:
            yield self.forced
        else:
            yield self.said


ELSEWHERE = {"led": "not the strip", "math": "not math"}


def desk_agent(
    *, said: str, forced: str, about: tuple[str, ...], can: str = "yes"
) -> tuple[Desk, Elsewhere, Agent]:
    """A desk, a model that calls ``said`` itself and ``forced`` on a look elsewhere,
    and the agent with the grammars of those looks."""
    desk = Desk()
    model = Elsewhere(said=said, forced=forced, about=about, can=can)
    return desk, model, agent_for(model, desk, elsewhere=ELSEWHERE)


def test_a_read_call_refused_by_its_topic_gets_a_look_at_the_other_plugins_tools() -> None:
    # "light's a bit harsh, take it down to 35" came as math; its topic question said
    # no; among the other plugins' tools the model called the strip, which the checks
    # confirm, and the strip changes.
    desk, model, agent = desk_agent(
        said=fence("math", expression="35 * 3.14"),
        forced=fence("led", color="red"),
        about=("the LED strip",),
    )
    answer = run_turn(agent, "too harsh, make the strip red")[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == "The LED strip is now red."
    assert desk.sums == [] and desk.colors == ["red"]
    assert [r.grammar for r in model.requests if not r.aside] == [None, "not math"]


def test_an_acting_call_refused_by_its_topic_gets_a_look_at_the_other_plugins_tools() -> None:
    desk, _model, agent = desk_agent(
        said=fence("led", color="red"),
        forced=fence("math", expression="2 + 2"),
        about=("a math problem",),
    )
    answer = run_turn(agent, "what is 2 + 2?")[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == "= 2 + 2"
    assert desk.colors == [] and desk.sums == ["2 + 2"]


@pytest.mark.parametrize(
    ("prompt", "asked"),
    [
        # fresh70: sent to math and refused, then on a look elsewhere the forecast for
        # Naples, which both side questions let run.
        ("is naples near rome?", []),
        ("will it rain in naples?", ["naples"]),
    ],
)
def test_a_second_look_s_call_faces_what_its_tool_answers(prompt: str, asked: list[str]) -> None:
    sky = Sky()
    refusal = "I can't do that here: none of my tools can measure distances."
    model = Model(said=refusal, forced=fence("weather", location="naples"), side="yes")
    agent = agent_for(model, sky, asked={"weather": asks_a_forecast})
    run_turn(agent, prompt)
    assert sky.asked == asked


class Room(Sky):
    @tool(kind="act", title="the LED strip", answer=lambda r: f"The LED strip is now {r}.")
    def led(self, color: str) -> str:
        """Set the LED strip colour."""
        return color


@pytest.mark.parametrize(
    ("prompt", "asked_back"),
    [
        # fresh68: a question about the light came as the forecast for "your location",
        # and was asked "Which location do you mean?"; the side questions refuse it.
        ("wat colour is the light at the moment?", False),
        ("will it rain tomorrow?", True),  # the forecast named: its place is asked for
    ],
)
def test_a_made_up_place_is_asked_for_only_where_no_other_device_is_named(
    prompt: str, asked_back: bool
) -> None:
    room = Room()
    model = Model(said=fence("weather", location="your location"), forced="", side="no")
    named = {"weather": names_the_weather, "led": lambda r: "light" in r}
    answer = run_turn(agent_for(model, room, recheck=None, named=named), prompt)[-1]
    assert isinstance(answer, FinalAnswer) and room.asked == []
    assert answer.text.startswith("Which location do you mean?") is asked_back


class Clock(Sky):
    @tool(title="How long the system has been up")
    def uptime(self) -> str:
        """Uptime."""
        return "up 3 days"


def test_a_look_at_the_other_tools_that_guesses_the_place_of_a_named_forecast_asks_it() -> None:
    # "Che tempo fa domani?" came as uptime ("tempo" is also time); its topic question
    # said no, and the look elsewhere gave the forecast for Oslo, a place nobody said.
    clock = Clock()
    model = Elsewhere(said=fence("uptime"), forced=fence("weather", location="Oslo"), about=())
    agent = agent_for(
        model, clock, elsewhere={"uptime": "not uptime"}, named={"weather": names_the_weather}
    )
    answer = run_turn(agent, "Che tempo fa domani?")[-1]
    assert isinstance(answer, FinalAnswer) and clock.asked == []
    assert answer.text.startswith("Which location do you mean?")


def test_a_look_at_the_other_tools_the_checks_refuse_too_leaves_the_refusal() -> None:
    # "who won the world cup in 2014?" sent to math: the look's call of the strip is
    # about no device the request names either; nothing runs.
    desk, _model, agent = desk_agent(
        said=fence("math", expression="2014"), forced=fence("led", color="gold"), about=()
    )
    answer = run_turn(agent, "who won the world cup in 2014? gold?")[-1]
    assert isinstance(answer, FinalAnswer)
    assert answer.text == "I can't do that here: math is for a math problem, not for this."
    assert desk.colors == [] and desk.sums == [] and answer.tool_calls == []


def test_a_look_at_the_other_tools_that_guesses_a_value_leaves_the_refusal() -> None:
    desk, _model, agent = desk_agent(
        said=fence("math", expression="1 + 1"),
        forced=fence("led", color="blue"),
        about=("the LED strip",),
    )
    answer = run_turn(agent, "make it feel cosy")[-1]
    assert isinstance(answer, FinalAnswer) and answer.text.startswith("I can't do that here")
    assert desk.colors == [] and desk.sums == []


def test_a_look_at_the_other_tools_acts_only_on_a_device_the_request_names() -> None:
    # "light's a bit harsh, take it down to 35", sent to math, moved the camera on a
    # look elsewhere: every side question said yes, but the request names no camera.
    desk, _model, agent = desk_agent(
        said=fence("math", expression="35 * 3.14"),
        forced=fence("led", color="red"),
        about=("the LED strip",),
    )
    answer = run_turn(agent, "bit harsh, make it red")[-1]
    assert isinstance(answer, FinalAnswer) and answer.text.startswith("I can't do that here")
    assert desk.colors == [] and desk.sums == []


def test_a_look_at_the_other_tools_takes_its_values_from_the_request_alone() -> None:
    # "bees only fly above about 13 degrees, right?", sent to math, came on a look
    # elsewhere as the weather for the city and day of an earlier turn.
    desk, _model, agent = desk_agent(
        said=fence("math", expression="13"),
        forced=fence("led", color="red"),
        about=("the LED strip",),
    )
    conversation = agent.new_conversation("s")
    run_turn(agent, "make the strip red", conversation=conversation)
    assert desk.colors == ["red"]  # "red" said in the request: it runs
    answer = run_turn(agent, "the strip, is it nice?", conversation=conversation)[-1]
    assert isinstance(answer, FinalAnswer) and answer.text.startswith("I can't do that here")
    assert desk.colors == ["red"] and desk.sums == []


def test_an_acting_call_its_device_cannot_do_gets_no_look() -> None:
    # The topic question says yes (it is about the strip); the capability question no:
    # what the strip cannot do, no other tool does either.
    desk, model, agent = desk_agent(
        said=fence("led", color="red"),
        forced=fence("math", expression="1"),
        about=("the LED strip",),
        can="no",
    )
    answer = run_turn(agent, "make the lights sing")[-1]
    assert isinstance(answer, FinalAnswer)
    assert answer.text == "I can't do that here: none of my devices can do that."
    assert desk.colors == [] and desk.sums == []
    assert [r.grammar for r in model.requests if not r.aside] == [None]


def test_a_refused_acting_tool_gets_no_third_look() -> None:
    strip = Strip()
    model = Model(said=REFUSAL, forced=fence("led", color="white"), side="no")
    answer = run_turn(
        agent_for(model, strip, without={"ls": "without ls"}), "turn on the ceiling fan"
    )[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == REFUSAL
    assert strip.colors == []
    assert [r.grammar for r in model.requests if not r.aside] == [None, "root ::= call"]


def test_the_composed_agent_has_a_second_look_without_each_titled_read_tool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("llama_cpp")  # the grammars are built only where llama.cpp runs
    from edgeagent import compose
    from edgeagent.config import Config

    monkeypatch.setattr(compose, "_runs_llama_cpp", lambda config: True)
    registry = ToolRegistry([*tools_from(Shelf(), plugin="t"), *tools_from(Strip(), plugin="t")])
    config = Config.model_validate({"llm": {"backend": "llamacpp"}})
    model: Any = Model(said="", forced="", side="")
    agent = compose.build_agent(
        config, llm=model, executor=ToolExecutor(registry), registry=registry
    )
    assert agent.recheck_grammar is not None
    assert set(agent.recheck_without) == {"ls", "cat"}  # read tools; led acts
    without_ls = agent.recheck_without["ls"]
    assert '\\"ls\\"' not in without_ls
    assert '\\"cat\\"' in without_ls and '\\"led\\"' in without_ls


def test_the_composed_agent_looks_elsewhere_among_the_other_plugins_tools(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("llama_cpp")
    from edgeagent import compose
    from edgeagent.config import Config

    monkeypatch.setattr(compose, "_runs_llama_cpp", lambda config: True)
    registry = ToolRegistry(
        [*tools_from(Shelf(), plugin="files"), *tools_from(Strip(), plugin="strip")]
    )
    config = Config.model_validate({"llm": {"backend": "llamacpp"}})
    model: Any = Model(said="", forced="", side="")
    agent = compose.build_agent(
        config, llm=model, executor=ToolExecutor(registry), registry=registry
    )
    assert set(agent.recheck_elsewhere) == {"ls", "cat", "led"}
    assert '\\"led\\"' in agent.recheck_elsewhere["ls"]
    assert '\\"cat\\"' not in agent.recheck_elsewhere["ls"]  # the same plugin's
    assert '\\"ls\\"' in agent.recheck_elsewhere["led"]
    assert '\\"led\\"' not in agent.recheck_elsewhere["led"]


def test_without_a_grammar_the_refusal_stands_after_one_generation() -> None:
    # The Hailo path: no constrained decoding, so no second look.
    strip = Strip()
    model = Model(said=REFUSAL, forced=fence("led", color="coral"), side="yes")
    answer = run_turn(agent_for(model, strip, recheck=None), "make them coral")[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == REFUSAL
    assert strip.colors == [] and len(model.requests) == 1


def test_an_answer_that_does_not_refuse_gets_no_second_look() -> None:
    strip = Strip()
    model = Model(
        said="Paris is the capital of France.", forced=fence("led", color="x"), side="yes"
    )
    events = run_turn(agent_for(model, strip), "capital of France?")
    assert isinstance(events[-1], FinalAnswer)
    assert events[-1].text == "Paris is the capital of France." and strip.colors == []
    assert len(model.requests) == 1
    assert "".join(e.text for e in events if isinstance(e, TextChunk)).startswith("Paris")


@pytest.mark.parametrize(
    "text",
    [
        "I can't do that here: none of my tools can water plants.",
        "I'm sorry, but I can't do that here.",
        "Sorry, I cannot open doors.",
        "I am unable to control the heater.",
        "None of my tools can list files.",
        "Je ne peux pas vous aider avec cela.",
        "No puedo hacer eso.",
        "Mi dispiace, ma non posso aiutarti con questo.",
        "Ich kann das leider nicht tun.",
        "Przepraszam, ale nie mogę pomóc z tym.",
        "申し訳ありませんが、それはできません。",
    ],
)
def test_refuses(text: str) -> None:
    assert honesty.refuses(text)


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("I can't do that here: none of my tools can delete files.", True),
        ("Sorry, I cannot send emails or reboot the machine.", True),
        ("I can't do that here: none of my tools can overwrite files.", True),
        ("I can't do that here: none of my tools can read a todo list.", False),
        ("I can't do that here: my tools can only control real hardware.", False),
        ("I can't do that here: it is clearly not a file.", False),
        ("The file was deleted.", False),  # not a refusal
    ],
)
def test_refuses_a_change(text: str, change: bool) -> None:
    assert honesty.refuses_a_change(text) is change


@pytest.mark.parametrize(
    "text",
    [
        "Paris is the capital of France.",
        "The LED strip is now red.",
        "Sure! 4.",
        "Ja, Schlangen können Farben sehen.",
        "La capital de Perú es Lima.",
        "Non è possibile dirlo con certezza, ma probabilmente sì.",
        "I'm sorry if I caused any confusion. If you have any other questions, ask!",
        "I'm sorry to hear that. Is there anything else I can help you with?",
        "Sorry to hear that!",
    ],
)
def test_refuses_leaves_other_answers_alone(text: str) -> None:
    assert not honesty.refuses(text)


def test_a_wrappers_look_without_it_is_among_the_tools_that_run_the_same_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # "what's on my todo list": ls todo refused by its title, then looked at again among
    # every titled tool, came as math("ans * 2"); among the shell's wrappers, cat todo.
    pytest.importorskip("llama_cpp")
    from edgeagent_shell import ShellOptions, build_shell_tool

    from edgeagent import compose
    from edgeagent.config import Config
    from edgeagent.tools.wrapped import load_wrapped_tools

    monkeypatch.setattr(compose, "_runs_llama_cpp", lambda config: True)
    shell = build_shell_tool(ShellOptions(roots=[tmp_path]), base=tmp_path)
    registry = ToolRegistry([shell, *tools_from(Strip(), plugin="t")])
    assert load_wrapped_tools(Path(__file__).parents[2] / "config" / "tools.d", registry) == []
    config = Config.model_validate({"llm": {"backend": "llamacpp"}})
    model: Any = Model(said="", forced="", side="")
    agent = compose.build_agent(
        config, llm=model, executor=ToolExecutor(registry), registry=registry
    )
    without_ls = agent.recheck_without["ls"]
    assert '\\"ls\\"' not in without_ls and '\\"led\\"' not in without_ls
    assert '\\"cat\\"' in without_ls and '\\"uptime\\"' in without_ls
    # Elsewhere: no wrapper of the shell ("white at seventy" came as uptime).
    elsewhere_ls = agent.recheck_elsewhere["ls"]
    assert '\\"led\\"' in elsewhere_ls
    assert '\\"cat\\"' not in elsewhere_ls and '\\"uptime\\"' not in elsewhere_ls


@pytest.mark.parametrize(
    ("prompt", "read"),
    [
        ("what's on my todo list", True),
        ("show me the to-do list", True),
        ("what's on the agenda today?", False),  # no file named: the topic question's
    ],
)
def test_the_topic_question_names_the_file_a_request_names(prompt: str, read: bool) -> None:
    # "what's on my todo list" came as cat todo.txt, ls todo.md and the like, and the
    # topic question, asked of the title alone, said it was not about showing a file
    # (three blind prompt sets); with the file after the title, it says yes.
    shelf = Shelf()
    model = Reader(said=fence("cat", path="todo.md"), forced={}, about=("(todo.md)",))
    answer = run_turn(agent_for(model, shelf), prompt)[-1]
    assert isinstance(answer, FinalAnswer)
    assert shelf.shown == (["todo.md"] if read else [])
    topics = [r.messages[0]["content"] for r in model.requests if r.aside]
    shown = "Show a file (todo.md)" if read else "Show a file"
    assert topics[0].endswith(f"about {shown}? Answer yes or no.")


@pytest.mark.parametrize(
    ("path", "request_", "named"),
    [
        ("todo.md", "what's on my todo list", True),
        ("todo.txt", "read me my To-Do list will ya", True),
        ("notes.txt", "remind me what's in my notes", True),
        ("logs/app.log", "last lines of the app log", True),
        ("todo", "what's on my todo list", False),  # no extension: no file named
        ("pride_and_prejudice.txt", "who wrote Pride and Prejudice?", False),  # not one word
        ("data.csv", "what's on my todo list", False),
    ],
)
def test_names_file(path: str, request_: str, named: bool) -> None:
    assert names_file(path, request_) is named


@pytest.mark.parametrize(
    "prompt",
    [
        "ok delete it, I don't need it anymore",
        "get rid of notes.txt for me",
        "disk is filling up, just delete everything in the logs folder",
        # in other languages ("Radera alla filer i loggmappen" listed the folder)
        "Radera alla filer i loggmappen",
        "verwijder notes.txt",
        "usuń wszystkie logi",
        "удали все файлы в папке logs",
        "logs klasöründeki dosyaları sil",
        "ログフォルダのファイルを削除して",
        # asked politely: an order all the same ("Kan du radera alla loggfiler?" ran df)
        "Kan du radera alla loggfiler?",
        "Kannst du notes.txt löschen?",
    ],
)
def test_an_order_to_change_asked_of_a_wrapper_is_refused_without_a_side_question(
    prompt: str,
) -> None:
    # "ok delete it" came as ls notes.txt, which the topic question passed (it is about
    # that file): the listing answered a request nobody made. "just delete everything
    # in the logs folder" came as df, which the reader question passed too.
    files = Files()
    model = Model(said=fence("ls", path="notes.txt"), forced="", side="yes", can="yes")
    answer = run_turn(agent_for(model, files, without={"ls": "g"}, wrapped=True), prompt)[-1]
    assert isinstance(answer, FinalAnswer)
    assert answer.text.startswith("I can't do that here: ls only reads")
    assert honesty.refuses_a_change(answer.text)
    assert files.listed == []
    assert not any(r.aside for r in model.requests)  # no side question asked
    assert not any(r.grammar for r in model.requests)  # no look for a read


@pytest.mark.parametrize(
    ("prompt", "asked"),
    [
        # An order asked politely is an order ("can you free some up by clearing the apt
        # cache?" came as free, and the reader question let it run; fresh30).
        ("can you delete notes.txt for me?", False),
        ("can you delete notes.txt?", False),
        # A question, or a request that reads first: the reader question decides.
        ("could u get rid of notes.txt", True),
        ("can you show me notes.txt and then delete it?", True),
        ("what would deleting notes.txt free?", True),
    ],
)
def test_a_change_asked_as_a_question_of_a_wrapper_faces_the_reader_question(
    prompt: str, asked: bool
) -> None:
    files = Files()
    model = Model(said=fence("ls", path="notes.txt"), forced="", side="yes", can="no")
    answer = run_turn(agent_for(model, files, without={"ls": "g"}, wrapped=True), prompt)[-1]
    assert isinstance(answer, FinalAnswer)
    assert answer.text.startswith("I can't do that here: ls only reads")
    assert files.listed == []
    assert any(r.aside for r in model.requests) is asked
    assert not any(r.grammar for r in model.requests if not r.aside)  # no look for a read


def test_a_read_asked_of_a_wrapper_is_not_asked_the_reader_question() -> None:
    files = Files()
    model = Model(said=fence("ls", path="notes.txt"), forced="", side="yes", can="no")
    run_turn(agent_for(model, files, wrapped=True), "is notes.txt still there?")
    assert files.listed[:1] == ["notes.txt"]
    assert not any(r.messages[0]["content"].startswith("Tool:") for r in model.requests if r.aside)


def test_a_change_the_reader_question_lets_through_runs_the_read() -> None:
    files = Files()
    model = Model(said=fence("ls", path="notes.txt"), forced="", side="yes", can="yes")
    run_turn(agent_for(model, files, wrapped=True), "which files did I add today?")
    assert files.listed[:1] == ["notes.txt"]


def test_a_value_the_tool_reads_from_the_request_itself_is_said() -> None:
    # "che tempo fa a Bologna sabato?", refused, came on a second look as day
    # "saturday": the user said "sabato", which the weather's reread reads as saturday.
    # "Kannst du die Kamera ganz nach links drehen?" came as left 15, which the servo
    # reads as -90, and was refused as a guess (blind prompts): a call is judged as its
    # tool reads it again.
    def day_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
        return {**arguments, "day": "saturday"} if "sabato" in request else None

    class Sky:
        @tool
        def weather(self, location: str, day: str = "today") -> str:
            """Weather for a place and day."""
            return "sun"

    weather = dataclasses.replace(tools_from(Sky(), plugin="t")[0], reread=day_said)
    model = Model(said="", forced="", side="")
    checks = SideChecks(llm=model, registry=ToolRegistry([weather]))  # type: ignore[arg-type]
    call = ToolCall("weather", {"location": "Bologna", "day": "saturday"})
    prompt = "che tempo fa a Bologna sabato?"
    assert checks.heard.unsaid([call], said=prompt) == "saturday"
    assert checks.heard.unsaid([call], said=prompt, request=prompt) is None
    # A day the model got wrong is read again as the one said: what runs was said.
    monday = ToolCall("weather", {"location": "Bologna", "day": "monday"})
    assert checks.heard.unsaid([monday], said=prompt, request=prompt) is None
    # Where the tool reads nothing from the request, a value nobody said is a guess.
    elsewhere = "che tempo fa a Bologna?"
    assert checks.heard.unsaid([monday], said=elsewhere, request=elsewhere) == "monday"
    oslo = ToolCall("weather", {"location": "Oslo", "day": "saturday"})
    assert checks.heard.unsaid([oslo], said=prompt, request=prompt) == "Oslo"  # read, still unsaid


def test_without_the_side_questions_a_turn_has_no_grammar_for_a_look() -> None:
    pytest.importorskip("llama_cpp")
    from edgeagent.agent.grammars import turn_grammars

    tools = [*tools_from(Shelf(), plugin="files"), *tools_from(Strip(), plugin="strip")]
    fence_format = get_call_format("fence")
    looks = turn_grammars(tools, call_format=fence_format, every_step=False, second_look=True)
    plain = turn_grammars(tools, call_format=fence_format, every_step=False, second_look=False)
    assert looks.recheck and looks.recheck_without and looks.recheck_elsewhere
    assert plain.recheck is None and not plain.recheck_without and not plain.recheck_elsewhere
    assert plain.call == looks.call and plain.act == looks.act and plain.grammar is None


def test_a_look_without_a_refused_wrapper_leaves_out_wrappers_that_answer_only_their_asks() -> None:
    # "what's on my todo list?", refused, came as ls todo, then without ls as wc todo,
    # which wc's asked_in refuses: the look without ls is among the others, not wc.
    pytest.importorskip("llama_cpp")
    from edgeagent.agent.grammars import turn_grammars

    ls, cat = (
        dataclasses.replace(t, extra={"wrapped": "shell"})
        for t in tools_from(Shelf(), plugin="files")
    )
    wc = dataclasses.replace(ls, name="wc", asked_in=lambda request: "how many" in request)
    looks = turn_grammars(
        [ls, cat, wc], call_format=get_call_format("fence"), every_step=False, second_look=True
    )
    without_ls = looks.recheck_without["ls"]
    assert '\\"cat\\"' in without_ls and '\\"wc\\"' not in without_ls
    assert '\\"wc\\"' in (looks.recheck or "")  # the first look may still count


class Rig:
    """Two devices of two plugins' kinds: the strip and the camera."""

    def __init__(self) -> None:
        self.colors: list[str] = []
        self.turns: list[float] = []

    @tool(kind="act", title="the LED strip (lights)", answer=lambda r: f"The strip is now {r}.")
    def led(self, color: str) -> str:
        """Set the LED strip colour."""
        self.colors.append(color)
        return color

    @tool(kind="act", title="the camera servo", answer=lambda r: f"The camera turned {r}.")
    def servo(self, left: float) -> str:
        """Turn the camera left."""
        self.turns.append(left)
        return str(left)


class Looks(Model):
    """Refuses (or says ``said``); under each grammar, that grammar's call; yes to every
    side question."""

    def __init__(self, calls: dict[str, str], *, said: str = REFUSAL) -> None:
        super().__init__(said=said, forced="", side="yes")
        self.calls = calls

    async def stream(self, request: Any) -> Any:
        self.requests.append(request)
        if request.aside:
            yield "yes"
        elif request.grammar:
            yield self.calls[request.grammar]
        else:
            yield self.said


def test_a_second_look_that_guesses_at_a_device_the_request_never_names_looks_elsewhere() -> None:
    # "greenhouse grow lights to violet please", refused, came on a second look as the
    # camera turned 15 degrees; among the other plugins' tools, the lights.
    rig = Rig()
    model = Looks(
        {"root ::= call": fence("servo", left=15), "not the servo": fence("led", color="violet")}
    )
    agent = agent_for(model, rig, elsewhere={"servo": "not the servo", "led": "not the strip"})
    answer = run_turn(agent, "greenhouse grow lights to violet please")[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == "The strip is now violet."
    assert rig.colors == ["violet"] and rig.turns == []
    grammars = [r.grammar for r in model.requests if not r.aside]
    assert grammars == [None, "root ::= call", "not the servo"]


def test_a_look_elsewhere_after_a_second_look_acts_only_on_a_device_the_request_names() -> None:
    rig = Rig()
    model = Looks(
        {"root ::= call": fence("servo", left=15), "not the servo": fence("led", color="blue")}
    )
    agent = agent_for(model, rig, elsewhere={"servo": "not the servo", "led": "not the strip"})
    answer = run_turn(agent, "blue fan please, turn it on")[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == REFUSAL
    assert rig.colors == [] and rig.turns == []


def test_a_second_look_for_a_request_that_names_no_device_gets_no_look_elsewhere() -> None:
    # "water the plants": refused, then the camera turned by a guess; a look among the
    # other tools would cost a generation and could act on no device the request names.
    rig = Rig()
    model = Looks(
        {"root ::= call": fence("servo", left=15), "not the servo": fence("led", color="blue")}
    )
    agent = agent_for(model, rig, elsewhere={"servo": "not the servo", "led": "not the strip"})
    answer = run_turn(agent, "water the plants")[-1]
    assert isinstance(answer, FinalAnswer) and answer.text == REFUSAL
    assert [r.grammar for r in model.requests if not r.aside] == [None, "root ::= call"]


class Camera:
    def __init__(self) -> None:
        self.moves: list[dict[str, Any]] = []

    @tool(kind="act", title="the camera servo", answer=lambda r: f"The camera is now at {r}.")
    def servo(self, center: bool = False, back: bool = False) -> str:
        """Point the camera straight ahead, or back where it was."""
        self.moves.append({"center": center, "back": back})
        return "0°"


@pytest.mark.parametrize(
    ("request_", "moved"),
    [
        # Refused by the model, then the servo's center on a second look, and both side
        # questions said yes (fresh53): nothing in the call is the user's.
        ("can you restart it so it's fresh", False),
        ("please reset it", False),
        # The device named: a flag is all it takes ("kill the lights" is on=false).
        ("point the camera straight ahead", True),
    ],
)
def test_a_second_look_acting_with_flags_only_needs_the_device_named(
    request_: str, moved: bool
) -> None:
    camera = Camera()
    model = Model(said=REFUSAL, forced=fence("servo", center=True), side="yes")
    answer = run_turn(agent_for(model, camera), request_)[-1]
    assert isinstance(answer, FinalAnswer)
    assert bool(camera.moves) is moved
    assert ("now at" in answer.text) is moved


def test_a_second_look_undo_with_a_flag_stays_with_the_device_that_changed_last() -> None:
    camera = Camera()
    model = Model(said=REFUSAL, forced=fence("servo", back=True), side="yes")
    agent = agent_for(model, camera)
    registry = agent.executor.registry
    servo = dataclasses.replace(registry.get("servo"), undone_in=lambda r: "undo" in r)
    agent.executor = ToolExecutor(ToolRegistry([servo]))
    agent.checks = SideChecks(llm=model, registry=agent.executor.registry)  # type: ignore[arg-type]
    conversation = agent.new_conversation("s")
    run_turn(agent, "turn the camera back", conversation)
    assert len(camera.moves) == 1  # the camera named
    answer = run_turn(agent, "hmm no, undo that", conversation)[-1]
    assert isinstance(answer, FinalAnswer) and "now at" in answer.text
    assert len(camera.moves) == 2  # nothing named, but the camera changed last
