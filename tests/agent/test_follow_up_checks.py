"""The checks before a call, in a conversation: a follow-up that says "it" or "them"
is asked about with the turn before; the capability question stays the request's own,
but a correction the topic question takes alone ("nah, crimson") is asked it again with
the request it corrects when it says no alone."""

from __future__ import annotations

import json
from typing import Any

import pytest

from edgeagent.agent import honesty
from edgeagent.agent.loop import Agent
from edgeagent.llm.base import InProcessLLM
from edgeagent.llm.scripted import Rule, ScriptedEngine
from edgeagent.tools import tool, tools_from
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from tests.agent.scripted_agent import run_turn

CAMERA = "the servo that turns the camera"


class Camera:
    def __init__(self) -> None:
        self.moves: list[dict[str, Any]] = []

    @tool(name="servo", kind="act", title=CAMERA, answer=lambda r: f"The camera is at {r}°.")
    def servo(self, angle: int = 0) -> int:
        """Point the camera."""
        self.moves.append({"angle": angle})
        return angle


def fence(name: str, **arguments: Any) -> str:
    return "```json\n" + json.dumps({"name": name, "arguments": arguments}) + "\n```"


def topic(request: str) -> str:
    return honesty.target_question(request, CAMERA).split("\n")[0]


def camera_agent(rules: list[Rule]) -> tuple[Agent, Camera]:
    camera = Camera()
    engine = ScriptedEngine(
        [
            *rules,
            (f"^{topic('point the camera left')}", "yes"),
            (r"^Device: .*\nRequest: \"point the camera left\"", "yes"),
            (r"^point the camera left", fence("servo", angle=-30)),
            (
                r"^(centre it|turn on the fan|open the garage|hmm no|no wait)",
                fence("servo", angle=0),
            ),
        ],
        default="no",
        context_window=4096,
    )
    agent = Agent(
        llm=InProcessLLM(engine),
        executor=ToolExecutor(ToolRegistry(tools_from(camera, plugin="test"))),
        call_format=get_call_format("fence"),
        system_prompt="sys",
        check_target=True,
    )
    return agent, camera


def answers(agent: Agent, *prompts: str) -> list[str]:
    conversation = agent.new_conversation("s")
    return [run_turn(agent, p, conversation)[-1].text for p in prompts]


def test_a_follow_up_saying_it_runs_when_the_turn_before_names_the_device() -> None:
    both = topic("point the camera left centre it over the crib")
    agent, camera = camera_agent(
        [
            (f"^{both}", "yes"),
            (r"^Device: .*\nRequest: \"centre it over the crib\"", "yes"),
        ]
    )
    said = answers(agent, "point the camera left", "centre it over the crib")
    assert camera.moves == [{"angle": -30}, {"angle": 0}]
    assert said[1] == "The camera is at 0°."


def test_the_capability_question_is_still_the_follow_ups_own() -> None:
    # With the turn before, the topic is the camera; alone, a fan is no camera's job.
    both = topic("point the camera left turn on the fan, it's hot")
    agent, camera = camera_agent([(f"^{both}", "yes")])
    said = answers(agent, "point the camera left", "turn on the fan, it's hot")
    assert camera.moves == [{"angle": -30}]
    assert said[1] == "I can't do that here: none of my devices can do that."


def test_a_follow_up_that_refers_to_nothing_earlier_is_asked_about_alone() -> None:
    # Asked with the turn before, the answer would be yes; it is never asked.
    both = topic("point the camera left open the garage door")
    agent, camera = camera_agent(
        [
            (f"^{both}", "yes"),
            (r"^Device: .*\nRequest: \"open the garage door\"", "yes"),
        ]
    )
    said = answers(agent, "point the camera left", "open the garage door")
    assert camera.moves == [{"angle": -30}]
    assert said[1] == "I can't do that here: none of my devices can do that."


def test_a_follow_up_saying_again_runs_when_the_turn_before_names_the_device() -> None:
    # "hmm no, and back again" after a turn of the camera: alone, no camera request.
    both = topic("point the camera left hmm no, and back again")
    agent, camera = camera_agent(
        [
            (f"^{both}", "yes"),
            (r"^Device: .*\nRequest: \"hmm no, and back again\"", "yes"),
        ]
    )
    said = answers(agent, "point the camera left", "hmm no, and back again")
    assert camera.moves == [{"angle": -30}, {"angle": 0}]
    assert said[1] == "The camera is at 0°."


def test_refers_back() -> None:
    assert honesty.refers_back("centre it over the crib")
    assert honesty.refers_back("dim them to 35")
    assert honesty.refers_back("hmm no, and back again")
    assert honesty.refers_back("Encore vingt degrés dans le même sens")
    assert not honesty.refers_back("open the garage door")
    assert not honesty.refers_back("italy")  # a word that holds "it"


