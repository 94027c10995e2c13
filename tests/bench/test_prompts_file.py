"""bench/prompts.jsonl is a usable benchmark: enough prompts, real tools, valid arguments."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from edgeagent.compose import build_tools
from edgeagent.config import Config

ROOT = Path(__file__).resolve().parents[2]
PROMPTS = ROOT / "bench" / "prompts.jsonl"
for folder in ("plugins", "simulators", "bench"):
    if str(ROOT / folder) not in sys.path:
        sys.path.append(str(ROOT / folder))

FIRST_PARTY = ("led", "servo", "weather", "shell", "math")
KEYS = {"prompt", "tool", "args", "tolerance", "note", "match", "alt_args"}
MATCH_MODES = {"exact", "contains", "program", "value"}


@pytest.fixture(scope="module")
def entries() -> list[dict[str, Any]]:
    lines = [line for line in PROMPTS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [json.loads(line) for line in lines]


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("shell-root")
    config = Config.model_validate(
        {
            "tools": {"enabled": list(FIRST_PARTY), "wrapped_dir": None},
            "plugins": {
                "led": {"backend": "mock"},
                "servo": {"backend": "mock"},
                "shell": {"roots": [str(root)]},
            },
        }
    )
    tools = build_tools(config)
    yield tools.registry
    tools.close()


def test_enough_prompts_and_about_15_percent_need_no_tool(entries: list[dict[str, Any]]) -> None:
    assert len(entries) >= 120
    chat = sum(1 for e in entries if e["tool"] is None)
    assert 0.12 <= chat / len(entries) <= 0.20, f"{chat} of {len(entries)} need no tool"
    prompts = [e["prompt"].strip().casefold() for e in entries]
    assert len(set(prompts)) == len(prompts), "duplicate prompts"


def test_every_entry_has_the_documented_fields(entries: list[dict[str, Any]]) -> None:
    for entry in entries:
        assert {"prompt", "tool", "args", "note"} <= set(entry) <= KEYS, entry
        assert isinstance(entry["prompt"], str) and entry["prompt"].strip()
        assert isinstance(entry["args"], dict)
        for key, tol in entry.get("tolerance", {}).items():
            assert key in entry["args"] and isinstance(tol, (int, float)) and tol >= 0, entry
        for key, mode in entry.get("match", {}).items():
            assert key in entry["args"] and mode in MATCH_MODES, entry


def test_each_first_party_tool_is_covered(entries: list[dict[str, Any]]) -> None:
    counts = {t: sum(1 for e in entries if e["tool"] == t) for t in FIRST_PARTY}
    assert all(n >= 10 for n in counts.values()), counts


def test_expected_tools_exist_and_arguments_validate(
    entries: list[dict[str, Any]], registry: Any
) -> None:
    assert set(FIRST_PARTY) <= set(registry.names())
    for entry in entries:
        if entry["tool"] is None:
            assert not entry["args"] and "alt_args" not in entry, entry
            continue
        tool = registry.get(entry["tool"])
        for args in [entry["args"], *entry.get("alt_args", [])]:
            assert set(args) <= set(tool.parameters.get("properties", {})), entry
            try:
                tool.arguments_model.model_validate(args)
            except ValidationError as exc:
                pytest.fail(f"{entry['prompt']!r}: expected args {args} are invalid: {exc}")


def test_expected_math_expressions_and_colours_are_real(entries: list[dict[str, Any]]) -> None:
    from edgeagent_led.strip import to_hex
    from edgeagent_math.evaluator import evaluate

    for entry in entries:
        for args in [entry["args"], *entry.get("alt_args", [])]:
            if entry["tool"] == "math":
                evaluate(args["expression"])  # raises on a typo in the benchmark
            if entry["tool"] == "led" and "color" in args:
                to_hex(args["color"])


def test_the_judge_accepts_equivalent_answers_and_rejects_wrong_ones() -> None:
    from report import args_match

    hexed = {"prompt": "p", "tool": "led", "args": {"color": "cyan"}, "note": ""}
    assert args_match(hexed, {"color": "#00FFFF"})
    assert not args_match(hexed, {"color": "blue"})
    relative = {"prompt": "p", "tool": "servo", "args": {"move": -10}, "note": ""}
    assert args_match(relative, {"move": -10.0})
    assert not args_match(relative, {"angle": -10})
    weather = {
        "prompt": "p", "tool": "weather", "args": {"location": "Oslo", "day": 0},
        "match": {"location": "contains"}, "note": "",
    }  # fmt: skip
    assert args_match(weather, {"location": "Oslo, Norway"}, {"day": 0})
    assert not args_match(weather, {"location": "Oslo", "day": 1}, {"day": 0})
    calc = {
        "prompt": "p", "tool": "math", "args": {"expression": "0.17*240"},
        "match": {"expression": "value"}, "note": "",
    }  # fmt: skip
    assert args_match(calc, {"expression": "240 * 17 / 100"})
    assert not args_match(calc, {"expression": "240*17"})
