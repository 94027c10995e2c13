"""Numbers a user spells out, written as digits in what the model reads.

A 1.5B model reads small number words well and large ones badly (measured on blind
prompts: "three hundred and twelve times seventeen" ran as ``300 * 17``, "venti gradi"
turned the servo 15°, "al dieci per cento" set 70%). So before a prompt joins the
conversation, spelled-out numbers of 10 and more, and groups of number words, become
digits (``text2num``'s ``alpha2digit``) in English, German, French, Spanish, Italian
and Portuguese: "three hundred and twelve" -> "312", "venti gradi" -> "20 gradi".
Single words under 10 stay words ("turn on one light"), as do ordinals under 10.

The language is not guessed: each language's conversion runs in turn, and the few
words that are a number in one language and a plain word in another ("once", "elf",
"cent"), or in the same one ("sei"), are left as written. A percent said in words
("per cento", "pour cent", "por ciento") becomes ``%``, which would otherwise read as
"per 100". Between two numbers, Spanish "por" and Italian "per" are times ("siete por
ocho por nueve" ran as ``7 / 8 * 9``, "novecentonovantanove per tre" as ``999 / 3``):
they become ``*``, and so do the numbers either side, in digits; "diviso per 2"
(divided by) has no number before "per" and stays.
"""

from __future__ import annotations

import re

from text_to_num import alpha2digit

LANGUAGES = ("en", "de", "fr", "es", "it", "pt")
THRESHOLD = 10
"""A lone number word below this stays a word (text2num's ``threshold``)."""
HOMOGRAPHS = ("once", "elf", "cent", "sei")
"""Number words of one language that are plain words of another (English "once" is
Spanish 11), or of their own (Italian "sei", six and "you are": "sei un tesoro" read
"6 1 tesoro", and the model answered that): never converted."""
_PERCENT = re.compile(r"\b(?:per|pour|por)\s+(?:cento|cent|ciento)\b", re.IGNORECASE)
_KEPT = re.compile(r"\b(" + "|".join(HOMOGRAPHS) + r")\b", re.IGNORECASE)
_TIMES = re.compile(r"[^\W_]+(?:\s+(?:per|por)\s+[^\W_]+)+", re.IGNORECASE)
_PER = re.compile(r"\s+(?:per|por)\s+", re.IGNORECASE)


def as_digits(text: str) -> str:
    """``text`` with its spelled-out numbers written as digits ("what is three hundred
    and twelve times seventeen" -> "what is 312 times 17")."""
    # Split around the homographs (odd pieces), which stay as written.
    pieces = _KEPT.split(_PERCENT.sub("%", text))
    text = "".join(piece if i % 2 else _converted(piece) for i, piece in enumerate(pieces))
    return _TIMES.sub(_times, text)


def _times(match: re.Match[str]) -> str:
    """``siete por ocho por nueve`` -> ``7 * 8 * 9``, where every word is a number; else
    as written."""
    words = _PER.split(match.group(0))
    numbers = [_number(word) for word in words]
    if None in numbers or (len(set(words)) == 1 and not words[0].isdigit()):
        return match.group(0)  # not numbers, or "uno per uno" (one by one)
    return " * ".join(n for n in numbers if n is not None)


def _number(word: str) -> str | None:
    """``word`` in digits when it is a number (a digit string, or a number word of one
    of the languages), else ``None``."""
    if word.isdigit():
        return word
    for language in LANGUAGES:
        digits = str(alpha2digit(word, language, threshold=0))
        if digits.isdigit():
            return digits
    return None


def _converted(text: str) -> str:
    for language in LANGUAGES:
        text = alpha2digit(text, language, threshold=THRESHOLD)
    return text
