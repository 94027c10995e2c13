"""The one shape of arguments the executor reads for the model: a one-item list (what a
.tool wrapper takes, copied onto another tool) for a tool with one required parameter."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from edgeagent.tools import make_tool, tool
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.registry import ToolRegistry


def calc(expression: str) -> str:
    """Evaluate an expression (a stand-in that echoes what it received)."""
    return f"got {expression}"


def forecast(location: str, day: str = "today") -> str:
    """A forecast (a stand-in)."""
    return f"{location} {day}"


def pair(a: str, b: str) -> str:
    """Two required values (a stand-in)."""
    return a + b


def run(tool: Any, arguments: dict[str, Any]) -> Any:
    executor = ToolExecutor(ToolRegistry([make_tool(tool)]))
    return asyncio.run(executor.execute(ToolCall(tool.__name__, arguments)))


def test_a_one_item_list_fills_the_one_required_parameter() -> None:
    assert run(calc, {"arguments": ["2 + 2"]}).result == "got 2 + 2"
    assert run(forecast, {"arguments": ["Oslo"]}).result == "Oslo today"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        (calc, {"arguments": ["2", "+ 2"]}),  # two values: which one is meant is a guess
        (pair, {"arguments": ["x"]}),  # two required parameters
        (calc, {"arguments": ["2 + 2"], "mode": "x"}),  # more than the list
    ],
)
def test_any_other_list_fails_naming_the_parameter(tool: Any, arguments: dict[str, Any]) -> None:
    result = run(tool, arguments)
    assert not result.ok
    assert f"invalid arguments for {tool.__name__!r}" in (result.error or "")


def broken(path: str) -> str:
    """Raises what a tool raises when its arguments name nothing there (a stand-in)."""
    raise FileNotFoundError(f"{path}: no such file")


def guarded(path: str) -> str:
    """Refuses, as the shell's policy does (a stand-in)."""
    from edgeagent.errors import ToolDeniedError

    raise ToolDeniedError(f"{path} is outside the allowed folder")


def test_failures_that_other_arguments_may_mend_say_so() -> None:
    assert run(broken, {"path": "x"}).mendable  # the tool raised
    assert run(calc, {"expr": "1"}).mendable  # invalid arguments
    refused = run(guarded, {"path": "x"})
    assert not refused.ok and not refused.mendable  # a refusal stays one
    executor = ToolExecutor(ToolRegistry([make_tool(calc)]))
    unknown = asyncio.run(executor.execute(ToolCall("volume", {})))
    assert not unknown.ok and not unknown.mendable
    assert "mendable" not in run(broken, {"path": "x"}).to_json()  # never shown to the model


@tool(kind="act")
def brighten(brightness: int) -> str:
    """Set a brightness (a stand-in acting tool)."""
    return f"brightness {brightness}"


@tool(kind="act")
def turn(angle: int) -> str:
    """Turn to an angle (a stand-in acting tool)."""
    return f"angle {angle}"


def acting(*tools: Any) -> ToolExecutor:
    return ToolExecutor(ToolRegistry([make_tool(t) for t in tools]))


def test_a_call_with_only_another_tools_arguments_runs_as_that_tool() -> None:
    executor = acting(brighten, turn)
    assert executor.resolve(ToolCall("turn", {"brightness": 35})) == ToolCall(
        "brighten", {"brightness": 35}
    )
    assert asyncio.run(executor.execute(executor.resolve(ToolCall("turn", {"brightness": 35})))).ok


@pytest.mark.parametrize(
    "call",
    [
        ToolCall("turn", {"angle": 30}),  # its own
        ToolCall("turn", {"angle": 30, "brightness": 35}),  # one of its own: it fails as it is
        ToolCall("turn", {"speed": 3}),  # nobody's
        ToolCall("turn", {}),
    ],
)
def test_any_other_call_keeps_its_tool(call: ToolCall) -> None:
    assert acting(brighten, turn).resolve(call) == call


def test_a_read_tools_arguments_never_move_an_acting_call() -> None:
    executor = ToolExecutor(ToolRegistry([make_tool(turn), make_tool(forecast), make_tool(calc)]))
    call = ToolCall("turn", {"location": "Oslo"})
    assert executor.resolve(call) == call  # forecast reads; turn acts
    # a one-item list fills calc's one parameter: it stays calc's, not forecast's
    listed = ToolCall("calc", {"arguments": ["2 + 2"]})
    assert executor.resolve(listed) == listed
