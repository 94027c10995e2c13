"""One terminal view of a turn, for `edgeagent ask` (events off the socket) and `chat`."""

from __future__ import annotations

import pytest

from edgeagent.agent.events import (
    ErrorEvent,
    Event,
    FinalAnswer,
    TextChunk,
    ToolCallEvent,
    ToolResultEvent,
    event_to_dict,
)
from edgeagent.cli.render import TurnRenderer
from edgeagent.frontends.client import event_from_line

TURN: list[Event] = [
    TextChunk("Let me "),
    TextChunk("check."),
    ToolCallEvent("led", {"color": "red"}, step=1),
    ToolResultEvent("led", ok=True, result={"color": "red"}, step=1),
    ToolCallEvent("servo", {"angle": 200}, step=2),
    ToolResultEvent("servo", ok=False, error="angle must be 0-180, got 200", step=2),
    FinalAnswer("The LED is red.", steps=2),  # built from the result: never streamed
]


def render(events: list[Event]) -> None:
    renderer = TurnRenderer()
    for event in events:
        renderer.show(event)


def test_tool_lines_sit_between_the_text_and_an_unstreamed_answer_is_printed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    render(TURN)
    assert capsys.readouterr().out == (
        "Let me check.\n"
        '  -> led({"color": "red"})\n'
        '  <- led: {"color": "red"}\n'
        '  -> servo({"angle": 200})\n'
        "  <- servo: error: angle must be 0-180, got 200\n"
        "The LED is red.\n"
    )


def test_a_streamed_answer_is_not_printed_twice(capsys: pytest.CaptureFixture[str]) -> None:
    render([TextChunk("Hello "), TextChunk("there."), FinalAnswer("Hello there.")])
    assert capsys.readouterr().out == "Hello there.\n"


def test_an_answer_that_replaced_the_streamed_text_is_printed_after_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # "Sure! " streamed, then a claim no tool backed was withheld and replaced.
    render([TextChunk("Sure! "), FinalAnswer("Sorry, that did not work: no strip.")])
    assert capsys.readouterr().out == "Sure! \nSorry, that did not work: no strip.\n"


def test_an_error_ends_the_line_and_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    render([TextChunk("Work"), ErrorEvent("the model worker crashed")])
    out, err = capsys.readouterr()
    assert (out, err) == ("Work\n", "error: the model worker crashed\n")


def test_ask_sees_the_same_events_as_chat(capsys: pytest.CaptureFixture[str]) -> None:
    """Lines off the socket carry an id; read back they are the events chat renders."""
    lines = [{**event_to_dict(e), "id": "cli-1"} for e in [*TURN, ErrorEvent("x")]]
    assert [event_from_line(line) for line in lines] == [*TURN, ErrorEvent("x")]
    assert event_from_line({"type": "status", "status": {}}) is None
