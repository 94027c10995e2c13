"""Validate, authorise and run one tool call; always end in a :class:`ToolResult`.

Failures are data at the model boundary: an unknown tool, bad arguments, a denial by
the call policy, a timeout or an exception all come back as a short, specific error the
model can read and act on.
"""

from __future__ import annotations

import asyncio
import logging
import re
import shlex
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from edgeagent.errors import ToolArgumentError, ToolDeniedError, ToolError, UnknownToolError
from edgeagent.tools.policy import CallPolicy
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import Tool, ToolResult

log = logging.getLogger(__name__)

@dataclass(frozen=True)
class ToolCall:
    """A call as parsed from model output."""

    name: str
    arguments: dict[str, Any]


def describe_validation_error(tool: Tool, exc: ValidationError) -> str:
    """One short sentence per problem, e.g. ``brightness must be 0-100, got 150``."""
    props: dict[str, Any] = tool.parameters.get("properties", {})
    return "; ".join(_describe(err, props) for err in exc.errors())


def _describe(err: ErrorDetails, props: dict[str, Any]) -> str:
    loc = ".".join(str(p) for p in err["loc"]) or "arguments"
    field = str(err["loc"][0]) if err["loc"] else ""
    spec = props.get(field, {})
    got = err.get("input")
    kind = err["type"]
    if kind == "missing":
        return f"missing required argument {loc!r}"
    if kind == "extra_forbidden":
        expected = ", ".join(props) or "none"
        return f"unexpected argument {loc!r}; expected arguments: {expected}"
    lo = spec.get("minimum", spec.get("exclusiveMinimum"))
    hi = spec.get("maximum", spec.get("exclusiveMaximum"))
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        if lo is not None and hi is not None:
            return f"{loc} must be {lo}-{hi}, got {got!r}"
        return f"{loc} {err['msg'].lower().removeprefix('input ')}, got {got!r}"
    if kind in ("literal_error", "enum"):
        allowed = ", ".join(repr(v) for v in spec.get("enum", []))
        return f"{loc} must be one of {allowed}, got {got!r}"
    return f"{loc}: {err['msg']}, got {got!r}"


