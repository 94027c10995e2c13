"""The stream filter: answer text streams out, call markup never does, however it is split."""

from __future__ import annotations

import pytest

from edgeagent.tools.calls import CallMarkupFilter, get_call_format
from edgeagent.tools.executor import ToolCall

# The parser's table, so that stream and parser are checked on the same outputs.
from tests.tools.call_cases import BROKEN, CASES

RED = ToolCall("led", {"color": "red"})

# (id, model output, the text a user must see)
STREAMS: list[tuple[str, str, str]] = [
    ("plain", "The LED is red now.", "The LED is red now."),
    (
        "fence-then-text",
        'Sure.\n```json\n{"name": "led", "arguments": {"color": "red"}}\n```\nThe LED is red.',
        "Sure.\n\nThe LED is red.",
    ),
    (
        "tag-then-text",
        '<tool_call>{"name": "led", "arguments": {"color": "red"}}</tool_call>\n\nAll done.',
        "All done.",
    ),
    (
        "missing-close-then-text",
        '<tool_call>{"name": "led", "arguments": {"color": "red"}}\nAll done.',
        "All done.",
    ),
    ("xml-then-text", "<function=led><parameter=color>red</parameter></function> ok", "ok"),
    (
        "bare-json-mid-sentence",
        'Turning {"name": "led", "arguments": {"color": "red"}} it red.',
        "Turning it red.",
    ),
    (
        "code-fence-kept",
        "Run:\n```bash\nls -l\n```\nthen look.",
        "Run:\n```bash\nls -l\n```\nthen look.",
    ),
    (
        "near-markers-kept",
        "a < b, `x`, {y}, [z] and <tool> are text",
        "a < b, `x`, {y}, [z] and <tool> are text",
    ),
]


def run(stream: CallMarkupFilter, chunks: list[str]) -> str:
    return "".join(stream.feed(c) for c in chunks) + stream.flush()


def splits(text: str) -> list[list[str]]:
    """Every two-chunk split, every three-chunk split around the middle, and char by char."""
    out = [[text[:i], text[i:]] for i in range(len(text) + 1)]
    mid = len(text) // 2
    out += [[text[:i], text[i:mid], text[mid:]] for i in range(mid)]
    out.append(list(text))
    return out


@pytest.mark.parametrize(
    ("output", "visible"), [s[1:] for s in STREAMS], ids=[s[0] for s in STREAMS]
)
def test_markup_hidden_at_every_chunk_boundary(output: str, visible: str) -> None:
    call_format = get_call_format("json")
    for chunks in splits(output):
        stream = call_format.stream_filter()
        assert run(stream, chunks) == visible, chunks
        assert stream.calls == call_format.parse(output).calls


ALL_OUTPUTS = [c[1] for c in CASES] + [b[1] for b in BROKEN]


@pytest.mark.parametrize("output", ALL_OUTPUTS, ids=[c[0] for c in CASES] + [b[0] for b in BROKEN])
def test_stream_equals_parsed_text_for_every_parser_case(output: str) -> None:
    call_format = get_call_format("xml")
    parsed = call_format.parse(output)
    for chunks in splits(output):
        stream = call_format.stream_filter()
        assert run(stream, chunks) == parsed.text, chunks
        assert stream.calls == parsed.calls
        assert stream.errors == parsed.errors


def test_text_streams_before_the_reply_ends() -> None:
    stream = get_call_format("json").stream_filter()
    assert stream.feed("The weather ") == "The weather"
    assert stream.feed("in Paris is") == " in Paris is"
    assert stream.feed(" sunny.") == " sunny."
    assert stream.flush() == ""


def test_only_a_possible_marker_prefix_is_held_back() -> None:
    stream = get_call_format("json").stream_filter()
    assert stream.feed("Okay <tool_") == "Okay"
    assert stream.feed("box> is text") == " <tool_box> is text"
    assert stream.feed(" and `") == " and"
    assert stream.feed("code` too") == " `code` too"


def test_fence_is_held_until_it_proves_to_be_a_call() -> None:
    stream = get_call_format("json").stream_filter()
    assert stream.feed('Sure.\n```json\n{"name": "led", ') == "Sure."
    assert stream.feed('"arguments": {"color": "red"}}\n') == ""
    assert stream.feed("```\nThe LED is red.") == "\n\nThe LED is red."
    assert stream.flush() == ""
    assert stream.calls == [RED]


def test_unclosed_call_is_decided_at_flush() -> None:
    stream = get_call_format("json").stream_filter()
    assert stream.feed('Ok. {"name": "led", "arguments": {"color": "red"') == "Ok."
    assert stream.flush() == ""
    assert stream.calls == [RED]


def test_unclosed_non_call_json_is_shown_at_flush() -> None:
    stream = get_call_format("json").stream_filter()
    assert stream.feed('Look: {"a": 1, "b"') == "Look:"
    assert stream.flush() == ' {"a": 1, "b"'
    assert stream.calls == []
