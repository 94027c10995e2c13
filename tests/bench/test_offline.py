"""The benchmark runs the shipped tool set, offline, and variants fail loudly on typos."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _offline import (
    SHIPPED_CONFIG,
    OfflineTools,
    UnknownOverrideError,
    flip,
    merge_overrides,
    offline_tools,
)

from edgeagent.compose import build_executor
from edgeagent.config_file import load_config
from edgeagent.tools.executor import ToolCall


@pytest.fixture(scope="module")
def offline(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OfflineTools]:
    with offline_tools(tmp_path_factory.mktemp("bench")) as tools:
        yield tools


def run(offline: OfflineTools, name: str, **arguments: object) -> object:
    executor = build_executor(offline.config, offline.tools.registry)
    result = asyncio.run(executor.execute(ToolCall(name, arguments), frontend="bench"))
    assert result.ok, result.error
    return result.result


def test_the_shipped_tools_with_the_shipped_wrappers(offline: OfflineTools) -> None:
    names = set(offline.tools.registry.names())
    assert {"led", "led_state", "servo", "servo_state", "weather", "shell", "math"} <= names
    assert {"df", "ls", "grep", "glob"} <= names  # config/tools.d
    shipped = load_config(SHIPPED_CONFIG, env={})
    assert offline.config.tools == shipped.tools
    assert offline.config.agent == shipped.agent
    assert offline.config.llm == shipped.llm


def test_only_what_must_be_offline_changes(offline: OfflineTools) -> None:
    plugins = offline.config.plugins
    assert plugins["led"]["backend"] == plugins["servo"]["backend"] == "mock"
    assert plugins["weather"]["forecast_url"].startswith("http://127.0.0.1:")
    assert plugins["shell"]["roots"] == [str(offline.shell_root)]


def test_the_weather_forecast_starts_today(offline: OfflineTools) -> None:
    result = run(offline, "weather", location="Berlin")
    assert isinstance(result, dict)
    assert result["date"] == dt.date.today().isoformat()
    assert "berlin" in result["place"].lower()


def test_the_shell_sees_the_fixture_files(offline: OfflineTools) -> None:
    listing = run(offline, "ls", arguments=["."])
    assert isinstance(listing, dict)
    for name in ("notes.txt", "todo.md", "data.csv", "logs"):
        assert name in listing["output"]
    found = run(offline, "grep", arguments=["servo", "."])
    assert isinstance(found, dict) and "notes.txt" in found["output"]


def test_a_variant_flips_a_shipped_value(tmp_path: Path) -> None:
    shipped = load_config(SHIPPED_CONFIG, env={}).llm.llamacpp.grammar
    with offline_tools(tmp_path, {"llm": {"llamacpp": {"grammar": flip}}}) as tools:
        assert tools.config.llm.llamacpp.grammar is (not shipped)


def test_an_override_of_a_missing_key_fails_loudly(tmp_path: Path) -> None:
    typo = {"agent": {"call_fromat": "xml"}}
    with pytest.raises(UnknownOverrideError, match=r"'agent\.call_fromat' names a key"):
        offline_tools(tmp_path, typo).__enter__()
    with pytest.raises(RuntimeError, match=r"plugins\.led\.cuont"):
        offline_tools(tmp_path, {"plugins": {"led": {"cuont": 3}}}).__enter__()


def test_merge_keeps_the_rest_and_plugin_tables_accept_new_keys() -> None:
    data: dict[str, Any] = {"a": {"b": 1, "c": 2}, "plugins": {"led": {"count": 8}}}
    merged = merge_overrides(data, {"a": {"b": 5}, "plugins": {"led": {"x": 1}}}, strict=True)
    assert merged == {"a": {"b": 5, "c": 2}, "plugins": {"led": {"count": 8, "x": 1}}}
    assert data["a"]["b"] == 1  # not changed in place
    with pytest.raises(UnknownOverrideError):
        merge_overrides(data, {"plugins": {"lamp": {"x": 1}}}, strict=True)
