"""The trace (edgeagent.trace): what a watcher sees of every turn, its history, its
bounds, and the socket's ``{"op": "trace"}`` that the dashboard's console reads."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Awaitable, Callable
from pathlib import Path
from typing import Any

from edgeagent.agent.context import SessionStore
from edgeagent.agent.events import (
    ErrorEvent,
    Event,
    FinalAnswer,
    TextChunk,
    ToolCallEvent,
    ToolResultEvent,
)
from edgeagent.config import SocketConfig
from edgeagent.frontends.base import Request, ToolRequest
from edgeagent.frontends.socket import SocketFrontend
from edgeagent.scheduler import Scheduler
from edgeagent.tools.tool import ToolResult
from edgeagent.trace import MAX_VALUE_CHARS, TraceHub
from tests.agent.scripted_agent import call, make_agent
from tests.daemon.recording_agent import RecordingAgent, RecordingTools


def kinds(lines: list[dict[str, Any]]) -> list[tuple[int | None, str]]:
    return [(line["turn"], line["event"]["type"]) for line in lines]


def one_turn(hub: TraceHub, prompt: str, *, frontend: str = "mqtt") -> None:
    turn = hub.begin(frontend=frontend, request_id=prompt, session="s", prompt=prompt)
    turn.event(TextChunk("streamed text is not traced"))
    turn.event(ToolCallEvent("led", {"color": "red"}, step=1))
    turn.event(ToolResultEvent("led", True, {"color": "red"}, step=1))
    turn.event(FinalAnswer("The LED is red.", steps=1))


async def drain(sub: Any) -> list[dict[str, Any]]:
    lines = []
    while sub.backlog or sub.waiting:
        lines.append(await sub.get())
    return lines


def test_a_watcher_sees_each_turn_with_its_front_end_prompt_and_calls() -> None:
    async def main() -> None:
        hub = TraceHub(turns=10, clock=lambda: 1000.0)
        with hub.subscribe() as sub:
            one_turn(hub, "turn the lamp red")
            lines = await drain(sub)
        assert kinds(lines) == [(1, "start"), (1, "tool_call"), (1, "tool_result"), (1, "final")]
        assert {line["frontend"] for line in lines} == {"mqtt"}
        assert lines[0]["event"] == {
            "type": "start",
            "id": "turn the lamp red",
            "session": "s",
            "prompt": "turn the lamp red",
            "queued_s": 0.0,
        }
        assert lines[1]["event"]["arguments"] == {"color": "red"}
        assert lines[3]["event"]["text"] == "The LED is red."
        assert lines[0]["at"] == 1000.0

    asyncio.run(main())


def test_a_new_watcher_gets_the_last_n_turns_then_live_lines() -> None:
    async def main() -> None:
        hub = TraceHub(turns=3)
        for n in range(5):
            one_turn(hub, f"prompt {n}")
        with hub.subscribe() as sub:
            assert sub.backlog == 12  # 3 turns of 4 lines
            history = await drain(sub)
            one_turn(hub, "live", frontend="dashboard")
            live = await drain(sub)
        assert [line["turn"] for line in history] == [3] * 4 + [4] * 4 + [5] * 4
        assert history[0]["event"]["prompt"] == "prompt 2"
        assert kinds(live)[0] == (6, "start")
        assert live[0]["frontend"] == "dashboard"

    asyncio.run(main())


def test_no_history_kept_with_zero_turns() -> None:
    hub = TraceHub(turns=0)
    one_turn(hub, "hello")
    with hub.subscribe() as sub:
        assert sub.backlog == 0
    assert hub.status() == {"turns": 1, "kept": 0, "watchers": 0}


def test_a_slow_watcher_loses_lines_not_memory_and_is_told_how_many() -> None:
    async def main() -> None:
        hub = TraceHub(turns=10, queue_size=5)
        with hub.subscribe() as slow, hub.subscribe() as fast:
            seen_fast = []
            for n in range(10):  # publishing never waits for anyone
                one_turn(hub, f"prompt {n}")
                seen_fast += await drain(fast)
                assert slow.waiting <= 5
            assert len(seen_fast) == 40
            got = await drain(slow)
            assert kinds(got) == [
                (1, "start"),
                (1, "tool_call"),
                (1, "tool_result"),
                (1, "final"),
                (2, "start"),
            ]
            assert slow.dropped == 35
            # Once it caught up, it is told what it missed before anything else.
            marker = await asyncio.wait_for(slow.get(), 1)
            assert marker["event"] == {"type": "dropped", "count": 35}
            one_turn(hub, "after")
            assert kinds(await drain(slow))[0] == (11, "start")

    asyncio.run(main())


def test_the_dropped_mark_comes_in_order_when_lines_flow_again() -> None:
    async def main() -> None:
        hub = TraceHub(turns=0, queue_size=4)
        with hub.subscribe() as sub:
            one_turn(hub, "a")  # 4 lines: fills the queue
            one_turn(hub, "b")  # 4 lost
            await drain(sub)
            one_turn(hub, "c")
            got = await drain(sub)
        assert got[0]["event"] == {"type": "dropped", "count": 4}
        assert kinds(got[1:]) == [(3, "start"), (3, "tool_call"), (3, "tool_result")]

    asyncio.run(main())


def test_large_values_are_cut_and_closed_watchers_are_forgotten() -> None:
    async def main() -> None:
        hub = TraceHub(turns=5)
        sub = hub.subscribe()
        turn = hub.begin(frontend="socket", request_id=1, prompt="read the log")
        turn.event(ToolResultEvent("shell", True, "x" * 100_000, step=1))
        lines = await drain(sub)
        result = lines[1]["event"]["result"]
        assert len(result) < MAX_VALUE_CHARS + 100
        assert result.endswith("(100000 characters, cut in the trace)")
        assert hub.status()["watchers"] == 1
        sub.close()
        sub.close()
        assert hub.status()["watchers"] == 0
        assert len(json.dumps(hub.history())) < 3 * MAX_VALUE_CHARS

    asyncio.run(main())


# --- the scheduler publishes ------------------------------------------------------------


def test_the_scheduler_traces_a_real_turn_with_its_figures() -> None:
    agent, _, lamp = make_agent(
        [("LED red", "Done: the LED is red."), ("^make it red", call("set_led", color="red"))]
    )

    async def main() -> list[dict[str, Any]]:
        hub = TraceHub(turns=5)
        scheduler = Scheduler(
            agent=agent,
            tools=RecordingTools(),
            sessions=SessionStore(system_prompt=agent.system_prompt),
            queue_size=4,
            request_timeout_s=10,
            trace=hub,
        )
        scheduler.start()
        try:
            request = Request(prompt="make it red", id="7", session="tab", frontend="dashboard")
            events = [e async for e in scheduler.submit(request)]
            assert isinstance(events[-1], FinalAnswer)
            result = await scheduler.call_tool(
                ToolRequest(tool="echo", arguments={"x": 1}, id="c1", frontend="dashboard")
            )
            assert result.ok
        finally:
            await scheduler.close()
        with hub.subscribe() as sub:
            return await drain(sub)

    lines = asyncio.run(main())
    assert lamp.commands == [("red", 100)]
    assert kinds(lines) == [
        (1, "start"),
        (1, "tool_call"),
        (1, "tool_result"),
        (1, "final"),
        (2, "start"),
        (2, "tool_call"),
        (2, "tool_result"),
        (2, "final"),
    ]
    start, called, _, final = (line["event"] for line in lines[:4])
    assert start["prompt"] == "make it red" and start["session"] == "tab"
    assert start["id"] == "7"
    assert called == {
        "type": "tool_call",
        "name": "set_led",
        "arguments": {"color": "red"},
        "step": 1,
    }
    stats = final["stats"]
    assert stats["first_token_s"] is not None and stats["first_token_s"] >= 0
    assert stats["prompt_tokens"] > 0 and stats["output_tokens"] > 0
    assert stats["tool_s"] >= 0 and stats["generate_s"] >= 0
    assert lines[4]["event"]["tool"] == "echo" and lines[4]["frontend"] == "dashboard"
    assert lines[7]["event"]["stats"]["first_token_s"] is None  # no model in a direct call


# --- the socket's op trace --------------------------------------------------------------


class Dispatch:
    """The daemon's Dispatcher, cut down to a real scheduler."""

    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler

    def submit(self, request: Request) -> AsyncGenerator[Event, None]:
        return self.scheduler.submit(request)

    async def call_tool(self, request: ToolRequest) -> ToolResult:
        return await self.scheduler.call_tool(request)

    def reset_session(self, session: str, *, frontend: str) -> bool:
        return self.scheduler.reset_session(session, frontend=frontend)

    def status(self) -> dict[str, Any]:
        return self.scheduler.status()

    def tools(self) -> list[dict[str, Any]]:
        return []


