"""The MCP server: the registry's tools, and ``ask``, for any MCP client.

:class:`ToolServer` answers ``tools/list`` and ``tools/call`` over the SDK's low-level
server (the tools are the loaded registry's, not functions declared here). Every call
goes to a :class:`MCPBackend` under front end ``mcp``: the daemon, whose scheduler
queues it behind the agent's turns, or the scheduler of ``edgeagent mcp serve``. The
call policy, argument validation and timeouts are the executor's, as for every front
end; whatever fails comes back as a tool error (``isError``) the client's model can
read, never as a protocol error.

Home Assistant gives an MCP tool call 10 s. A device call runs in milliseconds, but it
waits for a turn of the on-device agent that is running; so a call that has not
started within ``[mcp] queue_wait_s`` is taken out of the queue and answered with an
error saying so, in time for the client to read it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncGenerator, Iterable, Mapping
from typing import Any, Protocol

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server

from edgeagent import __version__
from edgeagent.agent.events import ErrorEvent, Event, FinalAnswer, ToolResultEvent
from edgeagent.errors import DuplicateToolError, ProtocolError
from edgeagent.frontends.base import Request, ToolRequest, parse_request
from edgeagent.mcp import ASK_TOOL, FRONTEND, SERVER_NAME
from edgeagent.mcp.remote import plugin_name
from edgeagent.tools.policy import CallPolicy
from edgeagent.tools.tool import Tool, ToolKind, ToolResult

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "The tools of an edgeagent device: its hardware (LED strip, servo, ...) and helpers. "
    "Call a device tool to act at once; call `ask` to hand a request in plain words to "
    "the agent running on the device, which picks its own tools."
)
ASK_DESCRIPTION = (
    "Ask the agent running on the device, in plain words (e.g. 'make the room cosy'); "
    "it picks and calls its own tools and answers. The reply holds its answer and the "
    "calls it made."
)
ASK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "prompt": {"type": "string", "description": "the request, in plain words"},
        "session": {
            "type": "string",
            "description": "continue this conversation (a name of your choice); "
            "leave out for a one-off request",
        },
    },
    "required": ["prompt"],
    "additionalProperties": False,
}
ASK_FIELDS = ("prompt", "session")
REMOTE_PLUGIN = plugin_name("")
"""The start of the ``plugin`` of every tool from an ``[mcp.servers.<name>]``."""


class MCPBackend(Protocol):
    """What runs the server's calls: the daemon (its
    :class:`~edgeagent.frontends.base.Dispatcher`) or a :class:`~edgeagent.scheduler.Scheduler`.

    ``submit`` streams a request's events and ends in one ``FinalAnswer`` or
    ``ErrorEvent``; a :class:`ToolRequest` first yields its ``ToolCallEvent`` when it
    starts to run. Closing the stream early takes the request out of the queue.
    """

    def submit(self, request: Request | ToolRequest) -> AsyncGenerator[Event, None]: ...


def annotations_for(tool: Tool) -> types.ToolAnnotations:
    """MCP's hints from the tool's kind: a read tool changes nothing; an acting tool
    changes a device's state but destroys nothing (the first-party ones set a colour or
    an angle), idempotent where the tool says so."""
    if tool.kind is ToolKind.READ:
        return types.ToolAnnotations(read_only_hint=True)
    return types.ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=tool.idempotent
    )


def result_text(tool: Tool | None, result: Any) -> str:
    """The text a client's model reads: the tool's answer sentence where it has one
    ("The LED strip is now red."), else the result as JSON."""
    if tool is not None and tool.answer is not None:
        try:
            return tool.answer(result)
        except Exception:  # a result of a shape the template does not know
            log.debug("answer template of %s failed on %r", tool.name, result, exc_info=True)
    return json.dumps(result, ensure_ascii=False, default=str)


def _structured(value: Any) -> dict[str, Any]:
    """A result as structured content: an object (MCP before 2026-07-28 allows nothing
    else), in JSON's types."""
    data = json.loads(json.dumps(value, ensure_ascii=False, default=str))
    return data if isinstance(data, dict) else {"result": data}


def _error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


