"""A temperature conversion or a percentage, read again from the request.

Asked "convert 68 fahrenheit to celsius", the model writes ``68 - 32 * 5 / 9`` or
``68 * 5 / 9``: the formula with its parentheses or a term lost (three blind prompt
sets, three wrong formulas). The request names the conversion and its number, so the
tool writes the formula itself where the model's gives another value.

Asked "what is 12.5% of 2048", it wrote ``12.5 * 2048``: the percent sign dropped. A
request that names one percentage of a number, where the model's expression gives
their plain product, is that percentage.

Asked "take 2381 off that number" after 2401, it wrote ``2381 - 2401`` or ``2381 -
ans``: the request names what comes off, so ``N - X`` is ``X - N`` (``ans`` is filled
in after). Asked "convert minus 3 celsius", it
wrote ``3 * 9 / 5 + 32``: "minus" before a temperature is its sign.

Asked for a rate ("420 km on 31.5 litres, what's that in litres per 100 km?"), it
wrote ``31.5 / 420`` or the rate the other way round (:mod:`edgeagent_math.rates`);
asked for the mean of readings that "add up to 862", it made readings up
(:mod:`edgeagent_math.mean`). A result in another unit than the one asked for is
scaled to it (:mod:`edgeagent_math.units`), but for a rate of two units ("km/h"),
which no one factor converts.
"""

from __future__ import annotations

import re
from typing import Any

from text_to_num import alpha2digit

from edgeagent.plugin import ToolError, fold
from edgeagent_math.evaluator import evaluate
from edgeagent_math.mean import mean_as_said
from edgeagent_math.rates import asks_rate, rate_as_said
from edgeagent_math.recall import LAST
from edgeagent_math.spoken import operation_as_said
from edgeagent_math.units import scale_as_said

_NUMBER = r"((?:-|(?:minus|menos|moins|meno|negative|negativ)\s+)?\d+(?:[.,]\d+)?)"
_SIGN = re.compile(r"^(?:minus|menos|moins|meno|negative|negativ)\s+")
_DEGREES = r"\s*(?:°|º|degrees?|grados?|grad|degres?|gradi)?\s*"
_F = r"(?:f|fahrenheit)\b"
_C = r"(?:c|celsius|centigrade|centigrados?)\b"
_F_TO_C = re.compile(_NUMBER + _DEGREES + _F + r".*?\b" + _C)
_C_TO_F = re.compile(_NUMBER + _DEGREES + _C + r".*?\b" + _F)


_PERCENT_OF = re.compile(
    r"(\d+(?:[.,]\d+)?)\s*(?:%|percent|per\s+cent|pct|prozent|pour\s*cent|por\s+ciento|"
    r"per\s+cento|por\s+cento|procent|procento|prosent)\s*"
    r"(?:of|von|de|du|des|di|del|della|da|do)\s+"
    r"(\d{1,3}(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?)"
)


_OFF = re.compile(
    r"\b(?:take|subtract|knock|minus)\s+(\d+(?:\.\d+)?)\s+(?:off|from|away\s+from)\s+"
    r"(?:that|it|this|the\s+(?:result|answer|number|total))\b"
)
_DIFFERENCE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?|[a-z_]\w*)\s*$")


def as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """The ``math`` tool's reread: a temperature conversion, a percentage, what comes
    off an earlier result, the first number said where the model wrote the last
    result's name for it (:func:`first_number_as_said`), a rate asked "per" something
    (:func:`edgeagent_math.rates.rate_as_said`), a mean from a total and a count
    (:func:`edgeagent_math.mean.mean_as_said`), a result in the unit asked for
    (:func:`edgeagent_math.units.scale_as_said`), or an operation said in words in
    another language (:func:`edgeagent_math.spoken.operation_as_said`)."""
    return (
        conversion_as_said(arguments, request)
        or percent_as_said(arguments, request)
        or difference_as_said(arguments, request)
        or first_number_as_said(arguments, request)
        or rate_as_said(arguments, request)
        or mean_as_said(arguments, request)
        or (None if asks_rate(request) else scale_as_said(arguments, request))
        or (None if asks_rate(request) else operation_as_said(arguments, request))
    )


_BACK = re.compile(
    r"\b(?:that|it|this|result|answer|ans|previous|last|same|das|dies\w*|ergebnis|"
    r"ca|cela|resultat|eso|esto|resultado|quello|questo|risultato|isso|isto)\b"
)
_LEADING = re.compile(r"^\s*\(?\s*([A-Za-z_]\w*)\b(?!\s*\()")
_SAID_NUMBER = re.compile(r"(?<![\w.,])-?\d+(?:[.,]\d+)?(?!\w)")


