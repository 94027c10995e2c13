"""``.tool`` files: new tools made from a wrappable tool, without writing Python.

Two forms, one parser. An **alias** holds only ``@name`` and ``@wrapped`` and registers
the wrapped tool again under a new name. A **full** definition adds a description (the
text before the first blank line), ``@title``, a ``@command`` template with an
``{arguments}`` token and ``@param arguments {array<string>} [required] ...``::

    Find files by name.

    @title Find files
    @name glob
    @wrapped shell
    @command find {arguments} -type f
    @param arguments {array<string>} [required] e.g. [".", "-name", "*.py"]

The model calls ``glob`` with ``{"arguments": [...]}``; the wrapped tool's ``wrap``
handler turns template and list into its own arguments, which are validated against its
own schema, so every check of the wrapped tool still applies. Both forms keep the wrapped
tool's ``answer`` template: their results are the wrapped tool's results.

A bad file is logged with its path and skipped; the other files still load.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field, StrictStr, ValidationError, create_model, model_validator

from edgeagent.errors import ToolArgumentError, ToolDefinitionError
from edgeagent.tools.executor import as_argument_list, describe_validation_error
from edgeagent.tools.jsonish import argument_words
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import AskedIn, Reread, Tool

log = logging.getLogger(__name__)

SUFFIX = ".tool"
ARGUMENTS_TOKEN = "{arguments}"
ANNOTATIONS = ("title", "name", "wrapped", "command", "param")
_PARAM = re.compile(r"^(\w+)\s+\{([^}]*)\}\s*(\[required\])?\s*(.*)$")


@dataclass
class ToolFile:
    """What one ``.tool`` file says."""

    path: Path
    description: str = ""
    title: str = ""
    name: str = ""
    wrapped: str = ""
    command: str = ""
    param_description: str = ""
    param_required: bool = False
    has_param: bool = False
    seen: set[str] = field(default_factory=set)

    @property
    def is_alias(self) -> bool:
        return not self.command


def parse_tool_file(path: Path, text: str) -> ToolFile:
    """Parse one file; raise :class:`ToolDefinitionError` naming the file and line."""
    spec = ToolFile(path=path)
    lines = text.splitlines()
    index = 0
    if lines and not lines[0].lstrip().startswith("@"):  # the description comes first
        described: list[str] = []
        while index < len(lines) and lines[index].strip():
            described.append(lines[index].strip())
            index += 1
        spec.description = " ".join(described)
    for number, raw in enumerate(lines[index:], start=index + 1):
        line = raw.strip()
        if not line:
            continue
        match = re.match(r"@(\w+)\s*(.*)$", line)
        if not match or match.group(1) not in ANNOTATIONS:
            raise ToolDefinitionError(
                f"{path}:{number}: expected one of {', '.join('@' + a for a in ANNOTATIONS)}, "
                f"got {line!r}"
            )
        key, value = match.group(1), match.group(2).strip()
        if key in spec.seen:
            raise ToolDefinitionError(f"{path}:{number}: @{key} is given twice")
        spec.seen.add(key)
        if key == "param":
            _parse_param(spec, value, number)
        else:
            setattr(spec, key, value)
    _check(spec)
    return spec


def _parse_param(spec: ToolFile, value: str, number: int) -> None:
    match = _PARAM.match(value)
    if (
        not match
        or match.group(1) != "arguments"
        or match.group(2).replace(" ", "") != "array<string>"
    ):
        raise ToolDefinitionError(
            f"{spec.path}:{number}: expected '@param arguments {{array<string>}} [required] "
            f"description', got {value!r}"
        )
    spec.has_param = True
    spec.param_required = bool(match.group(3))
    spec.param_description = match.group(4).strip()


def _check(spec: ToolFile) -> None:
    missing = [f"@{k}" for k in ("name", "wrapped") if not getattr(spec, k)]
    if not spec.is_alias:
        missing += ["@title"] if not spec.title else []
        missing += (
            ["a description (text before the first blank line)"] if not spec.description else []
        )
    elif spec.description or spec.title or spec.has_param:
        missing.append("@command (a description, @title or @param needs one)")
    if missing:
        raise ToolDefinitionError(f"{spec.path}: missing {', '.join(missing)}; file skipped")
    if not spec.name.isidentifier():
        raise ToolDefinitionError(
            f"{spec.path}: @name {spec.name!r} is not an identifier; use letters, digits, _"
        )
    if not spec.is_alias and ARGUMENTS_TOKEN not in spec.command:
        raise ToolDefinitionError(
            f"{spec.path}: @command {spec.command!r} has no {ARGUMENTS_TOKEN} token; add it "
            f"where the argument list goes"
        )


def _fold_arguments(cls: type[Any], data: Any) -> Any:
    """The arguments model's before-validator: :func:`_folded`."""
    return _folded(data)


def _folded(data: Any) -> Any:
    """Read what a small model writes for a command's argument list as that list:
    ``{"path": "data.csv"}``, ``{"pattern": "milk", "path": "."}``, ``"-l logs"``."""
    if not isinstance(data, dict) or not data:
        return data
    if set(data) == {"arguments"} and isinstance(data["arguments"], list):
        # Numbers among the words are words: {"arguments": ["data.csv", 1]} for "the
        # column names in data.csv" failed as "got 1", and the turn ended (blind prompts).
        words = argument_words(data["arguments"])
        return data if words is None else {"arguments": words}
    return {"arguments": as_argument_list(data)}


