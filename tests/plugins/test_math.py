"""The ``math`` tool: arithmetic from the syntax tree, with limits checked before work."""

from __future__ import annotations

import asyncio
import math
import time

import pytest
from edgeagent_math import calculate
from edgeagent_math.evaluator import MAX_EXPRESSION_CHARS, MathError, evaluate, tidy

from edgeagent.tools import make_tool
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.registry import ToolRegistry

VALUES = [
    ("1 + 2 * 3", 7),
    ("(1 + 2) * 3", 9),
    ("7 // 2", 3),
    ("7 % 4", 3),
    ("-2 ** 2", -4),
    ("2 ** -1", 0.5),
    ("2 ** 10", 1024),
    ("sqrt(2) ** 2", 2.0000000000000004),
    ("hypot(3, 4)", 5.0),
    ("log(8, 2)", 3.0),
    ("log10(1000)", 3.0),
    ("exp(0)", 1.0),
    ("abs(-3.5)", 3.5),
    ("round(pi, 3)", 3.142),
    ("round(2.6)", 3),
    ("floor(-1.5)", -2),
    ("ceil(1.2)", 2),
    ("min(3, 1, 2)", 1),
    ("max(3, 1, 2)", 3),
    ("degrees(pi)", 180.0),
    ("radians(180)", math.pi),
    ("sin(pi / 2) + cos(0) + tan(0)", 2.0),
    ("factorial(5)", 120),
    ("e", math.e),
    ("1e300", 1e300),
]


@pytest.mark.parametrize(("expression", "value"), VALUES)
def test_values(expression: str, value: float) -> None:
    assert evaluate(expression) == value


REFUSED = [
    ("__import__('os')", "unknown function '__import__'"),
    ("__import__('os').system('true')", "unknown function"),
    ("(1).real", "Attribute is not supported"),
    ("[1, 2]", "List is not supported"),
    ("'a' * 3", "'a' is not a number"),
    ("True + 1", "True is not a number"),
    ("lambda: 1", "Lambda is not supported"),
    ("x + 1", "unknown name 'x'"),
    ("1 if 1 else 2", "IfExp is not supported"),
    ("1 < 2", "Compare is not supported"),
    ("2 ^ 3", "write x ** y"),
    ("1 << 10", "LShift is not supported"),
    ("sin(x=1)", "positional arguments only"),
    ("sqrt(1, 2)", "takes 1 arguments, got 2"),
    ("max()", "1 or more arguments"),
    ("max(*[1])", "Starred is not supported"),
    ("1 / 0", "division by zero"),
    ("5 % 0", "division by zero"),
    ("0 ** -1", "division by zero"),
    ("sqrt(-1)", "math domain error"),
    ("(-8) ** 0.5", "not a real number"),
    ("exp(1000)", "too large"),
    ("1e999", "not a finite number"),
    ("10 ** 299 * 100", "exceeds the limit"),
    ("factorial(101)", "0..100"),
    ("factorial(2.5)", "whole number"),
    ("round(1, 1000)", "-15..15"),
    ("1 +", "not an arithmetic expression"),
    ("1" * (MAX_EXPRESSION_CHARS + 1), "limit is 300"),
    ("+".join(["1"] * 100), "too many parts"),
]


@pytest.mark.parametrize(("expression", "reason"), REFUSED)
def test_refused_with_a_reason(expression: str, reason: str) -> None:
    with pytest.raises(MathError) as info:
        evaluate(expression)
    assert reason in str(info.value)


@pytest.mark.parametrize(
    "expression", ["9**9**9", "2 ** 10 ** 10", "10.0 ** 400", "(-3) ** 9999999"]
)
def test_huge_powers_are_refused_at_once(expression: str) -> None:
    started = time.perf_counter()
    with pytest.raises(MathError, match="would be about 10\\^"):
        evaluate(expression)
    assert time.perf_counter() - started < 0.05


def test_tool_rounds_float_noise_and_shows_whole_numbers_as_ints() -> None:
    assert calculate("0.1 + 0.2") == {"expression": "0.1 + 0.2", "result": 0.3}
    assert calculate("sqrt(16)") == {"expression": "sqrt(16)", "result": 4}
    assert tidy(1 / 3) == 0.333333333333
    assert tidy(1e300) == 1e300


def test_through_the_executor_errors_are_results_the_model_reads() -> None:
    executor = ToolExecutor(ToolRegistry([make_tool(calculate, plugin="math")]))
    ok = asyncio.run(executor.execute(ToolCall("math", {"expression": "2 * (3 + 4)"})))
    assert ok.to_dict() == {"ok": True, "result": {"expression": "2 * (3 + 4)", "result": 14}}
    bad = asyncio.run(executor.execute(ToolCall("math", {"expression": "9**9**9"})))
    assert not bad.ok and bad.error is not None and "above the 1e+300 limit" in bad.error
    long = asyncio.run(executor.execute(ToolCall("math", {"expression": "1" * 301})))
    assert not long.ok and long.error is not None and "invalid arguments" in long.error


def test_schema_is_short_and_exact() -> None:
    t = make_tool(calculate)
    assert t.name == "math"
    assert t.parameters == {
        "properties": {
            "expression": {"description": "e.g. 'sqrt(2)*3'", "maxLength": 300, "type": "string"}
        },
        "required": ["expression"],
        "type": "object",
    }
