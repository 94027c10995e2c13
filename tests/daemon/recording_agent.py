"""An agent for the scheduler and socket tests that records which turns started, were
cancelled and finished."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from edgeagent.agent.context import Conversation
from edgeagent.agent.events import Event, FinalAnswer, TextChunk
from edgeagent.tools.executor import ToolCall
from edgeagent.tools.tool import ToolResult


class RecordingAgent:
    """Answers with the number of messages it saw; prompts starting "slow" hang.

    "slow stubborn" prompts take another 0.3 s to stop once cancelled.
    """

    def __init__(self) -> None:
        self.started: list[str] = []
        self.cancelled: list[str] = []
        self.finished: list[str] = []
        self.release = asyncio.Event()

    async def run(
        self, prompt: str, *, conversation: Conversation, frontend: str
    ) -> AsyncIterator[Event]:
        self.started.append(prompt)
        conversation.messages.append({"role": "user", "content": prompt})
        yield TextChunk(f"working on {prompt}")
        try:
            if prompt.startswith("slow"):
                await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled.append(prompt)
            if prompt.startswith("slow stubborn"):  # like a model that stops mid-token
                await asyncio.sleep(0.3)
            raise
        users = sum(m["role"] == "user" for m in conversation.messages)
        answer = f"{prompt}: seen {users} user message(s)"
        conversation.messages.append({"role": "assistant", "content": answer})
        self.finished.append(prompt)
        yield FinalAnswer(text=answer)


class RecordingTools:
    """Runs direct tool calls: ``echo`` returns its arguments, anything else is unknown.
    Records each call as ``(tool, frontend)``."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    async def execute(self, call: ToolCall, *, frontend: str = "cli") -> ToolResult:
        self.calls.append((call.name, frontend))
        if call.name != "echo":
            return ToolResult.failure(f"unknown tool {call.name!r}")
        return ToolResult.success(call.arguments)
