"""One bounded queue in front of the single model: what every front end submits to.

The model serves one turn at a time, so requests from MQTT, the Unix socket and the CLI
line up in a single :class:`asyncio.Queue` of ``queue_size`` places. A full queue answers
at once with ``busy, N requests queued``; nothing waits forever, because every request
carries a deadline (``request_timeout_s``, counted from submission, queue time
included). A client that stops iterating its event stream (it went away) cancels its
request, whether it is still queued or already running.

Every turn that runs is traced (:mod:`edgeagent.trace`): its request, each event and
its figures go to whoever watches (the socket's ``{"op": "trace"}``, the dashboard).

The scheduler only schedules: what ``edgeagent status`` shows about the daemon as a
whole is composed by :meth:`edgeagent.daemon.Daemon.status`, which reads
:meth:`Scheduler.status` for the queue's part.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Protocol

from edgeagent.agent.context import Conversation
from edgeagent.agent.events import (
    ErrorEvent,
    Event,
    FinalAnswer,
    ToolCallEvent,
    ToolResultEvent,
    TurnStats,
)
from edgeagent.errors import ProtocolError
from edgeagent.frontends.base import Request, ToolRequest, check_session
from edgeagent.jsontypes import JSONValue
from edgeagent.tools.executor import ToolCall
from edgeagent.tools.tool import ToolResult
from edgeagent.trace import TraceHub, TurnTrace

log = logging.getLogger(__name__)

# How often idle sessions are swept; cheap, so it need not be configurable.
SESSION_SWEEP_S = 30.0


class TurnRunner(Protocol):
    """The agent, as the scheduler sees it (:class:`edgeagent.agent.loop.Agent`)."""

    def run(
        self, prompt: str, *, conversation: Conversation, frontend: str
    ) -> AsyncIterator[Event]: ...


class ToolRunner(Protocol):
    """What runs a direct tool call (:class:`edgeagent.tools.executor.ToolExecutor`)."""

    async def execute(self, call: ToolCall, *, frontend: str = ...) -> ToolResult: ...


def session_key(frontend: str, session: str) -> str:
    """Sessions are per front end: an MQTT client naming "kitchen" cannot join the
    socket user's "kitchen" conversation."""
    return f"{frontend}/{session}"


class SessionSource(Protocol):
    """Conversations by session id (:class:`edgeagent.agent.context.SessionStore`)."""

    def get_or_create(self, session_id: str | None) -> Conversation:
        """The session's conversation (created when new); ``None``: a fresh one-shot."""
        ...

    def reset(self, session_id: str) -> bool: ...

    def expire(self, idle_s: float) -> list[str]: ...

    def __len__(self) -> int: ...


@dataclass
class Counters:
    """What ``edgeagent status`` reports about the request flow."""

    served: int = 0
    failed: int = 0
    busy: int = 0
    timed_out: int = 0
    cancelled: int = 0


@dataclass(eq=False)
class _Job:
    request: Request | ToolRequest
    deadline: float
    submitted: float = 0.0
    events: asyncio.Queue[Event | None] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None
    cancelled: str | None = None
    """Why it was cancelled; a queued job with a reason is skipped by the worker."""
    trace: TurnTrace | None = None

    def emit(self, event: Event) -> None:
        """To the client waiting for it, and to the trace."""
        self.events.put_nowait(event)
        if self.trace is not None:
            self.trace.event(event)

    def cancel(self, reason: str) -> None:
        if self.cancelled is None:
            self.cancelled = reason
        if self.task is not None and not self.task.done():
            self.task.cancel()


