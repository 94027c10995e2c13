"""The ``math`` tool: arithmetic and common functions, evaluated from the syntax tree."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Annotated, Any

from pydantic import Field

from edgeagent.plugin import PluginContext, Register, ToolResult, hookimpl, make_tool, tool
from edgeagent_math.evaluator import MAX_EXPRESSION_CHARS, evaluate, tidy
from edgeagent_math.given import gives_numbers
from edgeagent_math.named import names_a_calculation
from edgeagent_math.notation import bare
from edgeagent_math.recall import with_earlier
from edgeagent_math.said import as_said


def math_answer(result: dict[str, Any]) -> str:
    """``{"expression": "12 * 7", "result": 84}`` -> ``12 * 7 = 84``."""
    return f"{result['expression']} = {result['result']}"


_NUMBER_ALONE = re.compile(r"^[-+]?\d+(?:[.,]\d+)?$")


@tool(name="math", answer=math_answer, title="a math problem to calculate")
def calculate(
    expression: Annotated[
        str, Field(max_length=MAX_EXPRESSION_CHARS, description="e.g. '2^10 + sqrt(2)*3'")
    ],
) -> dict[str, Any] | ToolResult:
    """Evaluate arithmetic, e.g. 2^10, 5!, sin(30°), ln(2), 20% of 150, mean([1,2])."""
    shown = bare(expression)
    if _NUMBER_ALONE.match(shown.replace(" ", "")):
        # "how many bones are in the human hand?" came as math("10"), answered "10 = 10":
        # a number the model knew or guessed, shown as a result. Not mendable: no other
        # expression serves a question that asks for no calculation.
        return ToolResult.failure(
            f"math: {shown!r} is a number alone, with nothing to calculate; answer "
            f"without the math tool",
            mendable=False,
        )
    return {"expression": shown, "result": tidy(evaluate(expression))}


@hookimpl
def register_tools(register: Register, context: PluginContext) -> None:
    # "68 fahrenheit to celsius" written as 68 - 32 * 5 / 9, "12.5% of 2048" as
    # 12.5 * 2048 (edgeagent_math.said);
    # "minus six?" after 56 written as ans - 6 (edgeagent_math.recall); "what's 25
    # times 4" names a calculation, and is not asked whether it is one (.named); "how
    # many planets are there?" gives no number to work on (.given).
    tool = make_tool(calculate, plugin="math")
    register(
        replace(
            tool,
            reread=as_said,
            recall=with_earlier,
            named_in=names_a_calculation,
            given_in=gives_numbers,
            given_otherwise="a unit conversion",
        )
    )
