"""The MQTT front end in this process, against a real broker, with a dispatcher that echoes.

Shared by the MQTT and Home Assistant front-end tests: :class:`EchoDispatcher` answers
like the daemon would (and keeps a status like the daemon's), :func:`run_with_frontend`
runs one front end around a test body, :func:`wait_for` waits on a test client without
blocking the front end's loop.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

from edgeagent.agent.events import (
    ErrorEvent,
    Event,
    FinalAnswer,
    TextChunk,
    ToolCallEvent,
    ToolResultEvent,
)
from edgeagent.config import MQTTConfig
from edgeagent.frontends.base import JSONValue, Request
from edgeagent.frontends.mqtt import MQTTFrontend
from tests.mqtt_broker import Broker, Received, TestClient

LED_CALL = {"name": "led", "arguments": {"color": "red"}, "ok": True, "result": {"color": "red"}}


class EchoDispatcher:
    """Answers ``echo: <prompt>``; a prompt mentioning ``led`` first calls the LED tool,
    ``fail`` ends in an error. Its status is shaped like the daemon's."""

    def __init__(self, *, delay_s: float = 0.0) -> None:
        self.requests: list[Request] = []
        self.delay_s = delay_s
        self.in_flight = 0
        self.last_turn_s: float | None = None

    async def submit(self, request: Request) -> AsyncGenerator[Event, None]:
        self.requests.append(request)
        self.in_flight += 1
        started = time.monotonic()
        try:
            if self.delay_s:
                await asyncio.sleep(self.delay_s)
            calls: list[dict[str, Any]] = []
            if "led" in request.prompt:
                yield ToolCallEvent("led", {"color": "red"}, step=1)
                yield ToolResultEvent("led", ok=True, result={"color": "red"}, step=1)
                calls = [LED_CALL]
            if request.prompt == "fail":
                yield ErrorEvent("the model worker crashed")
                return
            for word in request.prompt.split():
                yield TextChunk(word + " ")
            yield FinalAnswer(f"echo: {request.prompt}", tool_calls=calls, steps=1)
        finally:
            self.in_flight -= 1
            self.last_turn_s = round(time.monotonic() - started, 3)

    def reset_session(self, session: str, *, frontend: str) -> bool:
        return False

    def status(self) -> dict[str, JSONValue]:
        return {
            "backend": "echo",
            "model": "echo-1",
            "context": {"window": 1000, "used": 250},
            "in_flight": self.in_flight,
            "queue_depth": 0,
            "last_turn_s": self.last_turn_s,
        }

    def tools(self) -> list[dict[str, JSONValue]]:
        return [{"name": "led", "description": "Set the LED colour.", "kind": "act"}]


def make_config(broker: Broker, **overrides: Any) -> MQTTConfig:
    values: dict[str, Any] = {
        "enabled": True,
        "host": broker.host,
        "port": broker.port,
        "device_id": f"dev{uuid.uuid4().hex[:6]}",
        "keepalive_s": 5,
    }
    values.update(overrides)
    return MQTTConfig(**values)


def run_with_frontend(
    config: MQTTConfig,
    body: Callable[[MQTTFrontend], Awaitable[None]],
    *,
    dispatcher: EchoDispatcher | None = None,
    **options: Any,
) -> None:
    """Start a front end (``options`` go to :class:`MQTTFrontend`), run ``body``, stop."""

    async def main() -> None:
        frontend = MQTTFrontend(
            config,
            dispatcher=dispatcher or EchoDispatcher(),
            reconnect_min_s=0.1,
            reconnect_max_s=0.5,
            **options,
        )
        await frontend.start()
        assert frontend.connected, frontend.state
        try:
            await body(frontend)
        finally:
            await frontend.stop()

    asyncio.run(main())


async def wait_for(
    client: TestClient, topic: str, predicate: Any = None, **kw: Any
) -> list[Received]:
    """The blocking wait runs in a thread so the front end's loop keeps serving."""
    return await asyncio.to_thread(client.wait_for, topic, predicate or (lambda m: True), **kw)


def with_id(value: Any) -> Callable[[Received], bool]:
    return lambda m: m.json().get("id") == value
