"""The model worker: the engine runs in its own process, the agent awaits it here.

Why a process: the Hailo bindings (and llama.cpp's prompt evaluation) hold the GIL
for seconds, which would freeze the MQTT keep-alives and the socket front end. A
process also turns a native crash or the OOM killer into an error for one request
instead of the end of the daemon.

Protocol over one duplex :func:`multiprocessing.Pipe` (the child is single-threaded):

* parent -> child: ``("generate", id, request)``, ``("count", id, messages)``,
  ``("prime", id, messages)``, ``("status", id)``, ``("cancel", id)``, ``("close",)``
* child -> parent: ``("ready",)`` or ``("failed", error)`` once; then per request
  ``("text", id, piece)`` ..., ending in ``("end", id)``, ``("result", id, value)`` or
  ``("error", id, error)``.

The child polls the pipe between tokens (the engine's ``cancelled()``), so a cancel
takes effect after at most one token or one prefill chunk.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import multiprocessing
import pickle
import signal
from collections.abc import AsyncIterator, Sequence
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from edgeagent.errors import (
    BackendUnavailableError,
    GenerationTimeoutError,
    LLMError,
    WorkerCrashedError,
)
from edgeagent.llm.base import Engine, EngineStatus, GenerateRequest, Message
from edgeagent.llm.select import EngineSpec

log = logging.getLogger(__name__)


# --- the child ---------------------------------------------------------------------------


def _portable(exc: BaseException) -> BaseException:
    """The exception itself when it survives pickling, else an LLMError with its text."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return LLMError(f"{type(exc).__name__}: {exc}")
    return exc


def _serve(conn: Connection, spec: EngineSpec) -> None:
    from edgeagent.llm.select import create_engine

    try:
        engine = create_engine(spec)
    except Exception as exc:
        conn.send(("failed", _portable(exc)))
        return
    conn.send(("ready",))
    try:
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError):
                return  # the parent is gone
            kind = msg[0]
            if kind == "close":
                return
            if kind in ("generate", "prime"):
                if _generate(conn, engine, msg[1], msg[2]):
                    return
            elif kind in ("count", "status"):
                try:
                    value = engine.count_tokens(msg[2]) if kind == "count" else engine.status()
                except Exception as exc:
                    conn.send(("error", msg[1], _portable(exc)))
                else:
                    conn.send(("result", msg[1], value))
            # A "cancel" for a generation that already ended needs nothing.
    finally:
        engine.close()


def _generate(
    conn: Connection, engine: Engine, rid: int, work: GenerateRequest | list[Message]
) -> bool:
    """Run one generation, or a priming (``work`` is then the messages to hold, and
    the answer one ``result``); True when the parent asked the worker to exit meanwhile."""
    stop = False
    closing = False

    def cancelled() -> bool:
        nonlocal stop, closing
        try:
            while not stop and conn.poll():
                msg = conn.recv()
                closing = msg[0] == "close"
                stop = closing or (msg[0] == "cancel" and msg[1] == rid)
        except (EOFError, OSError):
            stop = closing = True
        return stop

    try:
        if not isinstance(work, GenerateRequest):
            engine.prime(work, cancelled=cancelled)
            conn.send(("result", rid, None))
            return closing
        for piece in engine.generate(work, cancelled=cancelled):
            conn.send(("text", rid, piece))
            if cancelled():
                break
    except Exception as exc:
        conn.send(("error", rid, _portable(exc)))
    else:
        conn.send(("end", rid))
    return closing


def worker_main(conn: Connection, spec: EngineSpec) -> None:
    """Entry point of the worker process."""
    # Ctrl-C reaches the whole process group; the parent decides when the worker ends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.basicConfig(level=logging.WARNING)
    try:
        _serve(conn, spec)
    finally:
        conn.close()


# --- the parent --------------------------------------------------------------------------


class _Dead(Exception):
    """The worker process ended; carries its exit code."""

    def __init__(self, exitcode: int | None) -> None:
        super().__init__(exitcode)
        self.exitcode = exitcode


def _how_it_ended(exitcode: int | None) -> str:
    if exitcode is None:
        return "stopped answering"
    if exitcode < 0:
        return f"exited with signal {-exitcode}"
    return f"exited with code {exitcode}"


