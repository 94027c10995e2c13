"""bench/prompts/conversations.jsonl is a usable benchmark: well-formed, big and mixed enough."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conversations import load_conversations

PROMPTS = Path(__file__).resolve().parents[2] / "bench" / "prompts" / "conversations.jsonl"


@pytest.fixture(scope="module")
def conversations() -> list[dict[str, Any]]:
    if not PROMPTS.exists():
        pytest.skip(f"{PROMPTS} does not exist yet (the prompt set is written separately)")
    return load_conversations(PROMPTS)  # raises, naming every malformed line


def turns(conversations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [t for c in conversations for t in c["turns"]]


def test_at_least_300_turns(conversations: list[dict[str, Any]]) -> None:
    assert len(turns(conversations)) >= 300


def test_about_one_fifth_is_held_out(conversations: list[dict[str, Any]]) -> None:
    held = [c for c in conversations if c["split"] == "holdout"]
    held_turns = sum(len(c["turns"]) for c in held)
    assert 0.15 <= len(held) / len(conversations) <= 0.25, f"{len(held)} of {len(conversations)}"
    assert 0.15 <= held_turns / len(turns(conversations)) <= 0.25


def test_a_third_of_the_turns_are_inside_conversations(
    conversations: list[dict[str, Any]],
) -> None:
    inside = sum(len(c["turns"]) for c in conversations if 3 <= len(c["turns"]) <= 6)
    assert inside >= len(turns(conversations)) / 3, f"{inside} turns in 3-6 turn conversations"


def test_a_quarter_of_the_turns_need_no_tool(conversations: list[dict[str, Any]]) -> None:
    none = sum(1 for t in turns(conversations) if t["kind"] == "none")
    assert none >= len(turns(conversations)) / 4, f"{none} none turns"


def test_every_kind_is_covered_and_prompts_are_not_repeated(
    conversations: list[dict[str, Any]],
) -> None:
    kinds = {t["kind"] for t in turns(conversations)}
    assert kinds == {"led", "servo", "weather", "shell", "math", "none"}
    one_shots = [
        c["turns"][0]["prompt"].strip().casefold() for c in conversations if len(c["turns"]) == 1
    ]
    assert len(set(one_shots)) == len(one_shots), "a one-shot prompt appears twice"
