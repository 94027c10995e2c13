"""The part every hand-written model double of the agent tests shares: a fixed token
count and status, nothing to close. A double subclasses it and writes ``stream``."""

from __future__ import annotations

from typing import Any

from edgeagent.llm.base import EngineStatus


class StubLLM:
    async def count_tokens(self, messages: Any) -> int:
        return 10

    async def status(self) -> EngineStatus:
        return EngineStatus(backend="stub", model="stub", context_window=4096)

    async def aclose(self) -> None:
        pass
