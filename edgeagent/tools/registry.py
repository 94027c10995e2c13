"""The set of tools the agent may call, keyed by name."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import Any

from edgeagent.errors import DuplicateToolError, UnknownToolError
from edgeagent.tools.tool import Tool

log = logging.getLogger(__name__)


class ToolRegistry:
    """Tools by name. Duplicate names are refused loudly, naming both plugins."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for t in tools:
            self.add(t)

    def add(self, tool: Tool) -> None:
        existing = self._tools.get(tool.name)
        if existing is not None:
            raise DuplicateToolError(
                f"Tool name {tool.name!r} is registered by plugin {existing.plugin!r} and "
                f"again by plugin {tool.plugin!r}; the second one is ignored. Keep one: "
                f"add the other plugin to [tools] disabled_plugins ([tools] disabled "
                f"names tools, so it would remove both), or rename one"
            )
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool:
        try:
            return self._tools[name]
        except KeyError:
            available = ", ".join(sorted(self._tools)) or "none"
            raise UnknownToolError(f"Unknown tool {name!r}. Available tools: {available}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(sorted(self._tools.values(), key=lambda t: t.name))

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return sorted(self._tools)

    def select(self, *, enabled: Iterable[str] = (), disabled: Iterable[str] = ()) -> ToolRegistry:
        """A registry with only the enabled tools (all when ``enabled`` is empty)."""
        keep = set(enabled)
        drop = set(disabled)
        unknown = (keep | drop) - set(self._tools)
        if unknown:  # a typo, or a tool whose plugin failed to load: say so, keep serving
            log.warning(
                "[tools] names tools that are not loaded: %s; loaded tools: %s",
                sorted(unknown),
                self.names(),
            )
        return ToolRegistry(t for t in self if (not keep or t.name in keep) and t.name not in drop)

    def manifest(self, fmt: str, **options: Any) -> Any:
        """Render these tools in a manifest format (see :mod:`edgeagent.tools.render`)."""
        from edgeagent.tools.render import render_manifest

        return render_manifest(list(self), fmt, **options)