def first_number_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``arguments`` with the first number the ``request`` says where the model wrote
    the last result's name (``ans``) for it: the request refers back to nothing, and
    its numbers, in order, are that one and the expression's. "what's 365 times 24",
    after a brightness of 25, came as ``ans * 24`` and gave 600; "what's 25 times 4
    divided by 5", after a brightness of 50, as ``ans * 4 / 5`` (fresh45, fresh47).
    ``None``: as the model wrote them."""
    expression = arguments.get("expression")
    if not isinstance(expression, str):
        return None
    leading = _LEADING.match(expression)
    folded = fold(request)
    if leading is None or leading.group(1).lower() not in LAST:
        return None
    said = [n.replace(",", ".") for n in _SAID_NUMBER.findall(folded)]
    written = _SAID_NUMBER.findall(expression)
    in_order = not _BACK.search(folded) and len(said) >= 2 and said[1:] == written
    if not in_order and not _only_the_first_left(said, written, folded):
        return None
    first = said[0]
    if _NEGATIVE_FIRST.match(folded) and not first.startswith("-"):
        # "if it's minus 4 there and drops another 7 degrees" came as ``ans - 7`` and
        # ran as 4 - 7 (fresh67): nothing comes before the first number to take from.
        first = f"(-{first})"
    start, end = leading.span(1)
    return {**arguments, "expression": expression[:start] + first + expression[end:]}


_NEGATIVE_FIRST = re.compile(
    r"^[^\d]*\b(?:minus|negative|moins|menos|meno|negativ)\s+\d", re.IGNORECASE
)
"""A request whose first number is said negative ("minus 4"), before any other."""


_LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl")
_PERCENT = re.compile(
    r"%|\b(?:percent|per\s*cent|prozent|pourcent|por\s*ciento|per\s*cento|procent)"
)


def _only_the_first_left(said: list[str], written: list[str], folded: str) -> bool:
    """Whether the expression writes each number the request says but the first, and
    nothing else: "bill is $184, add 15% tip and split it four ways" came as ``ans *
    1.15 / 4`` in a first turn, where ``ans`` stands for nothing (fresh58). A percentage
    said is written as its fraction, or one plus or minus it (15% as 0.15, 1.15, 0.85)."""
    if len(said) < 2:
        return False
    percent = bool(_PERCENT.search(folded))

    def forms(number: str) -> set[float]:
        value = float(number)
        every = {value, value / 100, 1 + value / 100, 1 - value / 100} if percent else {value}
        return {round(f, 9) for f in every}

    values = {round(float(n), 9) for n in written}
    rest = set().union(*(forms(n) for n in said[1:]), _small_numbers(folded))
    if float(said[0]) in values or not values <= rest:
        return False  # the first is written, or a number the request does not say
    return all(forms(n) & values for n in said[1:])


def _small_numbers(folded: str) -> set[float]:
    """The numbers under ten a request says in words ("four ways"), which the agent
    leaves as words for the model (:mod:`edgeagent.agent.numerals`)."""
    found = set()
    for language in _LANGUAGES:
        digits = alpha2digit(folded, language, threshold=0)
        found |= {round(float(n.replace(",", ".")), 9) for n in _SAID_NUMBER.findall(digits)}
    return {n for n in found if 0 < n < 10}


def difference_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``X - N`` where the model wrote ``N - X`` and the ``request`` says to take N off
    an earlier result ("take 89 off that"); ``None``: as the model wrote them."""
    taken = [m.group(1) for m in _OFF.finditer(fold(request))]
    found = _DIFFERENCE.match(str(arguments.get("expression", "")))
    if len(taken) != 1 or found is None or found.group(1) != taken[0]:
        return None
    return {**arguments, "expression": f"{found.group(2)} - {found.group(1)}"}


def percent_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``arguments`` with ``N% of M`` where the ``request`` names that one percentage
    and the model's expression gives N times M; ``None``: as the model wrote them."""
    found = _PERCENT_OF.findall(fold(request))
    if len(found) != 1:
        return None
    share, whole = found[0]
    share, whole = share.replace(",", "."), whole.replace(",", "")
    try:
        product = evaluate(str(arguments.get("expression", "")))
    except (ToolError, ValueError, TypeError):
        return None  # its own error says what is wrong
    if abs(product - float(share) * float(whole)) > 1e-9 * max(1.0, abs(product)):
        return None  # another calculation: "15% of 80, plus 3"
    return {**arguments, "expression": f"{share}% of {whole}"}


def conversion_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``arguments`` with the expression of the temperature conversion ``request``
    names, where the model's gives another value; ``None``: as the model wrote them."""
    folded = fold(request)
    if match := _F_TO_C.search(folded):
        expression = f"({_signed(match.group(1))} - 32) * 5 / 9"
    elif match := _C_TO_F.search(folded):
        expression = f"{_signed(match.group(1))} * 9 / 5 + 32"
    else:
        return None
    try:
        if abs(evaluate(str(arguments.get("expression", ""))) - evaluate(expression)) < 1e-9:
            return None
    except (ToolError, ValueError, TypeError):
        pass  # the model's expression does not evaluate: the request's is what was meant
    return {**arguments, "expression": expression}


def _signed(number: str) -> str:
    """ "minus 3" -> "-3", "2,5" -> "2.5"."""
    return _SIGN.sub("-", number).replace(",", ".")