def build_wrapped_tool(spec: ToolFile, target: Tool) -> Tool:
    """The tool a parsed file defines, on top of ``target`` (which must be wrappable)."""
    origin = spec.path.name
    runs_as = (target.name, target.plugin, *target.runs_as)
    if spec.is_alias:
        return replace(target, name=spec.name, plugin=origin, runs_as=runs_as)
    wrap = target.wrap
    if wrap is None:
        raise ToolDefinitionError(f"{spec.path}: tool {target.name!r} is not wrappable")
    description = spec.param_description or "arguments for the command"
    model = create_model(
        f"{spec.name}_arguments",
        __config__=ConfigDict(extra="forbid"),
        __validators__={"fold": model_validator(mode="before")(_fold_arguments)},  # type: ignore[dict-item]
        arguments=(
            list[StrictStr],
            Field(... if spec.param_required else [], description=description),
        ),
    )
    schema: dict[str, Any] = {
        "properties": {
            "arguments": {"description": description, "items": {"type": "string"}, "type": "array"}
        },
        "required": ["arguments"] if spec.param_required else [],
        "type": "object",
    }
    template = spec.command

    def target_kwargs(arguments: list[str]) -> dict[str, Any]:
        if not isinstance(arguments, list) or not all(isinstance(a, str) for a in arguments):
            raise ToolArgumentError(
                f"{spec.name}: 'arguments' must be an array of strings, got {arguments!r}"
            )
        built = wrap(template, list(arguments))
        try:
            valid = target.arguments_model.model_validate(built)
        except ValidationError as exc:
            raise ToolArgumentError(
                f"{spec.name}: arguments {arguments!r} give {target.name!r} invalid "
                f"arguments: {describe_validation_error(target, exc)}"
            ) from None
        return {k: getattr(valid, k) for k in type(valid).model_fields}

    if target.is_async:

        async def call_async(arguments: list[str]) -> Any:
            return await target.func(**target_kwargs(arguments))

        func: Any = call_async
    else:

        def call(arguments: list[str]) -> Any:
            return target.func(**target_kwargs(arguments))

        func = call
    return Tool(
        name=spec.name,
        description=spec.description,
        reread=_reread(target, template),
        asked_in=_asked(target, template),
        parameters=schema,
        func=func,
        arguments_model=model,
        kind=target.kind,
        timeout_s=target.timeout_s,
        plugin=origin,
        title=spec.title,
        wrap=None,  # the template is fixed; wrapping a wrapped tool would nest templates
        answer=target.answer,  # the result is the wrapped tool's, so is its sentence
        extra={"wrapped": target.name, "command": template},
        runs_as=runs_as,
    )


def _asked(target: Tool, template: str) -> AskedIn | None:
    """The wrapper's :attr:`~edgeagent.tools.tool.Tool.asked_in`: the ``target``'s
    :attr:`~edgeagent.tools.tool.Tool.asked_wrapped` for this ``template``."""
    return None if target.asked_wrapped is None else target.asked_wrapped(template)


def _reread(target: Tool, template: str) -> Reread | None:
    """The wrapper's :attr:`~edgeagent.tools.tool.Tool.reread`: the ``target``'s
    :attr:`~edgeagent.tools.tool.Tool.reread_wrapped` for this ``template``."""
    again = target.reread_wrapped
    if again is None:
        return None

    def reread(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
        try:
            folded = _folded(arguments)
        except ValueError:
            return None  # an unbalanced quote: the validation's error names it
        listed = folded.get("arguments") if isinstance(folded, dict) else None
        if not isinstance(listed, list) or not all(isinstance(a, str) for a in listed):
            return None  # the validation's error says what is wrong with it
        said = again(template, list(listed), request)
        return None if said is None else {"arguments": said}

    return reread


def load_wrapped_tools(directory: Path, registry: ToolRegistry) -> list[str]:
    """Add the tools of every ``*.tool`` file in ``directory`` (sorted) to ``registry``.

    Returns one message per skipped file (also logged); an absent directory is no error.
    """
    if not directory.exists():
        log.debug("no wrapped tools: %s does not exist", directory)
        return []
    if not directory.is_dir():
        return [_report(f"{directory}: the wrapped tools directory is not a directory")]
    problems: list[str] = []
    for path in sorted(directory.glob(f"*{SUFFIX}")):
        try:
            spec = parse_tool_file(path, path.read_text(encoding="utf-8"))
            if spec.name in registry:
                existing = registry.get(spec.name)
                problems.append(
                    _report(
                        f"{path}: tool name {spec.name!r} is already taken by {existing.plugin!r}; "
                        f"the first one wins, this file is skipped. Rename @name",
                        warning=True,
                    )
                )
                continue
            if spec.wrapped not in registry:
                raise ToolDefinitionError(
                    f"{path}: @wrapped {spec.wrapped!r} is not a loaded tool; loaded tools: "
                    f"{', '.join(registry.names()) or 'none'}"
                )
            target = registry.get(spec.wrapped)
            if not target.wrappable:
                raise ToolDefinitionError(
                    f"{path}: tool {target.name!r} cannot be wrapped (it declares no wrap "
                    f"handler); wrappable tools: "
                    f"{', '.join(t.name for t in registry if t.wrappable) or 'none'}"
                )
            registry.add(build_wrapped_tool(spec, target))
        except (ToolDefinitionError, OSError, UnicodeDecodeError) as exc:
            problems.append(
                _report(str(exc) if isinstance(exc, ToolDefinitionError) else f"{path}: {exc}")
            )
    return problems


def _report(message: str, *, warning: bool = False) -> str:
    log.log(logging.WARNING if warning else logging.ERROR, "%s", message)
    return message
