"""A remote tool as an edgeagent tool (edgeagent.mcp.remote), from the SDK's own types:
names, the arguments model built from a JSON schema, the manifest's schema, results;
and what happens without the SDK."""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Any

import pytest
from pydantic import ValidationError

from edgeagent.config import MCPServerConfig
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import ToolKind, ToolResult

pytest.importorskip("mcp", reason="the MCP SDK is the edgeagent[mcp] extra")

from mcp_types import (
    CallToolResult,
    ImageContent,
    TextContent,
    ToolAnnotations,
)
from mcp_types import Tool as RemoteTool

from edgeagent.mcp.client import MCPConnections
from edgeagent.mcp.remote import (
    local_name,
    make_remote_tool,
    manifest_schema,
    to_result,
)

LIGHT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "light arguments",
    "$defs": {
        "Area": {"title": "Area", "type": "string", "enum": ["kitchen", "hall"]},
    },
    "properties": {
        "entity-id": {"type": "string", "title": "Entity", "pattern": "^light\\."},
        "area": {"$ref": "#/$defs/Area"},
        "class": {"type": "string"},
        "title": {"type": "string", "description": "a property named title stays"},
        "brightness": {"type": "integer", "minimum": 0, "maximum": 255},
    },
    "required": ["entity-id"],
}


def light(**overrides: Any) -> RemoteTool:
    fields: dict[str, Any] = {
        "name": "light.turn_on",
        "description": "Turn on a light.\n\nMore words the model does not need.",
        "input_schema": LIGHT_SCHEMA,
    }
    return RemoteTool(**{**fields, **overrides})