Body = Callable[[Path, TraceHub, RecordingAgent], Awaitable[None]]


def serve(directory: Path, body: Body, *, idle_timeout_s: float = 30) -> None:
    async def main() -> None:
        agent, hub = RecordingAgent(), TraceHub(turns=5)
        scheduler = Scheduler(
            agent=agent,
            tools=RecordingTools(),
            sessions=SessionStore(system_prompt="test"),
            queue_size=8,
            request_timeout_s=10,
            trace=hub,
        )
        scheduler.start()
        path = directory / "ea.sock"
        config = SocketConfig(path=path, idle_timeout_s=idle_timeout_s)
        frontend = SocketFrontend(config, dispatcher=Dispatch(scheduler), trace=hub)
        await frontend.start()
        try:
            await body(path, hub, agent)
        finally:
            await frontend.stop()
            await scheduler.close()

    asyncio.run(main())


async def ask(path: Path, request: dict[str, Any]) -> list[dict[str, Any]]:
    """One request on its own connection: its lines up to the final (or error) one."""
    reader, writer = await asyncio.open_unix_connection(str(path))
    writer.write(json.dumps(request).encode() + b"\n")
    lines: list[dict[str, Any]] = []
    try:
        while not lines or lines[-1]["type"] not in ("final", "error"):
            lines.append(json.loads(await asyncio.wait_for(reader.readline(), 5)))
    finally:
        writer.close()
    return lines