class WorkerLLM:
    """The :class:`~edgeagent.llm.base.LLM` protocol over a model worker process.

    Requests are served one at a time. A crashed worker fails the request in flight
    with :class:`WorkerCrashedError` and is restarted at once (``restarts`` counts).
    """

    def __init__(
        self,
        spec: EngineSpec,
        *,
        start_timeout_s: float = 120.0,
        generation_timeout_s: float = 120.0,
        cancel_grace_s: float = 5.0,
        stop_timeout_s: float = 5.0,
    ) -> None:
        self.spec = spec
        self.start_timeout_s = start_timeout_s
        self.generation_timeout_s = generation_timeout_s
        self.cancel_grace_s = cancel_grace_s
        self.stop_timeout_s = stop_timeout_s
        self.restarts = 0
        self._ctx = multiprocessing.get_context("spawn")
        self._proc: BaseProcess | None = None
        self._conn: Connection | None = None
        self._ready = False
        self._closed = False
        self._ids = itertools.count(1)
        self._lock: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None
        self._replacing: asyncio.Task[None] | None = None
        self._prefix: list[Message] | None = None
        """What ``prime`` asked the model to hold: primed again in a new worker."""

    # --- process management ---------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.is_alive()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _spawn(self) -> None:
        parent, child = self._ctx.Pipe(duplex=True)
        proc = self._ctx.Process(
            target=worker_main, args=(child, self.spec), name="edgeagent-model", daemon=True
        )
        proc.start()
        child.close()  # only the child holds its end, so its death reads as EOF here
        self._proc, self._conn, self._ready = proc, parent, False

    def _reap(self) -> int | None:
        """Close the pipe and wait for a (dead or dying) worker; return its exit code."""
        proc, conn = self._proc, self._conn
        self._proc, self._conn, self._ready = None, None, False
        if conn is not None:
            conn.close()
        if proc is None:
            return None
        proc.join(0.5)
        if proc.is_alive():
            proc.kill()
            proc.join()
        code = proc.exitcode
        proc.close()
        return code

    async def _stop(self) -> None:
        """Ask the worker to finish, then terminate, then kill; never leave a zombie."""
        proc, conn = self._proc, self._conn
        if proc is None:
            return
        with contextlib.suppress(OSError, ValueError):
            if conn is not None:
                conn.send(("close",))
        for signal_it in (None, proc.terminate, proc.kill):
            if signal_it is not None:
                signal_it()
            if await self._wait_exit(proc, self.stop_timeout_s):
                break
        self._reap()

    @staticmethod
    async def _wait_exit(proc: BaseProcess, timeout: float) -> bool:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while proc.is_alive():
            if loop.time() >= deadline:
                return False
            await asyncio.sleep(0.02)
        return True

    async def _restart_after_crash(self) -> str:
        code = self._reap()
        self.restarts += 1
        log.warning("model worker %s; restarting it", _how_it_ended(code))
        self._spawn()
        return _how_it_ended(code)

    async def _replace(self, why: str) -> None:
        """Stop this worker, however long a frozen one takes, and start a new one.

        The replacement runs as its own task, shielded: a request whose deadline passes
        while a frozen worker is being killed must not cancel the kill, or the frozen
        process would stay the worker and every later request would time out on it.
        """
        if self._replacing is None or self._replacing.done():
            self._replacing = asyncio.create_task(self._do_replace(why))
        await asyncio.shield(self._replacing)

    async def _do_replace(self, why: str) -> None:
        log.warning("model worker %s; restarting it", why)
        await self._stop()
        self.restarts += 1
        if not self._closed:
            self._spawn()

    async def _ensure_ready(self) -> None:
        if self._closed:
            raise LLMError("the model worker is closed")
        if self._replacing is not None and not self._replacing.done():
            await asyncio.shield(self._replacing)  # a replacement an earlier request began
        if self._proc is not None and not self._proc.is_alive():
            # It died between requests (OOM kill, native crash): nothing was in flight,
            # so start a new one and serve this request on it.
            await self._restart_after_crash()
        if self._proc is None:
            self._spawn()
        if self._ready:
            return
        try:
            msg = await self._recv(self.start_timeout_s)
        except _Dead as dead:
            self._reap()
            raise BackendUnavailableError(
                f"the model worker for {self.spec.describe()} {_how_it_ended(dead.exitcode)} "
                f"while loading the model; check the log, memory, and the model file"
            ) from None
        except TimeoutError:
            await self._stop()
            raise BackendUnavailableError(
                f"the model worker for {self.spec.describe()} did not load within "
                f"{self.start_timeout_s:g} s; check the model file and memory, or raise "
                f"[llm] start_timeout_s if the model is just slow to load"
            ) from None
        if msg[0] == "failed":
            self._reap()
            raise msg[1]
        self._ready = True
        if self._prefix is not None:  # a replacement worker: the first turn stays warm
            try:
                await self._ask("prime", self._prefix)
            except LLMError as exc:
                log.warning("the restarted model worker could not prime its context: %s", exc)

    # --- the pipe -------------------------------------------------------------------

    async def _recv(self, timeout: float) -> tuple[Any, ...]:
        """The next message from the worker; ``_Dead`` if it died, TimeoutError if silent."""
        conn, proc = self._conn, self._proc
        assert conn is not None and proc is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            try:
                if conn.poll():
                    msg: tuple[Any, ...] = conn.recv()
                    return msg
            except (EOFError, OSError):
                await self._wait_exit(proc, 2.0)
                raise _Dead(proc.exitcode) from None
            if not proc.is_alive():
                raise _Dead(proc.exitcode)
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError
            await self._readable(conn, proc, min(remaining, 1.0))

    @staticmethod
    async def _readable(conn: Connection, proc: BaseProcess, timeout: float) -> None:
        """Wait until the pipe or the process sentinel is readable (or ``timeout``)."""
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            if not ready.done():
                ready.set_result(None)

        fds = (conn.fileno(), proc.sentinel)
        for fd in fds:
            loop.add_reader(fd, wake)
        # Not asyncio.wait_for: on 3.11 it can swallow a cancellation that races with
        # the wake-up, and a lost cancel would keep a deadline-expired request running.
        timer = loop.call_later(timeout, wake)
        try:
            await ready
        finally:
            timer.cancel()
            for fd in fds:
                loop.remove_reader(fd)

    def _lock_for_loop(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        if self._lock is None or self._lock_loop is not loop:
            self._lock, self._lock_loop = asyncio.Lock(), loop
        return self._lock

    # --- the LLM protocol -----------------------------------------------------------

    async def stream(self, request: GenerateRequest) -> AsyncIterator[str]:
        async with self._lock_for_loop():
            await self._ensure_ready()
            assert self._conn is not None
            rid = next(self._ids)
            self._conn.send(("generate", rid, request))
            finished = False
            try:
                while True:
                    try:
                        msg = await self._recv(self.generation_timeout_s)
                    except _Dead:
                        finished = True
                        how = await self._restart_after_crash()
                        raise WorkerCrashedError(
                            f"model worker {how} while generating; restarted it, please retry"
                        ) from None
                    except TimeoutError:
                        raise GenerationTimeoutError(
                            f"the model produced nothing for {self.generation_timeout_s:g} s "
                            f"({self.spec.describe()}); the generation was cancelled. Raise "
                            f"[llm] generation_timeout_s if the model is just slow"
                        ) from None
                    if len(msg) < 2 or msg[1] != rid:
                        continue  # late output of an earlier, cancelled request
                    if msg[0] == "text":
                        yield msg[2]
                    elif msg[0] == "end":
                        finished = True
                        return
                    elif msg[0] == "error":
                        finished = True
                        raise msg[2]
            finally:
                if not finished:
                    await self._cancel(rid)

    async def _cancel(self, rid: int) -> None:
        """Stop generation ``rid``; restart the worker if it does not stop in time."""
        conn = self._conn
        if conn is None:
            return
        try:
            conn.send(("cancel", rid))
            loop = asyncio.get_running_loop()
            deadline = loop.time() + self.cancel_grace_s
            while (remaining := deadline - loop.time()) > 0:
                msg = await self._recv(remaining)
                if len(msg) >= 2 and msg[1] == rid and msg[0] in ("end", "error"):
                    return
        except _Dead:
            await self._restart_after_crash()
            return
        except (TimeoutError, OSError):
            pass
        await self._replace(f"ignored a cancel for {self.cancel_grace_s:g} s")

    async def _call(self, kind: str, *args: Any) -> Any:
        async with self._lock_for_loop():
            await self._ensure_ready()
            return await self._ask(kind, *args)

    async def _ask(self, kind: str, *args: Any) -> Any:
        """One request to a ready worker, holding the lock: its ``result``."""
        assert self._conn is not None
        rid = next(self._ids)
        self._conn.send((kind, rid, *args))
        while True:
            try:
                msg = await self._recv(self.generation_timeout_s)
            except _Dead:
                how = await self._restart_after_crash()
                raise WorkerCrashedError(
                    f"model worker {how} while answering {kind!r}; restarted it, please retry"
                ) from None
            except TimeoutError:
                # A worker that cannot answer a small question is stuck (frozen,
                # swapping): replace it, so the next request finds a live one.
                waited = f"{self.generation_timeout_s:g} s"
                await self._replace(f"did not answer {kind!r} within {waited}")
                raise GenerationTimeoutError(
                    f"the model worker did not answer {kind!r} within "
                    f"{self.generation_timeout_s:g} s; it was restarted"
                ) from None
            if len(msg) >= 2 and msg[1] == rid:
                if msg[0] == "error":
                    raise msg[2]
                return msg[2]

    async def count_tokens(self, messages: Sequence[Message]) -> int:
        return int(await self._call("count", list(messages)))

    async def status(self) -> EngineStatus:
        status = await self._call("status")
        assert isinstance(status, EngineStatus)
        status.extra = {**status.extra, "worker_pid": self.pid, "worker_restarts": self.restarts}
        return status

    async def start(self) -> None:
        """Load the model now instead of on the first request."""
        async with self._lock_for_loop():
            await self._ensure_ready()

    async def prime(
        self, messages: Sequence[Message], *, after: asyncio.Event | None = None
    ) -> None:
        """Have the model hold ``messages`` (once ``after`` is set); remembered for a
        restarted worker. Requests sent meanwhile wait for it."""
        async with self._lock_for_loop():
            if after is not None:
                await after.wait()
            await self._ensure_ready()
            self._prefix = list(messages)
            await self._ask("prime", self._prefix)

    async def aclose(self) -> None:
        """Stop the worker. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._replacing is not None and not self._replacing.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(self._replacing)
        await self._stop()

    def close(self) -> None:
        """Synchronous last resort (no event loop): kill the worker and reap it."""
        self._closed = True
        if self._proc is not None:
            with contextlib.suppress(OSError, ValueError):
                self._proc.kill()
        self._reap()
