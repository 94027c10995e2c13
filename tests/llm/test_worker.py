"""The model worker process: streaming, crash recovery, cancellation, clean shutdown."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from edgeagent.errors import (
    BackendUnavailableError,
    GenerationTimeoutError,
    ModelNotFoundError,
    WorkerCrashedError,
)
from edgeagent.llm.base import GenerateRequest
from edgeagent.llm.select import EngineSpec
from edgeagent.llm.worker import WorkerLLM

LONG_REPLY = "tick " * 400


def ask(text: str, **kwargs: object) -> GenerateRequest:
    return GenerateRequest(messages=[{"role": "user", "content": text}], **kwargs)  # type: ignore[arg-type]


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "script.json"
    path.write_text(
        json.dumps(
            {
                "rules": [
                    {"match": "long", "reply": LONG_REPLY},
                    {"match": "colour", "reply": "The LED is red."},
                ],
                "default": "I cannot help with that.",
                "chunk_size": 5,
                "chunk_delay_s": 0.01,
            }
        )
    )
    return path


def exited(pid: int) -> bool:
    """True when ``pid`` is gone and reaped (not a zombie)."""
    # A zombie keeps its /proc entry until its parent reaps it.
    return not Path(f"/proc/{pid}").exists()


async def collect(stream: AsyncIterator[str]) -> str:
    return "".join([piece async for piece in stream])


def test_scripted_worker_streams_counts_and_closes(script: Path) -> None:
    async def main() -> tuple[list[str], int, int | None, WorkerLLM]:
        llm = WorkerLLM(EngineSpec("scripted", {"script": str(script)}))
        try:
            pieces = [p async for p in llm.stream(ask("what colour is the LED?"))]
            count = await llm.count_tokens([{"role": "user", "content": "two words"}])
            status = await llm.status()
            assert status.backend == "scripted"
            pid = llm.pid
            assert pid is not None and pid != os.getpid()
        finally:
            await llm.aclose()
            await llm.aclose()  # idempotent
        return pieces, count, pid, llm

    pieces, count, pid, llm = asyncio.run(main())
    assert pieces == ["The L", "ED is", " red."]  # streamed in the script's chunks
    assert count == 2 + 4
    assert pid is not None and exited(pid)
    assert not llm.alive


def test_scripted_worker_survives_kill_9(script: Path) -> None:
    async def main() -> tuple[str, str, int, int | None, int | None]:
        llm = WorkerLLM(EngineSpec("scripted", {"script": str(script)}))
        try:
            stream = llm.stream(ask("a long one please"))
            first = await stream.__anext__()
            assert first
            old = llm.pid
            assert old is not None
            os.kill(old, signal.SIGKILL)
            with pytest.raises(WorkerCrashedError) as info:
                async for _ in stream:
                    pass
            after = await collect(llm.stream(ask("what colour?")))
            return str(info.value), after, llm.restarts, old, llm.pid
        finally:
            await llm.aclose()

    message, after, restarts, old, new = asyncio.run(main())
    assert message == (
        "model worker exited with signal 9 while generating; restarted it, please retry"
    )
    assert after == "The LED is red."
    assert restarts == 1
    assert old != new and old is not None and exited(old)


def test_scripted_worker_cancel_frees_the_model_promptly(script: Path) -> None:
    async def main() -> tuple[str, float, float]:
        llm = WorkerLLM(EngineSpec("scripted", {"script": str(script)}))
        try:
            await llm.start()
            stream = llm.stream(ask("a long one please"))
            await stream.__anext__()
            await stream.aclose()  # the client went away after one chunk
            started = time.monotonic()
            answer = await collect(llm.stream(ask("what colour?")))
            elapsed = time.monotonic() - started
            # A deadline cancels a generation through asyncio cancellation too.
            started = time.monotonic()
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(collect(llm.stream(ask("long again"))), 0.2)
            answer2 = await collect(llm.stream(ask("what colour?")))
            assert answer2 == answer
            return answer, elapsed, time.monotonic() - started
        finally:
            await llm.aclose()

    answer, elapsed, after_deadline = asyncio.run(main())
    assert answer == "The LED is red."
    # The long reply alone takes 400 chunks * 10 ms = 4 s; the next request did not wait.
    assert elapsed < 1.0
    assert after_deadline < 1.5


def test_worker_reports_a_silent_model_as_a_timeout(script: Path) -> None:
    async def main() -> None:
        llm = WorkerLLM(
            EngineSpec("scripted", {"script": str(script)}),
            generation_timeout_s=0.05,
            cancel_grace_s=0.2,
            stop_timeout_s=0.2,
        )
        try:
            await llm.start()
            # 10 ms per chunk is fine; a 50 ms limit then only trips on a stall, so
            # stall the worker itself.
            stream = llm.stream(ask("a long one please"))
            await stream.__anext__()
            assert llm.pid is not None
            os.kill(llm.pid, signal.SIGSTOP)
            try:
                with pytest.raises(GenerationTimeoutError, match=r"produced nothing for 0\.05 s"):
                    async for _ in stream:
                        pass
            finally:
                if llm.pid is not None:
                    os.kill(llm.pid, signal.SIGCONT)
            # The stalled worker was replaced; the next request is served.
            assert llm.restarts == 1
            assert await collect(llm.stream(ask("what colour?"))) == "The LED is red."
        finally:
            await llm.aclose()

    asyncio.run(main())


def test_worker_start_failure_is_raised_to_the_caller(tmp_path: Path) -> None:
    async def main() -> None:
        llm = WorkerLLM(
            EngineSpec(
                "llamacpp",
                {"model_path": str(tmp_path / "missing.gguf"), "n_ctx": 2048, "n_threads": 1},
            )
        )
        try:
            with pytest.raises(ModelNotFoundError, match=r"missing\.gguf"):
                await collect(llm.stream(ask("hello")))
            assert not llm.alive
        finally:
            await llm.aclose()

    asyncio.run(main())


# --- the real engine through the worker (SmolLM2) ---------------------------------------

# No end is allowed before 300 repetitions: a generation long enough to interrupt.
ENDLESS = 'root ::= ("la "){300}\n'


@pytest.mark.model
def test_llamacpp_worker_streams_recovers_and_cancels(smollm2_path: Path) -> None:
    spec = EngineSpec("llamacpp", {"model_path": str(smollm2_path), "n_ctx": 2048, "n_threads": 2})
    messages = [{"role": "user", "content": "Sing."}]

    async def main() -> None:
        llm = WorkerLLM(spec)
        try:
            pieces = [p async for p in llm.stream(ask("Say hello.", max_tokens=16))]
            assert len(pieces) > 1 and "".join(pieces).strip()
            status = await llm.status()
            assert status.backend == "llamacpp" and status.context_used

            long = GenerateRequest(messages=messages, grammar=ENDLESS, max_tokens=1000)  # type: ignore[arg-type]
            stream = llm.stream(long)
            assert "la".startswith((await stream.__anext__()).strip())
            assert llm.pid is not None
            os.kill(llm.pid, signal.SIGKILL)
            with pytest.raises(WorkerCrashedError, match="signal 9 while generating"):
                async for _ in stream:
                    pass
            assert llm.restarts == 1
            again = await collect(llm.stream(ask("Say hello.", max_tokens=16)))
            assert again == "".join(pieces)  # same greedy answer from the new worker

            stream = llm.stream(long)
            await stream.__anext__()
            await stream.aclose()
            # The worker stopped that generation long before its 300 forced tokens.
            stopped = await llm.status()
            assert 0 < stopped.extra["last_generated_tokens"] < 100
            assert await collect(llm.stream(ask("Say hello.", max_tokens=16))) == again
            assert llm.restarts == 1  # the cancel stopped the generation, no restart
        finally:
            await llm.aclose()

    asyncio.run(main())


def test_a_model_slower_than_llm_start_timeout_s_names_the_key_to_raise(script: Path) -> None:
    """[llm] start_timeout_s reaches the worker; a worker that cannot even start a Python
    process within 50 ms runs past it, and the error names the key."""
    from edgeagent.compose import build_llm
    from edgeagent.config import Config

    config = Config.model_validate(
        {"llm": {"backend": "scripted", "script": str(script), "start_timeout_s": 0.05}}
    )

    async def main() -> None:
        llm = build_llm(config)
        try:
            with pytest.raises(BackendUnavailableError) as info:
                await llm.start()
            assert "did not load within 0.05 s" in str(info.value)
            assert "raise [llm] start_timeout_s" in str(info.value)
            assert not llm.alive  # the half-started worker was stopped
        finally:
            await llm.aclose()

    asyncio.run(main())


def test_a_frozen_worker_is_replaced_even_when_the_request_gives_up_first(script: Path) -> None:
    """A worker that stops answering (SIGSTOP: swapping, a hung driver) mid-generation;
    the request's deadline passes while the worker is being killed. The kill must
    still finish, and the next request must be served by a new worker (found by
    bench/hostile.py: every later prompt used to time out on the frozen one)."""

    async def main() -> None:
        llm = WorkerLLM(
            EngineSpec("scripted", {"script": str(script)}),
            generation_timeout_s=1.0,
            cancel_grace_s=0.5,
            stop_timeout_s=0.5,
        )
        try:
            await llm.start()
            frozen = llm.pid
            assert frozen is not None

            async def consume() -> None:
                async for _ in llm.stream(ask("long")):
                    os.kill(frozen, signal.SIGSTOP)

            request = asyncio.create_task(consume())
            await asyncio.sleep(1.6)  # past the generation timeout, into the cancel grace
            request.cancel()  # the request's deadline: it gives up mid-replacement
            with pytest.raises((asyncio.CancelledError, GenerationTimeoutError)):
                await request
            answer = await asyncio.wait_for(collect(llm.stream(ask("colour?"))), 20)
            assert answer == "The LED is red."
            assert llm.pid != frozen and llm.restarts >= 1
            assert exited(frozen)
        finally:
            await llm.aclose()

    asyncio.run(main())
