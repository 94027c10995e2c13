"""Earlier results named in an expression: ``ans``, ``that``, ``angle``.

Asked to go on from a number an earlier turn gave ("minus six?" after 7 * 8 = 56,
"multiply that by three" after a word count of 11, "what's that plus 100" after the
servo read -40), the model wrote ``6 - 6``, ``4 * 3``, ``100 + 100``: it does not copy
a number from the history right (6 of 10 such turns of a probe, Qwen2.5-Coder-1.5B).
A name it copies right. So an expression may name the last result's number (``ans``,
or ``that``, ``it``, ``result``) or a field of an earlier result (``angle``,
``brightness``), and the tool writes in the number a tool gave
(:attr:`~edgeagent.tools.tool.Tool.recall`): the result shows ``56 - 6``, never a
number no tool produced.

Where nothing earlier gave a result at all, the name stands for nothing: the model
copied the primer's worked follow-up (``ans * 3``) for "dim it to 20%", "make it
brighter, double it" and "do the thing from before", each a first turn (three blind
prompt sets). Such a call is never run: :class:`~edgeagent.errors.NothingEarlierError`
says so, and the agent looks at the other tools.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from edgeagent.plugin import NothingEarlierError
from edgeagent_math.evaluator import CONSTANTS, FUNCTIONS, Number

LAST = frozenset({"ans", "answer", "that", "it", "this", "result", "previous", "last"})
"""Names of the last result's number."""
_NAME = re.compile(r"(?<![\w.])([A-Za-z_]\w*)(?!\w|\s*\()")
_STATUS = re.compile(r"(?:^|_)(?:code|status)$")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")


def with_earlier(arguments: dict[str, Any], earlier: Sequence[Any]) -> dict[str, Any] | None:
    """``arguments`` with the names of ``earlier`` results in the expression written as
    their numbers; ``None`` where it names none. A name with no number to stand for
    (the last result holds none, or several) stays, and the evaluator says so.

    Raises :class:`~edgeagent.errors.NothingEarlierError` where the expression names
    the last result and ``earlier`` holds no result at all."""
    expression = arguments.get("expression")
    if not isinstance(expression, str):
        return None
    if not earlier:
        last = sorted({m.group(1).lower() for m in _NAME.finditer(expression)} & LAST)
        if last:
            raise NothingEarlierError(
                f"math: {last[0]!r} in {expression!r} stands for an earlier result, and "
                f"this conversation has none yet; write the numbers themselves"
            )
        return None
    values = _named(earlier)

    def number(match: re.Match[str]) -> str:
        name = match.group(1).lower()
        if name in CONSTANTS or name in FUNCTIONS or name not in values:
            return match.group(0)
        value = values[name]
        return f"({value})" if value < 0 else str(value)

    filled = _NAME.sub(number, expression)
    return None if filled == expression else {**arguments, "expression": filled}


def _named(earlier: Sequence[Any]) -> dict[str, Number]:
    """Each field name's latest number, and under :data:`LAST` the last result's one
    number (its ``result`` field, or its only number)."""
    values: dict[str, Number] = {}
    for result in earlier:
        if isinstance(result, dict):
            values.update(
                (str(key).lower(), _tidy(value))
                for key, value in result.items()
                if _is_number(value)
            )
    for name in LAST:
        values.pop(name, None)  # "result" is the last result's, never an older one's
    last = _number_of(earlier[-1]) if earlier else None
    if last is not None:
        values.update(dict.fromkeys(LAST, last))
    return values


def _number_of(result: Any) -> Number | None:
    """The one number a result gives: a number, a ``result`` field, or the only number
    of a text or of a record (its fields and their texts; a status code aside, such
    as the shell's ``exit_code``); ``None`` where it holds none or several."""
    if _is_number(result):
        return _tidy(result)
    if isinstance(result, dict) and _is_number(result.get("result")):
        return _tidy(result["result"])
    numbers = _numbers(result)
    return _tidy(numbers[0]) if len(numbers) == 1 else None


def _numbers(result: Any) -> list[Number]:
    if _is_number(result):
        return [result]
    if isinstance(result, str):
        return [float(found) for found in _NUMBER.findall(result)]
    if isinstance(result, dict):
        return [
            number
            for key, value in result.items()
            if not _STATUS.search(str(key).lower())
            for number in _numbers(value)
        ]
    return []


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _tidy(value: Number) -> Number:
    return int(value) if isinstance(value, float) and value.is_integer() else value
