"""Render tools into a manifest the model reads: the same tools, five formats.

* ``concise`` (the default for a 2048-token context): one line per tool,
  ``led(color: str, brightness?: int 0-100) - Set the LED strip.``
* ``verbose``: every parameter on its own line with type, range, default, description.
* ``qwen``: Qwen2.5's native ``<tools>`` block, one function JSON per line.
* ``openai``: the ``tools`` list of the OpenAI chat API (for engines with native tools).
* ``anthropic``: ``{name, description, input_schema}`` dicts.

The tool manifest format (how tools are *described*) is independent of the call format
(how the model *asks* for one, :mod:`edgeagent.tools.calls`).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Sequence
from typing import Any

from edgeagent.errors import ConfigError
from edgeagent.tools.tool import Tool, ToolKind

MANIFEST_FORMATS: tuple[str, ...] = ("concise", "verbose", "qwen", "openai", "anthropic")
TEXT_FORMATS: frozenset[str] = frozenset({"concise", "verbose", "qwen"})
_SHORT_TYPES = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "array": "list",
    "object": "dict",
    "null": "none",
}


def _short_type(spec: dict[str, Any]) -> str:
    """``str``, ``int``, ``list[str]``, ``"on"|"off"`` or ``int|str`` for a schema node."""
    if "enum" in spec:
        return "|".join(_enum_value(v) for v in spec["enum"])
    for union in ("anyOf", "oneOf"):
        if union in spec:
            return "|".join(_short_type(s) for s in spec[union] if s.get("type") != "null")
    kind = spec.get("type", "any")
    if isinstance(kind, list):
        return "|".join(_SHORT_TYPES.get(str(k), str(k)) for k in kind if k != "null")
    if kind == "array" and isinstance(spec.get("items"), dict):
        return f"list[{_short_type(spec['items'])}]"
    return _SHORT_TYPES.get(kind, str(kind))


def _enum_value(value: Any) -> str:
    # Bare words read as well as quoted ones and cost fewer tokens.
    if isinstance(value, str) and value.replace("-", "_").isidentifier():
        return value
    return json.dumps(value, ensure_ascii=False)


def _range(spec: dict[str, Any], *, lengths: bool = True) -> str:
    """``0-100``, ``>=0``, ``<10``, ``1-64 chars``, or ``""`` for a schema node."""
    lo = spec.get("minimum")
    hi = spec.get("maximum")
    if lo is not None and hi is not None:
        return f"{_num(lo)}-{_num(hi)}"
    parts = []
    if lo is not None:
        parts.append(f">={_num(lo)}")
    if "exclusiveMinimum" in spec:
        parts.append(f">{_num(spec['exclusiveMinimum'])}")
    if hi is not None:
        parts.append(f"<={_num(hi)}")
    if "exclusiveMaximum" in spec:
        parts.append(f"<{_num(spec['exclusiveMaximum'])}")
    lo_len, hi_len = spec.get("minLength"), spec.get("maxLength")
    if lengths and hi_len is not None:
        parts.append(f"{lo_len or 0}-{hi_len} chars")
    elif lengths and lo_len is not None:
        parts.append(f">={lo_len} chars")
    return " ".join(parts)


def _num(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _params(tool: Tool) -> list[tuple[str, dict[str, Any], bool]]:
    props: dict[str, Any] = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", []))
    return [(name, spec, name in required) for name, spec in props.items()]


def _concise_line(tool: Tool, *, descriptions: bool) -> str:
    args = []
    for name, spec, required in _params(tool):
        text = f"{name}{'' if required else '?'}: {_short_type(spec)}"
        # String lengths are noise for a small model, and so is a lone ">=0" (counts,
        # indexes); verbose keeps both.
        limits = _range(spec, lengths=False)
        if limits == ">=0":
            limits = ""
        if limits:
            text += f" {limits}"
        if descriptions and spec.get("description"):
            text += f" ({spec['description']})"
        args.append(text)
    return f"{tool.name}({', '.join(args)}) - {tool.description}"


def render_concise(
    tools: Sequence[Tool], *, header: bool = True, param_descriptions: bool = False
) -> str:
    """One line per tool: the signature (``?`` marks an optional parameter; types, ranges
    and enums inline) and the tool's one-line description.

    Parameter descriptions are left to ``verbose``; a plugin puts the argument semantics
    the model must know ("negative = left") into the tool's description line, which
    every format shows.
    """
    lines = ["Tools:"] if header else []
    lines += [_concise_line(t, descriptions=param_descriptions) for t in tools]
    return "\n".join(lines)


def _verbose_param(name: str, spec: dict[str, Any], required: bool) -> str:
    facts = [spec.get("type", "any") if "enum" not in spec else "enum"]
    facts.append("required" if required else "optional")
    if "enum" in spec:
        facts.append("one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in spec["enum"]))
    elif "anyOf" in spec or isinstance(spec.get("type"), list) or spec.get("type") == "array":
        facts[0] = _short_type(spec)
    limits = _range(spec)
    if limits:
        facts.append(limits)
    if "default" in spec:
        facts.append(f"default {json.dumps(spec['default'], ensure_ascii=False)}")
    line = f"  - {name} ({', '.join(facts)})"
    if spec.get("description"):
        line += f": {spec['description']}"
    return line


def render_verbose(tools: Sequence[Tool], *, header: bool = True) -> str:
    """Each tool with whether it acts or only reads, its description, then one line per
    parameter with its type, requiredness, limits, default and description."""
    blocks = []
    for t in tools:
        params = _params(t)
        kind = "acts on devices" if t.kind is ToolKind.ACT else "read-only"
        lines = [f"{t.name} ({kind}): {t.description}"]
        if params:
            lines.append("  Parameters:")
            lines += [_verbose_param(n, s, r) for n, s, r in params]
        else:
            lines.append("  Parameters: none")
        blocks.append("\n".join(lines))
    body = "\n\n".join(blocks)
    return f"Available tools:\n\n{body}" if header else body


def render_openai(tools: Sequence[Tool]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        }
        for t in tools
    ]


def render_anthropic(tools: Sequence[Tool]) -> list[dict[str, Any]]:
    return [
        {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools
    ]


def render_qwen(tools: Sequence[Tool]) -> str:
    """Qwen2.5's chat-template ``<tools>`` block: one function JSON per line."""
    lines = [json.dumps(entry, ensure_ascii=False) for entry in render_openai(tools)]
    return "<tools>\n" + "\n".join(lines) + "\n</tools>"


_RENDERERS: dict[str, Callable[..., str | list[dict[str, Any]]]] = {
    "concise": render_concise,
    "verbose": render_verbose,
    "qwen": render_qwen,
    "openai": render_openai,
    "anthropic": render_anthropic,
}


def render_manifest(tools: Sequence[Tool], fmt: str, **options: Any) -> str | list[dict[str, Any]]:
    """Render ``tools`` as format ``fmt`` (see the module docstring).

    ``options``: ``header`` (text formats, default True) and ``param_descriptions``
    (``concise`` only, default False).
    """
    renderer = _RENDERERS.get(fmt)
    if renderer is None:
        raise ConfigError(
            f"Unknown manifest format {fmt!r}; expected one of {', '.join(MANIFEST_FORMATS)} "
            f"(set [agent] manifest_format)"
        )
    accepted = [p.name for p in inspect.signature(renderer).parameters.values()][1:]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ConfigError(
            f"Manifest format {fmt!r} takes no option {', '.join(unknown)}; "
            f"it takes: {', '.join(accepted) or 'none'}"
        )
    return renderer(list(tools), **options)
