"""The request scheduler: one bounded queue, deadlines, cancellation, sessions."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from edgeagent.agent.context import SessionStore
from edgeagent.agent.events import ErrorEvent, Event, FinalAnswer, TextChunk
from edgeagent.frontends.base import Request, ToolRequest
from edgeagent.scheduler import Scheduler
from tests.daemon.recording_agent import RecordingAgent, RecordingTools
from tests.fake_clock import FakeClock


def make(
    *, clock: Callable[[], float] = time.monotonic, **kwargs: Any
) -> tuple[Scheduler, RecordingAgent, SessionStore]:
    """A started scheduler; ``clock`` is the sessions' (their idle time), ``kwargs`` its own."""
    agent = RecordingAgent()
    sessions = SessionStore(system_prompt="You are a test.", clock=clock)
    options: dict[str, Any] = {"queue_size": 4, "request_timeout_s": 30.0}
    options.update(kwargs)
    scheduler = Scheduler(agent=agent, tools=RecordingTools(), sessions=sessions, **options)
    scheduler.start()
    return scheduler, agent, sessions


async def collect(scheduler: Scheduler, prompt: str, session: str | None = None) -> list[Event]:
    return [
        e async for e in scheduler.submit(Request(prompt=prompt, frontend="test", session=session))
    ]


async def first_event(stream: AsyncIterator[Event]) -> Event:
    return await anext(stream)


def test_a_turn_streams_and_ends_in_one_final_answer() -> None:
    async def main() -> None:
        scheduler, _, _ = make()
        events = await collect(scheduler, "hello")
        assert [type(e) for e in events] == [TextChunk, FinalAnswer]
        assert scheduler.status()["requests"]["served"] == 1
        await scheduler.close()

    asyncio.run(main())


def test_full_queue_answers_busy_at_once_and_serves_the_rest_in_order() -> None:
    async def main() -> None:
        scheduler, agent, _ = make(queue_size=2)
        running = scheduler.submit(Request(prompt="slow first", frontend="test"))
        await first_event(running)  # now running, the queue is empty
        queued = [asyncio.create_task(collect(scheduler, f"queued {i}")) for i in range(2)]
        await asyncio.sleep(0)
        assert scheduler.status()["queue_depth"] == 2
        rejected = await asyncio.wait_for(collect(scheduler, "one too many"), 0.5)
        assert len(rejected) == 1 and isinstance(rejected[0], ErrorEvent)
        assert rejected[0].message.startswith("busy, 2 requests queued")
        assert "one too many" not in agent.started
        agent.release.set()
        assert isinstance([e async for e in running][-1], FinalAnswer)
        results = await asyncio.gather(*queued)
        assert all(isinstance(r[-1], FinalAnswer) for r in results)
        assert agent.finished == ["slow first", "queued 0", "queued 1"]
        counts = scheduler.status()["requests"]
        assert (counts["served"], counts["busy"], counts["failed"]) == (3, 1, 1)
        await scheduler.close()

    asyncio.run(main())


def test_deadline_cancels_a_running_request_and_frees_the_model() -> None:
    async def main() -> None:
        scheduler, agent, _ = make(request_timeout_s=0.3)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        events = await collect(scheduler, "slow forever")
        assert isinstance(events[-1], ErrorEvent)
        assert "timed out after 0.3 s" in events[-1].message
        assert 0.25 < loop.time() - t0 < 2
        await asyncio.sleep(0.05)
        assert agent.cancelled == ["slow forever"]
        # The model is free again: the next request is served.
        assert isinstance((await collect(scheduler, "quick"))[-1], FinalAnswer)
        assert scheduler.status()["requests"]["timed_out"] == 1
        await scheduler.close()

    asyncio.run(main())


def test_deadline_counts_queue_time_too() -> None:
    async def main() -> None:
        scheduler, agent, _ = make(request_timeout_s=0.3)
        slow = asyncio.create_task(collect(scheduler, "slow stubborn blocker"))
        await asyncio.sleep(0.01)
        waiting = await collect(scheduler, "stuck behind it")
        assert "timed out" in waiting[-1].message  # type: ignore[union-attr]
        await slow
        await asyncio.sleep(0.05)
        assert "stuck behind it" not in agent.started  # never reached the model
        await scheduler.close()

    asyncio.run(main())


