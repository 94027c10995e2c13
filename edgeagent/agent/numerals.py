"""Numbers a user spells out, written as digits in what the model reads.

A 1.5B model reads small number words well and large ones badly (measured on blind
prompts: "three hundred and twelve times seventeen" ran as ``300 * 17``, "venti gradi"
turned the servo 15°, "al dieci per cento" set 70%). So before a prompt joins the
conversation, spelled-out numbers of 10 and more, and groups of number words, become
digits (``text2num``'s ``alpha2digit``) in English, German, French, Spanish, Italian,
Portuguese and Dutch: "three hundred and twelve" -> "312", "venti gradi" -> "20 gradi"
(Dutch added after it changed one prompt of all in the benchmarks' records, "twintig
graden", and no other).
Single words under 10 stay words ("turn on one light"), as do ordinals under 10.

The language is not guessed: each language's conversion runs in turn, and the few
words that are a number in one language and a plain word in another ("once", "elf",
"cent"), or in the same one ("sei"), are left as written. A percent said in words
("per cento", "pour cent", "por ciento") becomes ``%``, which would otherwise read as
"per 100". Between two numbers, Spanish "por" and Italian "per" are times ("siete por
ocho por nueve" ran as ``7 / 8 * 9``, "novecentonovantanove per tre" as ``999 / 3``):
they become ``*``, and so do the numbers either side, in digits; "diviso per 2"
(divided by) has no number before "per" and stays.

Swedish, which ``text2num`` lacks, is read here: "Sätt LED-listen på sjuttio procent"
set 75% and "sjutton gånger tjugotre" was answered 27, unworked. A Swedish word made
wholly of number parts ("tjugotre", "tvåhundrafemtio"), or a group of them ("två
hundra"), of 10 or more becomes digits; "tio" alone stays (Spanish and Portuguese
"uncle"), as does "tusen tack" (thanks). "procent" after a number is ``%``, and between
numbers "gånger" is ``*`` and "delat med" ``/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from text_to_num import alpha2digit

LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl")
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
_SV_UNITS = {"en": 1, "ett": 1, "två": 2, "tre": 3, "fyra": 4, "fem": 5, "sex": 6}
_SV_UNITS |= {"sju": 7, "åtta": 8, "nio": 9}
_SV_TEENS = {"tio": 10, "elva": 11, "tolv": 12, "tretton": 13, "fjorton": 14}
_SV_TEENS |= {"femton": 15, "sexton": 16, "sjutton": 17, "arton": 18, "nitton": 19}
_SV_TENS = {"tjugo": 20, "tjugu": 20, "trettio": 30, "fyrtio": 40, "femtio": 50}
_SV_TENS |= {"sextio": 60, "sjuttio": 70, "åttio": 80, "nittio": 90}
_SV_PARTS = [*_SV_UNITS, *_SV_TEENS, *_SV_TENS, "hundra", "tusen", "ettusen", "noll"]
_SV_WORD = "(?:" + "|".join(sorted(_SV_PARTS, key=len, reverse=True)) + ")+"
_SV_NUMBER = rf"(?:\d+|{_SV_WORD})\b"
_SV_GROUP = re.compile(rf"\b{_SV_WORD}(?:\s+{_SV_WORD})*\b(?!\s+tack\b)", re.I)
"""Swedish number words, one or a group; "tusen tack" (thanks a lot) is no number."""
_SV_PERCENT = re.compile(rf"\b({_SV_NUMBER})\s+procent\b", re.IGNORECASE)
_SV_TIMES = re.compile(rf"\b{_SV_NUMBER}(?:\s+(?:gånger|delat\s+med)\s+{_SV_NUMBER})+", re.I)
_SV_OPERATOR = re.compile(r"\s+(gånger|delat\s+med)\s+", re.IGNORECASE)


def as_digits(text: str) -> str:
    """``text`` with its spelled-out numbers written as digits ("what is three hundred
    and twelve times seventeen" -> "what is 312 times 17")."""
    text = _SV_GROUP.sub(_swedish_group, text)
    # Split around the homographs (odd pieces), which stay as written.
    pieces = _KEPT.split(_PERCENT.sub("%", text))
    text = "".join(piece if i % 2 else _converted(piece) for i, piece in enumerate(pieces))
    text = _SV_PERCENT.sub(_swedish_percent, _TIMES.sub(_times, text))
    return _SV_TIMES.sub(_swedish_times, text)


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


def _swedish_group(match: re.Match[str]) -> str:
    """Swedish number words in digits, the longest run of words that is one number
    first ("två hundra" -> "200", "tjugo tre" -> "23"); a number under 10, or "tio"
    alone, stays as written."""
    tokens = re.split(r"(\s+)", match.group(0))  # words at even places
    out: list[str] = []
    start = 0
    while start < len(tokens):
        for end in range(min(len(tokens), start + 15), start, -2):  # up to 8 words
            value = _swedish("".join(tokens[start:end:2]))
            if value is not None:
                break
        written = "".join(tokens[start:end])
        kept = value is None or value < THRESHOLD or written.lower() == "tio"
        out += [written if kept else str(value), *tokens[end : end + 1]]
        start = end + 1
    return "".join(out)


def _swedish_percent(match: re.Match[str]) -> str:
    """``sjuttio procent`` -> ``70%``, any number in words or digits."""
    number = _swedish_operand(match.group(1))
    return match.group(0) if number is None else number + "%"


def _swedish_times(match: re.Match[str]) -> str:
    """``sjutton gånger tjugotre`` -> ``17 * 23``, ``hundra delat med fyra`` ->
    ``100 / 4``, where every operand is a number; else as written."""
    pieces = _SV_OPERATOR.split(match.group(0))  # numbers at even places
    numbers = [_swedish_operand(piece) for piece in pieces[::2]]
    if None in numbers:
        return match.group(0)
    pieces[::2] = numbers
    pieces[1::2] = ["*" if op.lower() == "gånger" else "/" for op in pieces[1::2]]
    return " ".join(pieces)


def _swedish_operand(word: str) -> str | None:
    if word.isdigit():
        return word
    value = _swedish(word)
    return None if value is None else str(value)


def _swedish(word: str) -> int | None:
    """The value of a Swedish number written as one word ("tvåtusentrehundra" -> 2300),
    ``None`` unless the whole word is one ("femtiotal", "entre")."""
    word = word.lower()
    if word == "noll":
        return 0
    if word.startswith("ettusen"):  # ett + tusen, the third t dropped
        word = "ett" + word[2:]
    for value, rest in _below(1000, word):
        if not rest:
            return value
    for times, rest in [(1, word), *_below(1000, word)]:
        if rest.startswith("tusen"):
            for value, after in [(0, rest[5:]), *_below(1000, rest[5:])]:
                if not after:
                    return times * 1000 + value
    return None


def _below(limit: int, word: str) -> Iterator[tuple[int, str]]:
    """Each number under ``limit`` (100 or 1000) that ``word`` starts with, and the rest
    of ``word`` after it."""
    yield from _starts(word, _SV_UNITS | _SV_TEENS)
    for tens, rest in _starts(word, _SV_TENS):
        yield tens, rest
        yield from ((tens + unit, after) for unit, after in _starts(rest, _SV_UNITS))
    if limit > 100:
        for times, rest in [(1, word), *_starts(word, _SV_UNITS)]:
            if rest.startswith("hundra"):
                yield times * 100, rest[6:]
                yield from ((times * 100 + n, after) for n, after in _below(100, rest[6:]))


def _starts(word: str, parts: dict[str, int]) -> Iterator[tuple[int, str]]:
    return ((value, word[len(part) :]) for part, value in parts.items() if word.startswith(part))
