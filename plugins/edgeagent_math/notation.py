"""What people and small models write, rewritten into the Python syntax the evaluator reads.

``2^10``, ``5!``, ``sin(30°)``, ``12 × 7``, ``3 x 4``, ``20% of 150``, ``1,000 + 1``,
``2pi``, ``sqrt 16`` and ``12 times 7`` become plain expressions such as
``factorial(5)`` or ``percent(20) * 150``. The rewrite works on tokens and runs
nothing; every check stays in :mod:`edgeagent_math.evaluator`, which parses the result
into a syntax tree.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from edgeagent.plugin import ToolArgumentError

PERCENT = "percent"
"""Marks ``20%``: the evaluator reads ``a + 20%`` as a 20 % increase, else as 20 / 100."""
DEGREE_UNITS = frozenset({"°", "deg", "degs", "degree", "degrees"})
CONSTANT_NAMES = frozenset({"pi", "e", "tau"})
SYMBOLS = {
    "×": "*", "·": "*", "⋅": "*", "∗": "*", "÷": "/", "−": "-",
    "π": "pi", "τ": "tau", "²": "**2", "³": "**3", "√": "sqrt",
}  # fmt: skip
WORDS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("plus",): ("+",), ("minus",): ("-",), ("times",): ("*",), ("mod",): ("%",),
    ("modulo",): ("%",), ("squared",): ("**", "2"), ("cubed",): ("**", "3"),
    ("multiplied", "by"): ("*",), ("divided", "by"): ("/",),
    ("to", "the", "power", "of"): ("**",), ("to", "the", "power"): ("**",),
}  # fmt: skip
ACCEPTED = (
    "numbers, + - * / ^ % ( ), n!, 20% of 150, sin(30°), lists [1, 2, 3], pi, e, "
    "ans (the last result, where it was one number)"
)
_NUMBER = r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_TOKEN = re.compile(
    rf"(?P<number>0[xX][0-9a-fA-F]+|{_NUMBER})|(?P<name>[A-Za-z_]+\d*)"
    r"|(?P<op>\*\*|//|[-+*/%^(),\[\]!.°])"
)
_ASKED = re.compile(r"\s*=\s*\??\s*$")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])")


@dataclass(frozen=True)
class Token:
    kind: str
    """``number``, ``name`` or ``op``."""
    text: str


def bare(expression: str) -> str:
    """``expression`` without surrounding space or a trailing ``=`` (``12*7 = ?``)."""
    return _ASKED.sub("", expression.strip())


def to_python(expression: str, functions: Collection[str]) -> str:
    """``expression`` in Python's arithmetic syntax; raise :class:`ToolArgumentError`
    naming the first character or word that is not understood."""
    text = bare(expression)
    for symbol, plain in SYMBOLS.items():
        text = text.replace(symbol, f" {plain} ")
    try:
        tokens = _postfix(_words(_lex(text)))
        known = {*functions, *CONSTANT_NAMES, PERCENT}
        unknown = next((t.text for t in tokens if t.kind == "name" and t.text not in known), None)
        if unknown is not None:
            raise ValueError(repr(unknown))
    except ValueError as exc:
        raise ToolArgumentError(
            f"{exc} in {expression!r} is not understood; use {ACCEPTED} and the functions "
            f"{', '.join(functions)}"
        ) from None
    tokens = _implicit_products(_prefix(tokens, functions))
    return " ".join(t.text for t in tokens)


def _lex(text: str) -> list[Token]:
    tokens: list[Token] = []
    depth = 0
    at = 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        # Outside brackets a comma cannot separate arguments, so "1,000" is a thousand.
        grouped = _THOUSANDS.match(text, at) if depth == 0 else None
        match = _TOKEN.match(text, at)
        if grouped:
            tokens.append(Token("number", grouped.group().replace(",", "")))
            at = grouped.end()
        elif text[at] in "xX" and _ends_operand(tokens):
            tokens.append(Token("op", "*"))  # "3 x 4"
            at += 1
        elif match and match.lastgroup:
            kind, value = match.lastgroup, match.group()
            if kind == "op":
                depth += (value in "([") - (value in ")]")
            tokens.append(Token(kind, value.lower() if kind == "name" else value))
            at = match.end()
        else:
            raise ValueError(repr(text[at]))
    return tokens


def _words(tokens: list[Token]) -> list[Token]:
    """``12 times 7``, ``10 divided by 4``, ``2 to the power of 8``, ``5 squared``, ``^``."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        for words, replacement in WORDS.items():
            if tuple(t.text for t in tokens[i : i + len(words)]) == words:
                out += [Token("number" if r.isdigit() else "op", r) for r in replacement]
                i += len(words)
                break
        else:
            out.append(Token("op", "**") if tokens[i].text == "^" else tokens[i])
            i += 1
    return out


