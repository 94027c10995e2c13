"""A level named as a part of the strip's own: "a quarter of what they are now", "70% of
its current brightness", "ein Viertel der aktuellen Helligkeit".

Asked so, the model wrote a number of its own: "dim the lights to a quarter of what
they are now" (the strip at 80) came as brightness 50, "set the light to 70% of its
current brightness" (at 80) as 70; 20 and 56 were meant (blind prompts). A part (a
fraction, ``3/4``, or a percentage) counts only where the words after it say the level
it is a part of is the strip's now ("of what it is", "of its current brightness", "of
that", "der aktuellen Helligkeit", "de la luminosité actuelle", "del brillo actual",
"della luminosità attuale"): "70% brightness", "to 70%" and "20% of 150" name a level
of their own, and "a quarter of that number" a part of a value named back (an earlier
result: 128 / 4 was read as a quarter of the strip's 80; fresh74). "reduce the
brightness by a quarter" names a part of the level the strip has, as a fraction word,
never as a percentage ("reduce it to 70%" is 70). "cut it to a third" alone names no
level it is a part of: the model's reading stands ("bring the brightness down to a
quarter", at 60, was meant as 25 and was read as 15; fresh46).
"""

from __future__ import annotations

import re

_PARTS = {
    # English, German, French, Spanish, Italian, Portuguese (folded: accents dropped)
    **dict.fromkeys(("half", "halves", "halfte", "moitie", "mitad", "meta", "metade"), 2),
    **dict.fromkeys(("third", "thirds", "drittel", "tiers", "tercio", "tercios", "tercera parte",
                     "terzo", "terzi", "terco", "tercos"), 3),
    **dict.fromkeys(("quarter", "quarters", "fourth", "fourths", "viertel", "quart", "quarts",
                     "cuarto", "cuartos", "cuarta parte", "quarto", "quarti", "quartos"), 4),
    **dict.fromkeys(("fifth", "fifths", "funftel", "cinquieme", "cinquiemes", "quinto",
                     "quintos", "quinta parte", "quinti"), 5),
    **dict.fromkeys(("tenth", "tenths", "zehntel", "dixieme", "dixiemes", "decimo",
                     "decima parte", "decimi"), 10),
}  # fmt: skip
_COUNTS = {
    **dict.fromkeys(("a", "an", "one", "ein", "eine", "einem", "die", "un", "une", "la",
                     "uno", "una", "um", "uma"), 1),
    **dict.fromkeys(("two", "zwei", "deux", "dos", "due", "dois", "duas"), 2),
    **dict.fromkeys(("three", "drei", "trois", "tres", "tre"), 3),
}  # fmt: skip
_ALTERNATIVES = "|".join(sorted(_PARTS, key=len, reverse=True))
_WORD_PART = (
    r"(?:(?P<count>\d+|" + "|".join(sorted(_COUNTS, key=len, reverse=True)) + r")\s+)?"
    r"(?P<part>" + _ALTERNATIVES.replace(" ", r"\s+") + r")\b"
)
PERCENT = (
    r"(?:%|percent|per\s*cent|prozent|pour\s*cent|por\s*ciento|per\s*cento|por\s*cento|"
    r"procentu?)"
)
"""A percent sign or word, folded, in the languages the strip reads."""
_PART = (
    _WORD_PART + r"|(?P<over>\d+)\s*/\s*(?P<under>\d+)|(?P<percent>\d+(?:[.,]\d+)?)\s*" + PERCENT
)
_NOW = (
    # "of what they are now", "of its current brightness", "of the current level", "of that"
    r"of\s+(?:(?:what|where|how\s+bright)\s+(?:it|they|that|the\s+(?:lights?|lamps?|strip|leds?))"
    r"\s*(?:is|are|was|['’]s|['’]re)\b|(?:its|their|the|your|my)\s+(?:current|present)\b|"
    r"current\b|now\b|(?:that|this|it)\b(?!\s*\d|['’]|\s+(?:number|result|value|answer|sum|total))|(?:the\s+)?(?:brightness|level)\s+(?:right\s+)?now\b)"
    # "der aktuellen Helligkeit", "vom jetzigen Wert"
    r"|(?:der|des|von\s+der|vom|von\s+dem)\s+(?:aktuell|jetzig|momentan|derzeitig|gegenwartig)"
    # "de la luminosité actuelle", "du niveau actuel"
    r"|(?:de\s+(?:la\s+|sa\s+|leur\s+|l['’]\s*)?|du\s+)"
    r"(?:luminosite|intensite|lumiere|niveau|valeur|reglage)\s+actuel"
    # "del brillo actual", "de la intensidad actual"
    r"|(?:del|de\s+la|de\s+su)\s+(?:brillo|nivel|valor|intensidad|luz|luminosidad)\s+actual\b"
    # "della luminosità attuale", "del livello attuale"
    r"|(?:della\s+|del\s+|dell['’]\s*)(?:luminosita|intensita|livello|valore|luce)\s+attuale"
    # "do brilho atual", "da intensidade atual"
    r"|(?:do|da)\s+(?:brilho|nivel|valor|intensidade|luz)\s+atual"
)
_OF_NOW = re.compile(r"(?<![\w.,/])(?:" + _PART + r")\s+(?:" + _NOW + ")")
_WHO = r"\s+(?:it|them|that|the\s+(?:brightness|level|lights?|lamps?|strip|leds?))"
_BY = re.compile(
    r"\b(?:(?P<up>increase|raise|boost|bump|brighten)|reduce|cut|drop|lower|decrease|dim)"
    r"(?:" + _WHO + r")?\s+(?:up\s+|down\s+)?by\s+" + _WORD_PART
)
NOT_A_PART = r"(?!\s*(?:/\s*\d|(?:" + _ALTERNATIVES + r")\b))"
"""After a number changed by ("add 1"): no part follows ("reduce it by 1 third")."""


def _share(match: re.Match[str]) -> float:
    """The part ``match`` names, as a share of 1."""
    if match.group("part") is not None:
        count = match.group("count") or "1"
        over = int(count) if count.isdigit() else _COUNTS[count]
        return over / _PARTS[" ".join(match.group("part").split())]
    if match.group("over") is not None:
        return int(match.group("over")) / max(1, int(match.group("under")))
    return float(match.group("percent").replace(",", ".")) / 100


def shares_of_now(folded: str) -> set[float]:
    """The shares of the strip's level now a folded request names: "a quarter of what
    they are now" 0.25, "70% of its current brightness" 0.7, "cut it to a third of that" 1/3,
    "reduce it by a quarter" 0.75, "raise it by a half" 1.5."""
    shares = {_share(m) for m in _OF_NOW.finditer(folded)}
    for m in _BY.finditer(folded):
        shares.add(1 + _share(m) if m.group("up") else 1 - _share(m))
    return shares
