"""The runner end to end on a scripted model: conversations, device state, results, report."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Sequence
from pathlib import Path

import pytest
from accuracy import TimedLLM, looks_like_attempt, run_variant
from conversations import load_conversations
from report import wilson, write_report

from edgeagent.config import Config
from edgeagent.llm.base import Message
from edgeagent.llm.scripted import ScriptedEngine

FIXTURE = Path(__file__).parent / "fixtures" / "conversations.jsonl"
CALLS = {
    "red": {"name": "led", "arguments": {"color": "red"}},
    "servo": {"name": "servo", "arguments": {"angle": 30}},
    "12 times 7": {"name": "math", "arguments": {"expression": "12*7"}},
}


def reply(messages: Sequence[Message]) -> str | None:
    """A model that calls the right tool, then reads the result back."""
    last = messages[-1]
    if last["role"] == "tool":
        return "12 times 7 is 84." if '"result": 84' in last["content"] else "Done."
    for words, call in CALLS.items():
        if words in last["content"].lower():
            return f"```json\n{json.dumps(call)}\n```"
    return None


@pytest.fixture
def engine() -> ScriptedEngine:
    return ScriptedEngine([reply], default="You're welcome!")


def run(
    engine: ScriptedEngine, results: Path, mode: str, ids: Sequence[str], pause_s: float = 0.0
) -> None:
    chosen = [c for c in load_conversations(FIXTURE) if c["id"] in ids]

    def llm_for(config: Config) -> TimedLLM:
        return TimedLLM(engine, generated_tokens=lambda: 0)

    asyncio.run(
        run_variant("default", chosen, llm_for=llm_for, results=results, mode=mode, pause_s=pause_s)
    )


def test_conversations_run_turn_after_turn_and_are_judged(
    engine: ScriptedEngine, tmp_path: Path
) -> None:
    run(engine, tmp_path, "fresh", ["t-led", "t-mixed"])
    data = json.loads((tmp_path / "default.json").read_text())
    led, mixed = data["conversations"]["t-led"], data["conversations"]["t-mixed"]
    assert [r["kind"] for r in mixed] == ["servo", "math", "none"]
    first = led[0]
    assert first["state_before"]["led"]["on"] is False  # the conversation's start state
    assert first["state_after"]["led"] == {
        **first["state_before"]["led"],
        "on": True,
        "color": "red",
    }
    assert first["calls"][0]["name"] == "led" and first["calls"][0]["ok"]
    assert first["cold"] is True and "cold" not in mixed[0]
    assert mixed[0]["state_after"]["servo"] == {"angle": 30}
    assert "84" in mixed[1]["answer"]
    assert all(r["verdict"]["right"] for r in led + mixed), [r["verdict"] for r in led + mixed]
    # One agent Conversation per benchmark conversation: the history carries over.
    last_request = engine.requests[-1]
    assert last_request.session == "bench-t-mixed"
    assert [m["content"] for m in last_request.messages if m["role"] == "user"][-3:] == [
        "point the servo to 30 degrees",
        "what is 12 times 7?",
        "thanks, that's all",
    ]
    settings = data["settings"]
    assert settings["families"]["grep"] == "shell" and settings["families"]["led_state"] == "led"
    assert settings["act_tools"] == ["led", "servo"]


def test_resume_skips_what_ran_and_only_reruns_the_named(
    engine: ScriptedEngine, tmp_path: Path
) -> None:
    run(engine, tmp_path, "fresh", ["t-led"])
    before = engine.generations
    run(engine, tmp_path, "resume", ["t-led", "t-mixed"])
    assert set(json.loads((tmp_path / "default.json").read_text())["conversations"]) == {
        "t-led",
        "t-mixed",
    }
    ran = engine.generations - before
    run(engine, tmp_path, "only", ["t-led"])
    assert engine.generations - before > ran  # t-led ran again, t-mixed was kept
    assert len(json.loads((tmp_path / "default.json").read_text())["conversations"]) == 2
    run(engine, tmp_path, "fresh", ["t-led"])
    assert list(json.loads((tmp_path / "default.json").read_text())["conversations"]) == ["t-led"]


def test_a_pause_lets_the_model_read_ahead_outside_the_turns_records(
    engine: ScriptedEngine, tmp_path: Path
) -> None:
    run(engine, tmp_path / "back_to_back", "fresh", ["t-mixed"])
    assert not engine.read_aheads  # the next prompt came before the model was idle
    run(engine, tmp_path / "paused", "fresh", ["t-mixed"], pause_s=0.4)
    assert len(engine.read_aheads) == 2  # after turns 1 and 2; the run ends after 3

    def turns(name: str) -> list[int]:
        data = json.loads((tmp_path / name / "default.json").read_text())
        return [len(r["generations"]) for r in data["conversations"]["t-mixed"]]

    assert turns("paused") == turns("back_to_back")  # no read-ahead counted in a turn
    settings = json.loads((tmp_path / "paused" / "default.json").read_text())["settings"]
    assert settings["pause_s"] == 0.4 and settings["read_ahead"] is True


def test_the_report_has_every_table(engine: ScriptedEngine, tmp_path: Path) -> None:
    run(engine, tmp_path, "fresh", ["t-led", "t-mixed"])
    (tmp_path / "old.json").write_text(json.dumps({"records": {}}))  # an old-format file
    out = tmp_path / "report.md"
    out.write_text(
        "stale\n<!-- analysis: hand-written below this line, kept by bench/report.py -->\nmine\n"
    )
    text = write_report(tmp_path, out, prompts=load_conversations(FIXTURE))
    for heading in ("## Variants", "## Split: dev", "## Split: holdout", "## Split: all",
                    "## Per kind", "## Turn 1 against later turns", "## How sure",
                    "## Failures"):  # fmt: skip
        assert heading in text
    assert "| right outcome | 4/4 = 100.0% [51, 100] | n/a | 4/4 = 100.0% [51, 100] |" in text
    assert "| default | 4 | 100.0% | 100.0% | 100.0% | 0 (0.0%) |" in text
    assert "| default: turns 2+ | 2 |" in text
    assert "| old |" not in text
    assert "## Split: holdout\n\nNo turns.\n" in text
    assert out.read_text().endswith("mine\n") and "stale" not in out.read_text()


def test_a_share_of_few_turns_gets_a_wide_interval() -> None:
    low, high = wilson(24, 26)  # run 14's held-out restraint
    assert (round(low, 1), round(high, 1)) == (75.9, 97.9)
    low, high = wilson(390, 408)
    assert 93 < low < 95.6 < high < 98
    assert all(math.isnan(x) for x in wilson(0, 0))


def test_call_attempts_are_recognised() -> None:
    assert looks_like_attempt('```json\n{"name": "led", "arguments": {}}\n```')
    assert looks_like_attempt('<tool_call>{"name": "led"')
    assert looks_like_attempt("<function=led>")
    assert looks_like_attempt('```json\n{"name": "led", "color": "red"}\n```')
    assert not looks_like_attempt("My name is edgeagent.")
