"""A unit the request asks the result in, read again from the request.

Asked "how many litres is a tank that's 60 by 30 by 40 cm?", the model writes ``60 *
30 * 40``: cubic centimetres, 1000 times the litres asked for. Asked "350 g a day, how
many kg over two weeks?", it writes ``350 * 14``: grams (four turns in three blind
prompt sets). The request names the unit its numbers are in and the unit it asks for;
where the model's expression computes in the first and holds no conversion factor of
its own, the tool scales its value to the second.

Metric volume, mass and length and the clock's seconds, minutes and hours, in English,
German, French, Spanish, Italian and Portuguese. A request whose numbers come in more
than one unit ("3 m of cable in 40 cm pieces") is left as the model wrote it.
"""

from __future__ import annotations

import re
from typing import Any

from edgeagent.plugin import fold

_WORDS = {
    ("volume", 0.001): "ml milliliter milliliters millilitre millilitres mililitros",
    ("volume", 0.01): "cl centiliter centiliters centilitre centilitres",
    ("volume", 1.0): "l liter liters litre litres litro litros litri",
    ("mass", 0.001): "mg milligram milligrams milligramm",
    ("mass", 1.0): "g gram grams gramm gramme grammes gramos grammi gramas",
    ("mass", 1000.0): "kg kgs kilo kilos kilogram kilograms kilogramm kilogramme kilogrammes "
    "kilogramos chili quilos",
    ("length", 0.001): "mm millimeter millimeters millimetre millimetres milimetros",
    ("length", 0.01): "cm centimeter centimeters centimetre centimetres zentimeter centimetros "
    "centimetri",
    ("length", 1.0): "m meter meters metre metres metros metri",
    ("length", 1000.0): "km kilometer kilometers kilometre kilometres kilometros kilometri",
    ("time", 1.0): "s sec secs second seconds sekunden secondes segundos secondi",
    ("time", 60.0): "min mins minute minutes minuten minutos minuti",
    ("time", 3600.0): "h hr hrs hour hours stunde stunden heure heures hora horas ora ore",
}
UNITS = {word: unit for unit, words in _WORDS.items() for word in words.split()}
"""A unit's word -> what it measures and its size in that measure's base unit (litres,
grams, metres, seconds)."""
_UNIT = r"(" + "|".join(sorted(map(re.escape, UNITS), key=len, reverse=True)) + r")\b"
_NUMBER = r"\d+(?:[.,]\d+)?"
_GIVEN = re.compile(rf"({_NUMBER})\s*{_UNIT}")
"""A number and its unit: "350 g", "45 minutes", "2,5 Liter"."""
_BOX = re.compile(
    rf"{_NUMBER}\s*(?:x|by|\*|mal|por|per)\s*{_NUMBER}\s*(?:x|by|\*|mal|por|per)\s*{_NUMBER}"
    rf"\s*{_UNIT}"
)
"""Three lengths multiplied: "60 by 30 by 40 cm", "60 x 30 x 40 cm"."""
_ASKED = re.compile(
    r"\b(?:in|into|to|as|how\s+many|how\s+much|wie\s+viele?|wieviele?|in\s+welche|combien\s+de|"
    r"en|cuantos?|cuantas?|quantos?|quantas?|quanti|quante|em)\s+" + _UNIT
)
"""The unit asked for: "in kg", "how many litres", "wie viele Liter"."""
_FACTORS = {10.0, 60.0, 100.0, 1000.0, 3600.0, 0.1, 0.01, 0.001, 1e6, 1e-6}
"""Numbers that, in an expression and not in the request, are a conversion of its own."""


def _converted(number: float, said: set[float]) -> bool:
    """Whether ``number``, in an expression but not in the request, is a conversion
    factor or a number the request said, converted ("2,5 kg ... quanti grammi" came as
    ``2500 / 8``, blind prompts)."""
    return number in _FACTORS or any(
        _close(number, s * f) or _close(number, s / f) for s in said for f in _FACTORS
    )


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a))


def scale_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``arguments`` with the expression scaled to the unit the ``request`` asks for,
    where its numbers come in one other unit of the same measure (lengths multiplied
    three times are a volume) and the model's expression holds no conversion factor
    the request does not; ``None``: as the model wrote them."""
    expression = arguments.get("expression")
    if not isinstance(expression, str):
        return None
    folded = fold(request)
    asked = {UNITS[unit] for unit in _ASKED.findall(folded)}
    given = {UNITS[unit] for _, unit in _GIVEN.findall(folded)}
    box = _BOX.search(folded)
    if len(asked) != 1 or len(given) != 1:
        return None  # none asked, or numbers in several units: the model's reading stands
    ((measure, size),) = asked
    ((given_measure, given_size),) = given
    if box is not None and given_measure == "length" and measure == "volume":
        given_measure, given_size = "volume", given_size**3 * 1000  # m³ is 1000 l
    if given_measure != measure or given_size == size:
        return None
    said = {float(n.replace(",", ".")) for n in re.findall(_NUMBER, folded)}
    written = {float(n) for n in re.findall(r"\d+(?:\.\d+)?(?:e-?\d+)?", expression)}
    if any(_converted(n, said) for n in written - said):
        return None  # it converted already: "60 * 30 * 40 / 1000", 2.5 kg as 2500
    factor = given_size / size
    scaled = f"({expression}) * {factor:g}" if factor >= 1 else f"({expression}) / {1 / factor:g}"
    return {**arguments, "expression": scaled}