def test_client_gone_cancels_running_and_queued_requests() -> None:
    async def main() -> None:
        scheduler, agent, _ = make()
        running = scheduler.submit(Request(prompt="slow running", frontend="test"))
        await first_event(running)
        queued = scheduler.submit(Request(prompt="queued then gone", frontend="test"))
        task = asyncio.create_task(first_event(queued))
        await asyncio.sleep(0.01)
        task.cancel()  # the queued client goes away
        await asyncio.gather(task, return_exceptions=True)
        await queued.aclose()
        await running.aclose()  # the running client goes away
        await asyncio.sleep(0.05)
        assert agent.cancelled == ["slow running"]
        agent.release.set()
        assert isinstance((await collect(scheduler, "after"))[-1], FinalAnswer)
        assert "queued then gone" not in agent.started
        assert scheduler.status()["requests"]["cancelled"] == 2
        await scheduler.close()

    asyncio.run(main())


def test_named_sessions_continue_and_unnamed_turns_are_one_shot() -> None:
    async def main() -> None:
        scheduler, _, sessions = make()
        await collect(scheduler, "a", session="kitchen")
        second = await collect(scheduler, "b", session="kitchen")
        assert second[-1].text == "b: seen 2 user message(s)"  # type: ignore[union-attr]
        one_shot = await collect(scheduler, "c")
        assert one_shot[-1].text == "c: seen 1 user message(s)"  # type: ignore[union-attr]
        assert sessions.ids() == ["test/kitchen"]
        assert scheduler.reset_session("kitchen", frontend="mqtt") is False  # not theirs
        assert scheduler.reset_session("kitchen", frontend="test") is True
        assert scheduler.reset_session("kitchen", frontend="test") is False
        again = await collect(scheduler, "d", session="kitchen")
        assert again[-1].text == "d: seen 1 user message(s)"  # type: ignore[union-attr]
        await scheduler.close()

    asyncio.run(main())


def test_idle_sessions_expire(clock: FakeClock) -> None:
    async def main() -> None:
        scheduler, _, sessions = make(session_idle_s=0.2, clock=clock)
        await collect(scheduler, "hi", session="old")
        await asyncio.sleep(0.25)  # the sweeper looks every 0.1 s; no time has passed
        assert scheduler.status()["sessions"] == 1 and "test/old" in sessions
        clock.now += 0.2
        for _ in range(100):  # until the next sweep
            if scheduler.status()["sessions"] == 0:
                break
            await asyncio.sleep(0.01)
        assert scheduler.status()["sessions"] == 0
        assert "test/old" not in sessions
        await scheduler.close()

    asyncio.run(main())


def test_close_lets_the_running_turn_finish_within_grace_then_rejects() -> None:
    async def main() -> None:
        scheduler, agent, _ = make()
        running = asyncio.create_task(collect(scheduler, "slow but finishing"))
        await asyncio.sleep(0.01)
        queued = asyncio.create_task(collect(scheduler, "queued at shutdown"))
        await asyncio.sleep(0.01)
        asyncio.get_running_loop().call_later(0.1, agent.release.set)
        await scheduler.close(grace_s=5)
        assert isinstance((await running)[-1], FinalAnswer)
        dropped = await queued
        assert "shutting down" in dropped[-1].message  # type: ignore[union-attr]
        late = await collect(scheduler, "too late")
        assert "not accepting" in late[-1].message  # type: ignore[union-attr]

    asyncio.run(main())


def test_close_cancels_a_turn_that_outlives_the_grace_period() -> None:
    async def main() -> None:
        scheduler, agent, _ = make()
        running = asyncio.create_task(collect(scheduler, "slow stuck"))
        await asyncio.sleep(0.01)
        await scheduler.close(grace_s=0.1)
        events = await running
        assert isinstance(events[-1], ErrorEvent)
        assert "did not finish within 0.1 s" in events[-1].message
        assert agent.cancelled == ["slow stuck"]

    asyncio.run(main())


