"""Evaluate arithmetic from its syntax tree, node by whitelisted node; never ``eval``.

The text is first rewritten from everyday notation (``2^10``, ``5!``, ``sin(30°)``,
``20% of 150``; :mod:`edgeagent_math.notation`), then parsed. Every limit is checked
*before* the work it bounds: ``9**9**9`` is refused from the operands' magnitudes, not
after a CPU-bound attempt to compute it.
"""

from __future__ import annotations

import ast
import math
import operator
import statistics
from collections.abc import Callable
from typing import Any

from edgeagent.plugin import ToolArgumentError
from edgeagent_math.notation import PERCENT, to_python

Number = int | float

MAX_EXPRESSION_CHARS = 300
MAX_NODES = 150
MAX_MAGNITUDE = 1e300
MAX_FACTORIAL = 100
MAX_ROUND_DIGITS = 15

CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "tau": math.tau}


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


def _mean(*args: Number) -> Number:
    return math.fsum(args) / len(args)


def _median(*args: Number) -> Number:
    return statistics.median(args)


def _sum(*args: Number) -> Number:
    return sum(args) if all(isinstance(a, int) for a in args) else math.fsum(args)


def _sind(x: Number) -> Number:
    """Sine of degrees, exact at multiples of 90 (``sin(180°)`` is 0, not 1.2e-16)."""
    turn = x % 360
    if turn % 90 == 0:
        return (0, 1, 0, -1)[int(turn // 90)]
    return math.sin(math.radians(turn))


def _cosd(x: Number) -> Number:
    return _sind(x + 90)


def _tand(x: Number) -> Number:
    if x % 180 == 90:
        raise MathError(f"tan({_short(x)}°) is undefined (the cosine is 0)")
    return 0 if x % 180 == 0 else _sind(x) / _cosd(x)


def _short(x: Number) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


# name -> (function, fewest arguments, most arguments; None = any number)
FUNCTIONS: dict[str, tuple[Callable[..., Number], int, int | None]] = {
    "sqrt": (math.sqrt, 1, 1),
    "sin": (math.sin, 1, 1),
    "cos": (math.cos, 1, 1),
    "tan": (math.tan, 1, 1),
    "sind": (_sind, 1, 1),
    "cosd": (_cosd, 1, 1),
    "tand": (_tand, 1, 1),
    "asin": (math.asin, 1, 1),
    "acos": (math.acos, 1, 1),
    "atan": (math.atan, 1, 1),
    "log": (_log, 1, 2),
    "ln": (math.log, 1, 1),
    "log10": (math.log10, 1, 1),
    "log2": (math.log2, 1, 1),
    "exp": (math.exp, 1, 1),
    "abs": (abs, 1, 1),
    "round": (_round, 1, 2),
    "floor": (math.floor, 1, 1),
    "ceil": (math.ceil, 1, 1),
    "min": (_minmax(min), 1, None),
    "max": (_minmax(max), 1, None),
    "sum": (_sum, 1, None),
    "mean": (_mean, 1, None),
    "avg": (_mean, 1, None),
    "average": (_mean, 1, None),
    "median": (_median, 1, None),
    "hypot": (math.hypot, 1, None),
    "degrees": (math.degrees, 1, 1),
    "radians": (math.radians, 1, 1),
    "factorial": (_factorial, 1, 1),
}
LIST_FUNCTIONS = frozenset({"min", "max", "sum", "mean", "avg", "average", "median", "hypot"})
"""Functions that also take lists: ``mean([1, 2, 3])``, ``sum([1, 2], 3)``."""
DEGREE_TRIG = {"sin": "sind", "cos": "cosd", "tan": "tand"}
"""``sin(radians(x))`` (what ``sin(x°)`` becomes) is computed as ``sind(x)``: exact."""
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
        python = to_python(expression, FUNCTIONS)
    except ToolArgumentError as exc:
        raise MathError(str(exc)) from None
    try:
        tree = ast.parse(python, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        reason = exc.msg if isinstance(exc, SyntaxError) else type(exc).__name__
        raise MathError(
            f"{expression!r} is not an arithmetic expression ({reason}); write it like "
            f"'12 * 7', '2^10' or 'sqrt(2) / 3'"
        ) from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise MathError(f"expression has too many parts (limit {MAX_NODES}); split it up")
    try:
        return _checked(_eval(tree.body))
    except ZeroDivisionError:
        raise MathError(f"{expression!r}: division by zero") from None
    except OverflowError:
        raise MathError(f"{expression!r}: the result is too large") from None
    except (ValueError, TypeError, statistics.StatisticsError) as exc:
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
    if isinstance(node, ast.List | ast.Tuple):
        raise MathError(
            f"a list of numbers only goes inside {', '.join(sorted(LIST_FUNCTIONS))}, "
            f"e.g. mean([1, 2, 3])"
        )
    raise MathError(
        f"{type(node).__name__} is not supported; use numbers, + - * / // % ^ (or **), n!, "
        f"x% of y, parentheses and the functions {', '.join(FUNCTIONS)}"
    )


def _binary(node: ast.BinOp) -> Number:
    percent = _percent_of(node.right)
    if percent is not None and isinstance(node.op, ast.Add | ast.Sub):
        # "150 + 20%" is 180, as on a calculator: the percent is of the left side.
        left = _eval(node.left)
        sign = 1 if isinstance(node.op, ast.Add) else -1
        return _checked(left * (1 + sign * _eval(percent) / 100))
    left, right = _eval(node.left), _eval(node.right)
    if isinstance(node.op, ast.Pow):
        return _checked(_power(left, right))
    op = BINARY.get(type(node.op))
    if op is None:
        raise MathError(
            f"operator {type(node.op).__name__} is not supported; use + - * / // % ^ (or **)"
        )
    return _checked(op(left, right))


def _percent_of(node: ast.expr) -> ast.expr | None:
    """The ``20`` of ``20%`` (which the notation wrote as ``percent(20)``)."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == PERCENT
        and len(node.args) == 1
        and not node.keywords
    ):
        return node.args[0]
    return None


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
    percent = _percent_of(node)
    if percent is not None:
        return _checked(_eval(percent) / 100)
    if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
        shown = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
        raise MathError(f"unknown function {shown!r}; functions: {', '.join(FUNCTIONS)}")
    name = node.func.id
    if node.keywords:
        raise MathError(f"{name}() takes positional arguments only")
    degrees = _degrees_of(node) if name in DEGREE_TRIG else None
    if degrees is not None:
        name, node = DEGREE_TRIG[name], ast.Call(node.func, [degrees], [])
    func, fewest, most = FUNCTIONS[name]
    args = _arguments(name, node.args)
    count = len(args)
    if count < fewest or (most is not None and count > most):
        wanted = (
            f"{fewest}"
            if fewest == most
            else f"{fewest} or more"
            if most is None
            else f"{fewest}-{most}"
        )
        raise MathError(f"{name}() takes {wanted} arguments, got {count}")
    return _checked(func(*args))


MAX_REPEAT = 10_000
"""The most times a list may be repeated (``[21.5] * 40``)."""


def _arguments(name: str, nodes: list[ast.expr]) -> list[Number]:
    """The values of a call's arguments; lists are spread for the list functions, and
    a list times a whole number is repeated: "the temp column averages 21.5 over 40
    rows, what's the total" came as ``sum([21.5] * 40)`` (fresh66)."""
    args: list[Number] = []
    for arg in nodes:  # ast.Starred is not a number: refused in _eval
        if name in LIST_FUNCTIONS and isinstance(arg, ast.List | ast.Tuple):
            args += [_eval(item) for item in arg.elts]
        elif name in LIST_FUNCTIONS and (repeated := _repeated(arg)) is not None:
            args += repeated
        else:
            args.append(_eval(arg))
    return args


def _repeated(node: ast.expr) -> list[Number] | None:
    """The items of ``[a, b] * n`` (or ``n * [a, b]``) for a whole ``n`` from 1 to
    :data:`MAX_REPEAT`; ``None`` for any other node."""
    if not isinstance(node, ast.BinOp) or not isinstance(node.op, ast.Mult):
        return None
    for items, times in ((node.left, node.right), (node.right, node.left)):
        if isinstance(items, ast.List | ast.Tuple) and not isinstance(times, ast.List | ast.Tuple):
            count = _eval(times)
            if count != int(count) or not 1 <= count <= MAX_REPEAT:
                raise MathError(
                    f"a list is repeated a whole number of times, 1 to {MAX_REPEAT}, not {count}"
                )
            return [_eval(item) for item in items.elts] * int(count)
    return None


def _degrees_of(node: ast.Call) -> ast.expr | None:
    """The ``x`` of ``sin(radians(x))``, which is what ``sin(x°)`` becomes."""
    if len(node.args) != 1 or node.keywords:
        return None
    inner = node.args[0]
    if (
        isinstance(inner, ast.Call)
        and isinstance(inner.func, ast.Name)
        and inner.func.id == "radians"
        and len(inner.args) == 1
        and not inner.keywords
    ):
        return inner.args[0]
    return None


def tidy(value: Number) -> Number:
    """Whole floats as ints (sqrt(16) -> 4); others to 12 significant digits."""
    if isinstance(value, float):
        value = float(f"{value:.12g}")
        if value.is_integer() and abs(value) < 2**53:
            return int(value)
    return value