def _postfix(tokens: list[Token]) -> list[Token]:
    """``5!`` -> ``factorial(5)``, ``30°`` -> ``radians(30)``, ``20%`` -> ``percent(20)``
    (``7 % 4`` stays a remainder: an operand follows its ``%``)."""
    out: list[Token] = []
    for i, token in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        start = _operand_start(out)
        if start is not None and token.text == "!":
            out[start:] = _call("factorial", out[start:])
        elif start is not None and token.text in DEGREE_UNITS and not _is(after, "("):
            out[start:] = _call("radians", out[start:])
        elif start is not None and token.text == "%" and not _begins_operand(after):
            out[start:] = _call(PERCENT, out[start:])
        elif token.text == "of" and out and out[-1].text == ")" and _percent_before(out):
            out.append(Token("op", "*"))  # "20% of 150"
        else:
            out.append(token)
    return out


def _prefix(tokens: list[Token], functions: Collection[str]) -> list[Token]:
    """``sqrt 16`` -> ``sqrt(16)``, ``sin 30°`` -> ``sin(radians(30))``."""
    out = list(tokens)
    for i in range(len(out) - 2, -1, -1):  # right to left, so "sqrt sqrt 16" nests
        if out[i].kind == "name" and out[i].text in functions and not _is(out[i + 1], "("):
            end = _atom_end(out, i + 1, functions)
            if end is not None:
                out[i + 1 : end] = [Token("op", "("), *out[i + 1 : end], Token("op", ")")]
    return out


def _implicit_products(tokens: list[Token]) -> list[Token]:
    """``2pi`` -> ``2 * pi``, ``2(3 + 4)`` and ``(1 + 2)(3 + 4)`` -> products."""
    out: list[Token] = []
    for token in tokens:
        follows = (
            token.kind == "name"
            or token.text == "("
            or (token.kind == "number" and out and out[-1].kind != "number")
        )
        if follows and _ends_operand(out):
            out.append(Token("op", "*"))
        out.append(token)
    return out


def _call(function: str, operand: list[Token]) -> list[Token]:
    return [Token("name", function), Token("op", "("), *operand, Token("op", ")")]


def _is(token: Token | None, text: str) -> bool:
    return token is not None and token.text == text


def _begins_operand(token: Token | None) -> bool:
    return (
        token is not None
        and token.text != "of"
        and (token.kind in ("number", "name") or token.text in ("(", "["))
    )


def _ends_operand(tokens: list[Token]) -> bool:
    """Whether ``tokens`` ends with a whole operand: a number, a constant or a bracket."""
    if not tokens:
        return False
    last = tokens[-1]
    return last.kind == "number" or last.text in (")", "]") or last.text in CONSTANT_NAMES


def _operand_start(tokens: list[Token]) -> int | None:
    """Where the operand that ``tokens`` ends with begins, including the function name
    before its bracket (``sqrt(2)``); ``None`` when ``tokens`` does not end with one."""
    if not _ends_operand(tokens):
        return None
    last = len(tokens) - 1
    if tokens[last].kind != "op":
        return last
    depth = 0
    for i in range(last, -1, -1):
        depth += (tokens[i].text in ")]") - (tokens[i].text in "([")
        if depth == 0:
            return i - 1 if i > 0 and tokens[i - 1].kind == "name" else i
    return None


def _percent_before(tokens: list[Token]) -> bool:
    start = _operand_start(tokens)
    return start is not None and tokens[start].text == PERCENT


def _atom_end(tokens: list[Token], start: int, functions: Collection[str]) -> int | None:
    """The index after the atom that begins at ``start`` (a number, a constant, a
    bracket or a function call); ``None`` when none begins there."""
    first = tokens[start]
    if first.kind == "number" or first.text in CONSTANT_NAMES:
        return start + 1
    following = tokens[start + 1] if start + 1 < len(tokens) else None
    if first.text in functions and _is(following, "("):
        start += 1
    if tokens[start].text not in ("(", "["):
        return None
    depth = 0
    for i in range(start, len(tokens)):
        depth += (tokens[i].text in "([") - (tokens[i].text in ")]")
        if depth == 0:
            return i + 1
    return None