@pytest.mark.parametrize(
    ("alone", "with_the_turn_before"),
    [
        # "nah, crimson" after "rgb time, make it red": alone, the model said the LED
        # strip could not do it (blind prompts); asked again with the turn before.
        ("no", "yes"),
        # "actually go back to the previous colour" after a square root: asked with
        # that turn before it, the model said no (blind prompts); alone it said yes.
        ("yes", "no"),
    ],
)
def test_a_correction_runs_when_the_capability_question_says_yes_either_way(
    alone: str, with_the_turn_before: str
) -> None:
    both = "point the camera left no wait, centre"
    agent, camera = camera_agent(
        [
            (f"^{topic('no wait, centre')}", "yes"),
            (f'^Device: .*\nRequest: "{both}"', with_the_turn_before),
            (r'^Device: .*\nRequest: "no wait, centre"', alone),
        ]
    )
    said = answers(agent, "point the camera left", "no wait, centre")
    assert camera.moves == [{"angle": -30}, {"angle": 0}]
    assert said[1] == "The camera is at 0°."


def test_a_move_turned_the_other_way_is_asked_again_with_the_move_before() -> None:
    # "now go 50 the other way" after "swing the camera 30 to the right": alone, the
    # capability question said the servo could not do it (blind prompts).
    request_ = "now go 50 the other way"
    both = f"point the camera left {request_}"
    agent, camera = camera_agent(
        [
            (f"^{topic(request_)}", "yes"),
            (f'^Device: .*\nRequest: "{both}"', "yes"),
            (f'^Device: .*\nRequest: "{request_}"', "no"),
            (f"^{request_}", fence("servo", angle=20)),
        ]
    )
    said = answers(agent, "point the camera left", request_)
    assert camera.moves == [{"angle": -30}, {"angle": 20}]
    assert said[1] == "The camera is at 20°."


def test_a_correction_naming_another_device_is_still_refused() -> None:
    both = "point the camera left no wait, turn on the fan"
    agent, camera = camera_agent(
        [
            (f"^{topic('no wait, turn on the fan')}", "yes"),
            (f'^Device: .*\nRequest: "{both}"', "yes"),
        ]
    )
    said = answers(agent, "point the camera left", "no wait, turn on the fan")
    assert camera.moves == [{"angle": -30}]
    assert said[1] == "I can't do that here: none of my devices can do that."


@pytest.mark.parametrize(
    "request_",
    [
        "no wait, gold",
        "nah, crimson",
        "make it teal instead",
        "actually make that 45",
        "Nein, lieber grün",
        "non, plutôt bleu",
        "scratch that, indigo",
        "now go 50 the other way",
        "dreh sie 20 Grad andersrum",
        "gira 15 grados hacia el otro lado",
        "tourne de 10 degrés dans l'autre sens",
    ],
)
def test_corrections(request_: str) -> None:
    assert honesty.corrects(request_) and honesty.refers_back(request_)


@pytest.mark.parametrize(
    "request_", ["turn the light gold", "nothing else, thanks", "is it known?", "notify me"]
)
def test_not_corrections(request_: str) -> None:
    assert not honesty.corrects(request_)


class Files:
    def __init__(self) -> None:
        self.searched: list[list[str]] = []

    @tool(name="cat", kind="read", title="Show a file")
    def cat(self, path: str) -> str:
        """Show a file."""
        return "# Todo\n- milk\n- milk again"

    @tool(name="grep", kind="read", title="Search files")
    def grep(self, arguments: list[str]) -> str:
        """Search files."""
        self.searched.append(arguments)
        return "2:- milk\n3:- milk again"


def files_agent(search: list[str]) -> tuple[Agent, Files]:
    """The first turn reads todo.txt; the second's ``grep`` call searches ``search``;
    the topic question says no to it alone and yes asked with the turn before."""
    files = Files()
    follow_up = "how many times is milk on there"
    engine = ScriptedEngine(
        [
            (r"^Request: \"what does the todo list say\"", "yes"),
            (r"^what does the todo list say", fence("cat", path="todo.txt")),
            # Asked with the turn before, and the file it named (fresh33).
            (
                rf"^Request: \"what does the todo list say {follow_up}\"\n"
                r"Is this request about Search files \(todo.txt\)\?",
                "yes",
            ),
            (rf"^{follow_up}", fence("grep", arguments=search)),
        ],
        default="no",
        context_window=4096,
    )
    agent = Agent(
        llm=InProcessLLM(engine),
        executor=ToolExecutor(ToolRegistry(tools_from(files, plugin="test"))),
        call_format=get_call_format("fence"),
        system_prompt="sys",
        check_target=True,
    )
    return agent, files


def test_a_read_of_the_file_the_turn_before_read_is_asked_about_with_it() -> None:
    # Blind prompts: alone, the topic question said this was no search, and it was refused.
    agent, files = files_agent(["todo.txt", "milk"])
    said = answers(agent, "what does the todo list say", "how many times is milk on there")
    assert files.searched == [["todo.txt", "milk"]]
    assert not said[1].startswith("I can't do that here")


def test_a_read_of_another_file_is_asked_about_alone() -> None:
    agent, files = files_agent(["notes.txt", "milk"])
    said = answers(agent, "what does the todo list say", "how many times is milk on there")
    assert files.searched == []
    assert said[1].startswith("I can't do that here")
