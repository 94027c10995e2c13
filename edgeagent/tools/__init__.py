"""The tools SDK: what a plugin author imports."""

from edgeagent.tools.plugins import PluginContext, hookimpl
from edgeagent.tools.tool import (
    Tool,
    ToolKind,
    ToolResult,
    WrapHandler,
    make_tool,
    tool,
    tools_from,
)

__all__ = [
    "PluginContext",
    "Tool",
    "ToolKind",
    "ToolResult",
    "WrapHandler",
    "hookimpl",
    "make_tool",
    "tool",
    "tools_from",
]
