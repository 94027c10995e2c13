"""The first-party plugins load through the ``edgeagent.tools`` entry points, exactly as a
third-party plugin would, when the composition root builds the tools from a default Config."""

from __future__ import annotations

import asyncio
from importlib.metadata import entry_points

from edgeagent.compose import build_executor, build_tools
from edgeagent.config import Config
from edgeagent.tools.executor import ToolCall

FIRST_PARTY = {"weather": "edgeagent_weather", "shell": "edgeagent_shell", "math": "edgeagent_math"}


def test_entry_points_name_the_plugin_modules() -> None:
    found = {ep.name: ep.value for ep in entry_points(group="edgeagent.tools")}
    for name, module in FIRST_PARTY.items():
        assert found.get(name) == module


def test_default_config_loads_weather_shell_and_math() -> None:
    config = Config()
    tools = build_tools(config)
    try:
        for name in FIRST_PARTY:
            assert name in tools.report.loaded, tools.report.failed.get(name)
            assert tools.registry.get(name).plugin == name
        # The plugins work as loaded: math answers, shell refuses what it must.
        executor = build_executor(config, tools.registry)
        sum_ = asyncio.run(executor.execute(ToolCall("math", {"expression": "6 * 7"})))
        assert sum_.result == {"expression": "6 * 7", "result": 42}
        rm = asyncio.run(executor.execute(ToolCall("shell", {"command": "rm -rf ."})))
        assert not rm.ok and rm.error is not None and "'rm' is not allowed" in rm.error
    finally:
        tools.close()
