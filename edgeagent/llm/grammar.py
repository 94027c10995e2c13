"""A GBNF grammar that lets the model talk freely but call tools only correctly.

The grammar accepts any text that does not contain the call's open marker (for
example ``<tool_call>``). Once the model writes the marker it is committed: the
grammar then admits only ``{"name": "<an enabled tool>", "arguments": {...}}`` whose
arguments match that tool's JSON schema, then the close marker (``</tool_call>``, or
the closing fence for a ```` ```json ```` opener), after which free text (or another
call) may follow. "Text without the marker" is a regular language, so the prose part
is a small automaton over the marker's prefixes (KMP-style), written as right-linear
GBNF rules, which llama.cpp runs in constant stack depth.

Limits (the executor still validates every call, so these cost retries, not safety):

* Only calls that start with the open marker are constrained. A call written as a bare
  JSON object or inside a different fence stays free text.
* Keys come in a fixed order: ``name`` then ``arguments``; inside ``arguments`` the
  required properties come first, in schema order, then optional ones in schema order.
* Numeric ranges (``minimum``/``maximum``), ``multipleOf`` and string formats other
  than date/time/uuid are not enforced; ``pattern`` is enforced as far as llama.cpp's
  converter understands the regex.
* ``require_call=True`` forces exactly one call (leading whitespace allowed), for
  "the model must call a tool now" and for tests.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from edgeagent.errors import ToolDefinitionError
from edgeagent.tools.tool import Tool

_WS = "ws"


def close_marker_for(open_marker: str) -> str:
    """``<tool_call>`` -> ``</tool_call>``; a ```` ``` ```` fence -> ```` ``` ````; else ``""``."""
    if open_marker.startswith("```"):
        return "```"
    if (
        open_marker.startswith("<")
        and open_marker.endswith(">")
        and not open_marker.startswith("</")
    ):
        return "</" + open_marker[1:]
    return ""


def literal(text: str) -> str:
    """A GBNF string literal (JSON escaping is a subset GBNF understands)."""
    return json.dumps(text, ensure_ascii=False)


def _char_class(chars: str, *, negate: bool) -> str:
    body = "".join(_escape_class_char(c) for c in sorted(set(chars)))
    return f"[{'^' if negate else ''}{body}]"


def _escape_class_char(c: str) -> str:
    if c in "\\]^-[":
        return "\\" + c
    if c == "\n":
        return "\\n"
    if c == "\r":
        return "\\r"
    if c == "\t":
        return "\\t"
    return c


def _next_state(marker: str, state: int, char: str) -> int:
    """Length of the longest marker prefix that ends ``marker[:state] + char``."""
    seen = marker[:state] + char
    for k in range(min(len(seen), len(marker)), 0, -1):
        if seen.endswith(marker[:k]):
            return k
    return 0


def _prose_rules(marker: str, after_marker: str | None) -> list[str]:
    """Rules ``prose-0 .. prose-(n-1)``: text that never completes ``marker``.

    ``prose-k`` means "the last k characters typed are ``marker[:k]``". Typing the
    marker's last character moves to ``after_marker`` instead (the call); with
    ``after_marker=None`` the marker cannot be completed at all.
    """
    rules = []
    for state in range(len(marker)):
        # Only characters that extend a partial match need their own alternative; all
        # others go back to prose-0 through one negated class (fewer grammar stacks,
        # which is what sampling speed depends on).
        moves = {c: _next_state(marker, state, c) for c in sorted(set(marker))}
        moves = {c: nxt for c, nxt in moves.items() if nxt}
        alts = ['""', f"{_char_class(''.join(moves), negate=True)} prose-0"]
        for char, nxt in moves.items():
            if nxt == len(marker) and after_marker is None:
                continue
            target = after_marker if nxt == len(marker) else f"prose-{nxt}"
            alts.append(f"{literal(char)} {target}")
        rules.append(f"prose-{state} ::= " + " | ".join(alts))
    return rules


def _arguments_rules(tools: Sequence[Tool]) -> tuple[dict[str, str], str]:
    """Per tool: the rule name for its arguments object; plus the converter's rules."""
    from llama_cpp.llama_grammar import SchemaConverter

    converter = SchemaConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
    names: dict[str, str] = {}
    for index, tool in enumerate(tools):
        schema: dict[str, Any] = json.loads(json.dumps(tool.parameters))
        schema = converter.resolve_refs(schema, f"tool-{index}")
        # An argument-less tool still takes an (empty) object.
        if schema.get("type") == "object" and "properties" not in schema:
            schema = {**schema, "properties": {}}
        names[tool.name] = converter.visit(schema, f"args{index}")
    return names, converter.format_grammar()


def grammar_refusals(tools: Sequence[Tool]) -> dict[str, str]:
    """The tools whose arguments schema llama.cpp's converter refuses, and why.

    A schema from outside (an MCP server's) may use what the converter does not know: a
    regex lookahead, a reference to another document, an unknown type. Such a tool
    stays callable; it is only left out of grammars, which would otherwise fail whole.
    """
    refusals: dict[str, str] = {}
    for tool in tools:
        try:
            _arguments_rules([tool])
        except Exception as exc:  # the converter asserts, raises KeyError, ValueError...
            refusals[tool.name] = f"{type(exc).__name__}: {exc}"
    return refusals


def build_tool_grammar(
    tools: Sequence[Tool],
    *,
    open_marker: str,
    close_marker: str | None = None,
    require_call: bool = False,
    calls_first: bool = False,
) -> str:
    """GBNF for free text, or calls ``open {"name": ..., "arguments": ...} close``.

    ``close_marker`` defaults to :func:`close_marker_for` of the open marker.
    ``calls_first`` decides at the first token: the reply is either calls (one or
    more, nothing before them) or plain text that never holds the marker.
    """
    if not tools:
        raise ToolDefinitionError(
            "build_tool_grammar needs at least one tool; with no tools enabled, "
            "generate without a grammar"
        )
    if not open_marker:
        raise ToolDefinitionError("build_tool_grammar: open_marker must not be empty")
    close = close_marker_for(open_marker) if close_marker is None else close_marker
    args_rules, converted = _arguments_rules(tools)

    per_tool = []
    lines = []
    for index, tool in enumerate(tools):
        rule = f"call{index}"
        per_tool.append(rule)
        lines.append(
            f"{rule} ::= {literal(json.dumps(tool.name))} {_WS} "
            f'"," {_WS} "\\"arguments\\"" {_WS} ":" {_WS} {args_rules[tool.name]}'
        )
    lines.append(
        f'call ::= "{{" {_WS} "\\"name\\"" {_WS} ":" {_WS} ( {" | ".join(per_tool)} ) {_WS} "}}"'
    )
    close_part = f" {_WS} {literal(close)}" if close else ""
    if require_call:
        lines.append(f"root ::= [ \\t\\n]{{0,4}} {literal(open_marker)} {_WS} call{close_part}")
    elif calls_first:
        block = f"{literal(open_marker)} {_WS} call{close_part}"
        lines.append(f"root ::= [ \\t\\n]{{0,4}} {block} ( {_WS} {block} )* | prose-0")
        lines.extend(_prose_rules(open_marker, None))
    else:
        lines.append("root ::= prose-0")
        lines.append(f"called ::= {_WS} call{close_part} prose-0")
        lines.extend(_prose_rules(open_marker, "called"))
    # Bounded, so a greedy model cannot loop on whitespace forever.
    lines.append(f"{_WS} ::= [ \\t\\n]{{0,16}}")
    return "\n".join(lines) + "\n" + converted + "\n"
