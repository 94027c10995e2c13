"""The ``math`` tool: arithmetic and common functions, evaluated from the syntax tree."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from edgeagent.tools import PluginContext, hookimpl, tool
from edgeagent_math.evaluator import MAX_EXPRESSION_CHARS, evaluate, tidy


@tool(name="math")
def calculate(
    expression: Annotated[
        str, Field(max_length=MAX_EXPRESSION_CHARS, description="e.g. 'sqrt(2)*3'")
    ],
) -> dict[str, Any]:
    """Evaluate arithmetic (+-*/ ** sqrt sin log pi ...)."""
    return {"expression": expression, "result": tidy(evaluate(expression))}


@hookimpl
def register_tools(register: Any, context: PluginContext) -> None:
    register(calculate)
