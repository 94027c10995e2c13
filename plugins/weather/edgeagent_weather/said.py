"""The day a request names, in English, German, French, Spanish, Italian or Portuguese.

Asked "Che tempo farà a Verona martedì?", the model calls ``weather`` with ``day:
"tomorrow"``: it translates day words on its own, and wrongly ("domenica", "dopodomani",
"pasado mañana" all arrived as tomorrow, in four prompt sets written by different
people). English it mostly copies, but not always: "I'm going to Paris on Thursday.
What's the weather looking like?" came as ``day: "today"``. So the tool reads the
request's own words again (:func:`said_day`) and, where they name one day that the
call's does not, asks for that day (:attr:`~edgeagent.tools.tool.Tool.reread`).
"""

from __future__ import annotations

import re

from edgeagent.plugin import plain
from edgeagent_weather.days import WEEKDAYS

_WEEKDAY_WORDS = (
    ("montag", "lundi", "lunes", "lunedi", "segunda", "segunda feira"),
    ("dienstag", "mardi", "martes", "martedi", "terca", "terca feira"),
    ("mittwoch", "mercredi", "miercoles", "mercoledi", "quarta", "quarta feira"),
    ("donnerstag", "jeudi", "jueves", "giovedi", "quinta", "quinta feira"),
    ("freitag", "vendredi", "viernes", "venerdi", "sexta", "sexta feira"),
    ("samstag", "sonnabend", "samedi", "sabado", "sabato"),
    ("sonntag", "dimanche", "domingo", "domenica"),
)
WORDS: dict[str, str] = {
    # English
    "today": "today", "tonight": "today", "tomorrow": "tomorrow",
    "day after tomorrow": "day after tomorrow",
    # today (and phrases that hold a word for tomorrow but mean this morning)
    "heute": "today", "heute morgen": "today", "aujourd hui": "today", "hoy": "today",
    "esta manana": "today", "oggi": "today", "stamattina": "today", "hoje": "today",
    # tomorrow
    "morgen": "tomorrow", "demain": "tomorrow", "manana": "tomorrow", "domani": "tomorrow",
    "amanha": "tomorrow",
    # the day after tomorrow
    "ubermorgen": "day after tomorrow", "apres demain": "day after tomorrow",
    "pasado manana": "day after tomorrow", "dopodomani": "day after tomorrow",
    "depois de amanha": "day after tomorrow",
    # not a day: a greeting, the time of day
    "guten morgen": "", "por la manana": "", "de manana": "",
}  # fmt: skip
for _english, _words in zip(WEEKDAYS, _WEEKDAY_WORDS, strict=True):
    WORDS.update(dict.fromkeys((_english, *_words), _english))
_PATTERN = re.compile(
    r"\b(" + "|".join(sorted(map(re.escape, WORDS), key=len, reverse=True)) + r")\b"
)
_COUNTS = {
    "one": 1, "a": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "einem": 1, "zwei": 2, "drei": 3, "vier": 4, "funf": 5, "sechs": 6,
    "un": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5,
    "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6,
    "due": 2, "tre": 3, "quattro": 4, "cinque": 5, "sei": 6,
    "dois": 2, "quatro": 4,
}  # fmt: skip
# "in three days", "in 3 Tagen", "dans 3 jours", "en tres dias", "tra 3 giorni",
# "fra tre giorni", "em 3 dias", "daqui a 3 dias"
_IN_DAYS = re.compile(
    r"\b(?:in|dans|en|tra|fra|em|daqui\s+a)\s+(\d|" + "|".join(_COUNTS) + r")\s+"
    r"(?:days?|tagen|jours?|dias?|giorni|giorno)\b"
)


def said_day(request: str, *, place: str = "") -> str | None:
    """The day ``request`` names in one of those languages, as the tool's English word
    ("martedì" -> "tuesday", "on Thursday" -> "thursday"); ``None`` when it names none,
    or several. Words of the ``place`` do not count ("Santo Domingo" names no Sunday)."""
    text = plain(request)
    if plain(place):
        text = re.sub(r"\b" + re.escape(plain(place)) + r"\b", " ", text)
    found = {WORDS[m] for m in _PATTERN.findall(text)} - {""}
    for count in _IN_DAYS.findall(text):
        days = int(count) if count.isdigit() else _COUNTS[count]
        found.add({1: "tomorrow", 2: "day after tomorrow"}.get(days, f"in {days} days"))
    return found.pop() if len(found) == 1 else None
