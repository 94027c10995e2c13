"""The call parser on what small models really write: exact calls and exact answer text."""

from __future__ import annotations

from typing import Any

import pytest

from edgeagent.errors import ConfigError
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolCall
from tests.tools.call_cases import BROKEN, CASES, FENCE_CALL, PARIS, RED


@pytest.mark.parametrize("fmt", ["json", "xml"])
@pytest.mark.parametrize(
    ("output", "calls", "text"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_parse(fmt: str, output: str, calls: list[ToolCall], text: str) -> None:
    parsed = get_call_format(fmt).parse(output)
    assert parsed.calls == calls
    assert parsed.text == text
    assert parsed.errors == []


@pytest.mark.parametrize(
    ("output", "calls", "text", "word"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN]
)
def test_malformed_calls_are_reported(
    output: str, calls: list[ToolCall], text: str, word: str
) -> None:
    parsed = get_call_format("json").parse(output)
    assert parsed.calls == calls
    assert parsed.text == text
    assert len(parsed.errors) == 1
    assert word in parsed.errors[0]


@pytest.mark.parametrize("fmt", ["fence", "json", "xml"])
def test_instructions_show_a_real_call_the_parser_reads(fmt: str) -> None:
    call_format = get_call_format(fmt)
    instructions = call_format.instructions(RED)
    example = call_format.render_call([RED])
    assert example in instructions
    assert call_format.parse(instructions).calls == [RED]
    # Nothing a model could echo as a placeholder call.
    assert not {"TOOL", "ARG", "VALUE"} & set(instructions.replace('"', " ").split())
    assert len(instructions) < 250  # every prompt token counts on a 2048-token context


def test_the_formats_instructions_differ() -> None:
    assert "```json\n{" in get_call_format("fence").instructions(RED)
    assert '<tool_call>{"name"' in get_call_format("json").instructions(RED)
    assert "<parameter=" in get_call_format("xml").instructions(RED)
    assert "<parameter=" not in get_call_format("json").instructions(RED)


def test_arguments_given_as_a_list() -> None:
    # Qwen2.5-Coder writes a list for "no arguments", and for a wrapper's argument list.
    parse = get_call_format("fence").parse
    assert parse('```json\n{"name": "df", "arguments": []}\n```').calls == [ToolCall("df", {})]
    assert parse('```json\n{"name": "ls", "arguments": ["logs"]}\n```').calls == [
        ToolCall("ls", {"arguments": ["logs"]})
    ]
    # "show me the last 3 lines of the app log" (blind prompts): a number in the list.
    assert parse('```json\n{"name": "tail", "arguments": ["logs/app.log", 3]}\n```').calls == [
        ToolCall("tail", {"arguments": ["logs/app.log", "3"]})
    ]
    assert parse('```json\n{"name": "t", "arguments": [2.5, "x"]}\n```').calls == [
        ToolCall("t", {"arguments": ["2.5", "x"]})
    ]
    big = parse('```json\n{"name": "t", "arguments": ["x", 100000000, 3.0]}\n```')
    assert big.calls == [ToolCall("t", {"arguments": ["x", "100000000", "3"]})]
    bad = parse('```json\n{"name": "t", "arguments": [true, {"a": 1}]}\n```')
    assert not bad.calls and "must be a JSON object" in bad.errors[0]


ROUND_TRIP: list[list[ToolCall]] = [
    [RED],
    [RED, PARIS],
    [ToolCall("shell", {"command": "echo 'a <b> & \"c\"'"})],
    [ToolCall("led", {"on": True, "brightness": 40, "color": "#ff0000"})],
    [ToolCall("led_state", {})],
    [ToolCall("weather", {"location": "Zürich"})],
]


@pytest.mark.parametrize("fmt", ["fence", "json", "xml"])
@pytest.mark.parametrize("calls", ROUND_TRIP)
def test_render_call_parses_back(fmt: str, calls: list[ToolCall]) -> None:
    call_format = get_call_format(fmt)
    rendered = call_format.render_call(calls)
    parsed = call_format.parse(rendered)
    assert parsed.calls == calls
    assert parsed.text == ""


def test_render_call_is_the_canonical_form() -> None:
    assert get_call_format("fence").render_call([RED]) == (
        '```json\n{"name": "led", "arguments": {"color": "red"}}\n```'
    )
    assert get_call_format("json").render_call([RED]) == (
        '<tool_call>{"name": "led", "arguments": {"color": "red"}}</tool_call>'
    )
    assert get_call_format("xml").render_call([RED]) == (
        "<tool_call><function=led><parameter=color>red</parameter></function></tool_call>"
    )


def test_custom_markers_are_used_and_still_parsed() -> None:
    call_format = get_call_format("json", open_tag="[CALL]", close_tag="[/CALL]")
    rendered = call_format.render_call([RED])
    assert rendered == '[CALL]{"name": "led", "arguments": {"color": "red"}}[/CALL]'
    assert "[CALL]" in call_format.instructions(RED)
    parsed = call_format.parse(f"Ok. {rendered} Done.")
    assert (parsed.calls, parsed.text) == ([RED], "Ok. Done.")
    # The default tags and fences are still understood.
    assert call_format.parse(FENCE_CALL).calls == [RED]


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [("yaml", {}), ("json", {"open_tag": ""}), ("xml", {"open_tag": "<x>", "close_tag": "<x>"})],
)
def test_bad_call_format_settings_are_refused(name: str, kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigError, match=r"(?i)call"):
        get_call_format(name, **kwargs)


def test_a_fenced_call_without_arguments() -> None:
    # Qwen2.5-Coder writes {"name": "uptime"} for a tool that takes nothing.
    parsed = get_call_format("fence").parse('```json\n{"name": "uptime"}\n```')
    assert parsed.calls == [ToolCall("uptime", {})] and parsed.text == ""
    # Outside a fence, a lone {"name": ...} stays text: it may be data, not a call.
    assert get_call_format("fence").parse('{"name": "Ada"}').calls == []


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("128 / 4", 32),  # "set the strip brightness to a quarter of that number" (fresh74)
        ("-30 + 10", -20),
        ("(40 + 20) * 2", 120),
        ("2.5 * 3", 7.5),
    ],
)
def test_a_sum_written_as_an_arguments_value_is_its_value(written: str, value: float) -> None:
    raw = f'```json\n{{"name": "led", "arguments": {{"brightness": {written}}}}}\n```'
    assert get_call_format("fence").parse(raw).calls == [ToolCall("led", {"brightness": value})]


