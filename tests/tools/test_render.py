"""Manifest formats and the system prompt, on tools made from typed functions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import pytest
from pydantic import Field

from edgeagent.agent.prompt import build_system_prompt, example_call
from edgeagent.errors import ConfigError
from edgeagent.tools import Tool, make_tool, tool
from edgeagent.tools.calls import get_call_format
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.render import render_manifest


@tool(kind="act")
def led(
    color: Annotated[str, Field(description="CSS name or #rrggbb")],
    brightness: Annotated[int, Field(ge=0, le=100, description="percent")] = 100,
    effect: Literal["solid", "blink"] = "solid",
) -> str:
    """Set the LED strip."""
    return color


@tool
def weather(
    location: Annotated[str, Field(max_length=100)],
    day: Annotated[int, Field(ge=0, le=6, description="0=today")] = 0,
    tags: list[str] | None = None,
) -> str:
    """Daily weather forecast for a place."""
    return location


@tool
def led_state() -> dict[str, bool]:
    """Read the LED strip."""
    return {}


TOOLS: list[Tool] = [make_tool(led), make_tool(weather), make_tool(led_state)]


def test_concise_is_one_line_per_tool() -> None:
    assert render_manifest(TOOLS, "concise") == (
        "Tools:\n"
        "led(color: str, brightness?: int 0-100, effect?: solid|blink) - Set the LED strip.\n"
        "weather(location: str, day?: int 0-6, tags?: list[str]) - "
        "Daily weather forecast for a place.\n"
        "led_state() - Read the LED strip."
    )


def test_concise_can_include_parameter_descriptions() -> None:
    assert render_manifest(TOOLS, "concise", param_descriptions=True).splitlines()[1] == (
        "led(color: str (CSS name or #rrggbb), brightness?: int 0-100 (percent), "
        "effect?: solid|blink) - Set the LED strip."
    )


def test_concise_without_parameter_descriptions_or_header() -> None:
    text = render_manifest(TOOLS[:1], "concise", header=False, param_descriptions=False)
    assert (
        text == "led(color: str, brightness?: int 0-100, effect?: solid|blink) - Set the LED strip."
    )


def test_verbose_lists_every_parameter_with_its_facts() -> None:
    text = render_manifest(TOOLS, "verbose")
    assert isinstance(text, str)
    assert text.startswith(
        "Available tools:\n\nled (acts on devices): Set the LED strip.\n  Parameters:\n"
    )
    assert "  - color (string, required): CSS name or #rrggbb" in text
    assert "  - brightness (integer, optional, 0-100, default 100): percent" in text
    assert '  - effect (enum, optional, one of "solid", "blink", default "solid")' in text
    assert "  - location (string, required, 0-100 chars)" in text
    assert "  - tags (list[str], optional)" in text
    assert "led_state (read-only): Read the LED strip.\n  Parameters: none" in text


def test_concise_is_smaller_than_verbose() -> None:
    concise = render_manifest(TOOLS, "concise")
    verbose = render_manifest(TOOLS, "verbose")
    assert len(concise) < 0.7 * len(verbose)


def test_qwen_block_holds_one_function_json_per_line() -> None:
    text = render_manifest(TOOLS, "qwen")
    assert isinstance(text, str)
    lines = text.splitlines()
    assert lines[0] == "<tools>" and lines[-1] == "</tools>"
    entries = [json.loads(line) for line in lines[1:-1]]
    assert [e["function"]["name"] for e in entries] == ["led", "weather", "led_state"]
    assert entries[0] == {
        "type": "function",
        "function": {
            "name": "led",
            "description": "Set the LED strip.",
            "parameters": TOOLS[0].parameters,
        },
    }


def test_openai_and_anthropic_are_lists_of_dicts() -> None:
    openai = render_manifest(TOOLS, "openai")
    anthropic = render_manifest(TOOLS, "anthropic")
    assert openai[0] == {  # type: ignore[index]
        "type": "function",
        "function": {
            "name": "led",
            "description": "Set the LED strip.",
            "parameters": TOOLS[0].parameters,
        },
    }
    assert anthropic[1] == {  # type: ignore[index]
        "name": "weather",
        "description": "Daily weather forecast for a place.",
        "input_schema": TOOLS[1].parameters,
    }
    assert json.loads(json.dumps(openai)) == openai


def test_registry_manifest_delegates_to_the_renderer() -> None:
    registry = ToolRegistry(TOOLS)
    # The registry sorts by name.
    assert registry.manifest("concise", header=False).splitlines()[0].startswith("led(")
    assert [t["name"] for t in registry.manifest("anthropic")] == ["led", "led_state", "weather"]


def test_unknown_format_and_option_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"'xmlish'.*concise, verbose"):
        render_manifest(TOOLS, "xmlish")
    with pytest.raises(ConfigError, match="param_descriptions"):
        render_manifest(TOOLS, "verbose", param_descriptions=True)


@pytest.mark.parametrize("call_format", ["fence", "json", "xml"])
@pytest.mark.parametrize("fmt", ["concise", "verbose", "qwen", "openai", "anthropic"])
def test_system_prompt_holds_manifest_instructions_and_rules(fmt: str, call_format: str) -> None:
    cf = get_call_format(call_format)
    prompt = build_system_prompt(TOOLS, manifest_format=fmt, call_format=cf)
    example = example_call(TOOLS)
    assert example.name in {t.name for t in TOOLS}  # a real tool, never a placeholder
    assert cf.instructions(example) in prompt
    assert "never instructions" in prompt
    assert "plain text" in prompt
    assert "Set the LED strip." in prompt
    if fmt in ("openai", "anthropic"):
        embedded = [
            json.loads(line)
            for line in prompt.splitlines()
            if line.startswith("{") and '"arguments"' not in line  # not the example call
        ]
        assert len(embedded) == 3
    for other in {"fence", "json", "xml"} - {call_format}:
        # one call format, never two
        assert get_call_format(other).instructions(example) not in prompt


def test_system_prompt_persona_and_no_tools() -> None:
    cf = get_call_format("json")
    prompt = build_system_prompt(
        [], manifest_format="concise", call_format=cf, persona="You are Bob."
    )
    assert prompt.startswith("You are Bob.")
    assert "To use a tool" not in prompt
    assert "Tools:" not in prompt


QWEN = Path("~/.cache/edgeagent/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf").expanduser()


@pytest.mark.model
@pytest.mark.slow
def test_default_prompt_fits_the_token_target() -> None:
    llama_cpp = pytest.importorskip("llama_cpp")
    if not QWEN.is_file():
        pytest.skip(f"{QWEN} is not fetched")
    vocab = llama_cpp.Llama(model_path=str(QWEN), vocab_only=True, verbose=False)
    prompt = build_system_prompt(
        TOOLS, manifest_format="concise", call_format=get_call_format("json")
    )
    verbose = build_system_prompt(
        TOOLS, manifest_format="verbose", call_format=get_call_format("json")
    )
    count = len(vocab.tokenize(prompt.encode(), add_bos=False, special=False))
    assert count <= 600
    assert count < len(vocab.tokenize(verbose.encode(), add_bos=False, special=False))
