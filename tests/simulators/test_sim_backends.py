"""The plugins' ``sim`` backends against the simulator on a real server thread."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import edgeagent_led
import edgeagent_servo
import httpx
import pytest
from edgeagent_led.backends.sim import SimLed
from edgeagent_led.strip import LedState
from edgeagent_servo.backends.sim import SimServo
from edgeagent_sim.server import SimulatorServer

from edgeagent.compose import build_tools
from edgeagent.config import Config, SimulatorConfig, ToolsConfig
from edgeagent.errors import SimulatorUnreachableError
from edgeagent.tools.executor import ToolCall, ToolExecutor
from tests.loopback import free_port


def test_sim_led_writes_and_reads_the_simulator(live: SimulatorServer, http: httpx.Client) -> None:
    led = SimLed(live.url, count=3)
    led.write(LedState(on=True, brightness=70, pixels=("#ff0000", "#00ff00", "#0000ff")))
    assert http.get(f"{live.url}/api/led").json() == {
        "on": True,
        "brightness": 70,
        "pixels": ["#ff0000", "#00ff00", "#0000ff"],
    }
    # A developer changes the strip on the dashboard; the backend reads the new state.
    http.post(f"{live.url}/api/led", json={"color": "purple", "brightness": 20})
    assert led.read() == LedState(True, 20, ("#800080",) * 3)
    led.close()


def test_sim_servo_moves_and_reads_back(live: SimulatorServer, http: httpx.Client) -> None:
    servo = SimServo(live.url)
    servo.move_to(-60)
    assert http.get(f"{live.url}/api/servo").json() == {"angle": -60.0}
    http.post(f"{live.url}/api/servo", json={"angle": 12})
    assert servo.read() == 12.0
    servo.close()


def test_tools_through_the_plugins_drive_the_simulator(
    live: SimulatorServer, http: httpx.Client
) -> None:
    host, port = live.url.removeprefix("http://").split(":")
    config = Config(
        plugins={"led": {"backend": "sim", "count": 4}, "servo": {"backend": "sim"}},
        simulator=SimulatorConfig(host=host, port=int(port), state_file=None),
        tools=ToolsConfig(wrapped_dir=None),
    )
    toolset = build_tools(config, plugins=[("led", edgeagent_led), ("servo", edgeagent_servo)])
    executor = ToolExecutor(toolset.registry)

    def call(name: str, **arguments: Any) -> Any:
        result = asyncio.run(executor.execute(ToolCall(name, arguments)))
        assert result.ok, result.error
        return result.result

    call("led", color="teal", brightness=50)
    assert http.get(f"{live.url}/api/led").json()["pixels"] == ["#008080"] * 4
    call("servo", angle=80)
    assert call("servo", right=30) == {"angle": 90, "note": "clamped to 90 (asked 110)"}
    assert http.get(f"{live.url}/api/servo").json() == {"angle": 90.0}
    http.post(f"{live.url}/api/led", json={"on": False})
    assert call("led_state") == {"on": False, "brightness": 50, "color": "teal"}
    toolset.close()  # safe state: the strip goes dark in the simulator too
    assert http.get(f"{live.url}/api/led").json()["pixels"] == ["#000000"] * 4


def test_event_stream_sends_a_snapshot_then_each_change(
    live: SimulatorServer, http: httpx.Client
) -> None:
    with http.stream("GET", f"{live.url}/api/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.iter_lines()
        first = next(line for line in lines if line.startswith("data: "))
        assert json.loads(first[6:])["servo"] == {"angle": 0.0}
        http.post(f"{live.url}/api/servo", json={"angle": 45})
        second = next(line for line in lines if line.startswith("data: "))
        snapshot = json.loads(second[6:])
        assert snapshot["servo"] == {"angle": 45.0}
        assert snapshot["version"] == json.loads(first[6:])["version"] + 1


@pytest.mark.parametrize("backend", ["led", "servo"])
def test_simulator_down_is_a_clear_error_fast(backend: str) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens here
    device = SimLed(url, count=2) if backend == "led" else SimServo(url)
    start = time.monotonic()
    with pytest.raises(SimulatorUnreachableError) as caught:
        device.read()
    assert time.monotonic() - start < 1.5
    assert f"simulator not reachable at {url}" in str(caught.value)
    assert "start it with `edgeagent sim`" in str(caught.value)
    device.close()


def test_simulator_down_reaches_the_model_as_a_tool_error() -> None:
    config = Config(
        plugins={"led": {"backend": "sim"}},
        simulator=SimulatorConfig(port=free_port(), state_file=None),
        tools=ToolsConfig(wrapped_dir=None),
    )
    toolset = build_tools(config, plugins=[("led", edgeagent_led)])
    assert "led" in toolset.registry  # loading does not need the simulator to be up
    result = asyncio.run(ToolExecutor(toolset.registry).execute(ToolCall("led", {"on": True})))
    assert not result.ok
    assert "simulator not reachable" in (result.error or "")
