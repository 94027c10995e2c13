"""What a call carries: its values against the request and the turn before.

The side questions (:mod:`.checks`) ask about a call in the light of what it holds: a
tool's user's words carried from an earlier turn (:func:`carried`), a number or a file
taken from the turn before (:func:`carries`), a file the request names by its stem
(:func:`file_named`), and a request that refers back to a value (:data:`A_VALUE_BACK`).
An acting call for a request that names the last result's value ("that percentage") is
given that value (:func:`value_named_back`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from edgeagent.agent import honesty
from edgeagent.agent.asks import asks_a_question
from edgeagent.tools.executor import ToolCall
from edgeagent.tools.registry import ToolRegistry
from edgeagent.tools.tool import Tool, ToolKind
from edgeagent.tools.words import is_a_path, names_file, plain

log = logging.getLogger(__name__)


def carried(tool: Tool, call: ToolCall, prompt: str) -> bool:
    """Whether ``call`` of ``tool`` holds none of its user's words
    (:attr:`~edgeagent.tools.tool.Tool.user_words`) as ``prompt`` says them: carried from
    an earlier turn, so its :attr:`~edgeagent.tools.tool.Tool.asked_in` decides. A tool
    without user words is always asked by its ``asked_in``."""
    heard = plain(prompt)
    return all(
        not (value := plain(str(call.arguments.get(name, "")))) or value not in heard
        for name in tool.user_words
    )


def carries(call: ToolCall, prompt: str, earlier: str) -> bool:
    """Whether ``call`` holds a number or a file the turn before (``earlier``) holds
    and the request does not: it goes on from an earlier result. "how many times is
    milk on there", after the todo list was read, came as ``grep`` of ``todo.txt``
    and was refused as no search (blind prompts)."""
    before = {n.replace(",", "") for n in honesty.NUMBER.findall(earlier)}
    values = leaves(call.arguments)
    return any(
        isinstance(leaf, str) and is_a_path(leaf) and leaf in earlier and leaf not in prompt
        for leaf in values
    ) or any(
        n.replace(",", "") in before
        for leaf in values
        for n in honesty.new_numbers(str(leaf), prompt)
    )


def sets_from_device(
    registry: ToolRegistry,
    step_records: Sequence[dict[str, Any]],
    request: str,
    *,
    followed: str,
    acted: Sequence[str],
) -> bool:
    """Whether a step's successful reads compute a device's next value from the one
    the turn before (``followed``, whose successful calls were ``acted``) set: "now
    half of that", after "lights on full brightness", came as ``math`` of ``100 / 2``
    alone, and "10 more" after a servo turn as ``(-30) + 10`` (fresh53, fresh56); the
    strip and the servo stayed. A read takes a number of that turn that the request
    does not say, the turn acted through another plugin's tool, and the request asks
    no question ("what's half of that?" wants the number)."""
    if not step_records or not all(r.get("ok") for r in step_records):
        return False
    if any(r["name"] not in registry for r in step_records) or asks_a_question(request):
        return False
    read = [registry.get(r["name"]) for r in step_records]
    if any(t.kind is ToolKind.ACT for t in read):
        return False
    plugins = {t.plugin for t in read}
    if not any(
        n in registry
        and registry.get(n).kind is ToolKind.ACT
        and registry.get(n).plugin not in plugins
        for n in acted
    ):
        return False
    return any(
        carries(ToolCall(r["name"], r.get("arguments") or {}), request, followed)
        for r in step_records
    )


A_VALUE_BACK = re.compile(
    r"\b(?:that|this|those|these|same|double|twice|half|previous|last|earlier)\b", re.IGNORECASE
)
"""A request's reference back to a value ("to that angle", "double that"), not only to
a device ("move it")."""


VALUE_NAMED_BACK = re.compile(
    r"\b(?:that|this)\s+(?:number|percentage|percent|value|result|answer|angle|figure|many)"
    r"\b|\bthat\s*%",
    re.IGNORECASE,
)
"""A request's name for the last result's value: "at that percentage", "that many
degrees", "to that angle" (not "the same number as the brightness", another value)."""
_COMPUTED = re.compile(
    r"\b(?:double|twice|triple|thrice|half|halve|third|quarter|fifth|tenth|times|divided|"
    r"over|plus|minus|add|subtract|off|more|less|fewer|squared|root)\b|[-+*/×÷^]|%\s*of",
    re.IGNORECASE,
)
"""A value computed from the one named back: "double that angle", "that result divided
by six", "take 2381 off that number"."""


