"""The tools SDK inside edgeagent: tools, schemas, registry, executor, plugin loading.

A plugin imports :mod:`edgeagent.plugin` instead, the public surface for plugin authors;
the names below are the core's own shorthand for the same objects.
"""

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