class ToolServer:
    """The tools a front end ``mcp`` may call, and ``ask``, served to MCP clients.

    ``tools`` is the registry the agent uses, less the tools it took from other MCP
    servers; a tool the call policy refuses to ``mcp`` outright (the shell, by default)
    is not listed, and a call of it is refused with the policy's reason.
    ``queue_wait_s`` bounds how long a direct call may wait for its turn in the queue.
    """

    def __init__(
        self,
        *,
        tools: Iterable[Tool],
        policy: CallPolicy,
        backend: MCPBackend,
        queue_wait_s: float,
    ) -> None:
        # Tools taken from other MCP servers are not served again: Home Assistant would
        # get its own tools back through edgeagent. `ask` may still use them.
        self.tools = {t.name: t for t in tools if not t.plugin.startswith(REMOTE_PLUGIN)}
        if ASK_TOOL in self.tools:
            raise DuplicateToolError(
                f"the MCP server adds a tool named {ASK_TOOL!r}, and plugin "
                f"{self.tools[ASK_TOOL].plugin!r} registers one too; disable one of them "
                f"([tools] disabled) or rename the plugin's"
            )
        self.policy = policy
        self.backend = backend
        self.queue_wait_s = queue_wait_s
        self.accepting = True
        """False once the owner stops accepting: calls are refused with a reason."""
        self.calls = 0
        """Calls answered (tools and ``ask``), for ``edgeagent status``."""

    # --- what clients see ------------------------------------------------------------

    def offered(self) -> list[Tool]:
        """The tools listed to clients: those the policy lets ``mcp`` call."""
        return [t for t in self.tools.values() if self.policy.verdict(t, frontend=FRONTEND).allowed]

    def list_tools(self) -> list[types.Tool]:
        listed = [
            types.Tool(
                name=t.name,
                description=t.description,
                input_schema=t.parameters,
                annotations=annotations_for(t),
            )
            for t in self.offered()
        ]
        ask = types.ToolAnnotations(
            read_only_hint=False, destructive_hint=False, idempotent_hint=False
        )
        listed.append(
            types.Tool(
                name=ASK_TOOL, description=ASK_DESCRIPTION, input_schema=ASK_SCHEMA,
                annotations=ask,
            )
        )  # fmt: skip
        return listed

    def input_schema(self, name: str) -> Mapping[str, Any] | None:
        if name == ASK_TOOL:
            return ASK_SCHEMA
        tool = self.tools.get(name)
        return tool.parameters if tool is not None else None

    async def call(self, name: str, arguments: Mapping[str, Any] | None) -> types.CallToolResult:
        """One ``tools/call``: always a result, ``is_error`` when it failed."""
        if not self.accepting:
            return _error("edgeagent is shutting down; the call was not run")
        self.calls += 1
        if name == ASK_TOOL:
            return await self._ask(dict(arguments or {}))
        if name not in self.tools:  # the executor's message would name tools not offered
            offered = ", ".join([*(t.name for t in self.offered()), ASK_TOOL])
            return _error(f"Unknown tool {name!r}. Available tools: {offered}")
        result = await self._call(ToolRequest(name, dict(arguments or {}), frontend=FRONTEND))
        if not result.ok:
            return _error(result.error or "the call failed")
        return types.CallToolResult(
            content=[types.TextContent(text=result_text(self.tools.get(name), result.result))],
            structured_content=_structured(result.result),
        )

    # --- the SDK server --------------------------------------------------------------

    def sdk_server(self) -> Server[Any]:
        """The SDK's low-level server, answering from this one."""

        async def on_list_tools(
            ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
        ) -> types.ListToolsResult:
            return types.ListToolsResult(tools=self.list_tools())

        async def on_call_tool(
            ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
        ) -> types.CallToolResult:
            return await self.call(params.name, params.arguments)

        return Server(
            SERVER_NAME,
            version=__version__,
            instructions=INSTRUCTIONS,
            on_list_tools=on_list_tools,
            on_call_tool=on_call_tool,
            get_tool_input_schema=self.input_schema,
        )

    # --- running calls ---------------------------------------------------------------

    async def _call(self, request: ToolRequest) -> ToolResult:
        """Queue the call; give up on it if it has not started within ``queue_wait_s``."""
        stream = self.backend.submit(request)
        async with contextlib.aclosing(stream):
            try:
                first = await asyncio.wait_for(anext(stream), self.queue_wait_s)
            except TimeoutError:
                return ToolResult.failure(
                    f"{request.tool} was not run: it waited {self.queue_wait_s:g} s behind "
                    f"a request the on-device agent is still answering ([mcp] queue_wait_s); "
                    f"try again in a few seconds"
                )
            except StopAsyncIteration:
                return ToolResult.failure("the call ended without a result")
            result = ToolResult.failure("the call ended without a result")
            event: Event | None = first
            while event is not None:
                if isinstance(event, ToolResultEvent):
                    result = ToolResult(event.ok, event.result, event.error)
                elif isinstance(event, ErrorEvent):
                    return ToolResult.failure(event.message)
                event = await anext(stream, None)
        return result

    async def _ask(self, arguments: dict[str, Any]) -> types.CallToolResult:
        unknown = sorted(set(arguments) - set(ASK_FIELDS))
        if unknown:
            return _error(
                f"unexpected argument(s) {', '.join(map(repr, unknown))}; {ASK_TOOL} takes "
                f"prompt (required) and session"
            )
        try:
            request = parse_request(arguments, frontend=FRONTEND)
        except ProtocolError as exc:
            return _error(str(exc))
        stream = self.backend.submit(request)
        async with contextlib.aclosing(stream):
            async for event in stream:
                if isinstance(event, ErrorEvent):
                    return _error(event.message)
                if isinstance(event, FinalAnswer):
                    return types.CallToolResult(
                        content=[types.TextContent(text=event.text)],
                        structured_content=_structured(
                            {"answer": event.text, "tool_calls": event.tool_calls}
                        ),
                    )
        return _error("the agent ended the request without an answer")
