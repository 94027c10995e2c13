"""The first-party plugins load through the ``edgeagent.tools`` entry points, exactly as a
third-party plugin would, when the composition root builds the tools from a default Config."""

from __future__ import annotations

import ast
import asyncio
import types
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

import pytest

from edgeagent.compose import build_executor, build_tools
from edgeagent.config import Config, ToolsConfig
from edgeagent.errors import ConfigError
from edgeagent.tools import plugins
from edgeagent.tools.executor import ToolCall

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"
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


def test_a_disabled_plugin_is_never_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    imported: list[str] = []

    def recording(ep: EntryPoint) -> types.SimpleNamespace:
        def load() -> object:
            imported.append(ep.name)
            return ep.load()

        return types.SimpleNamespace(name=ep.name, value=ep.value, dist=ep.dist, load=load)

    installed = [recording(ep) for ep in plugins.discover()]
    monkeypatch.setattr(plugins, "discover", lambda group="": installed)
    # Its table may stay: the plugin is switched off, not unknown.
    config = Config(
        plugins={"led": {"backend": "real"}},
        tools=ToolsConfig(disabled_plugins=["led", "servo"], wrapped_dir=None),
    )
    toolset = build_tools(config)
    assert toolset.report.disabled == ["led", "servo"]
    assert "led" not in imported and "servo" not in imported and "math" in imported
    assert not {"led", "led_state", "servo", "servo_state"} & set(toolset.registry.names())
    assert "math" in toolset.registry


def test_a_misspelt_disabled_plugin_is_an_error_naming_it() -> None:
    config = Config(tools=ToolsConfig(disabled_plugins=["leds"], wrapped_dir=None))
    with pytest.raises(
        ConfigError, match=r"tools.disabled_plugins names 'leds' \(did you mean 'led'\?\)"
    ):
        build_tools(config)


def test_first_party_plugins_import_only_the_public_surface() -> None:
    """What a third party can copy: of edgeagent, a plugin imports edgeagent.plugin only
    (and its tests edgeagent.testing)."""
    internal: list[str] = []
    for path in sorted(PLUGINS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            internal += [
                f"{path.relative_to(PLUGINS)}: {name}"
                for name in names
                if name.split(".")[0] == "edgeagent"
                and name not in ("edgeagent.plugin", "edgeagent.testing")
            ]
    assert internal == []


def test_weather_is_its_own_distribution() -> None:
    eps = [ep for ep in entry_points(group="edgeagent.tools") if ep.name == "weather"]
    assert {ep.value for ep in eps} == {"edgeagent_weather"}
    assert "edgeagent-weather" in {ep.dist.name for ep in eps if ep.dist is not None}


def fake_entry_point(name: str, value: str, module: object, dist: str) -> types.SimpleNamespace:
    return types.SimpleNamespace(
        name=name, value=value, load=lambda: module, dist=types.SimpleNamespace(name=dist)
    )


def test_one_plugin_registered_by_two_distributions(monkeypatch: pytest.MonkeyPatch) -> None:
    import edgeagent_math

    config = Config(tools=ToolsConfig(wrapped_dir=None))
    # The same module twice (an old checkout's metadata beside the plugin's own): once.
    same = [
        fake_entry_point("math", "edgeagent_math", edgeagent_math, "edgeagent"),
        fake_entry_point("math", "edgeagent_math", edgeagent_math, "edgeagent-math"),
    ]
    monkeypatch.setattr(plugins, "discover", lambda group="": same)
    toolset = build_tools(config)
    assert toolset.report.loaded == ["math"] and toolset.report.duplicates == []
    # Two different modules under one name: neither wins silently.
    clash = [same[0], fake_entry_point("math", "other_math", edgeagent_math, "other-math")]
    monkeypatch.setattr(plugins, "discover", lambda group="": clash)
    toolset = build_tools(config)
    assert "math" not in toolset.registry
    assert toolset.report.failed["math"] == (
        "PluginError: two installed plugins are named 'math' (edgeagent_math from edgeagent, "
        "other_math from other-math); uninstall one"
    )
