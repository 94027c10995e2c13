"""``edgeagent chat``: the REPL over a scripted model, as a user at the terminal sees it."""

from __future__ import annotations

import asyncio
import json
import os
import types
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from edgeagent import compose
from edgeagent.agent.loop import Agent
from edgeagent.cli import cli
from edgeagent.cli.chat import repl
from edgeagent.config import Config
from edgeagent.llm.base import InProcessLLM
from edgeagent.llm.scripted import ScriptedEngine
from edgeagent.tools import Tool, hookimpl, tool, tools_from
from edgeagent.tools import plugins as plugin_discovery
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.executor import ToolExecutor
from edgeagent.tools.policy import CallPolicy
from edgeagent.tools.registry import ToolRegistry

CALL = '<tool_call>{"name": "set_led", "arguments": {"color": "red"}}</tool_call>'


class Strip:
    def __init__(self) -> None:
        self.colors: list[str] = []

    @tool(kind="act")
    def set_led(self, color: str) -> str:
        """Set the LED colour."""
        self.colors.append(color)
        return f"LED {color}"


def make_reader(*items: str) -> Any:
    it = iter(items)

    def read() -> str:
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return read


def test_repl_runs_turns_shows_tools_and_handles_commands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    strip = Strip()
    asked: list[str] = []

    async def confirm(t: Tool, args: dict[str, Any]) -> bool:
        asked.append(t.name)
        return True

    engine = ScriptedEngine(
        [("LED red", "The LED is red."), ("(?i)red", CALL)], default="Hi.", context_window=500
    )
    agent = Agent(
        llm=InProcessLLM(engine),
        executor=ToolExecutor(
            ToolRegistry(tools_from(strip)),
            policy=CallPolicy(confirm_act=frozenset({"chat"}), confirm=confirm),
        ),
        call_format=get_call_format("json"),
        system_prompt="SYS",
    )
    read = make_reader("turn it red", "/context", "/clear", "/context", "/nope", "", "/exit", "x")
    with asyncio.Runner() as runner:
        repl(agent, read=read, run=runner.run)
    out = capsys.readouterr().out
    assert strip.colors == ["red"] and asked == ["set_led"]
    assert '-> set_led({"color": "red"})' in out
    assert "<- set_led: LED red" in out
    assert "The LED is red." in out
    assert "<tool_call>" not in out
    contexts = [line for line in out.splitlines() if line.startswith("context:")]
    assert len(contexts) == 2
    assert "/ 500 tokens" in contexts[0] and "1 turn(s) held" in contexts[0]
    assert contexts[1].startswith("context: 5 / 500") and "0 turn(s) held" in contexts[1]
    assert "conversation cleared" in out and "unknown command '/nope'" in out
    assert engine.generations == 2  # "x" after /exit was never sent


def test_chat_command_over_scripted_backend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in [v for v in os.environ if v.startswith("EDGEAGENT_")]:
        monkeypatch.delenv(var)
    if not hasattr(compose, "build_llm"):  # until the backend composer lands

        def build_llm(config: Config) -> InProcessLLM:
            assert config.llm.script is not None
            return InProcessLLM(ScriptedEngine.from_file(config.resolve(config.llm.script)))

        monkeypatch.setattr(compose, "build_llm", build_llm, raising=False)
    strip = Strip()
    module = types.ModuleType("stripplugin")

    @hookimpl
    def register_tools(register: Any, context: Any) -> None:
        register(strip.set_led)

    module.register_tools = register_tools  # type: ignore[attr-defined]
    ep = types.SimpleNamespace(name="strip", value="strip", load=lambda: module)
    monkeypatch.setattr(plugin_discovery, "discover", lambda group="": [ep])
    script = {
        "rules": [
            {"match": "LED red", "reply": "Done, red."},
            {"match": "declined", "reply": "Left it alone."},
            {"match": "(?i)red", "reply": CALL},
        ],
        "default": "Hello.",
    }
    (tmp_path / "script.json").write_text(json.dumps(script))
    (tmp_path / "tools.d").mkdir()
    config = tmp_path / "edgeagent.toml"
    config.write_text('[llm]\nbackend = "scripted"\nscript = "script.json"\n')
    result = CliRunner().invoke(
        cli,
        ["--config", str(config), "chat"],
        input="make it red\nn\nmake it red\ny\n/exit\n",
    )
    assert result.exit_code == 0, result.output
    assert strip.colors == ["red"]  # declined once, confirmed once
    assert "Left it alone." in result.output and "Done, red." in result.output
    assert result.output.count("Run set_led") == 2
