"""Reading ahead: the model reads a turn's end while the user reads the answer.

A turn answered from a tool's result ends before the model has read that result (the
answer is built, not generated), so the next turn of the conversation would begin by
evaluating it: a forecast is about 190 tokens, seconds on two cores. Once the model has
been idle :data:`IDLE_S` after a turn, :class:`ReadAhead` has it evaluate the
conversation so far (``GenerateRequest.ahead``), and the next prompt interrupts it after
at most one chunk (the engine's to say; llama.cpp's is 32 tokens).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from edgeagent.errors import LLMError
from edgeagent.llm.base import LLM, GenerateRequest, Message

log = logging.getLogger(__name__)

IDLE_S = 0.3
"""How long the model must be idle after a turn before it reads the turn's end ahead: a
client that sends its next prompt sooner gains nothing from it, so it does not wait
for a read-ahead chunk either."""


class ReadAhead:
    """At most one read-ahead of one model at a time."""

    def __init__(self, *, llm: LLM, idle_s: float = IDLE_S) -> None:
        self.llm = llm
        self.idle_s = idle_s
        self._task: asyncio.Task[None] | None = None

    def start(self, messages: Sequence[Message], *, session: str) -> None:
        """Read ``messages`` (a copy is taken) into ``session``'s context once idle; a
        read-ahead still under way is cancelled (the newest conversation state wins)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
        request = GenerateRequest(messages=list(messages), session=session, ahead=True)
        self._task = asyncio.create_task(self._read(request), name="edgeagent-read-ahead")

    async def _read(self, request: GenerateRequest) -> None:
        await asyncio.sleep(self.idle_s)
        try:
            async for _ in self.llm.stream(request):
                pass
        except LLMError as exc:  # the next turn reads the same messages itself
            log.info("reading ahead failed: %s", exc)
        except Exception:  # a backend bug: logged, and the next turn goes on
            log.exception("reading ahead raised")

    async def stop(self) -> None:
        """Interrupt a read-ahead and wait until the model is free (at most one chunk)."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.wait([task])
