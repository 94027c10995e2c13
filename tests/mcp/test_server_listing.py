"""What the MCP server offers, from the registry it is given (in process, no transport)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from dataclasses import replace

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'edgeagent[mcp]')")

from edgeagent.agent.events import Event
from edgeagent.errors import DuplicateToolError
from edgeagent.frontends.base import Request, ToolRequest
from edgeagent.mcp.remote import plugin_name
from edgeagent.mcp.server import ToolServer
from edgeagent.tools.policy import CallPolicy
from edgeagent.tools.tool import Tool, make_tool, tool


@tool(kind="act", idempotent=True)
def lamp(on: bool) -> dict[str, bool]:
    """Switch the lamp."""
    return {"on": on}


@tool
def clock() -> str:
    """Read the time."""
    return "12:00"


class NeverCalled:
    """A backend for tests that only list: any call is a test failure."""

    def submit(self, request: Request | ToolRequest) -> AsyncGenerator[Event, None]:
        raise AssertionError(f"unexpected call {request!r}")


def server(*tools: Tool, policy: CallPolicy | None = None) -> ToolServer:
    return ToolServer(
        tools=tools,
        policy=policy or CallPolicy.from_config(allow={}, deny={}, confirm_act=()),
        backend=NeverCalled(),
        queue_wait_s=1.0,
    )


def test_tools_from_other_mcp_servers_are_not_served_again() -> None:
    """Home Assistant, a server of edgeagent, would get its own tools back."""
    remote = replace(make_tool(clock), name="homeassistant_clock", plugin=plugin_name("ha"))
    offered = server(make_tool(lamp, plugin="lamps"), remote)
    assert [t.name for t in offered.list_tools()] == ["lamp", "ask"]
    result = asyncio.run(offered.call("homeassistant_clock", {}))
    assert result.is_error


def test_what_the_policy_denies_to_mcp_is_not_listed() -> None:
    policy = CallPolicy.from_config(allow={}, deny={"mcp": ["lamps"]}, confirm_act=())
    tools = make_tool(lamp, plugin="lamps"), make_tool(clock, plugin="time")
    offered = server(*tools, policy=policy)
    assert [t.name for t in offered.list_tools()] == ["clock", "ask"]


def test_hints_come_from_the_kind_and_idempotent() -> None:
    listed = {t.name: t for t in server(make_tool(lamp), make_tool(clock)).list_tools()}
    assert listed["lamp"].annotations is not None and listed["clock"].annotations is not None
    assert listed["lamp"].annotations.model_dump(exclude_none=True) == {
        "read_only_hint": False, "destructive_hint": False, "idempotent_hint": True,
    }  # fmt: skip
    assert listed["clock"].annotations.model_dump(exclude_none=True) == {"read_only_hint": True}


def test_a_plugin_tool_named_ask_is_refused_naming_it() -> None:
    ask = replace(make_tool(clock), name="ask", plugin="butler")
    with pytest.raises(DuplicateToolError, match="plugin 'butler' registers one too"):
        server(ask)
