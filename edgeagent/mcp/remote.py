"""An MCP server's tool as a first-class edgeagent :class:`~edgeagent.tools.tool.Tool`.

What the server lists is untrusted data, and it becomes what the model reads and what
the executor checks, so each part is made the edgeagent way:

* the **name** is the server's when it is free and valid for the model, otherwise
  ``<server>_<tool>`` (characters other than letters, digits and ``_`` become ``_``);
* the **arguments model** checks every value, and then the whole object, against the
  server's own JSON schema (``jsonschema``, which the SDK brings) before any call is
  sent, refuses arguments the schema does not name and NaN or infinite numbers, like
  every edgeagent tool; an optional argument the model leaves out is not sent;
* the **schema** the manifest shows has its local ``$ref``s inlined and no ``title``s;
* the **kind** is ``read`` only when the server says ``readOnlyHint: true``; anything
  else, a missing hint included, is ``act`` (so ``confirm_act`` asks first);
* the **result**: structured content when the server gives it, else its text (a JSON
  object or list in the text is read as one); ``isError`` becomes a failed result
  carrying the server's text.
"""

from __future__ import annotations

import json
import keyword
import re
from collections.abc import Awaitable, Callable, Collection, Iterator
from typing import Any, ClassVar

import jsonschema
from mcp_types import (
    AudioContent,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from mcp_types import Tool as RemoteTool
from pydantic import (
    BaseModel,
    Field,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from edgeagent.errors import ToolDefinitionError
from edgeagent.tools.schema import ToolArguments
from edgeagent.tools.tool import Tool, ToolKind, ToolResult

CallRemote = Callable[[str, dict[str, Any]], Awaitable[ToolResult]]
"""Sends one call (the tool's name on the server, its arguments) and returns its result."""

MAX_SCHEMA_DEPTH = 32
"""Deeper schemas are cut here when inlined for the manifest (validation sees them whole)."""

_NOT_NAME = re.compile(r"[^A-Za-z0-9_]")


class _NotGiven:
    """The value of an optional argument the model left out: it is not sent."""

    def __repr__(self) -> str:
        return "<not given>"

    def __copy__(self) -> _NotGiven:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _NotGiven:
        return self


NOT_GIVEN: Any = _NotGiven()


def plugin_name(server: str) -> str:
    """What a remote tool's ``plugin`` is: ``mcp:<server>``, so a policy rule naming it
    covers every tool of that server."""
    return f"mcp:{server}"


def local_name(remote: str, *, server: str, taken: Collection[str]) -> str | None:
    """The name a remote tool goes by here: its own when that is a free identifier,
    else ``<server>_<tool>``; ``None`` when that is taken too."""
    own = _NOT_NAME.sub("_", remote)
    if own[:1].isdigit():
        own = f"_{own}"
    if own and own.isidentifier() and not keyword.iskeyword(own) and own not in taken:
        return own
    prefixed = f"{server}_{own.lstrip('_')}"
    return prefixed if prefixed not in taken else None


def kind_of(remote: RemoteTool) -> ToolKind:
    """``read`` only for ``readOnlyHint: true``; an unknown tool may change the world."""
    hints = remote.annotations
    return ToolKind.READ if hints is not None and hints.read_only_hint is True else ToolKind.ACT


def describe(remote: RemoteTool, *, server: str) -> str:
    """The model-facing description: the first paragraph of the server's, on one line."""
    text = (remote.description or "").strip()
    first = re.split(r"\n\s*\n", text, maxsplit=1)[0] if text else ""
    title = remote.title or (remote.annotations.title if remote.annotations else None)
    return " ".join(first.split()) or title or f"{remote.name} (a tool of MCP server {server})"


# --- the arguments model ------------------------------------------------------------


class RemoteArguments(ToolArguments):
    """A remote tool's arguments: each value against its property's schema, then the
    whole object against the tool's schema (``anyOf``, dependencies and the like)."""

    schema_validator: ClassVar[Any] = None
    """The ``jsonschema`` validator of the tool's input schema (set per tool)."""

    @field_validator("*")
    @classmethod
    def _matches_property(cls, value: Any, info: ValidationInfo) -> Any:
        field = cls.model_fields[info.field_name or ""]
        prop = field.alias or info.field_name or ""
        for error in cls._errors({prop: value}):
            if error.absolute_path and error.absolute_path[0] == prop:
                raise PydanticCustomError("remote_schema", "{reason}", {"reason": _reason(error)})
        return value

    @model_validator(mode="after")
    def _matches_schema(self) -> RemoteArguments:
        for error in self._errors(self.given()):
            where = ".".join(str(p) for p in error.absolute_path)
            reason = _reason(error)
            raise PydanticCustomError(
                "remote_schema", "{reason}", {"reason": f"{where}: {reason}" if where else reason}
            )
        return self

    @classmethod
    def _errors(cls, instance: dict[str, Any]) -> Iterator[Any]:
        errors = cls.schema_validator.iter_errors(instance)
        return iter(sorted(errors, key=lambda e: [str(p) for p in e.absolute_path]))

    def given(self) -> dict[str, Any]:
        """The arguments to send, by their names on the server, without those left out."""
        return arguments_to_send(type(self), self.__dict__)


def arguments_to_send(model: type[BaseModel], values: dict[str, Any]) -> dict[str, Any]:
    """``values`` (by field name) under the server's names, the left-out ones dropped."""
    sent: dict[str, Any] = {}
    for field_name, value in values.items():
        field = model.model_fields.get(field_name)
        if field is not None and value is not NOT_GIVEN:
            sent[field.alias or field_name] = value
    return sent


def _reason(error: Any) -> str:
    """A jsonschema error as the rest of edgeagent words it: ``must be 5-30``."""
    kind, schema = error.validator, error.schema
    if kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        lo = schema.get("minimum", schema.get("exclusiveMinimum"))
        hi = schema.get("maximum", schema.get("exclusiveMaximum"))
        if lo is not None and hi is not None:
            return f"must be {lo}-{hi}"
        return f"must be >= {lo}" if lo is not None else f"must be <= {hi}"
    if kind == "enum":
        return "must be one of " + ", ".join(repr(v) for v in error.validator_value)
    if kind == "type":
        expected = error.validator_value
        names = expected if isinstance(expected, list) else [expected]
        return "must be " + " or ".join(f"{'an' if n in ('integer', 'array', 'object') else 'a'} "
                                        f"{n}" for n in names)  # fmt: skip
    return str(error.message)


def _field_name(prop: str, index: int) -> str:
    """``prop`` when pydantic can hold it as a field, else ``arg<index>`` (with an alias)."""
    usable = (
        prop.isidentifier()
        and not keyword.iskeyword(prop)
        and not prop.startswith(("_", "model_"))
        and not hasattr(RemoteArguments, prop)
    )
    return prop if usable else f"arg{index}"


def arguments_model(name: str, schema: dict[str, Any]) -> type[RemoteArguments]:
    """The model the executor validates ``name``'s arguments with, from its JSON schema.

    Raise :class:`ToolDefinitionError` when the schema is not a valid JSON schema of an
    object (the tool is then skipped: nothing could be checked before calling it).
    """
    if schema.get("type", "object") != "object":
        raise ToolDefinitionError(
            f"tool {name!r}: its input schema is of type {schema.get('type')!r}; MCP tools "
            f"take an object"
        )
    validator_class = jsonschema.validators.validator_for(
        schema, default=jsonschema.Draft202012Validator
    )
    try:
        validator_class.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ToolDefinitionError(
            f"tool {name!r}: its input schema is not a valid JSON schema ({exc.message})"
        ) from None
    props = schema.get("properties", {})
    required = set(schema.get("required", []))
    fields: dict[str, Any] = {}
    for index, prop in enumerate(props if isinstance(props, dict) else {}):
        default = ... if prop in required else NOT_GIVEN
        field_name = _field_name(prop, index)
        alias = prop if field_name != prop else None
        fields[field_name] = (Any, Field(default=default, alias=alias))
    model = create_model(f"{name}_arguments", __base__=RemoteArguments, **fields)
    model.schema_validator = validator_class(schema)
    return model


# --- the manifest's schema ----------------------------------------------------------

_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_NODES = ("items", "additionalProperties", "contains", "propertyNames")
_NOT_SHOWN = frozenset(
    {"title", "$schema", "$id", "$comment", "pattern", "not", "if", "then", "else"}
)
"""Left out of what the model reads: titles repeat the names; a regex, a negation or a
condition is hard for a small model to follow, and llama.cpp's grammar converter refuses
them (an unanchored ``pattern``, ``not``). The arguments are still checked against them."""


def manifest_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema the model reads: local ``$ref``s inlined (a recursive one is left as
    it is, one to another document dropped), what :data:`_NOT_SHOWN` names dropped,
    ``properties`` and ``required`` always there (the manifest renderers read them)."""
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    out = _inline(schema, defs, seen=(), depth=0)
    if not isinstance(out, dict):
        out = {}
    if not _has_ref(out):
        out.pop("$defs", None)
        out.pop("definitions", None)
    out.pop("$schema", None)
    out.setdefault("type", "object")
    out.setdefault("properties", {})
    out.setdefault("required", [])
    return out


def _inline(node: Any, defs: dict[str, Any], *, seen: tuple[str, ...], depth: int) -> Any:
    if not isinstance(node, dict) or depth > MAX_SCHEMA_DEPTH:
        return node if not isinstance(node, dict) else {}
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = ref.rsplit("/", 1)[-1]
        local = ref.startswith(("#/$defs/", "#/definitions/")) and target in defs
        if local and target not in seen:
            merged = {**defs[target], **{k: v for k, v in node.items() if k != "$ref"}}
            return _inline(merged, defs, seen=(*seen, target), depth=depth + 1)
        if not local:  # another document: nothing here can resolve it
            node = {k: v for k, v in node.items() if k != "$ref"}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _NOT_SHOWN:
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {k: _inline(v, defs, seen=seen, depth=depth + 1) for k, v in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_inline(v, defs, seen=seen, depth=depth + 1) for v in value]
        elif key in _SCHEMA_NODES and isinstance(value, dict):
            out[key] = _inline(value, defs, seen=seen, depth=depth + 1)
        else:
            out[key] = value
    return out


def _has_ref(node: Any) -> bool:
    if isinstance(node, dict):
        return "$ref" in node or any(_has_ref(v) for v in node.values())
    if isinstance(node, list):
        return any(_has_ref(v) for v in node)
    return False


# --- results ------------------------------------------------------------------------


def to_result(result: CallToolResult) -> ToolResult:
    """A remote result as edgeagent's: ``isError`` -> a failure with the server's text."""
    texts = [_block_text(block) for block in result.content]
    if result.is_error:
        said = " ".join(t for t in texts if t).strip()
        return ToolResult.failure(said or "the MCP tool reported an error without saying which")
    structured = result.structured_content
    if structured is not None:
        # MCPServer wraps a non-object return value as {"result": value}.
        if isinstance(structured, dict) and set(structured) == {"result"}:
            return ToolResult.success(structured["result"])
        return ToolResult.success(structured)
    values = [_as_json(t) for t in texts]
    if not values:
        return ToolResult.success(None)
    return ToolResult.success(values[0] if len(values) == 1 else values)


def _block_text(block: Any) -> str:
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, ImageContent | AudioContent):
        return f"[{block.type} {block.mime_type}, not shown]"
    if isinstance(block, ResourceLink):
        return f"[resource {block.uri}]"
    if isinstance(block, EmbeddedResource):
        if isinstance(block.resource, TextResourceContents):
            return block.resource.text
        return f"[resource {block.resource.uri}, not shown]"
    return f"[{getattr(block, 'type', 'content')}, not shown]"


def _as_json(text: str) -> Any:
    """A JSON object or list sent as text, as that value (the model reads it once, not
    escaped inside a string); any other text as it is."""
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return json.loads(stripped)
        except ValueError:
            pass
    return text


# --- the tool -----------------------------------------------------------------------


def make_remote_tool(
    remote: RemoteTool, *, server: str, name: str, timeout_s: float, call: CallRemote
) -> Tool:
    """``remote`` (as the server listed it) as a tool named ``name`` that runs through
    ``call``. Raise :class:`ToolDefinitionError` when its schema cannot be used."""
    model = arguments_model(name, remote.input_schema)
    remote_name = remote.name

    async def run(**arguments: Any) -> ToolResult:
        return await call(remote_name, arguments_to_send(model, arguments))

    run.__name__ = name
    return Tool(
        name=name,
        description=describe(remote, server=server),
        parameters=manifest_schema(remote.input_schema),
        func=run,
        arguments_model=model,
        kind=kind_of(remote),
        timeout_s=timeout_s,
        plugin=plugin_name(server),
        title=remote.title or (remote.annotations.title if remote.annotations else None) or "",
        extra={"mcp_server": server, "remote_name": remote_name},
    )
