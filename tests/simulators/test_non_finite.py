"""Issue 9, item 8: NaN and infinities are refused by every tool before any side effect.

Every first-party plugin is loaded the way the daemon loads it, the LED and the servo
driving the simulator; each numeric argument of each tool gets NaN, Infinity and
-Infinity (as numbers, as the JSON tokens a model writes, and as strings), and the
simulator's devices must not have moved.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import edgeagent_led
import edgeagent_math
import edgeagent_servo
import edgeagent_shell
import edgeagent_weather
import httpx
import pytest
from edgeagent_sim.server import SimulatorServer

from edgeagent.compose import build_tools
from edgeagent.config import Config, SimulatorConfig, ToolsConfig
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolCall, ToolExecutor

PLUGINS = [
    ("led", edgeagent_led),
    ("servo", edgeagent_servo),
    ("math", edgeagent_math),
    ("shell", edgeagent_shell),
    ("weather", edgeagent_weather),
]
NUMBER_TYPES = {"number", "integer"}
BAD_NUMBERS: list[Any] = [float("nan"), float("inf"), float("-inf"), "nan", "inf", "-Infinity"]
JSON_TOKENS = ["NaN", "Infinity", "-Infinity"]


def numeric_parameters(parameters: dict[str, Any]) -> list[str]:
    names = []
    for name, spec in parameters.get("properties", {}).items():
        types = {spec.get("type")} | {s.get("type") for s in spec.get("anyOf", [])}
        if types & NUMBER_TYPES:
            names.append(name)
    return names


@pytest.fixture
def executor(live: SimulatorServer, tmp_path: Path) -> ToolExecutor:
    host, port = live.url.removeprefix("http://").split(":")
    config = Config(
        plugins={
            "led": {"backend": "sim", "count": 4},
            "servo": {"backend": "sim"},
            "shell": {"roots": [str(tmp_path)]},
        },
        simulator=SimulatorConfig(host=host, port=int(port), state_file=None),
        tools=ToolsConfig(wrapped_dir=None),
    )
    toolset = build_tools(config, plugins=PLUGINS)
    assert not toolset.report.failed
    return ToolExecutor(toolset.registry)


def devices(live: SimulatorServer, http: httpx.Client) -> dict[str, Any]:
    return {
        "led": http.get(f"{live.url}/api/led").json(),
        "servo": http.get(f"{live.url}/api/servo").json(),
    }


def test_every_numeric_argument_of_every_tool_refuses_non_finite_numbers(
    executor: ToolExecutor, live: SimulatorServer, http: httpx.Client
) -> None:
    # A known state to compare with: the strip lit, the servo off centre.
    assert asyncio.run(executor.execute(ToolCall("led", {"color": "red"}))).ok
    assert asyncio.run(executor.execute(ToolCall("servo", {"angle": 20}))).ok
    before = devices(live, http)
    tried: set[tuple[str, str]] = set()
    for tool in executor.registry:
        for name in numeric_parameters(tool.parameters):
            for bad in BAD_NUMBERS:
                result = asyncio.run(executor.execute(ToolCall(tool.name, {name: bad})))
                assert not result.ok, (tool.name, name, bad, result.result)
                assert f"{name}:" in (result.error or ""), result.error
                if isinstance(bad, float):  # a string is simply not a number to an int
                    assert "finite" in (result.error or ""), result.error
                tried.add((tool.name, name))
    assert tried == {
        ("led", "brightness"), ("led", "first"), ("led", "last"),
        ("servo", "angle"), ("servo", "left"), ("servo", "right"),
        ("servo", "left_of_center"), ("servo", "right_of_center"), ("servo", "by"),
    }  # fmt: skip
    assert devices(live, http) == before


@pytest.mark.parametrize("token", JSON_TOKENS)
@pytest.mark.parametrize(
    ("tool", "argument"),
    [("servo", "angle"), ("servo", "left"), ("servo", "right"), ("led", "brightness")],
)
def test_json_tokens_from_the_model_are_refused_naming_the_argument(
    executor: ToolExecutor, live: SimulatorServer, http: httpx.Client,
    tool: str, argument: str, token: str,
) -> None:  # fmt: skip
    """What the model writes, parsed the way the agent loop parses it."""
    before = devices(live, http)
    text = f'<tool_call>{{"name": "{tool}", "arguments": {{"{argument}": {token}}}}}</tool_call>'
    parsed = get_call_format("json").parse(text)
    assert len(parsed.calls) == 1, parsed.errors
    result = asyncio.run(executor.execute(parsed.calls[0]))
    assert not result.ok
    assert f"invalid arguments for {tool!r}: {argument}:" in (result.error or "")
    assert devices(live, http) == before


def test_finite_numbers_still_move_the_servo(
    executor: ToolExecutor, live: SimulatorServer, http: httpx.Client
) -> None:
    result = asyncio.run(executor.execute(ToolCall("servo", {"angle": "-30.5"})))
    assert result.ok, result.error
    assert http.get(f"{live.url}/api/servo").json() == {"angle": -30.5}
