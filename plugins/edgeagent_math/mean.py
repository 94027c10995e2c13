"""A mean from a total and a count, read again from the request.

Asked "if the 40 temperature readings add up to 862, what's the mean?", the model
wrote ``mean([40, 41, 42, ...])``; asked "the 40 readings add up to 862, what's the
average", it wrote ``sum([41, 41, 237]) / 3`` (two blind turns): readings made up
where the request gives only their sum. A request that gives a total ("add up to",
"sum to", "a total of", "insgesamt", "au total", "suman", "in totale", "somam") and
one count of things (a number right before a noun: "40 readings", "7 Tage"), and asks
for their mean ("average", "Durchschnitt", "moyenne", "media", "promedio", "each", or
"per" the counted thing), is ``total / count``; the tool writes it where the model's
expression gives another value or none.

A request with any other number ("the 3 numbers add up to 30 and one is 12"), a
count of a unit ("300 km in a total of 4 hours": a speed, not a mean), or a second
total is left as the model wrote it.
"""

from __future__ import annotations

import re
from typing import Any

from edgeagent_math.rates import NUMBER, PER, RATE_UNITS, differs, number, read, same_noun

_BEFORE = (
    r"add(?:s|ed)?\s+up\s+to|sum(?:s|med)?\s+(?:up\s+)?to|(?:sum|total)\s+(?:is|was|of|=|:)"
    r"|total(?:s|l?ed|l?ing)?|ergeben(?:\s+zusammen)?|summe\s+(?:ist|betragt|von|:)"
    r"|summieren\s+sich\s+auf|insgesamt|zusammen|(?:somme|total)\s+(?:est|fait|de|:)"
    r"(?:\s+de)?|totalisent|s'elevent\s+a|au\s+total(?:\s+de)?|suman|(?:suma|total)\s+"
    r"(?:es|:)(?:\s+de)?|en\s+total|totalizan|sommano(?:\s+a)?|(?:somma|totale)\s+(?:e|di|:)"
    r"(?:\s+di)?|in\s+totale|somam|soma\s+(?:e|de|:)(?:\s+de)?|no\s+total|totalizam"
)
_AFTER = (
    r"in\s+total|all\s+together|altogether|insgesamt|zusammen|au\s+total|en\s+tout"
    r"|en\s+total|in\s+totale|in\s+tutto|no\s+total|ao\s+todo|em\s+total"
)
_TOTAL = re.compile(
    rf"\b(?:{_BEFORE})\s+(?:of\s+|von\s+|de\s+|di\s+)?({NUMBER})(?!\w|[.,]\d)"
    rf"|(?<![\w.,])({NUMBER})\s+(?:[a-z€$£]+\s+)?(?:{_AFTER})\b"
)
"""A total: "add up to 862", "a total of 862", "862 in total", "suman 862"."""
_MEAN = re.compile(
    r"\b(?:mean|average|avg|durchschnitt\w*|mittelwert|moyenne|media|medio|promedio|each"
    r"|chacun|chacune|cada\s+(?:uno|una|um|uma)|ciascuno|ognuno|jede[rsn]?)\b"
)
"""A mean asked: "what's the mean", "im Durchschnitt", "la moyenne", "each"."""
_PER = re.compile(rf"{PER}([a-z]+)\b")
_COUNT = re.compile(r"(?<![\w.,])(\d+)\s+([a-z]+)\b(?:\s+([a-z]+)\b)?")
"""A count and the one or two words after it: "40 readings", "40 temperature readings"."""
_NOT_NOUN = (
    "and or plus minus times by x is are was were add adds added sum sums total totals to "
    "in of on at for und oder mal ist sind ergeben et ou fois est sont font y o es "
    "son suman e vezes sono fanno sommano sao somam the le la les el los las il lo gli "
    "der die das den dem des a an de di da do du del della von percent prozent pour cent "
    "por cento per pro par"
)
_NOT_NOUNS = frozenset(_NOT_NOUN.split())
"""Words after a number that are no noun it counts: "x and 40 add up to 90"."""


def mean_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``arguments`` with ``total / count`` where the ``request`` gives one total and
    one count of things and asks for their mean, and the model's expression gives
    another value; ``None``: as the model wrote them."""
    folded = read(request)
    if folded is None:
        return None
    totals = list(_TOTAL.finditer(folded))
    numbers = re.findall(rf"(?<![\w.,]){NUMBER}", folded)
    if len(totals) != 1 or len(numbers) != 2:
        return None
    total = totals[0].group(1) or totals[0].group(2)
    rest = folded[: totals[0].start()] + " ; " + folded[totals[0].end() :]
    counted = _COUNT.search(rest)
    if counted is None:
        return None
    count, words = counted.group(1), [w for w in counted.group(2, 3) if w]
    if words[0] in _NOT_NOUNS or words[0] in RATE_UNITS or int(count) == 0:
        return None  # "x and 40 add up to 90", "300 km in a total of 4 hours"
    asked = _MEAN.search(folded) or any(
        same_noun(word, per) for per in _PER.findall(folded) for word in words
    )
    if not asked or not differs(arguments.get("expression"), number(total) / int(count)):
        return None
    return {**arguments, "expression": f"{total.replace(',', '.')} / {count}"}
