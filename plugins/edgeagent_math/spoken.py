"""An operation said in words, in the languages people ask in, read again from the request.

Asked "Mennyi 45 osztva 0,9-cel?" (Hungarian: 45 divided by 0.9), the model wrote
``45 * 0.9``, and "17 a négyzeten" (17 squared) came as ``17 % 4`` (fresh39, fresh42):
it knows "divided by" and "squared", not the words of every language. A request that
says one operation of two numbers ("45 osztva 0,9", "12 mal 7", "100 gedeeld door 8"),
or one number squared or cubed, is that operation, where the model's expression holds
the same numbers and gives another value.
"""

from __future__ import annotations

import math
import re
from typing import Any

from edgeagent.plugin import ToolError, fold
from edgeagent_math.evaluator import evaluate

OPERATORS = {
    "/": (
        "divided by", "geteilt durch", "dividiert durch", "durch", "divise par", "dividido por",
        "dividido entre", "entre", "diviso per", "diviso", "dividido", "gedeeld door",
        "podzielone przez", "podzielic przez", "przez", "delat med", "delt med",
        "divideret med", "osztva", "jaettuna", "bolu", "deleno", "δια", "разделить на",
        "делить на", "поделить на", "поділити на", "impartit la",
    ),
    "*": (
        "times", "multiplied by", "mal", "multipliziert mit", "fois", "multiplie par",
        "multiplicado por", "por", "moltiplicato per", "per", "keer", "maal", "razy",
        "ganger", "gange", "szorozva", "kertaa", "carpi", "krat", "επι", "умножить на",
        "помножити на", "inmultit cu",
    ),
    "+": ("plus", "mais", "piu", "mas", "arti", "плюс"),
    "-": ("minus", "moins", "menos", "meno", "eksi", "μειον", "минус", "мінус"),
}  # fmt: skip
POWERS = {
    2: (
        "squared", "hoch 2", "hoch zwei", "im quadrat", "au carre", "al cuadrado",
        "al quadrato", "ao quadrado", "kwadraat", "do kwadratu", "i kvadrat", "a negyzeten",
        "negyzete", "toiseen", "karesi", "na druhou", "στο τετραγωνο", "в квадрате",
        "у квадраті", "la patrat",
    ),
    3: (
        "cubed", "hoch 3", "hoch drei", "au cube", "al cubo", "ao cubo", "do szescianu",
        "a kobon", "kolmanteen", "kupu", "na treti", "στον κυβο", "в кубе", "у кубі",
    ),
}  # fmt: skip

_NUMBER = r"(\d+(?:[.,]\d+)?)(?:-\w+)?"
"""A number, its decimal comma too, and a suffix after a hyphen ("0,9-cel")."""


def _alternatives(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_BINARY = [
    (op, re.compile(_NUMBER + r"\s+(?:" + _alternatives(words) + r")\s+" + _NUMBER))
    for op, words in OPERATORS.items()
]
_POWER = [
    (n, re.compile(_NUMBER + r"\s+(?:" + _alternatives(words) + r")\b"))
    for n, words in POWERS.items()
]
_ANOTHER = re.compile(
    r"[+*/^×÷]|\b(?:"
    + _alternatives((*OPERATORS["+"], *OPERATORS["-"], "times", "multiplied by", "divided by"))
    + r")\b"
)
"""An operation besides the one said: "12 squared plus seven" is no "12^2"."""
_SAID_NUMBERS = re.compile(r"\d+(?:[.,]\d+)?")
_NUMBERS = re.compile(r"\d+(?:\.\d+)?")
_NAMED = re.compile(r"[^\W\d]")
"""A letter: a name of an earlier result (``ans``) or a function (``sqrt``)."""
_SIGNED = re.compile(r"(?:-|\b(?:minus|menos|moins|meno|negative|negativ|eksi|минус|мінус))\s*$")
"""A sign before the first number: "minus 5 times 3" is no "5 * 3"."""


def operation_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``A op B`` (or ``A^n``) where the ``request`` says exactly that one operation in
    words, with no sign before it, and the model's expression, of numbers alone, holds
    the same numbers (for a power, its base) but gives another value; ``None``: as the
    model wrote it. "times 3 plus 7" after a result came as ``ans * 3 + 7``, right, and
    was read as ``3 + 7`` (fresh44); "what's 12 squared plus 7", written right, ran as
    ``12^2`` (fresh59): a request that says another number or operation besides it is
    left as the model wrote it."""
    expression = arguments.get("expression")
    if not isinstance(expression, str) or _NAMED.search(expression):
        return None  # "ans * 3 + 7" for "times 3 plus 7": an earlier result, a function
    folded = fold(request)
    said = [
        (m, f"{_dot(m.group(1))} {op} {_dot(m.group(2))}")
        for op, pattern in _BINARY
        for m in pattern.finditer(folded)
    ]
    said += [
        (m, f"{_dot(m.group(1))}^{n}") for n, pattern in _POWER for m in pattern.finditer(folded)
    ]
    if len(said) != 1 or _SIGNED.search(folded[: said[0][0].start()]):
        return None
    found, meant = said[0]
    numbers = _NUMBERS.findall(meant)
    rest = folded[: found.start()] + " " + folded[found.end() :]
    if _ANOTHER.search(rest) or {_dot(n) for n in _SAID_NUMBERS.findall(rest)} - set(numbers):
        return None  # "12 squared plus 7" came as ``12**2 + 7``, right, and ran as 12^2
    written = set(_NUMBERS.findall(expression))
    if written != set(numbers) and not ("^" in meant and numbers[0] in written):
        return None  # another calculation, not another operator
    try:
        if math.isclose(evaluate(expression), evaluate(meant)):
            return None
    except ToolError:
        pass  # the model's expression does not evaluate: the one said is what was meant
    return {**arguments, "expression": meant}


def _dot(number: str) -> str:
    return number.replace(",", ".")
