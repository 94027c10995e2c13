"""The ``math`` tool: arithmetic and common functions, evaluated from the syntax tree."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

from pydantic import Field

from edgeagent.plugin import PluginContext, Register, hookimpl, make_tool, tool
from edgeagent_math.evaluator import MAX_EXPRESSION_CHARS, evaluate, tidy
from edgeagent_math.notation import bare
from edgeagent_math.recall import with_earlier
from edgeagent_math.said import conversion_as_said


def math_answer(result: dict[str, Any]) -> str:
    """``{"expression": "12 * 7", "result": 84}`` -> ``12 * 7 = 84``."""
    return f"{result['expression']} = {result['result']}"


@tool(name="math", answer=math_answer, title="a math problem to calculate")
def calculate(
    expression: Annotated[
        str, Field(max_length=MAX_EXPRESSION_CHARS, description="e.g. '2^10 + sqrt(2)*3'")
    ],
) -> dict[str, Any]:
    """Evaluate arithmetic, e.g. 2^10, 5!, sin(30°), ln(2), 20% of 150, mean([1,2])."""
    return {"expression": bare(expression), "result": tidy(evaluate(expression))}


@hookimpl
def register_tools(register: Register, context: PluginContext) -> None:
    # "68 fahrenheit to celsius" written as 68 - 32 * 5 / 9 (edgeagent_math.said);
    # "minus six?" after 56 written as ans - 6 (edgeagent_math.recall).
    tool = make_tool(calculate, plugin="math")
    register(replace(tool, reread=conversion_as_said, recall=with_earlier))
