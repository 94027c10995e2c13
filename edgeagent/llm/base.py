"""The narrow protocol between the agent loop and a language model.

Two layers:

* :class:`Engine` is synchronous and owns the model (llama.cpp, the Hailo-10H, an HTTP
  server). It runs inside the model worker process, one generation at a time.
* :class:`LLM` is what the agent loop awaits, and what the daemon starts, watches and
  releases. :class:`InProcessLLM` adapts an engine in a thread (tests, the scripted
  engine); the worker client in :mod:`edgeagent.llm.worker` adapts one in a child
  process.

The loop always sends the *whole* conversation. An engine whose context lives on the
device (the Hailo) works out which messages are new with :class:`PrefixTracker` and
restores its primed context when the prefix no longer matches (new session, trimmed
history).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypedDict, runtime_checkable

from edgeagent.jsontypes import JSONValue

Role = Literal["system", "user", "assistant", "tool"]


class Message(TypedDict):
    """One chat message. Tool results use ``role="tool"``."""

    role: Role
    content: str


@dataclass(frozen=True)
class GenerateRequest:
    """Everything an engine needs for one generation."""

    messages: Sequence[Message]
    session: str = "default"
    stop: tuple[str, ...] = ()
    max_tokens: int = 256
    temperature: float = 0.0
    grammar: str | None = None
    """A GBNF grammar that constrains tool calls (llama.cpp only; others ignore it)."""
    tools: Sequence[dict[str, JSONValue]] | None = None
    """OpenAI-style tool list, for engines with native tool support (HTTP backends)."""
    fill: Callable[[str], str] | None = None
    """Given the text generated so far, the text the call format fixes next ("" for
    none; :class:`edgeagent.tools.fill.CallFill`). An engine with a grammar evaluates it
    without sampling, as far as the grammar allows; others ignore it."""
    aside: bool = False
    """A short side question outside the conversation: an engine that caches the
    conversation's context (llama.cpp) answers it without evicting that cache."""
    ahead: bool = False
    """Read ahead: generate nothing, only take ``messages`` (a conversation after its
    latest turn) into the context, so the turn that continues them evaluates only its
    own prompt. An engine that keeps no context between requests does nothing."""


@dataclass
class EngineStatus:
    """What ``edgeagent status`` shows about the model."""

    backend: str
    model: str
    context_window: int
    context_used: int | None = None
    extra: dict[str, JSONValue] = field(default_factory=dict)


CancelCheck = Callable[[], bool]


@runtime_checkable
class Engine(Protocol):
    """A synchronous model engine. One generation at a time; never shared by threads."""

    name: str

    def generate(self, request: GenerateRequest, *, cancelled: CancelCheck) -> Iterator[str]:
        """Stream text pieces. Stop early, cleanly, once ``cancelled()`` is true."""
        ...

    def count_tokens(self, messages: Sequence[Message]) -> int:
        """Tokens the messages take once rendered through the chat template."""
        ...

    def prime(self, messages: Sequence[Message], *, cancelled: CancelCheck) -> None:
        """Prepare for conversations that start with ``messages`` (the system prompt and
        primer), so the first turn evaluates only what follows; a no-op where the
        engine keeps no context. Stop early once ``cancelled()`` is true."""
        ...

    def status(self) -> EngineStatus: ...

    def close(self) -> None:
        """Release the model. Idempotent."""
        ...


class LLM(Protocol):
    """The asynchronous face of an engine: what the agent loop awaits, and the lifecycle
    the daemon drives (``start`` before ``READY=1``, ``alive`` for the watchdog,
    ``restarts`` and ``pid`` for ``edgeagent status``, ``aclose`` at exit)."""

    def stream(self, request: GenerateRequest) -> AsyncIterator[str]: ...

    async def count_tokens(self, messages: Sequence[Message]) -> int: ...

    async def status(self) -> EngineStatus: ...

    async def start(self) -> None:
        """Load the model now rather than on the first request. Idempotent."""
        ...

    async def prime(
        self, messages: Sequence[Message], *, after: asyncio.Event | None = None
    ) -> None:
        """Have the model hold the start every conversation shares (``Engine.prime``);
        again after a restarted worker. The model is held for it at once (requests wait),
        the work starts once ``after`` is set (the daemon's READY)."""
        ...

    @property
    def alive(self) -> bool:
        """False when the process that runs the model has died (it restarts on use)."""
        ...

    @property
    def restarts(self) -> int:
        """How often the model's process was restarted after a crash or a hang."""
        ...

    @property
    def pid(self) -> int | None:
        """The model worker's process id; ``None`` when the model runs in this process."""
        ...

    async def aclose(self) -> None:
        """Release the model. Idempotent."""
        ...


class PrefixTracker:
    """Remembers what an engine's on-device context (the Hailo's) already holds.

    ``new_messages`` returns the messages to send, or ``None`` when the engine must
    reset its context (restore the primed system prompt) and replay everything after
    the system message.
    """

    def __init__(self) -> None:
        self._held: list[Message] = []

    def new_messages(self, messages: Sequence[Message]) -> list[Message] | None:
        held = self._held
        if len(messages) >= len(held) and list(messages[: len(held)]) == held and held:
            return list(messages[len(held) :])
        return None

    def commit(self, messages: Sequence[Message]) -> None:
        """Record that the engine's context now holds exactly ``messages``."""
        self._held = list(messages)

    def reset(self) -> None:
        self._held = []


class InProcessLLM:
    """Runs an engine in a background thread of this process.

    For the scripted engine and for tests. Real engines run in the worker process,
    because the Hailo bindings hold the GIL while they block.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._lock = asyncio.Lock()

    async def stream(self, request: GenerateRequest) -> AsyncIterator[str]:
        async with self._lock:
            loop = asyncio.get_running_loop()
            queue: asyncio.Queue[tuple[str, object]] = asyncio.Queue()
            stop = threading.Event()

            def produce() -> None:
                try:
                    for piece in self.engine.generate(request, cancelled=stop.is_set):
                        loop.call_soon_threadsafe(queue.put_nowait, ("text", piece))
                        if stop.is_set():
                            break
                except BaseException as exc:  # handed to the awaiting side
                    loop.call_soon_threadsafe(queue.put_nowait, ("error", exc))
                else:
                    loop.call_soon_threadsafe(queue.put_nowait, ("end", None))

            worker = loop.run_in_executor(None, produce)
            try:
                while True:
                    kind, value = await queue.get()
                    if kind == "text":
                        yield str(value)
                    elif kind == "error":
                        assert isinstance(value, BaseException)
                        raise value
                    else:
                        break
            finally:
                stop.set()
                await asyncio.shield(worker)

    async def count_tokens(self, messages: Sequence[Message]) -> int:
        return await asyncio.to_thread(self.engine.count_tokens, messages)

    async def status(self) -> EngineStatus:
        return self.engine.status()

    async def start(self) -> None:
        """Nothing to do: the engine was loaded when it was built."""

    async def prime(
        self, messages: Sequence[Message], *, after: asyncio.Event | None = None
    ) -> None:
        async with self._lock:
            if after is not None:
                await after.wait()
            await asyncio.to_thread(self.engine.prime, messages, cancelled=lambda: False)

    @property
    def alive(self) -> bool:
        return True  # it runs in this process: while we answer, it lives

    @property
    def restarts(self) -> int:
        return 0

    @property
    def pid(self) -> int | None:
        return None

    async def aclose(self) -> None:
        self.engine.close()
