"""``edgeagent config check|show`` as a user runs them: exit codes and what they say."""

from __future__ import annotations

import json
import tomllib
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import CliRunner, Result

from edgeagent.cli import cli
from edgeagent.tools import hookimpl, tool
from edgeagent.tools import plugins as plugin_discovery


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No EDGEAGENT_* variable of the developer's shell leaks into these tests."""
    import os

    for var in list(os.environ):
        if var.startswith("EDGEAGENT_"):
            monkeypatch.delenv(var)


def plugin_module(name: str, register_body: Callable[[Any], None]) -> types.ModuleType:
    module = types.ModuleType(name)

    @hookimpl
    def register_tools(register: Any, context: Any) -> None:
        register_body(register)

    module.register_tools = register_tools  # type: ignore[attr-defined]
    return module


@tool
def ping(host: str) -> str:
    """Ping a host."""
    return "pong " + host


@tool(kind="act")
def lamp(on: bool) -> str:
    """Switch the lamp."""
    return "on" if on else "off"


def _ping_and_lamp(register: Any) -> None:
    register(ping)
    register(lamp)


def _broken(register: Any) -> None:
    raise RuntimeError("GPIO chip /dev/gpiochip4 not found")


@pytest.fixture
def use_plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Replace entry-point discovery with the given (name, module) plugins."""

    def install(*mods: tuple[str, types.ModuleType]) -> None:
        eps = [types.SimpleNamespace(name=n, value=n, load=lambda m=m: m) for n, m in mods]
        monkeypatch.setattr(plugin_discovery, "discover", lambda group="": eps)

    yield install


def write_config(tmp_path: Path, body: str) -> Path:
    (tmp_path / "tools.d").mkdir(exist_ok=True)
    path = tmp_path / "edgeagent.toml"
    path.write_text(body)
    return path


def invoke(path: Path | None, *args: str, env: dict[str, str] | None = None) -> Result:
    argv = (["--config", str(path)] if path else []) + list(args)
    return CliRunner().invoke(cli, argv, env=env)


def test_out_of_range_value_names_file_key_value_and_limit(tmp_path: Path) -> None:
    path = write_config(tmp_path, "[mqtt]\nport = 70000\n")
    result = invoke(path, "config", "check")
    assert result.exit_code == 2
    assert str(path) in result.output
    assert "mqtt.port = 70000" in result.output
    assert "less than or equal to 65535" in result.output


def test_bad_choice_lists_allowed_values(tmp_path: Path) -> None:
    path = write_config(tmp_path, '[llm]\nbackend = "gpu"\n')
    result = invoke(path, "config", "check")
    assert result.exit_code == 2
    assert "llm.backend = 'gpu'" in result.output
    assert "'scripted'" in result.output and "'llamacpp'" in result.output


def test_unknown_key_is_reported(tmp_path: Path) -> None:
    path = write_config(tmp_path, "[agent]\nmax_step = 3\n")
    result = invoke(path, "config", "show")
    assert result.exit_code == 2
    assert "agent.max_step" in result.output and "unknown key" in result.output


def test_invalid_env_override_names_the_variable(tmp_path: Path) -> None:
    path = write_config(tmp_path, "[mqtt]\nport = 1883\n")
    result = invoke(path, "config", "check", env={"EDGEAGENT_MQTT__PORT": "99999"})
    assert result.exit_code == 2
    assert "mqtt.port = 99999 (from EDGEAGENT_MQTT__PORT)" in result.output


def test_env_override_wins_over_the_file(tmp_path: Path) -> None:
    path = write_config(tmp_path, "[mqtt]\nport = 1883\nhost = 'broker'\n")
    result = invoke(path, "config", "show", "--json", env={"EDGEAGENT_MQTT__PORT": "1884"})
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["mqtt"]["port"] == 1884
    assert shown["mqtt"]["host"] == "broker"


def test_check_reports_file_overrides_plugins_and_tools(
    tmp_path: Path, use_plugins: Callable[..., None]
) -> None:
    use_plugins(("net", plugin_module("net", lambda r: r(ping))))
    path = write_config(tmp_path, "[agent]\nmax_steps = 3\n")
    result = invoke(path, "config", "check", env={"EDGEAGENT_AGENT__MAX_STEPS": "4"})
    assert result.exit_code == 0, result.output
    assert f"config: {path.resolve()}" in result.output
    assert "override: EDGEAGENT_AGENT__MAX_STEPS" in result.output
    assert "plugins: net" in result.output
    assert "tools: ping" in result.output
    assert result.output.rstrip().endswith("ok")


def test_check_fails_on_broken_plugin_and_duplicate_tool(
    tmp_path: Path, use_plugins: Callable[..., None]
) -> None:
    use_plugins(
        ("first", plugin_module("first", lambda r: r(ping))),
        ("second", plugin_module("second", _ping_and_lamp)),
        ("gpio", plugin_module("gpio", _broken)),
    )
    path = write_config(tmp_path, "")
    result = invoke(path, "config", "check")
    assert result.exit_code == 2
    assert "plugin 'gpio' failed to load" in result.output
    assert "/dev/gpiochip4" in result.output
    assert "'ping' is registered by plugin 'first' and again by plugin 'second'" in result.output
    assert "tools: lamp, ping" in result.output  # the rest still load


def test_check_fails_on_enabled_tool_that_is_not_loaded(
    tmp_path: Path, use_plugins: Callable[..., None]
) -> None:
    use_plugins(("net", plugin_module("net", lambda r: r(ping))))
    path = write_config(tmp_path, '[tools]\nenabled = ["ping", "pnig"]\n')
    result = invoke(path, "config", "check")
    assert result.exit_code == 2
    assert "not loaded: pnig" in result.output


def test_check_validates_the_script_of_the_scripted_backend(
    tmp_path: Path, use_plugins: Callable[..., None]
) -> None:
    use_plugins()
    (tmp_path / "script.json").write_text('{"rules": [{"match": "(", "reply": "x"}]}')
    path = write_config(tmp_path, '[llm]\nbackend = "scripted"\nscript = "script.json"\n')
    result = invoke(path, "config", "check")
    assert result.exit_code == 2
    assert "rules[0].match = '('" in result.output


def test_show_toml_round_trips_and_masks_secrets(tmp_path: Path) -> None:
    path = write_config(
        tmp_path,
        '[mqtt]\npassword = "hunter2"\n[plugins.led]\npin = 18\n'
        '[tools.policy.allow]\nmqtt = ["led"]\n',
    )
    result = invoke(path, "config", "show")
    assert result.exit_code == 0, result.output
    assert "hunter2" not in result.output
    shown = tomllib.loads(result.output)
    assert shown["mqtt"]["password"] == "***"
    assert shown["plugins"]["led"]["pin"] == 18
    assert shown["tools"]["policy"]["allow"] == {"mqtt": ["led"]}
    as_json = json.loads(invoke(path, "config", "show", "--json", "--secrets").output)
    assert as_json["mqtt"]["password"] == "hunter2"
    assert shown["llm"]["max_tokens"] == as_json["llm"]["max_tokens"]


def test_missing_config_file_exits_2_with_advice(tmp_path: Path) -> None:
    result = invoke(tmp_path / "absent.toml", "config", "check")
    assert result.exit_code == 2
    assert "does not exist" in result.output and "absent.toml" in result.output


def test_check_refuses_a_plugin_table_that_no_plugin_reads(
    tmp_path: Path, use_plugins: Callable[..., None]
) -> None:
    use_plugins(("net", plugin_module("net", lambda r: r(ping))))
    path = write_config(tmp_path, "[plugins.nett]\ntimeout_s = 1\n")
    result = invoke(path, "config", "check")
    assert result.exit_code == 2
    assert "[plugins.nett] (did you mean [plugins.net]?)" in result.output
    assert f"in {path.resolve()}; installed plugins: net." in result.output


def test_non_utf8_file_and_directory_exit_2_naming_the_file(tmp_path: Path) -> None:
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b"# caf\xe9\n")
    result = invoke(latin, "config", "check")
    assert result.exit_code == 2
    assert f"{latin} is not UTF-8 text (byte 0xe9 on line 1)" in result.output
    result = invoke(None, "config", "show", env={"EDGEAGENT_CONFIG": str(tmp_path)})
    assert result.exit_code == 2
    assert f"{tmp_path} is a directory" in result.output


# --- config check and tools list open no device ------------------------------------

@pytest.fixture
def hardware(
    monkeypatch: pytest.MonkeyPatch, fake_library: Callable[[str], ModuleType]
) -> Iterator[tuple[Any, Any]]:
    """The real LED and servo drivers on fakes that record what they open: rpi_ws281x's
    strips, and gpiozero's mock pins as its default pin factory."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    ws281x = fake_library("rpi_ws281x")
    pins = MockFactory(pin_class=MockPWMPin)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    monkeypatch.setattr(Device, "pin_factory", pins)
    yield ws281x, pins
    pins.close()


