"""The prompt-file format: days, start states and the well-formedness check."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from conversations import DEFAULT_START, load_conversations, problems, resolve_day, start_state

FIXTURE = Path(__file__).parent / "fixtures" / "conversations.jsonl"
MONDAY = dt.date(2026, 11, 23)


@pytest.mark.parametrize(
    ("day", "date"),
    [
        ("today", "2026-11-23"),
        ("Tomorrow", "2026-11-24"),
        ("day after tomorrow", "2026-11-25"),
        ("monday", "2026-11-23"),  # today's own name is today
        ("Sunday", "2026-11-29"),
        ("in 3 days", "2026-11-26"),
        ("in 1 day", "2026-11-24"),
    ],
)
def test_days_resolve_from_today(day: str, date: str) -> None:
    assert resolve_day(day, MONDAY).isoformat() == date


def test_an_unknown_day_says_what_is_allowed() -> None:
    with pytest.raises(ValueError, match="unknown day 'next week'; use today, tomorrow"):
        resolve_day("next week", MONDAY)


def test_start_state_fills_in_the_defaults() -> None:
    start = start_state({"start": {"led": {"color": "red"}}})
    assert start["led"] == {**DEFAULT_START["led"], "color": "red"}
    assert start["servo"] == DEFAULT_START["servo"]


def test_the_fixture_is_well_formed() -> None:
    conversations = load_conversations(FIXTURE)
    assert [c["id"] for c in conversations] == ["t-led", "t-mixed", "t-weather"]


def conversation(**turn: Any) -> dict[str, Any]:
    return {"id": "x", "split": "dev", "turns": [{"prompt": "p", **turn}]}


@pytest.mark.parametrize(
    ("turn", "problem"),
    [
        ({"kind": "lamp", "expect": {}}, "kind must be one of"),
        ({"kind": "led", "expect": {"servo": {"angle": 3}}}, "the one key 'led'"),
        ({"kind": "led", "expect": {"led": {"color": "reddish"}}}, "not a CSS name"),
        ({"kind": "led", "expect": {"led": {"brightness": 150}}}, "integer 0-100"),
        ({"kind": "led", "expect": {"led": {"blink": True}}}, "some of on, color, brightness"),
        ({"kind": "servo", "expect": {"servo": {"angle": 120}}}, "-90..90"),
        (
            {"kind": "weather", "expect": {"weather": {"place": "Oslo", "day": "soon"}}},
            "unknown day",
        ),
        ({"kind": "math", "expect": {"math": "84"}}, "must be a number"),
        ({"kind": "shell", "expect": {"shell": {"contains_any": []}}}, "contains_any"),
        ({"kind": "none", "expect": {"none": False}}, "none must be true"),
        ({"kind": "none", "expect": {"none": True}, "answer_any": "hi"}, "answer_any"),
    ],
)
def test_malformed_turns_are_named(turn: dict[str, Any], problem: str) -> None:
    found = problems(conversation(**turn))
    assert any(problem in p for p in found), found


def test_load_names_the_line_of_each_problem(tmp_path: Path) -> None:
    good = conversation(kind="none", expect={"none": True})
    path = tmp_path / "c.jsonl"
    lines = [json.dumps(good), "{not json", json.dumps({**good, "split": "test"}), json.dumps(good)]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError) as caught:
        load_conversations(path)
    message = str(caught.value)
    assert f"{path}:2: not JSON" in message
    assert f"{path}:3: conversation 'x': split must be one of" in message
    assert f"{path}:4: duplicate id 'x'" in message
