"""A temperature conversion, read again from the request.

Asked "convert 68 fahrenheit to celsius", the model writes ``68 - 32 * 5 / 9`` or
``68 * 5 / 9``: the formula with its parentheses or a term lost (three blind prompt
sets, three wrong formulas). The request names the conversion and its number, so the
tool writes the formula itself where the model's gives another value.
"""

from __future__ import annotations

import re
from typing import Any

from edgeagent.plugin import ToolError, fold
from edgeagent_math.evaluator import evaluate

_NUMBER = r"(-?\d+(?:[.,]\d+)?)"
_DEGREES = r"\s*(?:°|º|degrees?|grados?|grad|degres?|gradi)?\s*"
_F = r"(?:f|fahrenheit)\b"
_C = r"(?:c|celsius|centigrade|centigrados?)\b"
_F_TO_C = re.compile(_NUMBER + _DEGREES + _F + r".*?\b" + _C)
_C_TO_F = re.compile(_NUMBER + _DEGREES + _C + r".*?\b" + _F)


def conversion_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``arguments`` with the expression of the temperature conversion ``request``
    names, where the model's gives another value; ``None``: as the model wrote them."""
    folded = fold(request)
    if match := _F_TO_C.search(folded):
        expression = f"({match.group(1).replace(',', '.')} - 32) * 5 / 9"
    elif match := _C_TO_F.search(folded):
        expression = f"{match.group(1).replace(',', '.')} * 9 / 5 + 32"
    else:
        return None
    try:
        if abs(evaluate(str(arguments.get("expression", ""))) - evaluate(expression)) < 1e-9:
            return None
    except (ToolError, ValueError, TypeError):
        pass  # the model's expression does not evaluate: the request's is what was meant
    return {**arguments, "expression": expression}
