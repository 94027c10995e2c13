"""The fill: what a call's format fixes next, given what the model has written."""

from __future__ import annotations

import pytest

from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolCall
from edgeagent.tools.fill import CallFill, fill_for

FENCE = fill_for(get_call_format("fence"))


def written_with_fill(fill: CallFill, sampled: list[str]) -> tuple[str, list[str]]:
    """The text a model writes when each sampled piece is followed by its fill."""
    text, fills = "", []
    for piece in sampled:
        text += piece
        if more := fill(text):
            fills.append(more)
            text += more
    return text, fills


def test_a_fenced_call_is_the_canonical_rendering_with_half_of_it_filled() -> None:
    call = ToolCall("led", {"color": "red", "brightness": 30})
    canonical = get_call_format("fence").render_call([call])
    text, fills = written_with_fill(
        FENCE, ["```", "json", "\n", "led", '"', ' {"color": "red", "brightness": 30', "}}"]
    )
    assert text == canonical
    assert fills == ['{"name": "', ', "arguments":', "\n```"]


def test_only_what_the_model_has_not_written_is_filled() -> None:
    assert FENCE('```json\n{"na') == 'me": "'
    assert FENCE('```json\n{"name": "servo",') == ' "arguments":'
    assert FENCE('```json\n{"name": "servo", "arguments": {}}\n') == "```"


@pytest.mark.parametrize(
    "text",
    [
        "The LED is red.",  # no call
        '```json\n{"name": "le',  # the name is the model's to finish
        '```json\n{"name": "led", "arguments": {"color": "re',  # arguments are the model's
        '```json\n{"name":"led"',  # not the canonical spelling: nothing is assumed
        '```json\n{"name": "led", "arguments": {}}\n```',  # closed
        '```json\n{"name": "led", "arguments": {}}\n```\nDone',  # what follows is free
        '```json\n{"name": "led", "arguments": {"a": 1}} trailing',
    ],
)
def test_nothing_is_filled_where_the_model_has_a_choice(text: str) -> None:
    assert FENCE(text) == ""


def test_a_second_call_is_filled_like_the_first() -> None:
    first = '```json\n{"name": "led", "arguments": {}}\n```\n'
    assert FENCE(first + "```json\n") == '{"name": "'


def test_the_json_format_fills_its_tags() -> None:
    fill = fill_for(get_call_format("json"))
    assert fill is not None
    assert fill("<tool_call>") == '{"name": "'
    assert fill('<tool_call>{"name": "math", "arguments": {"expression": "2+2"}}') == (
        "</tool_call>"
    )


def test_a_format_without_a_grammar_has_no_fill() -> None:
    assert fill_for(get_call_format("xml")) is None
