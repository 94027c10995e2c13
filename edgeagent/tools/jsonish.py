"""Lenient JSON for what small models really write.

Small models write almost-JSON: single quotes, trailing commas, Python's ``True``/``None``,
raw newlines inside strings, or an object cut off by the token limit. These helpers find
where a JSON value ends inside free text and decode it forgivingly; the call parser
(:mod:`edgeagent.tools.calls`) builds on them.
"""

from __future__ import annotations

import ast
import json
import math
import re
from typing import Any

_CLOSERS = {"{": "}", "[": "]"}
_PY_WORDS = {"True": "true", "False": "false", "None": "null"}


def json_end(text: str, start: int) -> int | None:
    """Index just past the JSON object/array that opens at ``start``; ``None`` if unclosed.

    Strings in either quote style are skipped, so braces inside strings do not count.
    """
    stack: list[str] = []
    quote = ""
    i = start
    n = len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            # An apostrophe only opens a string where a JSON value or key can start;
            # elsewhere (a bare word like don't) it is left alone.
            if ch == '"' or _value_position(text, i):
                quote = ch
        elif ch in _CLOSERS:
            stack.append(_CLOSERS[ch])
        elif ch in "}]":
            if not stack or stack[-1] != ch:
                return None
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    return None


_SUM = re.compile(r"[-(]*\s*\d+(?:\.\d+)?(?:\s*\)*\s*[-+*/]\s*[-(]*\s*\d+(?:\.\d+)?)+\s*\)*")
"""Numbers between operators, in parentheses or not: ``128 / 4``, ``(40 + 20) * 2``."""
_AFTER_VALUE = re.compile(r"\s*(?:[,}\]]|$)")
_DATE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}-\d{1,2}-\d{2,4}")


def _worked_out(raw: str, i: int) -> tuple[str, int] | None:
    """The value of a sum written where a JSON value goes (``{"brightness": 128 / 4}``,
    fresh74, is ``32``), and the index past it; ``None`` for anything else. The model
    meant the value: the call came so for "a quarter of that number"."""
    found = _SUM.match(raw, i)
    if found is None or not _AFTER_VALUE.match(raw, found.end()):
        return None
    if _DATE.fullmatch(found.group(0).strip()):
        return None  # a date written bare ({"day": 2026-11-30}) is no sum

    try:
        value = _arithmetic(ast.parse(found.group(0).strip(), mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError):
        return None
    if not math.isfinite(value):
        return None
    return (str(int(value)) if value.is_integer() else repr(value)), found.end()


def _arithmetic(node: ast.expr) -> float:
    """The value of a syntax tree of numbers and ``+ - * /`` only."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_arithmetic(node.operand)
    operators = {ast.Add: float.__add__, ast.Sub: float.__sub__, ast.Mult: float.__mul__}
    if isinstance(node, ast.BinOp) and type(node.op) in operators:
        return operators[type(node.op)](_arithmetic(node.left), _arithmetic(node.right))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return _arithmetic(node.left) / _arithmetic(node.right)
    raise ValueError("not a sum of numbers")


def _value_position(text: str, i: int) -> bool:
    j = i - 1
    while j >= 0 and text[j] in " \t\r\n":
        j -= 1
    return j < 0 or text[j] in "{[,:"


def _normalise(raw: str, *, close: bool) -> str:
    """Rewrite almost-JSON into JSON: quotes, trailing commas, Python words, closers."""
    out: list[str] = []
    stack: list[str] = []
    quote = ""
    i = 0
    n = len(raw)
    while i < n:
        ch = raw[i]
        if quote:
            if ch == "\\" and i + 1 < n:
                nxt = raw[i + 1]
                # \' is not a JSON escape; inside a rewritten string it is just '
                out.append("'" if nxt == "'" else ch + nxt)
                i += 2
                continue
            if ch == quote:
                quote = ""
                out.append('"')
            elif ch == '"':  # a double quote inside a single-quoted string
                out.append('\\"')
            else:
                out.append(ch)
            i += 1
            continue
        if ch in "\"'" and (ch == '"' or _value_position(raw, i)):
            quote = ch
            out.append('"')
        elif ch in _CLOSERS:
            stack.append(_CLOSERS[ch])
            out.append(ch)
        elif ch in "}]":
            _drop_trailing_comma(out)
            if stack:
                stack.pop()
            out.append(ch)
        elif (
            (ch.isdigit() or ch in "(-.")
            and _value_position(raw, i)
            and (worked := _worked_out(raw, i))
        ):
            number, i = worked
            out.append(number)
            continue
        elif ch.isalpha():
            j = i
            while j < n and (raw[j].isalnum() or raw[j] == "_"):
                j += 1
            word = raw[i:j]
            out.append(_PY_WORDS.get(word, word))
            i = j
            continue
        else:
            out.append(ch)
        i += 1
    if close:
        if quote:
            out.append('"')
        for closer in reversed(stack):
            _drop_trailing_comma(out)
            out.append(closer)
    return "".join(out)


def _drop_trailing_comma(out: list[str]) -> None:
    j = len(out) - 1
    while j >= 0 and out[j].isspace():
        j -= 1
    if j >= 0 and out[j] == ",":
        del out[j]


MAX_DEPTH = 32
"""Nesting allowed in JSON from outside (clients, the model): real requests and calls
are nearly flat; deeper is hostile, and Python's parser recurses (``RecursionError``
near 1,000 levels, less inside a deep call stack)."""


def nesting_depth(text: str) -> int:
    """How deep ``[``/``{`` nest in JSON-ish ``text`` (outside strings), in one pass."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def loads_lenient(raw: str, *, close: bool = False) -> Any:
    """Decode almost-JSON; ``close=True`` also closes a value cut off at the end.

    Raises ``ValueError`` (``json.JSONDecodeError``) when even the repaired text is not
    JSON, and when it nests deeper than :data:`MAX_DEPTH` (a hostile or looping model).
    """
    if nesting_depth(raw) > MAX_DEPTH:
        raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels")
    try:
        try:
            return json.loads(raw, strict=False)
        except ValueError:
            pass
        return json.loads(_normalise(raw, close=close), strict=False)
    except RecursionError:
        raise ValueError("JSON nested too deep to read") from None


def argument_words(value: Any) -> list[str] | None:
    """``value`` as a .tool wrapper's argument list, when it is a list of words: strings,
    and numbers among them written out (``["logs/app.log", 3]``, blind prompts, is
    ``["logs/app.log", "3"]``); ``None`` for anything else (``[1, 2]`` for the LED is
    no argument list)."""
    if not isinstance(value, list):
        return None
    words = []
    for item in value:
        if isinstance(item, str):
            words.append(item)
        elif isinstance(item, int) and not isinstance(item, bool):
            words.append(str(item))
        elif isinstance(item, float) and math.isfinite(item):
            words.append(str(int(item)) if item.is_integer() else repr(item))
        else:
            return None
    return words if not value or any(isinstance(i, str) for i in value) else None