REAL_DEVICES = (
    '[plugins.led]\nbackend = "real"\ndriver = "ws281x"\n'
    '[plugins.servo]\nbackend = "real"\nsettle_s = 0\n'
)


def test_check_and_tools_list_open_no_device(tmp_path: Path, hardware: tuple[Any, Any]) -> None:
    ws281x, pins = hardware
    path = write_config(tmp_path, REAL_DEVICES)
    checked = invoke(path, "config", "check")
    assert checked.exit_code == 0, checked.output
    assert "devices (opened by their first tool call):" in checked.output
    assert "  led: LED strip: backend 'real', 8 pixels through rpi_ws281x on GPIO18" in (
        checked.output
    )
    assert "  servo: servo: backend 'real', GPIO17 through gpiozero" in checked.output
    listed = invoke(path, "tools", "list")
    assert listed.exit_code == 0, listed.output
    assert "led_state" in listed.output and "servo_state" in listed.output
    assert ws281x.strips == [] and pins.pins == {}  # nothing a running daemon holds
    # The same fakes do see a device that is opened: a tool call opens its own one.
    assert invoke(path, "tools", "call", "led", '{"color": "red"}').exit_code == 0
    assert len(ws281x.strips) == 1 and pins.pins == {}
    assert invoke(path, "tools", "call", "servo", '{"angle": 10}').exit_code == 0
    assert len(pins.pins) == 1


