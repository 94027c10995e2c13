"""compose.build_runtime: the one assembly of model, tools, executor and agent that the
daemon, ``edgeagent chat`` and the accuracy benchmark enter, and what its exit does."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from edgeagent import compose
from edgeagent.agent.events import FinalAnswer, ToolResultEvent
from edgeagent.compose import ToolSet, build_runtime
from edgeagent.config import Config
from edgeagent.errors import ConfigError
from edgeagent.llm.base import LLM, InProcessLLM
from edgeagent.llm.scripted import ScriptedEngine
from edgeagent.tools import tool, tools_from
from edgeagent.tools.plugins import PluginLoadReport
from edgeagent.tools.registry import ToolRegistry

CALL = '<tool_call>{"name": "lamp", "arguments": {"on": true}}</tool_call>'


class Lamp:
    """A device that records what it was told, and whether it went dark at exit."""

    def __init__(self) -> None:
        self.lit: list[bool] = []
        self.dark = False

    @tool(kind="act")
    def lamp(self, on: bool) -> str:
        """Switch the lamp."""
        self.lit.append(on)
        return "lamp on" if on else "lamp off"

    def close(self) -> None:
        self.dark = True


class StuckServo:
    """A device whose safe state never finishes (its bus hangs)."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def close(self) -> None:
        self.release.wait(30)


def scripted_config(directory: Path, **daemon: float) -> Config:
    script = {"rules": [{"match": "^switch it on", "reply": CALL}], "default": "The lamp is on."}
    (directory / "script.json").write_text(json.dumps(script))
    return Config.model_validate(
        {
            "llm": {"backend": "scripted", "script": str(directory / "script.json")},
            "agent": {"call_format": "json", "primer": False, "check_target": False},
            "daemon": daemon,
        }
    )


@pytest.fixture
def devices(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Lamp, StuckServo]]:
    """build_tools as the runtime calls it, loading a lamp and a stuck servo."""
    lamp, servo = Lamp(), StuckServo()

    def build_tools(config: Config) -> ToolSet:
        registry = ToolRegistry(tools_from(lamp))
        return ToolSet(registry, PluginLoadReport(), closers=[lamp.close, servo.close])

    monkeypatch.setattr(compose, "build_tools", build_tools)
    yield lamp, servo
    servo.release.set()


def test_the_model_is_up_before_the_first_turn_and_everything_is_closed_at_exit(
    tmp_path: Path, devices: tuple[Lamp, StuckServo], caplog: pytest.LogCaptureFixture
) -> None:
    lamp, _ = devices
    config = scripted_config(tmp_path, safe_state_timeout_s=0.3)

    async def main() -> tuple[int | None, bool, float]:
        async with build_runtime(config) as runtime:
            pid = runtime.llm.pid  # started by the time the runtime is handed out
            assert pid is not None and runtime.llm.alive
            conversation = runtime.agent.new_conversation()
            events = [
                e
                async for e in runtime.agent.run(
                    "switch it on", conversation=conversation, frontend="test"
                )
            ]
            assert any(isinstance(e, ToolResultEvent) and e.ok for e in events)
            assert isinstance(events[-1], FinalAnswer)
            llm = runtime.llm
            started = time.monotonic()
        return pid, llm.alive, time.monotonic() - started

    with caplog.at_level(logging.ERROR, logger="edgeagent.compose"):
        pid, alive, took = asyncio.run(main())
    assert lamp.lit == [True] and lamp.dark  # the lamp went dark at exit
    # The stuck servo was named and left behind within [daemon] safe_state_timeout_s.
    assert "safe state: StuckServo did not finish within 0.3 s" in caplog.text
    assert "[daemon] safe_state_timeout_s" in caplog.text
    assert took < 0.3 + 2.0
    assert not alive and not Path(f"/proc/{pid}").exists()  # the model worker is gone


def test_safe_state_can_be_turned_off_for_the_daemon(
    tmp_path: Path, devices: tuple[Lamp, StuckServo]
) -> None:
    lamp, _ = devices

    async def main() -> None:
        async with build_runtime(scripted_config(tmp_path), safe_state=False):
            pass

    asyncio.run(main())
    assert not lamp.dark  # [daemon] safe_state_on_exit = false leaves the devices as they are


def test_tools_that_fail_to_load_release_the_model_that_was_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, LLM] = {}
    build_llm = compose.build_llm

    def recording_build_llm(config: Config, *, in_process: bool = False) -> LLM:
        seen["llm"] = llm = build_llm(config, in_process=in_process)
        return llm

    def broken_tools(config: Config) -> ToolSet:
        raise ConfigError("plugins.lamp.pin: not a pin")

    monkeypatch.setattr(compose, "build_llm", recording_build_llm)
    monkeypatch.setattr(compose, "build_tools", broken_tools)

    async def main() -> None:
        with pytest.raises(ConfigError, match="not a pin"):
            async with build_runtime(scripted_config(tmp_path)):
                pass

    asyncio.run(main())
    llm = seen["llm"]
    assert not llm.alive and llm.pid is None  # no model worker is left behind


def test_a_caller_keeps_the_model_and_tools_it_passes_in(tmp_path: Path) -> None:
    """The accuracy benchmark keeps one model and one tool set across runtimes."""
    lamp = Lamp()
    tools = ToolSet(ToolRegistry(tools_from(lamp)), PluginLoadReport(), closers=[lamp.close])
    engine = ScriptedEngine([], default="ok")
    llm = InProcessLLM(engine)
    config = scripted_config(tmp_path)

    async def main() -> None:
        for _ in range(2):
            async with build_runtime(config, tools=tools, llm=llm) as runtime:
                assert runtime.tools is tools and runtime.llm is llm
                conversation = runtime.agent.new_conversation()
                async for _event in runtime.agent.run(
                    "hi", conversation=conversation, frontend="t"
                ):
                    pass

    asyncio.run(main())
    assert engine.generations == 2 and not lamp.dark and tools.closers == [lamp.close]
