"""A rate asked "per" something, read again from the request.

Asked "I drove 420 km on 31.5 litres, what's that in litres per 100 km?", the model
wrote ``31.5 / 420`` (0.075: litres per kilometre); asked "if i drive 340 km on 23.8
litres, whats that in litres per 100 km", it wrote ``340 / 23.8`` (the rate the other
way round). The request names the rate ("litres per 100 km", "l/100km", "km al litro",
"euros per kilo", "grams per loaf") and gives one quantity of each of its two
measures, so the tool writes ``23.8 / 340 * 100`` itself where the model's expression
gives another value.

The rate's words: "per", "pro", "auf", "par", "aux", "au", "por", "a cada", "cada",
"al", "a los", "ogni", "aos", "every", "/"; its units: metric volume, mass, length and
the clock's (:data:`edgeagent_math.units.UNITS`), miles, gallons, euros, dollars and
pounds sterling ("mpg", "mph" and "km/h" too), or a thing the request counts ("8
loaves ... grams per loaf"). A quantity in another size of the asked unit is converted
("2.5 kg ... grams per loaf" is ``2.5 * 1000 / 8``). A request with a second quantity
of either measure, a number that is no quantity, a thousands separator that may be a
decimal comma ("1,200 km"), or more than one asked rate is left as the model wrote it.
"""

from __future__ import annotations

import re
from typing import Any

from edgeagent.plugin import ToolError, fold
from edgeagent_math.evaluator import evaluate
from edgeagent_math.units import UNITS

Unit = tuple[str, float]
"""What a unit measures, and its size in that measure's base unit."""

_MORE = {
    ("volume", 1.0): "lt ltr",
    ("mass", 1.0): "gramo grama grammo",
    ("mass", 1000.0): "chilo chilogrammo chilogrammi kilogramo quilo quilograma quilogramas",
    ("length", 1.0): "metro",
    ("length", 1000.0): "kilometro chilometro chilometri quilometro quilometros",
    ("length", 1609.344): "mile miles meile meilen milla millas miglio miglia milha milhas",
    ("gallon", 1.0): "gal gallon gallons gallone gallonen galon galones galloni galao galoes",
    ("euro", 1.0): "€ eur euro euros",
    ("dollar", 1.0): "$ usd dollar dollars dolar dolares dollari",
    ("sterling", 1.0): "£ gbp",
}
RATE_UNITS: dict[str, Unit] = {
    **UNITS,
    **{word: unit for unit, words in _MORE.items() for word in words.split()},
}
""":data:`~edgeagent_math.units.UNITS` with miles, gallons and money; miles stay out of
the scaling of :func:`~edgeagent_math.units.scale_as_said`, whose "converted already"
test knows only metric factors."""
_PRICE = "price prices cost costs preis kosten prix cout precio coste costo prezzo preco custo"
"""Words that ask for money in whatever currency the request gives ("price per kilo")."""
PRICES = frozenset(_PRICE.split())

_WORD_UNITS = sorted((re.escape(w) for w in RATE_UNITS if w.isalpha()), key=len, reverse=True)
_UNIT = r"(?:(?<![a-z])(?:" + "|".join(_WORD_UNITS) + r")\b|[€$£])"
NUMBER = r"\d+(?:[.,]\d+)?"
PER = (
    r"(?:\s*/\s*|\s+(?:per|pro|auf|par|aux|au|por|a\s+cada|cada|al|a\s+los|ogni|aos|ao"
    r"|every|for\s+every|for\s+each)\s+)"
)
"""The word of a rate: "litres per 100 km", "km/h", "litres aux 100 km", "km al litro"."""
_WORD = r"(?:\s+(?!" + _UNIT + r")[a-z']+)"
_RATE = re.compile(
    rf"(?<![\w.,'])(?:({NUMBER})\s*)?({_UNIT}|(?:{'|'.join(PRICES)})\b){_WORD}{{0,3}}?"
    rf"{PER}(?:({NUMBER})\s*)?({_UNIT}|[a-z]+\b)"
)
"""A rate, asked ("litres per 100 km", "km do I get per litre") or given with its
number ("6 l/100 km", "90 km per hour")."""
_STATED = re.compile(
    r"\s*(?:is|was|ist|betragt|liegt\s+bei|est|es|e|son|sao|=|:|of|von|de|di|at|a)\s+"
    rf"(?:about|around|etwa|rund|environ|unos|circa|cerca\s+de)?\s*{NUMBER}"
)
"""A rate followed by its number: "the price per litre is 1.80", "price per kilo of 3"."""
QUESTION = re.compile(
    r"\?|\b(?:what|whats|how|wie|was|welche[rsn]?|combien|quel(?:le)?s?|cuanto|cuantos|"
    r"cuantas|cuanta|que|cual|quanto|quanti|quante|quanta|quale|qual|quais|convert|calculate"
    r"|compute|work\s+out|express|rechne|berechne|umrechnen|convertis|convertir|calcule|calcula"
    r"|converti|calcola|converta)\b"
)
"""A question, or a bidding to convert or calculate: a rate in a request that asks
nothing is not asked for."""
_GIVEN = re.compile(rf"(?<![\w.,])({NUMBER})\s*({_UNIT})")
_COUNTED = re.compile(r"(?<![\w.,])(\d+)\s+([a-z]+)\b")
"""A number right before a word: "8 loaves", "7 days"."""
_AMBIGUOUS = re.compile(r"(?<![\w.,])[1-9]\d{0,2}[.,]\d{3}(?!\d|[.,]\d)")
"""1,200 or 1.200: a thousand and two hundred, or one and a fifth."""
_SYMBOL_FIRST = re.compile(rf"([€$£])\s*({NUMBER})")
_SHORT = {"mpg": "miles per gallon", "mph": "miles per hour", "kph": "km per h", "kmh": "km/h"}
_SHORT_WORD = re.compile(r"\b(" + "|".join(_SHORT) + r")\b")

