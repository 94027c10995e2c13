"""The scripted engine: deterministic replies, chunked streaming, JSON scripts."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from edgeagent.errors import ConfigError
from edgeagent.llm.base import Engine, GenerateRequest, InProcessLLM, Message
from edgeagent.llm.scripted import ScriptedEngine


def user(text: str) -> Message:
    return {"role": "user", "content": text}


def collect(engine: ScriptedEngine, messages: Sequence[Message], **kw: object) -> list[str]:
    request = GenerateRequest(messages=list(messages), **kw)  # type: ignore[arg-type]
    return list(engine.generate(request, cancelled=lambda: False))


def test_is_an_engine() -> None:
    assert isinstance(ScriptedEngine(), Engine)


def test_first_matching_rule_wins_against_last_message() -> None:
    engine = ScriptedEngine(
        [(r"(?i)weather", "sunny"), (r"(?i)weather in paris", "never"), ("led", "lit")],
        default="no idea",
    )
    assert "".join(collect(engine, [user("led please"), user("Weather in Paris?")])) == "sunny"
    # Only the last message counts, so an earlier "led" does not match.
    assert "".join(collect(engine, [user("led"), user("hello")])) == "no idea"
    tool_msg: Message = {"role": "tool", "content": '{"ok": true, "result": "led on"}'}
    assert "".join(collect(engine, [user("x"), tool_msg])) == "lit"


def test_replies_stream_in_chunks_of_chunk_size() -> None:
    engine = ScriptedEngine(default="abcdefghijklmnopqrst", chunk_size=8)
    assert collect(engine, [user("hi")]) == ["abcdefgh", "ijklmnop", "qrst"]


def test_stop_sequence_cuts_the_reply() -> None:
    engine = ScriptedEngine(default="answer<|im_end|>junk", chunk_size=100)
    assert collect(engine, [user("hi")], stop=("<|im_end|>",)) == ["answer"]


def test_cancellation_stops_streaming() -> None:
    engine = ScriptedEngine(default="x" * 100, chunk_size=10)
    seen: list[str] = []
    request = GenerateRequest(messages=[user("hi")])
    for piece in engine.generate(request, cancelled=lambda: len(seen) >= 3):
        seen.append(piece)
    assert len(seen) == 3


def test_callable_rules_and_replies_see_the_conversation() -> None:
    def count_turns(messages: Sequence[Message]) -> str | None:
        n = sum(m["role"] == "user" for m in messages)
        return f"turn {n}" if n > 1 else None

    def echo(match: re.Match[str], messages: Sequence[Message]) -> str:
        return f"colour={match.group(1)}"

    engine = ScriptedEngine([count_turns, (r"led (\w+)", echo)], default="?")
    assert "".join(collect(engine, [user("led red")])) == "colour=red"
    assert "".join(collect(engine, [user("a"), user("led red")])) == "turn 2"


def test_count_tokens_is_words_plus_overhead() -> None:
    engine = ScriptedEngine()
    msgs: list[Message] = [{"role": "system", "content": "be brief"}, user("one two three")]
    assert engine.count_tokens(msgs) == (2 + 4) + (3 + 4)
    assert engine.count_tokens([*msgs, user("four")]) == engine.count_tokens(msgs) + 5


def test_loads_a_json_script(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            {
                "rules": [{"match": "(?i)hello", "reply": "hi there"}],
                "default": "fallback",
                "context_window": 512,
                "chunk_size": 3,
            }
        )
    )
    engine = ScriptedEngine.from_file(script)
    assert collect(engine, [user("Hello")]) == ["hi ", "the", "re"]
    assert "".join(collect(engine, [user("bye")])) == "fallback"
    status = engine.status()
    assert (status.backend, status.context_window, status.model) == ("scripted", 512, "script.json")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"rules": [{"match": "(", "reply": "x"}]}', r"rules\[0\]\.match = '\('"),
        ('{"rules": [{"reply": "x"}]}', r"rules\[0\]"),
        ('{"default": "x", "chunk": 3}', r"unknown keys \['chunk'\]"),
        ('{"chunk_size": 0}', r"chunk_size must be at least 1"),
        ("not json", r"not valid JSON"),
    ],
)
def test_bad_scripts_name_the_file_and_the_key(tmp_path: Path, content: str, expected: str) -> None:
    script = tmp_path / "bad.json"
    script.write_text(content)
    with pytest.raises(ConfigError, match=expected) as info:
        ScriptedEngine.from_file(script)
    assert str(script) in str(info.value)


def test_missing_script_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        ScriptedEngine.from_file(tmp_path / "nope.json")


def test_streams_through_in_process_llm() -> None:
    engine = ScriptedEngine(default="streamed reply text", chunk_size=5, context_window=99)

    async def main() -> tuple[list[str], int, int]:
        llm = InProcessLLM(engine)
        pieces = [p async for p in llm.stream(GenerateRequest(messages=[user("go")]))]
        tokens = await llm.count_tokens([user("go")])
        window = (await llm.status()).context_window
        await llm.aclose()
        return pieces, tokens, window

    pieces, tokens, window = asyncio.run(main())
    assert pieces == ["strea", "med r", "eply ", "text"]
    assert (tokens, window) == (5, 99)
    assert engine.closed