class Scheduler:
    """What the daemon's :class:`~edgeagent.frontends.base.Dispatcher` submits to.

    ``start()`` launches the one worker task that runs turns in order; ``close()`` stops
    accepting, cancels what is queued, lets the running turn finish within a grace period
    and cancels it after.
    """

    def __init__(
        self,
        *,
        agent: TurnRunner,
        tools: ToolRunner,
        sessions: SessionSource,
        queue_size: int,
        request_timeout_s: float,
        session_idle_s: float = 900.0,
        trace: TraceHub | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.agent = agent
        self.tools = tools
        self.sessions = sessions
        self.queue_size = queue_size
        self.request_timeout_s = request_timeout_s
        self.session_idle_s = session_idle_s
        self.trace = trace
        """Where every turn's events are published; ``None``: not traced."""
        self.counters = Counters()
        self._clock = clock
        self._queue: asyncio.Queue[_Job] = asyncio.Queue(maxsize=queue_size)
        self._running: _Job | None = None
        self.last_turn_s: float | None = None
        """How long the last turn that ran took, queueing not counted."""
        self._worker: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._closing: str | None = None

    # --- lifecycle -------------------------------------------------------------------

    def start(self) -> None:
        if self._worker is None:
            self._worker = asyncio.create_task(self._work(), name="edgeagent-scheduler")
            self._sweeper = asyncio.create_task(self._sweep(), name="edgeagent-sessions")

    async def close(
        self, *, grace_s: float = 0.0, reason: str = "edgeagent is shutting down"
    ) -> None:
        """Stop accepting, drop the queue, give the running turn ``grace_s``. Idempotent."""
        if self._closing is None:
            self._closing = reason
        while not self._queue.empty():
            job = self._queue.get_nowait()
            job.cancel(reason)
            job.events.put_nowait(ErrorEvent(f"{reason}; the request was not started"))
        running = self._running
        if running is not None and running.task is not None:
            done, _ = await asyncio.wait({running.task}, timeout=grace_s)
            if not done:
                log.warning("cancelling the request still running after %.1f s grace", grace_s)
                running.cancel(f"{reason}; the request did not finish within {grace_s:g} s")
                await asyncio.wait({running.task})
        for task in (self._worker, self._sweeper):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._worker = self._sweeper = None

    @property
    def crashed(self) -> bool:
        """The worker that runs turns ended on its own (a bug): no turn will run again."""
        return self._worker is not None and self._worker.done()

    # --- what front ends reach through the daemon ------------------------------------

    @property
    def queue_depth(self) -> int:
        return self._queue.qsize()

    @property
    def in_flight(self) -> bool:
        return self._running is not None

    async def call_tool(self, request: ToolRequest) -> ToolResult:
        """One direct tool call, queued like a prompt: its result, or why it failed."""
        result = ToolResult.failure("the call ended without a result")
        stream = self.submit(request)
        async with contextlib.aclosing(stream):
            async for event in stream:
                if isinstance(event, ToolResultEvent):
                    result = ToolResult(event.ok, event.result, event.error)
                elif isinstance(event, ErrorEvent):
                    return ToolResult.failure(event.message)
        return result

    async def submit(self, request: Request | ToolRequest) -> AsyncGenerator[Event, None]:
        """Stream one request's events, ending in one ``FinalAnswer`` or ``ErrorEvent``.
        A :class:`ToolRequest` streams its call, its result and a ``FinalAnswer``."""
        if self._closing is not None:
            self.counters.failed += 1
            yield ErrorEvent(f"{self._closing}; not accepting requests")
            return
        try:
            if isinstance(request, Request):
                check_session(request.session)
        except ProtocolError as exc:
            self.counters.failed += 1
            yield ErrorEvent(str(exc))
            return
        now = self._clock()
        job = _Job(request, deadline=now + self.request_timeout_s, submitted=now)
        try:
            self._queue.put_nowait(job)
        except asyncio.QueueFull:
            self.counters.busy += 1
            self.counters.failed += 1
            yield ErrorEvent(f"busy, {self._queue.qsize()} requests queued; try again shortly")
            return
        finished = False
        try:
            while True:
                remaining = job.deadline - self._clock()
                try:
                    event = await asyncio.wait_for(job.events.get(), timeout=max(remaining, 0))
                except TimeoutError:
                    job.cancel("timeout")
                    self.counters.timed_out += 1
                    self.counters.failed += 1
                    finished = True
                    yield ErrorEvent(
                        f"request timed out after {self.request_timeout_s:g} s "
                        f"([daemon] request_timeout_s) and was cancelled"
                    )
                    return
                if event is None:  # the worker dropped it (cancelled while queued)
                    finished = True
                    self.counters.failed += 1
                    yield ErrorEvent(f"request cancelled: {job.cancelled or 'unknown reason'}")
                    return
                if isinstance(event, FinalAnswer | ErrorEvent):
                    finished = True
                    if isinstance(event, FinalAnswer):
                        self.counters.served += 1
                    else:
                        self.counters.failed += 1
                    yield event
                    return
                yield event
        finally:
            if not finished:  # the client closed the stream early: it went away
                self.counters.cancelled += 1
                self.counters.failed += 1
                job.cancel("client went away")

    def reset_session(self, session: str, *, frontend: str) -> bool:
        return self.sessions.reset(session_key(frontend, session))

    def status(self) -> dict[str, JSONValue]:
        """The queue's part of ``edgeagent status``."""
        c = self.counters
        return {
            "queue_depth": self.queue_depth,
            "queue_size": self.queue_size,
            "in_flight": 1 if self.in_flight else 0,
            "last_turn_s": self.last_turn_s,
            "requests": {
                "served": c.served,
                "failed": c.failed,
                "busy": c.busy,
                "timed_out": c.timed_out,
                "cancelled": c.cancelled,
            },
            "sessions": len(self.sessions),
        }

    # --- the worker ------------------------------------------------------------------

    async def _work(self) -> None:
        while True:
            job = await self._queue.get()
            if job.cancelled is not None:
                job.events.put_nowait(None)
                continue
            self._running = job
            job.task = asyncio.create_task(self._turn(job), name=f"edgeagent-turn-{job.request.id}")
            started = self._clock()
            try:
                # wait() rather than await: cancelling the turn must not cancel the worker.
                await asyncio.wait({job.task})
            finally:
                self.last_turn_s = round(self._clock() - started, 3)
                self._running = None

    def _begin_trace(self, job: _Job) -> None:
        if self.trace is None:
            return
        request = job.request
        queued_s = self._clock() - job.submitted
        if isinstance(request, ToolRequest):
            job.trace = self.trace.begin(
                frontend=request.frontend,
                request_id=request.id,
                tool=request.tool,
                arguments=dict(request.arguments),
                queued_s=queued_s,
            )
        else:
            job.trace = self.trace.begin(
                frontend=request.frontend,
                request_id=request.id,
                session=request.session,
                prompt=request.prompt,
                queued_s=queued_s,
            )

    async def _turn(self, job: _Job) -> None:
        request = job.request
        self._begin_trace(job)
        if isinstance(request, ToolRequest):
            await self._call(job, request)
            return
        ended = False
        try:
            session = request.session
            conversation = self.sessions.get_or_create(
                None if session is None else session_key(request.frontend, session)
            )
            stream = self.agent.run(
                request.prompt, conversation=conversation, frontend=request.frontend
            )
            async with contextlib.aclosing(stream):  # type: ignore[type-var]
                async for event in stream:
                    job.emit(event)
                    if isinstance(event, FinalAnswer | ErrorEvent):
                        ended = True
                        break
            if not ended:
                job.emit(ErrorEvent("the agent ended the turn without an answer"))
        except asyncio.CancelledError:
            # The client is gone or the deadline passed; tell a still-listening client why.
            job.emit(ErrorEvent(f"request cancelled: {job.cancelled or 'shutdown'}"))
        except Exception as exc:
            log.exception("request %s failed", request.id)
            job.emit(ErrorEvent(f"internal error: {exc}"))

    async def _call(self, job: _Job, request: ToolRequest) -> None:
        job.emit(ToolCallEvent(request.tool, dict(request.arguments), step=1))
        started = self._clock()
        try:
            result = await self.tools.execute(
                ToolCall(request.tool, dict(request.arguments)), frontend=request.frontend
            )
        except asyncio.CancelledError:
            job.emit(ErrorEvent(f"request cancelled: {job.cancelled or 'shutdown'}"))
            return
        except Exception as exc:  # the executor turns tool failures into results: a bug
            log.exception("tool call %s failed", request.id)
            job.emit(ErrorEvent(f"internal error: {exc}"))
            return
        stats = TurnStats(tool_s=round(self._clock() - started, 3))
        job.emit(ToolResultEvent(request.tool, result.ok, result.result, result.error, step=1))
        call = {"name": request.tool, "arguments": dict(request.arguments), **result.to_dict()}
        job.emit(FinalAnswer(result.to_json(), tool_calls=[call], steps=1, stats=stats))

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(min(SESSION_SWEEP_S, self.session_idle_s / 2))
            try:
                expired = self.sessions.expire(self.session_idle_s)
            except Exception:
                log.exception("expiring idle sessions failed")
                continue
            if expired:
                log.info("expired %d idle session(s): %s", len(expired), ", ".join(expired))
