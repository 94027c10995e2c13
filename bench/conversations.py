"""The accuracy benchmark's prompt file: conversations, one JSON object per line.

.. code-block:: json

    {"id": "c001", "split": "dev",
     "start": {"led": {"on": true, "color": "white", "brightness": 60}, "servo": {"angle": 20}},
     "turns": [{"prompt": "make it red", "kind": "led", "expect": {"led": {"color": "red"}},
                "answer_any": ["red"]}]}

``split`` is ``dev`` or ``holdout``. ``start`` is optional; what it leaves out comes from
:data:`DEFAULT_START`, so every conversation starts from a fully known device state.
A turn's ``kind`` is one of :data:`KINDS` and its ``expect`` has that kind as its only key:

* ``led``: a subset of ``on`` (bool), ``color`` (CSS name or ``#rrggbb``, the whole
  strip), ``brightness`` (0-100),
* ``servo``: ``{"angle": N}`` (-90..90),
* ``weather``: ``{"place": "Berlin", "day": "tomorrow"}``, a day :func:`resolve_day` reads,
* ``math``: the number the answer must hold,
* ``shell``: ``{"contains_any": [...]}``, strings one of which the tool output holds,
* ``none``: ``true`` (no tool should run).

``answer_any`` (optional): strings, one of which the answer must contain.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import webcolors

KINDS = ("led", "servo", "weather", "shell", "math", "none")
SPLITS = ("dev", "holdout")
MAX_TURNS = 6
LED_KEYS = ("on", "color", "brightness")
DEFAULT_START: dict[str, dict[str, Any]] = {
    "led": {"on": False, "color": "white", "brightness": 100},
    "servo": {"angle": 0},
}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_IN_DAYS = re.compile(r"in (\d+) days?")
_FIXED_DAYS = {"today": 0, "tomorrow": 1, "day after tomorrow": 2, "the day after tomorrow": 2}


def color_hex(color: str) -> str:
    """``red``, ``#F00``, ``#ff0000`` -> ``#ff0000``; ValueError for anything else."""
    text = color.strip().lower()
    if text.startswith("#"):
        return str(webcolors.normalize_hex(text))
    return str(webcolors.name_to_hex(text.replace(" ", "")))


def resolve_day(day: str, today: dt.date) -> dt.date:
    """The date ``day`` names, seen from ``today``: today, tomorrow, day after tomorrow,
    a weekday name (its next occurrence; today's own name is today), "in N days"."""
    text = " ".join(day.casefold().split())
    if text in _FIXED_DAYS:
        return today + dt.timedelta(days=_FIXED_DAYS[text])
    if text in WEEKDAYS:
        return today + dt.timedelta(days=(WEEKDAYS.index(text) - today.weekday()) % 7)
    match = _IN_DAYS.fullmatch(text)
    if match:
        return today + dt.timedelta(days=int(match.group(1)))
    raise ValueError(
        f"unknown day {day!r}; use today, tomorrow, day after tomorrow, a weekday name "
        f"or 'in N days'"
    )