def test_check_says_when_a_device_runs_on_its_default_simulator(
    tmp_path: Path,
) -> None:
    path = write_config(tmp_path, '[plugins.servo]\nbackend = "mock"\n')
    result = invoke(path, "config", "check")
    assert result.exit_code == 0, result.output
    assert (
        "  led: LED strip: backend 'sim', the simulator at http://127.0.0.1:8765 (run "
        "`edgeagent sim`) (the default; set [plugins.led] backend = 'real' to drive the "
        "hardware)"
    ) in result.output
    assert "  servo: servo: backend 'mock', in memory (nothing moves)\n" in result.output


def test_check_lists_disabled_plugins_and_refuses_unknown_ones(tmp_path: Path) -> None:
    path = write_config(tmp_path, '[tools]\ndisabled_plugins = ["led", "servo"]\n')
    result = invoke(path, "config", "check")
    assert result.exit_code == 0, result.output
    assert "plugins disabled ([tools] disabled_plugins): led, servo" in result.output
    assert "led_state" not in result.output and "LED strip" not in result.output
    path = write_config(tmp_path, '[tools]\ndisabled_plugins = ["sevro"]\n')
    result = invoke(path, "config", "check")
    assert result.exit_code == 2
    assert "tools.disabled_plugins" in result.output
    assert "names 'sevro' (did you mean 'servo'?)" in result.output


def test_check_names_mqtt_files_that_do_not_exist_relative_to_the_config(
    tmp_path: Path, use_plugins: Callable[..., None]
) -> None:
    use_plugins()
    body = (
        '[mqtt]\nenabled = true\nusername = "edge"\npassword_file = "secret"\n'
        '[mqtt.tls]\nenabled = true\nca_certs = "ca.pem"\n'
    )
    path = write_config(tmp_path, body)
    result = invoke(path, "config", "check")
    assert result.exit_code == 2, result.output
    assert f"mqtt.tls.ca_certs = {tmp_path / 'ca.pem'}: no such file" in result.output
    assert f"mqtt.password_file = {tmp_path / 'secret'}: no such file" in result.output
    # The same names, present next to the config file (not in the working directory).
    (tmp_path / "ca.pem").write_text("pem")
    (tmp_path / "secret").write_text("pw\n")
    result = invoke(path, "config", "check")
    assert result.exit_code == 0, result.output