def test_op_trace_streams_history_then_every_turn_and_is_never_idle(short_dir: Path) -> None:
    async def body(path: Path, hub: TraceHub, agent: RecordingAgent) -> None:
        await ask(path, {"prompt": "before", "id": 1})
        reader, writer = await asyncio.open_unix_connection(str(path))
        writer.write(b'{"op": "trace", "id": "t"}\n')

        async def line() -> dict[str, Any]:
            result: dict[str, Any] = json.loads(await asyncio.wait_for(reader.readline(), 5))
            return result

        assert await line() == {"type": "tracing", "id": "t", "history": 2}
        history = [await line(), await line()]
        assert [(h["type"], h["id"], h["event"]["type"]) for h in history] == [
            ("trace", "t", "start"),
            ("trace", "t", "final"),
        ]
        assert history[0]["frontend"] == "socket" and history[0]["event"]["prompt"] == "before"
        await asyncio.sleep(0.8)  # well past idle_timeout_s: a watcher is not idle
        asked = await ask(path, {"prompt": "hi", "id": 2, "via": "dashboard"})
        assert asked[-1]["type"] == "final"
        start, final = await line(), await line()
        assert (start["turn"], start["frontend"], start["event"]["prompt"]) == (
            2,
            "dashboard",
            "hi",
        )
        assert final["event"]["type"] == "final"
        assert hub.status()["watchers"] == 1
        writer.close()  # the watcher goes: its subscription ends with it
        for _ in range(50):
            if hub.status()["watchers"] == 0:
                break
            await asyncio.sleep(0.02)
        assert hub.status()["watchers"] == 0

    serve(short_dir, body, idle_timeout_s=0.3)


def test_op_trace_can_be_cancelled_by_its_id(short_dir: Path) -> None:
    async def body(path: Path, hub: TraceHub, agent: RecordingAgent) -> None:
        reader, writer = await asyncio.open_unix_connection(str(path))
        writer.write(b'{"op": "trace", "id": "t"}\n')
        assert json.loads(await reader.readline())["type"] == "tracing"
        writer.write(b'{"op": "cancel", "id": "t"}\n')
        assert json.loads(await reader.readline()) == {
            "type": "cancelled",
            "id": "t",
            "found": True,
        }
        await asyncio.sleep(0.05)
        assert hub.status()["watchers"] == 0
        writer.close()

    serve(short_dir, body)


def test_an_error_turn_is_traced_too() -> None:
    async def main() -> list[dict[str, Any]]:
        hub = TraceHub(turns=2)
        with hub.subscribe() as sub:
            turn = hub.begin(frontend="mqtt", request_id=None, prompt="x")
            turn.event(ErrorEvent("the model backend failed"))
            return await drain(sub)

    lines = asyncio.run(main())
    assert lines[1]["event"] == {"type": "error", "message": "the model backend failed"}


def test_a_watcher_does_not_hold_up_the_socket_stopping(short_dir: Path) -> None:
    """Stopping gives answers in flight a grace period; a trace never ends by itself,
    so it must not take that period (an open dashboard would slow every restart)."""

    async def main() -> float:
        hub = TraceHub(turns=1)
        scheduler = Scheduler(
            agent=RecordingAgent(),
            tools=RecordingTools(),
            sessions=SessionStore(system_prompt="test"),
            queue_size=2,
            request_timeout_s=10,
            trace=hub,
        )
        path = short_dir / "ea.sock"
        frontend = SocketFrontend(
            SocketConfig(path=path), dispatcher=Dispatch(scheduler), trace=hub
        )
        await frontend.start()
        reader, writer = await asyncio.open_unix_connection(str(path))
        writer.write(b'{"op": "trace"}\n')
        assert json.loads(await reader.readline())["type"] == "tracing"
        loop = asyncio.get_running_loop()
        started = loop.time()
        await frontend.stop(grace_s=2.0)
        took = loop.time() - started
        assert await reader.read() == b""  # the watcher's connection was closed
        writer.close()
        await scheduler.close()
        return took

    assert asyncio.run(main()) < 0.5
