"""The plugin author's API: a typed function (or method) becomes a :class:`Tool`.

.. code-block:: python

    @tool(kind="act")
    def led(color: Annotated[str, Field(description="CSS name or #rrggbb")]) -> dict:
        \"\"\"Set the LED strip colour.\"\"\"

The first docstring paragraph is the model-facing description; the signature becomes a
pydantic model and a JSON schema (:mod:`edgeagent.tools.schema`).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from edgeagent.errors import ToolDefinitionError
from edgeagent.tools.schema import build_arguments_model

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_TIMEOUT_S = 10.0
_MARK = "__edgeagent_tool__"


class ToolKind(StrEnum):
    """Whether a tool only reads the world or acts on it."""

    READ = "read"
    ACT = "act"


@dataclass(frozen=True)
class ToolResult:
    """The one shape every tool call ends in, success or failure."""

    ok: bool
    result: Any = None
    error: str | None = None

    @classmethod
    def success(cls, result: Any) -> ToolResult:
        return cls(ok=True, result=result)

    @classmethod
    def failure(cls, error: str) -> ToolResult:
        return cls(ok=False, error=error)

    def to_dict(self) -> dict[str, Any]:
        if self.ok:
            return {"ok": True, "result": self.result}
        return {"ok": False, "error": self.error}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, default=str)


@runtime_checkable
class WrapHandler(Protocol):
    """Turns a wrapped tool's ``arguments`` list into the wrapped tool's own arguments.

    Only tools that declare a wrap handler can be wrapped by ``.tool`` files.
    """

    def __call__(self, command_template: str, arguments: list[str]) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Tool:
    """A callable the model may use, with its schema and metadata."""

    name: str
    description: str
    parameters: dict[str, Any]
    """JSON schema of the arguments (an ``object`` schema)."""
    func: Callable[..., Any]
    arguments_model: type[BaseModel]
    kind: ToolKind = ToolKind.READ
    timeout_s: float = DEFAULT_TIMEOUT_S
    plugin: str = "?"
    title: str = ""
    wrap: WrapHandler | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.func)

    @property
    def wrappable(self) -> bool:
        return self.wrap is not None

    def with_plugin(self, plugin: str) -> Tool:
        return replace(self, plugin=plugin)


@dataclass(frozen=True)
class _ToolMark:
    name: str | None
    description: str | None
    param_descriptions: dict[str, str] | None
    kind: ToolKind
    timeout_s: float
    title: str
    wrap: WrapHandler | None


def tool(
    func: F | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    param_descriptions: dict[str, str] | None = None,
    kind: ToolKind | str = ToolKind.READ,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    title: str = "",
    wrap: WrapHandler | None = None,
) -> Any:
    """Mark a function or method as a tool. Usable bare (``@tool``) or with options.

    ``param_descriptions`` override what the docstring says about a parameter.
    ``kind="act"`` marks tools that change the world (the call policy may ask first).
    ``wrap`` makes the tool wrappable by ``.tool`` files.
    """

    def mark(f: F) -> F:
        setattr(
            f,
            _MARK,
            _ToolMark(
                name, description, param_descriptions, ToolKind(kind), timeout_s, title, wrap
            ),
        )
        return f

    return mark(func) if func is not None else mark


def make_tool(func: Callable[..., Any], *, plugin: str = "?") -> Tool:
    """Build a :class:`Tool` from a function or bound method (marked or not)."""
    mark: _ToolMark = getattr(func, _MARK, None) or _ToolMark(
        None, None, None, ToolKind.READ, DEFAULT_TIMEOUT_S, "", None
    )
    name: str = mark.name or str(getattr(func, "__name__", ""))
    if not name.isidentifier():
        raise ToolDefinitionError(
            f"Tool name {name!r} is not an identifier; use letters, digits, _"
        )
    model, schema, doc_description = build_arguments_model(
        func, name=name, param_descriptions=mark.param_descriptions
    )
    description = mark.description or doc_description
    if not description:
        raise ToolDefinitionError(
            f"Tool {name!r} has no description; give it a docstring or description=..."
        )
    return Tool(
        name=name,
        description=description,
        parameters=schema,
        func=func,
        arguments_model=model,
        kind=mark.kind,
        timeout_s=mark.timeout_s,
        plugin=plugin,
        title=mark.title,
        wrap=mark.wrap,
    )


def tools_from(obj: object, *, plugin: str = "?") -> list[Tool]:
    """All methods of ``obj`` marked with :func:`tool`, as tools bound to ``obj``."""
    found: list[Tool] = []
    for attr in dir(type(obj)):
        member = getattr(type(obj), attr, None)
        if callable(member) and hasattr(member, _MARK):
            found.append(make_tool(getattr(obj, attr), plugin=plugin))
    return found