class Sent:
    """Records what a remote tool would send to its server."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def __call__(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        self.calls.append((tool, arguments))
        return ToolResult.success("done")


def test_names_stay_when_free_and_are_prefixed_or_sanitised_otherwise() -> None:
    taken = {"weather", "led"}
    assert local_name("HassTurnOn", server="ha", taken=taken) == "HassTurnOn"
    assert local_name("weather", server="ha", taken=taken) == "ha_weather"
    assert local_name("light.turn-on", server="ha", taken=taken) == "light_turn_on"
    assert local_name("2fa", server="ha", taken=taken) == "_2fa"
    assert local_name("class", server="ha", taken=taken) == "ha_class"  # a Python keyword
    assert local_name("led", server="ha", taken=taken | {"ha_led"}) is None


def test_a_remote_tool_validates_against_its_schema_and_sends_only_what_was_given() -> None:
    sent = Sent()
    tool = make_remote_tool(
        light(annotations=ToolAnnotations(read_only_hint=False, title="Light")),
        server="ha",
        name="light_turn_on",
        timeout_s=4.0,
        call=sent,
    )
    assert (tool.kind, tool.plugin, tool.timeout_s, tool.title) == (
        ToolKind.ACT, "mcp:ha", 4.0, "Light",
    )  # fmt: skip
    assert tool.description == "Turn on a light."
    executor = ToolExecutor(ToolRegistry([tool]))

    def execute(**arguments: Any) -> ToolResult:
        return asyncio.run(executor.execute(ToolCall("light_turn_on", arguments)))

    assert execute(**{"entity-id": "light.kitchen", "area": "hall", "class": "x"}).ok
    # Left-out optional arguments are not sent; names are the server's.
    assert sent.calls == [
        ("light.turn_on", {"entity-id": "light.kitchen", "area": "hall", "class": "x"})
    ]
    refusals = {
        "brightness: must be 0-255, got 300": {"entity-id": "light.a", "brightness": 300},
        "area: must be one of 'kitchen', 'hall', got 'attic'": {
            "entity-id": "light.a", "area": "attic",
        },
        "brightness: must be an integer, got True": {"entity-id": "light.a", "brightness": True},
        "entity-id: 'switch.a' does not match": {"entity-id": "switch.a"},
        "missing required argument 'entity-id'": {"area": "hall"},
        "unexpected argument 'colour'": {"entity-id": "light.a", "colour": "red"},
    }  # fmt: skip
    for expected, arguments in refusals.items():
        result = execute(**arguments)
        assert not result.ok and expected in (result.error or ""), (arguments, result)
    assert len(sent.calls) == 1  # nothing refused was sent


def test_the_manifest_schema_has_refs_inlined_and_no_titles() -> None:
    assert manifest_schema(LIGHT_SCHEMA) == {
        "type": "object",
        "properties": {
            "entity-id": {"type": "string"},  # the pattern is checked, not shown
            "area": {"type": "string", "enum": ["kitchen", "hall"]},
            "class": {"type": "string"},
            "title": {"type": "string", "description": "a property named title stays"},
            "brightness": {"type": "integer", "minimum": 0, "maximum": 255},
        },
        "required": ["entity-id"],
    }
    recursive = {
        "type": "object",
        "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}},
        "properties": {"root": {"$ref": "#/$defs/Node"}},
    }
    shown = manifest_schema(recursive)
    assert shown["properties"]["root"]["properties"]["next"] == {"$ref": "#/$defs/Node"}
    assert "$defs" in shown  # the ref that is left still resolves
    assert manifest_schema({"type": "object"}) == {
        "type": "object", "properties": {}, "required": [],
    }  # fmt: skip


ODD_SCHEMAS: list[dict[str, Any]] = [
    LIGHT_SCHEMA,  # an unanchored pattern
    {"type": "object", "properties": {"c": {"const": "on"}, "n": {"not": {"type": "string"}}}},
    {"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}},
    {"type": "object", "properties": {"a": {"type": "string"}}, "if": {"required": ["a"]}},
    {"type": "object", "properties": {"d": {"type": "object", "additionalProperties": True}}},
    {
        "type": "object",
        "definitions": {"A": {"type": "string"}},
        "properties": {"a": {"$ref": "#/definitions/A"}},
    },
]


def test_odd_schemas_give_a_manifest_that_llama_cpps_grammar_converter_takes() -> None:
    """The forced-call grammar is built from every read tool's schema at start: one
    remote schema the converter refuses would stop the daemon."""
    pytest.importorskip("llama_cpp")
    from edgeagent.llm.grammar import build_tool_grammar

    for index, schema in enumerate(ODD_SCHEMAS):
        remote = light(input_schema=schema, annotations=ToolAnnotations(read_only_hint=True))
        tool = make_remote_tool(remote, server="ha", name=f"t{index}", timeout_s=1, call=Sent())
        assert build_tool_grammar([tool], open_marker="```json\n", close_marker="```"), schema


def test_a_schema_that_is_not_a_json_schema_of_an_object_skips_the_tool() -> None:
    for schema in ({"type": "string"}, {"type": "object", "properties": {"a": {"type": 7}}}):
        with pytest.raises(TypeError, match="input schema"):
            make_remote_tool(
                light(input_schema=schema), server="ha", name="x", timeout_s=1, call=Sent()
            )


def test_kinds_come_from_read_only_hint_and_unknown_is_act() -> None:
    def kind(annotations: ToolAnnotations | None) -> ToolKind:
        remote = light(annotations=annotations)
        return make_remote_tool(remote, server="ha", name="x", timeout_s=1, call=Sent()).kind

    assert kind(ToolAnnotations(read_only_hint=True)) is ToolKind.READ
    assert kind(ToolAnnotations(read_only_hint=False)) is ToolKind.ACT
    assert kind(ToolAnnotations(destructive_hint=False)) is ToolKind.ACT
    assert kind(None) is ToolKind.ACT


def test_results_structured_text_json_text_images_and_errors() -> None:
    def result(**fields: Any) -> ToolResult:
        return to_result(CallToolResult(**fields))

    text = TextContent(type="text", text="the light is on")
    assert result(content=[text]) == ToolResult.success("the light is on")
    as_json = TextContent(type="text", text='{"state": "on", "brightness": 40}')
    assert result(content=[as_json]) == ToolResult.success({"state": "on", "brightness": 40})
    structured = result(content=[text], structured_content={"state": "on"})
    assert structured == ToolResult.success({"state": "on"})
    assert result(content=[text], structured_content={"result": 3}) == ToolResult.success(3)
    image = ImageContent(type="image", data="aGk=", mime_type="image/png")
    assert result(content=[text, image]) == ToolResult.success(
        ["the light is on", "[image image/png, not shown]"]
    )
    assert result(content=[TextContent(type="text", text="no such light")], is_error=True) == (
        ToolResult.failure("no such light")
    )
    assert not result(content=[], is_error=True).ok


def test_without_the_sdk_every_server_is_unavailable_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else find_spec(name, *a)
    )
    connections = MCPConnections({"ha": MCPServerConfig(url="http://127.0.0.1:9/mcp")})
    connections.start()
    assert connections.tools(taken=()) == []
    status = connections.status()["ha"]
    assert isinstance(status, dict) and status["state"] == "unavailable"
    assert "pip install 'edgeagent[mcp]'" in str(status["error"])
    connections.close()


def test_a_server_config_needs_exactly_one_transport() -> None:
    with pytest.raises(ValidationError, match="exactly one of url"):
        MCPServerConfig()
    with pytest.raises(ValidationError, match="exactly one of url"):
        MCPServerConfig(url="http://h/mcp", command=["x"])