_IRREGULAR = {"people": "person", "children": "child", "leute": "person"}


def read(request: str) -> str | None:
    """The ``request`` folded, its money written number first ("€6" -> "6 €") and
    "mpg" spelled out; ``None`` where a number may hold a thousands separator."""
    folded = fold(request)
    if _AMBIGUOUS.search(folded):
        return None
    folded = _SYMBOL_FIRST.sub(r"\2 \1", folded)
    return _SHORT_WORD.sub(lambda m: _SHORT[m.group(1)], folded)


def number(text: str) -> float:
    return float(text.replace(",", "."))


def same_noun(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are one noun, singular or plural: "loaf"/"loaves",
    "pagnotta"/"pagnotte", "Person"/"Personen", "person"/"people"."""
    return bool(_forms(_IRREGULAR.get(a, a)) & _forms(_IRREGULAR.get(b, b)))


def _forms(word: str) -> set[str]:
    forms = {word}
    for plural, singular in (("ves", "f"), ("ves", "fe"), ("ies", "y")):
        if word.endswith(plural):
            forms.add(word[: -len(plural)] + singular)
    for ending in ("s", "es", "e", "en", "n", "a", "i", "o"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            forms.add(word[: -len(ending)])
    return forms


def differs(expression: object, value: float) -> bool:
    """Whether the model's ``expression`` gives another value than ``value`` (one that
    does not evaluate does: "mean([40, 41, 42, ...])")."""
    try:
        return abs(evaluate(str(expression or "")) - value) > 1e-9 * max(1.0, abs(value))
    except (ToolError, ValueError, TypeError, ArithmeticError):
        return True


def asks_rate(request: str) -> bool:
    """Whether the ``request`` asks for a rate of two units ("km/h", "litres per 100
    km"): no result in one unit to scale to another ("100 km per hour in m per s" came
    as ``100 / 3.6``, right, and was scaled by 1000 as though in km)."""
    folded = read(request) or fold(request)
    return any(r.group(1) is None and r.group(4) in RATE_UNITS for r in _RATE.finditer(folded))


def rate_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``arguments`` with the rate the ``request`` asks for ("litres per 100 km") from
    its one quantity of each of the rate's measures, where the model's expression
    gives another value; ``None``: as the model wrote them."""
    folded = read(request)
    if folded is None:
        return None
    rates = list(_RATE.finditer(folded))
    asked = [rate for rate in rates if rate.group(1) is None]
    if len(asked) != 1 or not QUESTION.search(folded):
        return None
    rate = asked[0]
    if _STATED.match(folded, rate.end()):
        return None  # "the price per litre is 1.80": a rate given, not asked
    per, per_word = (number(rate.group(3)) if rate.group(3) else 1.0), rate.group(4)
    rest = folded[: rate.start()] + " ; " + folded[rate.end() :]
    said = _GIVEN.findall(rest)
    quantities = [(number(n), RATE_UNITS[u]) for n, u in said]
    for given in rates:
        if given is rate or given.group(3) is not None:
            continue  # "6 l/100 km": its two quantities are read as given
        if given.group(4) not in RATE_UNITS:
            return None  # "250 g per loaf": a rate of a thing, not a quantity
        quantities.append((1.0, RATE_UNITS[given.group(4)]))  # "90 km/h": 1 h
    numbers = [n for n, _ in said]
    top = _of_measure(rate.group(2), quantities)
    if top is None:
        return None
    if per_word in RATE_UNITS:
        bottom = _of_measure(per_word, quantities)
        if bottom is None or bottom[1] == top[1]:
            return None  # no one quantity of it, or a ratio of one measure: "g per kg"
    else:
        counts = [n for n, noun in _COUNTED.findall(rest) if same_noun(noun, per_word)]
        if len(counts) != 1:
            return None  # "grams per loaf" with no loaves counted, or two counts
        numbers.append(counts[0])
        bottom = (_scaled(float(counts[0]), 1.0), "count", float(counts[0]))
    if sorted(numbers) != sorted(re.findall(rf"(?<![\w.,]){NUMBER}", rest)):
        return None  # a number that is no quantity: "420 km, then 10 more"
    if not differs(arguments.get("expression"), top[2] / bottom[2] * per):
        return None
    divisor = f"({bottom[0]})" if any(op in bottom[0] for op in "*/") else bottom[0]
    expression = f"{top[0]} / {divisor}" + ("" if per == 1.0 else f" * {per:.12g}")
    return {**arguments, "expression": expression}


def _of_measure(word: str, quantities: list[tuple[float, Unit]]) -> tuple[str, str, float] | None:
    """The one quantity of the measure ``word`` names (any currency for "price"), in
    the unit ``word`` names: written, its measure, its value; ``None`` where the
    request gives none or several."""
    if word in PRICES:
        found = [(n, u) for n, u in quantities if u[0] in ("euro", "dollar", "sterling")]
        unit = found[0][1] if found else ("euro", 1.0)
    else:
        unit = RATE_UNITS[word]
        found = [(n, u) for n, u in quantities if u[0] == unit[0]]
    if len(found) != 1:
        return None
    ((quantity, (measure, size)),) = found
    return _scaled(quantity, size / unit[1]), measure, quantity * size / unit[1]


def _scaled(quantity: float, factor: float) -> str:
    """``quantity`` times ``factor`` written to read: "2.5 * 1000", "420 / 1.609344"."""
    text = f"{quantity:.12g}"
    if abs(factor - 1.0) < 1e-12:
        return text
    if factor > 1.0:
        return f"{text} * {factor:.12g}"
    return f"{text} / {1 / factor:.12g}"