def _in_daemon_thread(func: Callable[..., Any], kwargs: dict[str, Any]) -> asyncio.Future[Any]:
    """Run a sync tool in a daemon thread.

    A hung synchronous tool cannot be killed from Python. The call still returns at its
    timeout, and because the thread is a daemon it cannot block the process from exiting
    (``asyncio.to_thread`` would, at shutdown).
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if future.done():
            return
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def run() -> None:
        try:
            result = func(**kwargs)
        except BaseException as exc:
            loop.call_soon_threadsafe(settle, False, exc)
        else:
            loop.call_soon_threadsafe(settle, True, result)

    threading.Thread(target=run, name="edgeagent-tool", daemon=True).start()
    return future


PATTERN_KEYS = frozenset(
    {"pattern", "expression", "regex", "regexp", "query", "search", "term", "word"}
)
OPTION_KEYS = frozenset({"option", "options", "flag", "flags"})
"""Keys whose bare letters are options: ``{"option": "l"}`` is ``-l``."""
_BARE_OPTION = re.compile(r"[A-Za-z]{1,3}")


def as_argument_list(arguments: Mapping[str, Any]) -> list[str]:
    """A call's arguments as one command-line list, in the order the model wrote them.

    ``{"arguments": ["-l", "logs"]}`` stays that list; ``{"path": "data.csv"}`` or
    ``{"pattern": "milk", "path": "."}`` become ``["data.csv"]``, ``["milk", "."]``; a
    string value is split like a shell would (never run by one). A value named as a
    pattern comes first wherever it was written (``{"file": "a", "pattern": "b"}`` is
    ``["b", "a"]``): commands take the pattern before the paths. An option's bare
    letters (``{"option": "l"}``) are that option, ``-l``.
    """
    words: list[str] = []
    patterns_first = sorted(arguments, key=lambda key: key.lower() not in PATTERN_KEYS)
    for key in patterns_first:
        value = arguments[key]
        items = value if isinstance(value, list) else [value]
        option = key.lower() in OPTION_KEYS
        for item in items:
            if option and isinstance(item, str) and _BARE_OPTION.fullmatch(item):
                # {"path": "data.csv", "option": "l"} ran as wc -l data.csv l (408 run 67)
                words.append(f"-{item}")
            elif isinstance(item, str):
                words += shlex.split(item) if item.strip() else []
            elif item is not None and not isinstance(item, (dict, list)):
                words.append(str(item).lower() if isinstance(item, bool) else str(item))
    return words


def _one_value_for_one_parameter(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    """``{"expression": "2 + 2"}`` for ``{"arguments": ["2 + 2"]}`` sent to a tool whose one
    required parameter is ``expression``: the list a .tool wrapper takes, which the model
    copies from the history onto other tools. Only one value and one required parameter
    fit that reading; anything else is left for validation to name."""
    props: dict[str, Any] = tool.parameters.get("properties", {})
    required: list[str] = tool.parameters.get("required", [])
    value = arguments.get("arguments")
    if (
        set(arguments) == {"arguments"}
        and "arguments" not in props
        and len(required) == 1
        and isinstance(value, list)
        and len(value) == 1
    ):
        return {required[0]: value[0]}
    return arguments


def _parameters(tool: Tool) -> dict[str, Any]:
    properties: dict[str, Any] = tool.parameters.get("properties", {})
    return properties


def _takes(tool: Tool, arguments: dict[str, Any]) -> bool:
    """Whether ``tool``'s arguments model accepts ``arguments`` (as the executor reads
    them, :func:`_one_value_for_one_parameter`)."""
    try:
        tool.arguments_model.model_validate(_one_value_for_one_parameter(tool, arguments))
    except ValidationError:
        return False
    return True


class ToolExecutor:
    """Runs tool calls for the agent loop and for ``edgeagent tools call``."""

    def __init__(self, registry: ToolRegistry, *, policy: CallPolicy | None = None) -> None:
        self.registry = registry
        self.policy = policy or CallPolicy()

    def resolve(self, call: ToolCall) -> ToolCall:
        """The call to run: ``call`` itself, or, when it names no tool but a command that
        a wrappable tool runs (the model calls ``ps`` or ``cat`` as if they were tools),
        that tool's call for the command; or, when it names a tool that takes none of
        its arguments, the one other tool of the same kind that takes them all ("ok, dim
        them to thirty-five" came as ``servo`` with ``brightness: 35``, an argument of
        ``led`` only; blind prompts). Anything else is left to fail as it is."""
        if not isinstance(call.arguments, dict):
            return call
        if call.name in self.registry:
            return self._owner(call)
        for tool in self.registry:
            if tool.wrap is not None and call.name in tool.extra.get("commands", ()):
                words = as_argument_list(call.arguments)
                return ToolCall(tool.name, tool.wrap(f"{call.name} {{arguments}}", words))
        return call

    def _owner(self, call: ToolCall) -> ToolCall:
        """``call`` as a call of the one other tool of its tool's kind whose parameters
        include every argument ``call`` has and that takes them, when its own tool
        names none of them and does not take them either (a wrapper reads any object
        as its command's arguments: ``grep`` with ``expression: "milk"`` is its own)."""
        named = self.registry.get(call.name)
        given = set(call.arguments)
        if not given or given & set(_parameters(named)) or _takes(named, call.arguments):
            return call
        owners = [
            tool
            for tool in self.registry
            if tool.kind is named.kind
            and tool is not named
            and given <= set(_parameters(tool))
            and _takes(tool, call.arguments)
        ]
        if len(owners) != 1:
            return call
        log.info("%s takes none of %s; %s takes them all", call.name, sorted(given), owners[0].name)
        return ToolCall(owners[0].name, call.arguments)

    def validate(self, call: ToolCall) -> tuple[Tool, dict[str, Any]]:
        """Look the tool up and validate arguments; raise a :class:`ToolError` if wrong."""
        tool = self.registry.get(call.name)
        if not isinstance(call.arguments, dict):
            raise ToolArgumentError(
                f"arguments of {call.name!r} must be a JSON object, got {call.arguments!r}"
            )
        arguments = _one_value_for_one_parameter(tool, call.arguments)
        try:
            model = tool.arguments_model.model_validate(arguments)
        except ValidationError as exc:
            raise ToolArgumentError(
                f"invalid arguments for {tool.name!r}: {describe_validation_error(tool, exc)}"
            ) from None
        return tool, {k: getattr(model, k) for k in type(model).model_fields}

    async def execute(self, call: ToolCall, *, frontend: str = "cli") -> ToolResult:
        try:
            tool, kwargs = self.validate(call)
        except UnknownToolError as exc:
            return ToolResult.failure(str(exc))
        except ToolError as exc:
            return ToolResult.failure(str(exc), mendable=isinstance(exc, ToolArgumentError))
        reason = await self.policy.check(tool, kwargs, frontend=frontend)
        if reason:
            log.info("tool call refused: %s", reason)
            return ToolResult.failure(reason)
        try:
            if tool.is_async:
                value = await asyncio.wait_for(tool.func(**kwargs), tool.timeout_s)
            else:
                value = await asyncio.wait_for(_in_daemon_thread(tool.func, kwargs), tool.timeout_s)
        except TimeoutError:
            log.warning("tool %r timed out after %.1f s", tool.name, tool.timeout_s)
            return ToolResult.failure(f"{tool.name} timed out after {tool.timeout_s:g} s")
        except Exception as exc:
            log.warning("tool %r raised %s: %s", tool.name, type(exc).__name__, exc)
            mendable = not isinstance(exc, ToolDeniedError)  # a refusal stays one
            return ToolResult.failure(f"{tool.name} failed: {exc}", mendable=mendable)
        if isinstance(value, ToolResult):
            return value
        return ToolResult.success(value)