def test_a_sum_inside_a_string_or_one_that_cannot_be_worked_out_is_left_alone() -> None:
    fence = get_call_format("fence")
    raw = '```json\n{"name": "math", "arguments": {"expression": "128 / 4"}}\n```'
    assert fence.parse(raw).calls == [ToolCall("math", {"expression": "128 / 4"})]
    broken = fence.parse('```json\n{"name": "led", "arguments": {"brightness": 5 / 0}}\n```')
    assert broken.calls == [] and broken.errors
    dated = fence.parse('```json\n{"name": "weather", "arguments": {"day": 2026-12-01}}\n```')
    assert dated.calls == [] and dated.errors  # a bare date is no sum


@pytest.mark.parametrize("fmt", ["json", "fence", "xml"])
@pytest.mark.parametrize("depth", [40, 900, 1500])
def test_arguments_nested_too_deep_are_a_parse_error_not_a_crash(fmt: str, depth: int) -> None:
    # A looping or hostile model: RecursionError used to escape the parser and was
    # logged as a failure of the model backend.
    nested = "[" * depth + "]" * depth
    body = '{"name": "servo", "arguments": {"angle": ' + nested + "}}"
    for raw in (f"<tool_call>{body}</tool_call>", f"```json\n{body}\n```"):
        parsed = get_call_format(fmt).parse(raw)
        assert parsed.calls == [] and parsed.errors, raw[:40]
