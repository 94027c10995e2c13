"""The agent loop over the real llama.cpp engine and the small SmolLM2 model.

SmolLM2-135M is too small to choose tools well, so these tests assert mechanics on
real tokens: the turn ends in exactly one final event, call markup never leaks into
the streamed text, and what the user saw streamed is what the history keeps.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from edgeagent.agent.events import (
    ErrorEvent,
    Event,
    FinalAnswer,
    TextChunk,
    ToolCallEvent,
    ToolResultEvent,
)
from edgeagent.compose import build_agent
from edgeagent.config import Config
from edgeagent.llm.base import InProcessLLM
from edgeagent.tools import tool, tools_from
from edgeagent.tools.executor import ToolExecutor
from edgeagent.tools.registry import ToolRegistry

SMOLLM2 = Path("~/.cache/edgeagent/models/smollm2-135m-instruct-q4_1.gguf").expanduser()

pytestmark = pytest.mark.model


class Strip:
    def __init__(self) -> None:
        self.colors: list[str] = []

    @tool(kind="act")
    def set_led(self, color: str) -> str:
        """Set the LED strip colour (a CSS colour name)."""
        self.colors.append(color)
        return f"LED {color}"


@pytest.mark.parametrize("grammar", [False, True])
def test_turn_over_smollm2_ends_cleanly(grammar: bool) -> None:
    if not SMOLLM2.is_file():
        pytest.skip(f"{SMOLLM2} missing; run `edgeagent model fetch smollm2`")
    from edgeagent.llm.llamacpp import LlamaCppEngine

    engine = LlamaCppEngine(model_path=SMOLLM2, n_ctx=2048, n_threads=2)
    strip = Strip()
    registry = ToolRegistry(tools_from(strip))
    config = Config.model_validate(
        {"llm": {"max_tokens": 64, "llamacpp": {"grammar": grammar}}, "agent": {"max_steps": 3}}
    )
    llm = InProcessLLM(engine)
    agent = build_agent(config, llm=llm, executor=ToolExecutor(registry), registry=registry)
    conv = agent.new_conversation("s")

    async def main() -> list[Event]:
        try:
            return [
                e async for e in agent.run("Turn the LED red.", conversation=conv, frontend="cli")
            ]
        finally:
            await llm.aclose()

    events = asyncio.run(main())
    ends = [e for e in events if isinstance(e, FinalAnswer | ErrorEvent)]
    assert len(ends) == 1 and events[-1] is ends[0]
    shown = "".join(e.text for e in events if isinstance(e, TextChunk))
    assert "<tool_call>" not in shown and "</tool_call>" not in shown
    calls = [e for e in events if isinstance(e, ToolCallEvent)]
    done = [e for e in events if isinstance(e, ToolResultEvent) and e.ok]
    assert strip.colors == [str(c.arguments["color"]) for c in calls][: len(done)]
    if isinstance(ends[0], FinalAnswer):
        assert conv.messages[-1] == {"role": "assistant", "content": ends[0].text}
        if not calls:
            assert shown.strip() == ends[0].text
