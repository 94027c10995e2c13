"""``edgeagent tools ...`` and ``edgeagent calls parse`` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from edgeagent.cli import cli

SMOLLM = Path("~/.cache/edgeagent/models/smollm2-135m-instruct-q4_1.gguf").expanduser()


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    """A config with every hardware plugin on its mock backend and no model file."""
    path = tmp_path / "edgeagent.toml"
    path.write_text(
        "[llm]\n"
        f'model = "{tmp_path / "missing.gguf"}"\n'
        '[plugins.led]\nbackend = "mock"\n'
        '[plugins.servo]\nbackend = "mock"\n',
        encoding="utf-8",
    )
    return path


def invoke(config: Path, *args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(cli, ["--config", str(config), *args], input=stdin)


def test_calls_parse_reads_a_fenced_call_from_stdin(config_file: Path) -> None:
    output = 'Sure!\n```json\n{"name": "led", "arguments": {"color": "red"}}\n```\nDone.'
    result = invoke(config_file, "calls", "parse", stdin=output)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "calls": [{"name": "led", "arguments": {"color": "red"}}],
        "text": "Sure!\n\nDone.",
    }


def test_calls_parse_xml_and_errors(config_file: Path) -> None:
    output = (
        "<tool_call><function=servo><parameter=move>-10</parameter></function></tool_call>"
        '{"name": "led", "arguments": [1]}'
    )
    result = invoke(config_file, "calls", "parse", "--format", "xml", stdin=output)
    assert result.exit_code == 0, result.output
    parsed = json.loads(result.stdout)
    assert parsed["calls"] == [{"name": "servo", "arguments": {"move": -10}}]
    assert parsed["text"] == ""
    assert len(parsed["errors"]) == 1 and "JSON object" in parsed["errors"][0]


def test_calls_parse_plain_text_has_no_errors_key(config_file: Path) -> None:
    result = invoke(config_file, "calls", "parse", stdin="It is 21 °C in Paris.")
    assert json.loads(result.stdout) == {"calls": [], "text": "It is 21 °C in Paris."}


def test_tools_list_shows_every_first_party_tool(config_file: Path) -> None:
    result = invoke(config_file, "tools", "list")
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split()[1:3] for line in result.stdout.splitlines()}
    assert rows["math"] == ["read", "math"]
    assert rows["led"] == ["act", "led"]
    assert {"servo", "weather", "shell"} <= set(rows)


def test_tools_show_prints_the_schema(config_file: Path) -> None:
    result = invoke(config_file, "tools", "show", "math")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert shown["name"] == "math" and shown["kind"] == "read"
    assert shown["parameters"]["required"] == ["expression"]
    assert shown["parameters"]["properties"]["expression"]["type"] == "string"


def test_tools_show_unknown_names_the_available_tools(config_file: Path) -> None:
    result = invoke(config_file, "tools", "show", "lamp")
    assert result.exit_code == 2
    assert "unknown tool 'lamp'" in result.stderr
    assert "led" in result.stderr and "math" in result.stderr


def test_tools_manifest_formats(config_file: Path) -> None:
    concise = invoke(config_file, "tools", "manifest")
    assert concise.exit_code == 0, concise.output
    assert concise.stdout.startswith("Tools:\n")
    assert "math(expression: str" in concise.stdout
    openai = invoke(config_file, "tools", "manifest", "--format", "openai")
    names = {entry["function"]["name"] for entry in json.loads(openai.stdout)}
    assert {"led", "servo", "weather", "shell", "math"} <= names


def test_tools_manifest_counts_an_estimate_without_a_model(config_file: Path) -> None:
    result = invoke(config_file, "tools", "manifest", "--count-tokens")
    assert result.exit_code == 0, result.output
    manifest_text = result.stdout.split("\n\nmanifest: ")[0] + "\n"
    counted = result.stdout.split("manifest: ")[1].split()[0]
    assert "estimate: characters/4" in result.stdout
    assert int(counted) == (len(manifest_text.rstrip("\n")) + 3) // 4


@pytest.mark.model
def test_tools_manifest_counts_model_tokens(tmp_path: Path) -> None:
    if not SMOLLM.is_file():
        pytest.skip(f"{SMOLLM} is not fetched")
    config = tmp_path / "edgeagent.toml"
    config.write_text(
        f'[llm]\nmodel = "smollm2"\nmodels_dir = "{SMOLLM.parent}"\n'
        '[plugins.led]\nbackend = "mock"\n[plugins.servo]\nbackend = "mock"\n',
        encoding="utf-8",
    )
    result = invoke(config, "tools", "manifest", "--count-tokens")
    assert result.exit_code == 0, result.output
    assert "tokens of smollm2-135m-instruct-q4_1.gguf" in result.stdout
    assert "estimate" not in result.stdout


def test_tools_call_runs_the_tool(config_file: Path) -> None:
    result = invoke(config_file, "tools", "call", "math", '{"expression": "2+3*4"}')
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["ok"] is True
    assert json.loads(result.stdout)["result"]["result"] == 14


def test_tools_call_acting_tool_on_mock_backend(config_file: Path) -> None:
    result = invoke(config_file, "tools", "call", "led", '{"color": "red"}')
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["ok"] is True


@pytest.mark.parametrize(
    ("name", "arguments", "error"),
    [
        ("led", '{"brightness": 150}', "brightness must be 0-100, got 150"),
        ("lamp", "{}", "Unknown tool 'lamp'"),
    ],
)
def test_tools_call_tool_errors_exit_1(
    config_file: Path, name: str, arguments: str, error: str
) -> None:
    result = invoke(config_file, "tools", "call", name, arguments)
    assert result.exit_code == 1, result.output
    out = json.loads(result.stdout)
    assert out["ok"] is False
    assert error in out["error"]


@pytest.mark.parametrize("arguments", ["{bad", '["red"]', "red"])
def test_tools_call_bad_json_exits_2(config_file: Path, arguments: str) -> None:
    result = invoke(config_file, "tools", "call", "led", arguments)
    assert result.exit_code == 2
    assert "ARGUMENTS" in result.stderr
    assert result.stdout == ""
