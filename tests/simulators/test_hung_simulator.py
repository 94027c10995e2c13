"""Issue 9, item 12: a hung simulator costs one call its timeout, never the device.

The simulator here drips its answer a byte every 0.3 s, so no per-read timeout ever
trips; the sim backends' total deadline must end each request, the device lock must be
free for the next call, and once the simulator is healthy again the next call works.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import replace
from typing import Any

import edgeagent_led
import edgeagent_servo
import pytest
from edgeagent_led import LedController
from edgeagent_led.strip import LedState
from edgeagent_sim import create_app
from edgeagent_sim.server import SimulatorServer

from edgeagent.compose import build_tools
from edgeagent.config import Config, SimulatorConfig, ToolsConfig
from edgeagent.tools import make_tool
from edgeagent.tools.executor import ToolCall, ToolExecutor, ToolResult
from edgeagent.tools.registry import ToolRegistry
from tests.simulators.drip_server import DripServer

TIMEOUT_S = 1.0
MARGIN_S = 1.5
CALLS = {"led": ToolCall("led", {"color": "green"}), "servo": ToolCall("servo", {"angle": 30})}


def sim_executor(port: int, device: str) -> ToolExecutor:
    config = Config(
        plugins={device: {"backend": "sim", "timeout_s": TIMEOUT_S}},
        simulator=SimulatorConfig(port=port, state_file=None),
        tools=ToolsConfig(wrapped_dir=None),
    )
    module = edgeagent_led if device == "led" else edgeagent_servo
    return ToolExecutor(build_tools(config, plugins=[(device, module)]).registry)


def timed(executor: ToolExecutor, call: ToolCall) -> tuple[ToolResult, float]:
    started = time.monotonic()
    result = asyncio.run(executor.execute(call))
    return result, time.monotonic() - started


@pytest.mark.parametrize("device", ["led", "servo"])
def test_a_dripping_simulator_fails_each_call_within_its_timeout(device: str) -> None:
    with DripServer() as drip:
        executor = sim_executor(drip.port, device)
        for _ in range(2):  # the second call is not stuck behind the first one's lock
            result, took = timed(executor, CALLS[device])
            assert not result.ok
            assert "no complete answer" in (result.error or ""), result.error
            assert f"within {TIMEOUT_S:g} s" in (result.error or "")
            assert took < TIMEOUT_S + MARGIN_S
        assert drip.connections >= 2
    # The simulator is healthy again on the same port: the very next call works.
    with SimulatorServer(create_app({"TESTING": True}), port=drip.port) as live:
        result, _ = timed(executor, CALLS[device])
        assert result.ok, result.error
        state = live.app.extensions["edgeagent_sim"].snapshot()
        if device == "led":
            assert state["led"]["pixels"][0] == "#008000" and state["led"]["on"]
        else:
            assert state["servo"] == {"angle": 30}


class StuckLed:
    """A strip whose writes hang until ``release`` is set (a wedged bus, a stuck driver)."""

    name = "stuck"

    def __init__(self, count: int) -> None:
        self.state = LedState.dark(count)
        self.release = threading.Event()

    def write(self, state: LedState) -> None:
        self.release.wait()
        self.state = state

    def read(self) -> LedState:
        return self.state

    def close(self) -> None:
        self.release.set()


def test_a_stuck_command_makes_the_next_one_fail_busy_instead_of_hanging() -> None:
    backend = StuckLed(4)
    controller = LedController(backend=backend, count=4, busy_wait_s=0.3)
    led = replace(make_tool(controller.led), timeout_s=1.0)
    executor = ToolExecutor(ToolRegistry([led, make_tool(controller.led_state)]))

    async def timed_call(name: str, arguments: dict[str, Any]) -> tuple[ToolResult, float]:
        started = time.monotonic()
        result = await executor.execute(ToolCall(name, arguments))
        return result, time.monotonic() - started

    async def scenario() -> None:
        first, took = await timed_call("led", {"color": "red"})
        assert first.error == "led timed out after 1 s" and took < 1 + MARGIN_S
        for name in ("led", "led_state"):
            result, took = await timed_call(name, {})
            assert not result.ok
            assert "LED busy: a previous command is still running" in (result.error or "")
            assert took < 0.3 + MARGIN_S
        backend.release.set()  # the stuck write ends; the device is usable again
        result, _ = await timed_call("led", {"color": "blue"})
        assert result.ok, result.error
        assert backend.state.pixels == ("#0000ff",) * 4

    asyncio.run(scenario())
