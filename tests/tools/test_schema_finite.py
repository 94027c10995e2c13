"""Issue 9, item 8 at the schema: an argument model refuses NaN and infinities wherever
they sit (float, int, a list or dict of numbers, an untyped value), and says which
argument held one."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from edgeagent.tools import make_tool
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.registry import ToolRegistry

received: list[dict[str, Any]] = []


def plot(
    x: float = 0.0,
    steps: int = 1,
    points: list[float] | None = None,
    style: dict[str, Any] | None = None,
    extra: Any = None,
    label: str = "",
) -> str:
    """Plot something (a stand-in that records what it really received)."""
    received.append({"x": x, "steps": steps, "points": points, "style": style, "extra": extra})
    return "ok"


CASES = [
    ("x", float("nan")), ("x", float("inf")), ("x", "-inf"), ("x", "NaN"), ("x", "Infinity"),
    ("steps", float("inf")), ("points", [1.0, float("nan")]), ("points", ["1", "inf"]),
    ("style", {"width": float("inf")}), ("extra", float("nan")), ("extra", [{"a": -float("inf")}]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "bad"), CASES, ids=[f"{n}={b!r}" for n, b in CASES])
def test_non_finite_numbers_are_refused_before_the_tool_runs(name: str, bad: Any) -> None:
    received.clear()
    executor = ToolExecutor(ToolRegistry([make_tool(plot)]))
    result = asyncio.run(executor.execute(ToolCall("plot", {name: bad})))
    assert not result.ok
    assert (result.error or "").startswith(f"invalid arguments for 'plot': {name}")
    assert received == []


def test_finite_numbers_and_the_word_nan_as_text_pass() -> None:
    received.clear()
    executor = ToolExecutor(ToolRegistry([make_tool(plot)]))
    call = ToolCall("plot", {"x": "1e308", "points": [0, -1.5], "extra": {"k": 2}, "label": "nan"})
    assert asyncio.run(executor.execute(call)).ok
    assert received == [
        {"x": 1e308, "steps": 1, "points": [0, -1.5], "style": None, "extra": {"k": 2}}
    ]


@pytest.mark.parametrize(("name", "bad"), [("x", True), ("steps", False)])
def test_a_boolean_is_not_a_number(name: str, bad: bool) -> None:
    # Lax validation read true as 1: {"angle": true} moved a servo to 1 degree.
    received.clear()
    executor = ToolExecutor(ToolRegistry([make_tool(plot)]))
    result = asyncio.run(executor.execute(ToolCall("plot", {name: bad})))
    assert not result.ok and "must be a number, not true or false" in (result.error or "")
    assert received == []
    # A number written as text still passes (small models write "45").
    assert asyncio.run(executor.execute(ToolCall("plot", {name: "3"}))).ok
