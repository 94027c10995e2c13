"""Everything a tool plugin imports, and nothing else: the public surface for plugin authors.

A plugin is a module named by an entry point in the ``edgeagent.tools`` group of its own
distribution. It defines one hook; edgeagent calls it with a ``register`` callback and
the plugin's :class:`PluginContext`:

.. code-block:: python

    from typing import Annotated
    from pydantic import BaseModel, Field
    from edgeagent.plugin import PluginContext, Register, hookimpl, tool

    class Options(BaseModel):          # the [plugins.<name>] table
        greeting: str = "hello"

    @hookimpl
    def register_tools(register: Register, context: PluginContext) -> None:
        options = context.options_as(Options)

        @tool(kind="read")
        def greet(name: Annotated[str, Field(description="who to greet")]) -> str:
            \"\"\"Greet someone.\"\"\"
            return f"{options.greeting} {name}"

        register(greet)

A plugin that drives hardware lists its backends in a :class:`Backends` table and asks
``context.device(BACKENDS, options)`` for a :class:`LazyDevice`: nothing opens until the
first tool call. :mod:`edgeagent.testing` holds the contract suite to run against every
backend. ``plugins/weather`` in the source tree is the worked example of a plugin in its
own distribution; ``plugins/edgeagent_led`` and ``plugins/edgeagent_servo`` drive hardware.

Names not listed here are edgeagent's internals and may change in any release.
"""

from __future__ import annotations

from edgeagent.errors import (
    ConfigError,
    HardwareError,
    NothingEarlierError,
    SimulatorUnreachableError,
    ToolArgumentError,
    ToolDeniedError,
    ToolError,
)
from edgeagent.tools.device import (
    BUSY_WAIT_S,
    Backend,
    Backends,
    Closeable,
    DeviceLock,
    LazyDevice,
    board_model,
    is_raspberry_pi,
)
from edgeagent.tools.plugins import GROUP, PluginContext, Register, hookimpl
from edgeagent.tools.tool import (
    USER_WORDS,
    AimedIn,
    AskedIn,
    GivenIn,
    NamedIn,
    Recall,
    Reread,
    SaidIn,
    Tool,
    ToolKind,
    ToolResult,
    UndoneIn,
    WrapAsked,
    WrapHandler,
    WrapReread,
    make_tool,
    tool,
    tools_from,
)
from edgeagent.tools.words import files_named, fold, one_slip, plain

__all__ = [
    "BUSY_WAIT_S",
    "GROUP",
    "USER_WORDS",
    "AimedIn",
    "AskedIn",
    "Backend",
    "Backends",
    "Closeable",
    "ConfigError",
    "DeviceLock",
    "GivenIn",
    "HardwareError",
    "LazyDevice",
    "NamedIn",
    "NothingEarlierError",
    "PluginContext",
    "Recall",
    "Register",
    "Reread",
    "SaidIn",
    "SimulatorUnreachableError",
    "Tool",
    "ToolArgumentError",
    "ToolDeniedError",
    "ToolError",
    "ToolKind",
    "ToolResult",
    "UndoneIn",
    "WrapAsked",
    "WrapHandler",
    "WrapReread",
    "board_model",
    "files_named",
    "fold",
    "hookimpl",
    "is_raspberry_pi",
    "make_tool",
    "one_slip",
    "plain",
    "tool",
    "tools_from",
]
