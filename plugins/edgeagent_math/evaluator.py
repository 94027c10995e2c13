"""Evaluate arithmetic from its syntax tree, node by whitelisted node; never ``eval``.

Every limit is checked *before* the work it bounds: ``9**9**9`` is refused from the
operands' magnitudes, not after a CPU-bound attempt to compute it.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

from edgeagent.errors import ToolArgumentError

Number = int | float

MAX_EXPRESSION_CHARS = 300
MAX_NODES = 150
MAX_MAGNITUDE = 1e300
MAX_FACTORIAL = 100
MAX_ROUND_DIGITS = 15

CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e}


def _round(x: Number, digits: Number = 0) -> Number:
    if not isinstance(digits, int) or abs(digits) > MAX_ROUND_DIGITS:
        raise MathError(f"round's digits must be a whole number -15..15, got {digits!r}")
    return round(x, digits) if digits else round(x)


def _factorial(n: Number) -> int:
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    if not isinstance(n, int) or not 0 <= n <= MAX_FACTORIAL:
        raise MathError(f"factorial needs a whole number 0..{MAX_FACTORIAL}, got {n!r}")
    return math.factorial(n)


def _log(x: Number, base: Number | None = None) -> float:
    return math.log(x) if base is None else math.log(x, base)


def _minmax(pick: Callable[..., Number]) -> Callable[..., Number]:
    def choose(*args: Number) -> Number:
        if not args:
            raise MathError("min and max need at least one number")
        return pick(args)

    return choose


# name -> (function, fewest arguments, most arguments; None = any number)
FUNCTIONS: dict[str, tuple[Callable[..., Number], int, int | None]] = {
    "sqrt": (math.sqrt, 1, 1),
    "sin": (math.sin, 1, 1),
    "cos": (math.cos, 1, 1),
    "tan": (math.tan, 1, 1),
    "log": (_log, 1, 2),
    "log10": (math.log10, 1, 1),
    "exp": (math.exp, 1, 1),
    "abs": (abs, 1, 1),
    "round": (_round, 1, 2),
    "floor": (math.floor, 1, 1),
    "ceil": (math.ceil, 1, 1),
    "min": (_minmax(min), 1, None),
    "max": (_minmax(max), 1, None),
    "hypot": (math.hypot, 1, None),
    "degrees": (math.degrees, 1, 1),
    "radians": (math.radians, 1, 1),
    "factorial": (_factorial, 1, 1),
}

BINARY: dict[type[ast.operator], Callable[[Any, Any], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}


class MathError(ToolArgumentError):
    """An expression the calculator refuses or cannot evaluate; shown to the model."""


def evaluate(expression: str) -> Number:
    """The value of ``expression``; raise :class:`MathError` saying what is wrong."""
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise MathError(
            f"expression is {len(expression)} characters; the limit is {MAX_EXPRESSION_CHARS}"
        )
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise MathError(f"{expression!r} is not an arithmetic expression: {exc}") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise MathError(f"expression has too many parts (limit {MAX_NODES}); split it up")
    try:
        return _checked(_eval(tree.body))
    except ZeroDivisionError:
        raise MathError(f"{expression!r}: division by zero") from None
    except OverflowError:
        raise MathError(f"{expression!r}: the result is too large") from None
    except (ValueError, TypeError) as exc:
        if isinstance(exc, MathError):
            raise
        raise MathError(f"{expression!r}: {exc}") from None


def _checked(value: Any) -> Number:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MathError(f"the result {value!r} is not a real number")
    if isinstance(value, float) and not math.isfinite(value):
        raise MathError(f"the result is {value}, not a finite number")
    if abs(value) > MAX_MAGNITUDE:
        raise MathError(f"a value exceeds the limit of {MAX_MAGNITUDE:g}")
    return value


def _eval(node: ast.expr) -> Number:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise MathError(f"{node.value!r} is not a number")
        return _checked(node.value)
    if isinstance(node, ast.Name):
        if node.id in CONSTANTS:
            return CONSTANTS[node.id]
        raise MathError(f"unknown name {node.id!r}; constants: {', '.join(CONSTANTS)}")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        value = _eval(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp):
        return _binary(node)
    if isinstance(node, ast.Call):
        return _call(node)
    raise MathError(
        f"{type(node).__name__} is not supported; use numbers, + - * / // % **, "
        f"parentheses and the functions {', '.join(FUNCTIONS)}"
    )


def _binary(node: ast.BinOp) -> Number:
    if isinstance(node.op, ast.BitXor):
        raise MathError("'^' is not a power here; write x ** y")
    left, right = _eval(node.left), _eval(node.right)
    if isinstance(node.op, ast.Pow):
        return _checked(_power(left, right))
    op = BINARY.get(type(node.op))
    if op is None:
        raise MathError(f"operator {type(node.op).__name__} is not supported; use + - * / // % **")
    return _checked(op(left, right))


def _power(base: Number, exponent: Number) -> Number:
    # Estimate the result's size from the operands, so a huge power costs nothing.
    if abs(base) > 1 and exponent > 0:
        digits = exponent * math.log10(abs(base))
        if digits > math.log10(MAX_MAGNITUDE):
            raise MathError(
                f"{base!r} ** {exponent!r} would be about 10^{digits:.3g}, above the "
                f"{MAX_MAGNITUDE:g} limit"
            )
    if base < 0 and isinstance(exponent, float) and not exponent.is_integer():
        raise MathError(f"({base!r}) ** {exponent!r} is not a real number")
    if base == 0 and exponent < 0:
        raise ZeroDivisionError
    result: Number = base**exponent
    return result


def _call(node: ast.Call) -> Number:
    if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
        shown = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
        raise MathError(f"unknown function {shown!r}; functions: {', '.join(FUNCTIONS)}")
    if node.keywords:
        raise MathError(f"{node.func.id}() takes positional arguments only")
    func, fewest, most = FUNCTIONS[node.func.id]
    count = len(node.args)
    if count < fewest or (most is not None and count > most):
        wanted = (
            f"{fewest}"
            if fewest == most
            else f"{fewest} or more"
            if most is None
            else f"{fewest}-{most}"
        )
        raise MathError(f"{node.func.id}() takes {wanted} arguments, got {count}")
    args = [_eval(arg) for arg in node.args]  # ast.Starred is not a number: refused there
    return _checked(func(*args))


def tidy(value: Number) -> Number:
    """Whole floats as ints (sqrt(16) -> 4); others to 12 significant digits."""
    if isinstance(value, float):
        value = float(f"{value:.12g}")
        if value.is_integer() and abs(value) < 2**53:
            return int(value)
    return value