async def collect_from(scheduler: Scheduler, frontend: str, prompt: str, session: str) -> str:
    request = Request(prompt=prompt, frontend=frontend, session=session)
    events = [e async for e in scheduler.submit(request)]
    return events[-1].text if isinstance(events[-1], FinalAnswer) else events[-1].message  # type: ignore[union-attr]


def test_a_session_name_belongs_to_its_front_end() -> None:
    async def main() -> None:
        scheduler, _, sessions = make()
        await collect_from(scheduler, "socket", "a", "kitchen")
        # An MQTT client naming the socket user's session gets a conversation of its own.
        assert await collect_from(scheduler, "mqtt", "b", "kitchen") == "b: seen 1 user message(s)"
        again = await collect_from(scheduler, "socket", "c", "kitchen")
        assert again == "c: seen 2 user message(s)"
        assert sessions.ids() == ["mqtt/kitchen", "socket/kitchen"]
        await scheduler.close()

    asyncio.run(main())


@pytest.mark.parametrize(
    ("session", "problem"),
    [("", "is empty"), ("   ", "is empty"), ("k" * 65, "at most 64"), ("a\nb", "control")],
)
def test_empty_oversized_or_control_session_names_are_refused_not_stored(
    session: str, problem: str
) -> None:
    async def main() -> None:
        scheduler, _, sessions = make()
        answer = await collect_from(scheduler, "mqtt", "hello", session)
        assert problem in answer
        assert len(sessions) == 0
        # and the store still serves new sessions afterwards
        assert await collect_from(scheduler, "mqtt", "x", "ok") == "x: seen 1 user message(s)"
        await scheduler.close()

    asyncio.run(main())


def test_a_full_store_evicts_the_oldest_session_and_keeps_serving() -> None:
    async def main() -> None:
        scheduler, _, sessions = make()
        sessions.max_sessions = 3
        for name in ("a", "b", "c", "d", "e"):
            assert await collect_from(scheduler, "mqtt", "x", name) == "x: seen 1 user message(s)"
        assert sessions.ids() == ["mqtt/c", "mqtt/d", "mqtt/e"]
        await scheduler.close()

    asyncio.run(main())


def test_a_direct_tool_call_waits_its_turn_and_returns_the_result() -> None:
    async def main() -> None:
        scheduler, agent, _ = make()
        slow = scheduler.submit(Request(prompt="slow turn", frontend="test"))
        await first_event(slow)  # the turn is running
        call = asyncio.create_task(
            scheduler.call_tool(ToolRequest("echo", {"x": 1}, frontend="mcp"))
        )
        await asyncio.sleep(0.05)
        assert not call.done()  # queued behind the turn, not interleaved with it
        agent.release.set()
        assert [e async for e in slow][-1].type == "final"
        result = await call
        assert result.ok and result.result == {"x": 1}
        unknown = await scheduler.call_tool(ToolRequest("nope", {}, frontend="mcp"))
        assert not unknown.ok and "unknown tool 'nope'" in (unknown.error or "")
        assert scheduler.counters.served == 3
        assert isinstance(scheduler.tools, RecordingTools)
        assert scheduler.tools.calls == [("echo", "mcp"), ("nope", "mcp")]
        await scheduler.close()

    asyncio.run(main())


def test_a_direct_tool_call_on_a_full_queue_is_a_failed_result() -> None:
    async def main() -> None:
        scheduler, agent, _ = make(queue_size=1)
        running = scheduler.submit(Request(prompt="slow 1", frontend="test"))
        await first_event(running)
        queued = scheduler.submit(Request(prompt="slow 2", frontend="test"))
        waiting = asyncio.create_task(first_event(queued))
        await asyncio.sleep(0.05)
        result = await scheduler.call_tool(ToolRequest("echo", {}, frontend="mcp"))
        assert not result.ok and "busy" in (result.error or "")
        agent.release.set()
        waiting.cancel()
        await scheduler.close()

    asyncio.run(main())
