"""The tool-call grammar: free text stays free, a started call must be valid."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import Field

from edgeagent.errors import ToolDefinitionError
from edgeagent.llm.grammar import build_tool_grammar, close_marker_for
from edgeagent.tools.tool import Tool, make_tool, tool

pytest.importorskip("llama_cpp")


@tool(kind="act")
def led(
    color: Annotated[str, Field(description="CSS colour")],
    brightness: Annotated[int, Field(ge=0, le=100)] = 100,
) -> dict[str, str]:
    """Set the LED."""
    return {}


@tool
def uptime() -> float:
    """Seconds since boot."""
    return 0.0


@tool
def shell(command: Literal["df -h", "uptime"]) -> str:
    """Run an allow-listed command."""
    return command


TOOLS: list[Tool] = [make_tool(led), make_tool(uptime), make_tool(shell)]
CALL = '<tool_call>{{"name": "{name}", "arguments": {args}}}</tool_call>'


def call(name: str, args: str) -> str:
    return CALL.format(name=name, args=args)


def test_close_markers() -> None:
    assert close_marker_for("<tool_call>") == "</tool_call>"
    assert close_marker_for("```json") == "```"
    assert close_marker_for("CALL:") == ""


def test_no_tools_is_a_clear_error() -> None:
    with pytest.raises(ToolDefinitionError, match="at least one tool"):
        build_tool_grammar([], open_marker="<tool_call>")


@pytest.mark.model
@pytest.mark.parametrize(
    "text",
    [
        "",
        "The LED is red now.",
        "Use < and > freely: a<b, <tool, <tool_cal and </tool_call> are just text.",
        call("led", '{"color": "red"}'),
        call("led", '{"color": "red", "brightness": 40}'),
        '<tool_call>\n{\n  "name": "uptime",\n  "arguments": {}\n}\n</tool_call>',
        "Checking. " + call("shell", '{"command": "df -h"}') + " Done.",
        call("uptime", "{}") + "\n" + call("led", '{"color": "blue"}'),
        "<tool_<tool_call>" + call("uptime", "{}")[len("<tool_call>") :],
    ],
)
def test_accepts_text_and_valid_calls(grammar_checker: object, text: str) -> None:
    grammar = build_tool_grammar(TOOLS, open_marker="<tool_call>")
    assert grammar_checker.accepts(grammar, text)  # type: ignore[attr-defined]


@pytest.mark.model
@pytest.mark.parametrize(
    "text",
    [
        call("lamp", "{}"),  # unknown tool
        call("led", "{}"),  # missing required argument
        call("led", '{"color": 5}'),  # wrong type
        call("led", '{"colour": "red"}'),  # unknown argument
        call("shell", '{"command": "rm -rf /"}'),  # not in the enum
        '<tool_call>{"name": "led", "arguments": {"color": "red"}',  # never closed
        "<tool_call>Sure, I will turn it on.",  # the marker commits to a call
        '<tool_call>{"arguments": {}, "name": "uptime"}</tool_call>',  # key order is fixed
    ],
)
def test_rejects_broken_calls(grammar_checker: object, text: str) -> None:
    grammar = build_tool_grammar(TOOLS, open_marker="<tool_call>")
    assert not grammar_checker.accepts(grammar, text)  # type: ignore[attr-defined]


@pytest.mark.model
def test_require_call_and_fence_marker(grammar_checker: object) -> None:
    checker = grammar_checker
    required = build_tool_grammar(TOOLS, open_marker="<tool_call>", require_call=True)
    assert checker.accepts(required, "\n" + call("uptime", "{}"))  # type: ignore[attr-defined]
    assert not checker.accepts(required, "Hello")  # type: ignore[attr-defined]
    assert not checker.accepts(required, "")  # type: ignore[attr-defined]

    fenced = build_tool_grammar(TOOLS, open_marker="```json")
    good = 'Here:\n```json\n{"name": "led", "arguments": {"color": "red"}}\n```'
    assert checker.accepts(fenced, good)  # type: ignore[attr-defined]
    assert checker.accepts(fenced, "```python\nprint(1)\n```")  # type: ignore[attr-defined]
    bad = '```json\n{"name": "lamp", "arguments": {}}\n```'
    assert not checker.accepts(fenced, bad)  # type: ignore[attr-defined]


@pytest.mark.model
def test_many_tools_compile(grammar_checker: object) -> None:
    many = [make_tool(tool(name=f"t{i}")(led)) for i in range(30)]
    grammar = build_tool_grammar(many, open_marker="<tool_call>")
    assert grammar_checker.compiles(grammar)  # type: ignore[attr-defined]
    assert grammar_checker.accepts(grammar, call("t29", '{"color": "red"}'))  # type: ignore[attr-defined]