def start_state(conversation: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The conversation's ``start`` filled in from :data:`DEFAULT_START`."""
    start = conversation.get("start") or {}
    return {device: {**values, **start.get(device, {})} for device, values in DEFAULT_START.items()}


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _led_problems(led: Any, where: str) -> list[str]:
    if not isinstance(led, dict) or not led or not set(led) <= set(LED_KEYS):
        return [f"{where}: led must be an object with some of {', '.join(LED_KEYS)}, got {led!r}"]
    problems = []
    if "on" in led and not isinstance(led["on"], bool):
        problems.append(f"{where}: led.on must be true or false, got {led['on']!r}")
    if "brightness" in led and not (
        isinstance(led["brightness"], int)
        and not isinstance(led["brightness"], bool)
        and 0 <= led["brightness"] <= 100
    ):
        problems.append(f"{where}: led.brightness must be an integer 0-100")
    if "color" in led:
        try:
            color_hex(str(led["color"]))
        except ValueError:
            problems.append(f"{where}: led.color {led['color']!r} is not a CSS name or #rrggbb")
    return problems


def _servo_problems(servo: Any, where: str) -> list[str]:
    if not (isinstance(servo, dict) and set(servo) == {"angle"} and _number(servo["angle"])):
        return [f"{where}: servo must be {{'angle': N}}, got {servo!r}"]
    if not -90 <= servo["angle"] <= 90:
        return [f"{where}: servo.angle must be -90..90, got {servo['angle']}"]
    return []


def _expect_problems(kind: str, expect: Any, where: str) -> list[str]:
    if not isinstance(expect, dict) or set(expect) != {kind}:
        return [f"{where}: expect must be an object with the one key {kind!r}, got {expect!r}"]
    value = expect[kind]
    if kind == "led":
        return _led_problems(value, where)
    if kind == "servo":
        return _servo_problems(value, where)
    if kind == "weather":
        if not (isinstance(value, dict) and set(value) == {"place", "day"}):
            return [f"{where}: weather must be {{'place': ..., 'day': ...}}, got {value!r}"]
        if not isinstance(value["place"], str) or not value["place"].strip():
            return [f"{where}: weather.place must be a place name"]
        try:
            resolve_day(str(value["day"]), dt.date.today())
        except ValueError as exc:
            return [f"{where}: {exc}"]
        return []
    if kind == "math":
        return [] if _number(value) else [f"{where}: math must be a number, got {value!r}"]
    if kind == "shell":
        strings = value.get("contains_any") if isinstance(value, dict) else None
        if not (
            isinstance(value, dict)
            and set(value) == {"contains_any"}
            and isinstance(strings, list)
            and strings
            and all(isinstance(s, str) and s for s in strings)
        ):
            return [f"{where}: shell must be {{'contains_any': [strings]}}, got {value!r}"]
        return []
    return [] if value is True else [f"{where}: none must be true, got {value!r}"]


def problems(conversation: Any) -> list[str]:
    """Everything wrong with one conversation (empty when it is well-formed)."""
    if not isinstance(conversation, dict):
        return [f"a conversation must be an object, got {conversation!r}"]
    cid = conversation.get("id")
    where = f"conversation {cid!r}"
    found = []
    extra = set(conversation) - {"id", "split", "start", "turns", "note"}
    if extra:
        found.append(f"{where}: unknown keys {sorted(extra)}")
    if not isinstance(cid, str) or not cid:
        found.append(f"{where}: id must be a non-empty string")
    if conversation.get("split") not in SPLITS:
        found.append(f"{where}: split must be one of {SPLITS}, got {conversation.get('split')!r}")
    start = conversation.get("start", {})
    if not isinstance(start, dict) or not set(start) <= {"led", "servo"}:
        found.append(f"{where}: start may hold only led and servo, got {start!r}")
    else:
        if "led" in start:
            found += _led_problems(start["led"], f"{where} start")
        if "servo" in start:
            found += _servo_problems(start["servo"], f"{where} start")
    turns = conversation.get("turns")
    if not isinstance(turns, list) or not 1 <= len(turns) <= MAX_TURNS:
        return [*found, f"{where}: turns must be a list of 1-{MAX_TURNS} turns"]
    for n, turn in enumerate(turns, start=1):
        found += _turn_problems(turn, f"{where} turn {n}")
    return found


def _turn_problems(turn: Any, where: str) -> list[str]:
    if not isinstance(turn, dict):
        return [f"{where}: a turn must be an object"]
    found = []
    extra = set(turn) - {"prompt", "kind", "expect", "answer_any", "note"}
    if extra:
        found.append(f"{where}: unknown keys {sorted(extra)}")
    if not isinstance(turn.get("prompt"), str) or not turn["prompt"].strip():
        found.append(f"{where}: prompt must be a non-empty string")
    kind = turn.get("kind")
    if kind not in KINDS:
        return [*found, f"{where}: kind must be one of {KINDS}, got {kind!r}"]
    found += _expect_problems(kind, turn.get("expect"), where)
    answer_any = turn.get("answer_any", [])
    if not (isinstance(answer_any, list) and all(isinstance(s, str) and s for s in answer_any)):
        found.append(f"{where}: answer_any must be a list of non-empty strings")
    return found


def load_conversations(path: Path) -> list[dict[str, Any]]:
    """Every conversation of ``path``; ValueError naming the line of any problem."""
    conversations: list[dict[str, Any]] = []
    errors: list[str] = []
    seen: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            conversation = json.loads(line)
        except ValueError as exc:
            errors.append(f"{path}:{number}: not JSON: {exc}")
            continue
        errors += [f"{path}:{number}: {p}" for p in problems(conversation)]
        cid = conversation.get("id") if isinstance(conversation, dict) else None
        if isinstance(cid, str) and cid in seen:
            errors.append(f"{path}:{number}: duplicate id {cid!r}")
        seen.add(str(cid))
        conversations.append(conversation)
    if errors:
        raise ValueError("\n".join(errors))
    return conversations