def value_named_back(
    registry: ToolRegistry, call: ToolCall, request: str, earlier: Sequence[Any]
) -> ToolCall:
    """``call`` of an acting tool with the last result's one number where the
    ``request`` names it (:data:`VALUE_NAMED_BACK`), computes nothing from it
    (:data:`_COMPUTED`), and the call's one number is another that the request does not
    say: "put the lights on at that percentage", after a square root of 12, came as
    ``brightness: 50`` (fresh47). ``call`` as it is otherwise."""
    if call.name not in registry or not isinstance(call.arguments, dict) or not earlier:
        return call
    if registry.get(call.name).kind is not ToolKind.ACT:
        return call
    if not VALUE_NAMED_BACK.search(request) or _COMPUTED.search(request):
        return call
    last = _one_number(earlier[-1])
    numbers = [(k, v) for k, v in call.arguments.items() if is_number(v)]
    if last is None or len(numbers) != 1:
        return call
    key, value = numbers[0]
    said = numbers_in(request)
    if value == last or number(str(value)) in said:
        return call
    log.info("%s %r: the value named back is %r", call.name, call.arguments, last)
    return ToolCall(call.name, {**call.arguments, key: last})


def _one_number(result: Any) -> int | float | None:
    """The one number of a tool's ``result``: itself, its ``result`` field, or its only
    number field (a device's state: ``{"angle": 45}``); ``None``: none or several."""
    if is_number(result):
        return result  # type: ignore[no-any-return]
    if not isinstance(result, dict):
        return None
    if is_number(result.get("result")):
        return result["result"]  # type: ignore[no-any-return]
    found = [v for v in result.values() if is_number(v)]
    return found[0] if len(found) == 1 else None


def is_number(value: object) -> bool:
    """Whether ``value`` is a number (``True`` is no number)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def file_named(call: ToolCall, prompt: str) -> str | None:
    """The first file ``call`` reads that ``prompt`` names by its stem
    (:func:`~edgeagent.tools.words.names_file`: "my todo list" for ``todo.md``), or
    ``None``. The topic question names it after the tool's title: measured on 12
    requests that read a file named so and 12 that ask something else of it
    (``bench/side_questions.py --files``), "Show what a file contains" let through 6
    reads and 3 others; with the file, 12 and 6 (the others' changes, "delete the todo
    list", are refused before)."""
    for value in leaves(call.arguments):
        if isinstance(value, str) and names_file(value, prompt):
            return value
    return None


def leaves(value: object) -> list[object]:
    """The scalar values inside arguments (lists and objects opened)."""
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in leaves(item)]
    return [value]


def number(text: str) -> str:
    """A number's digits as written in any form: "30", "30.0" and "30,0" are "30"."""
    try:
        return f"{float(text.replace(',', '.')):g}"
    except ValueError:
        return text


_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+")
"""A number in groups of three digits ("12,400"): thousands in English, a decimal in
much of Europe."""


def numbers_in(text: str) -> set[str]:
    """The numbers ``text`` writes in digits, each as :func:`number` spells it; a number
    in groups of three (:data:`_GROUPED`) both ways: "12,400" is 12400 and 12.4. Read as
    a decimal only, a budget of "12,400" made the call's 12400 a number nobody said, and
    its topic was asked (a second)."""
    found = set()
    for written in honesty.NUMBER.findall(text):
        found.add(number(written))
        if _GROUPED.fullmatch(written):
            found.add(number(written.replace(",", "")))
    return found
