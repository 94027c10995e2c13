"""Words as people write them, compared without case or accents.

A tool that reads the user's request again (:attr:`~edgeagent.tools.tool.Tool.reread`)
and the agent's checks of the user's words both need "Martedì" to read as "martedi"
and "Weiß" as "weiss".
"""

from __future__ import annotations

import itertools
import re
import unicodedata

from anyascii import anyascii


def fold(text: str) -> str:
    """Lower case, accents dropped, punctuation kept: "Martedì -45°" -> "martedi -45°"."""
    letters = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in letters if not unicodedata.combining(c))


def plain(text: str) -> str:
    """:func:`fold`, with punctuation as spaces and spaces collapsed: "Múnich!" -> "munich"."""
    return " ".join(re.sub(r"[\W_]+", " ", fold(text)).split())


SLIP_MIN = 5
"""The shortest word a slip of the keyboard is read in: "yelow" is yellow, but "bed" is
not "red"."""


def one_slip(written: str, meant: str) -> bool:
    """Whether ``written`` is ``meant`` with one slip of the keyboard (a letter left out,
    added, changed, or two swapped), both at least :data:`SLIP_MIN` letters: "yelow" for
    "yellow", "lihgts" for "lights" (blind prompts). The same word is no slip."""
    if written == meant or min(len(written), len(meant)) < SLIP_MIN:
        return False
    if abs(len(written) - len(meant)) > 1:
        return False
    start = 0
    while start < min(len(written), len(meant)) and written[start] == meant[start]:
        start += 1
    a, b = written[start:], meant[start:]
    if len(a) == len(b):
        swapped = len(a) >= 2 and a[0] == b[1] and a[1] == b[0] and a[2:] == b[2:]
        return a[1:] == b[1:] or swapped
    return a[1:] == b if len(a) > len(b) else a == b[1:]


STEM_MIN = 4
"""The shortest stem two forms of a word share: "Gdyni" and "Gdynia", not "Oslo" and
"Osaka"."""
ENDING_MAX = 4
"""The longest ending a form of a word adds to its stem: "Tampereella" is Tampere."""


def one_form(written: str, said: str) -> bool:
    """Whether ``written`` is a form of the word ``said`` with another ending, as
    Polish, Czech or Finnish inflect a name ("w Gdyni" for Gdynia, "Tampereella" for
    Tampere, "w Warszawie" for Warszawa): a shared stem of at least :data:`STEM_MIN`
    letters, and endings of at most :data:`ENDING_MAX`. The model writes the name's own
    form, and a check of the user's words must read it as said. Two letters of the
    shorter word may change only after a long stem ("Warszawie"): "Bergen" is not
    "Bergamo"."""
    stem = 0
    while stem < min(len(written), len(said)) and written[stem] == said[stem]:
        stem += 1
    left = min(len(written), len(said)) - stem
    endings = (len(written) - stem, len(said) - stem)
    changed = left <= 1 or (left <= 2 and stem >= STEM_MIN + 2)
    return stem >= STEM_MIN and changed and max(endings) <= ENDING_MAX


def said_in_words(name: str, heard: str) -> bool:
    """Whether the user's words ``heard`` (:func:`plain`) hold ``name`` (plain), word
    for word or each word in another form (:func:`one_form`): "Jaka będzie jutro pogoda
    w Gdyni?" came as ``location: "Gdynia"``, the name's own form, and was asked back
    as a place nobody named (blind prompts)."""
    if name in heard:
        return True
    said = heard.split()
    return all(any(word == s or one_form(word, s) for s in said) for word in name.split())


FILE_SUFFIX = re.compile(r"(?<=\w)\.[A-Za-z]\w{0,4}$")
"""A file name's extension (``.txt``, ``.md``, ``.log``)."""


def names_file(path: str, request: str) -> bool:
    """Whether ``request`` names the file ``path`` by its one-word stem, as people name
    files: "what's on my todo list" for ``todo.md``, "my notes" for ``notes.txt``, "the
    app log" for ``logs/app.log``; "to-do" counts as "todo". A name without an extension
    names no file."""
    name = path.rsplit("/", 1)[-1]
    if not FILE_SUFFIX.search(name):
        return False
    stem = plain(FILE_SUFFIX.sub("", name))
    if len(stem) < 3 or " " in stem:
        return False
    words = plain(request).split()
    return stem in words or stem in {a + b for a, b in itertools.pairwise(words)}


_A_FILE = re.compile(r"(?<![\w.])(?:[\w-]+/)*[\w-]+\.[A-Za-z]\w{1,4}\b(?!\.\w)")
_PATH = re.compile(r"[\w./-]*\w\.[a-z]\w*|[\w.-]*/[\w./-]*")


def is_a_path(value: str) -> bool:
    """Whether a call's value is a file or folder as calls name them (``todo.txt``,
    ``logs/app.log``, ``logs/``), not a number or a word."""
    return bool(_PATH.fullmatch(value))


def names_a_file(request: str) -> bool:
    """Whether ``request`` names a file by its whole name, extension and all
    ("notes.txt", "logs/app.log"); "e.g." and "3.14" are none."""
    return bool(_A_FILE.search(request))


def files_named(request: str) -> list[str]:
    """The files ``request`` names by their whole names, folders and all, in order
    ("logs/app.log", "notes.txt"): what :func:`names_a_file` finds."""
    return _A_FILE.findall(request)


_NAME_AFTER = re.compile(
    r"\b(?:in|for|at|near|around|à|en|em|no|na|nach|dans|w|we|v|ve|i|op|te|ad)\s+"
    r"(?=([^\W\d_][\w'’-]*(?:\s[^\W\d_][\w'’-]*)*))",
    re.IGNORECASE,
)
"""A word after a preposition of place, in English and the languages people ask in, and
the words after it; :func:`named_place` keeps the capitalised ones."""
_NOT_A_NAME = frozenset({
    "i", "the", "a", "an", "my", "our", "your", "this", "that", "celsius", "fahrenheit",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december",
})  # fmt: skip
"""Capitalised words that name no place: a day, a month, a unit, an article."""


def named_place(request: str) -> str | None:
    """The one name ``request`` gives a place by, capitalised after a preposition ("in",
    "for", "at", "à", "en", "nach", "w"…): "weather in Osaka on sunday?" gives "Osaka",
    "forecast for New York tomorrow" "New York"; ``None`` where it gives none or several
    ("in Paris or in Rome"), or the name is a day, a month or a unit."""
    found = set()
    for match in _NAME_AFTER.finditer(request):
        words = []
        for word in match.group(1).split():
            if not word[:1].isupper() or fold(word) in _NOT_A_NAME:
                break
            words.append(word)
        name = " ".join(words)
        if name:
            found.add(name)
    return found.pop() if len(found) == 1 else None


SCRIPT_PREFIX = 3
"""The letters a name and its transliteration share at the start: "Moskve" (Москве) and
Moscow, "Athina" (Αθήνα) and Athens, "seoul" (서울) and Seoul."""
_OTHER_SCRIPT = re.compile(r"[^\W\d_a-zA-Z\u00C0-\u024F]+(?:[-'’][^\W\d_a-zA-Z\u00C0-\u024F]+)*")
"""A word in letters other than Latin ones."""
_CASED = re.compile(r"[\u0370-\u052F]")
"""Greek and Cyrillic: scripts with capitals, where a name is written with one."""


def written_otherwise(name: str, request: str) -> bool:
    """Whether ``name``, in Latin letters, is a name ``request`` writes in another script,
    as the model translates it: "Какая погода будет в Москве?" came as ``location:
    "Moscow"``, "Τι καιρό θα κάνει στην Αθήνα αύριο;" as "Athens", and both were asked
    back as places nobody named (fresh57, fresh60). A word of the name and the word's
    transliteration (``anyascii``) share their first :data:`SCRIPT_PREFIX` letters; in
    Greek or Cyrillic the word is capitalised, as names are, and starts no sentence.
    Japanese names in kanji read otherwise (東京 as "DongJing") and stay unread. Where
    the request names no place ("明日の天気は？"), the model's "Tokyo" or "Oslo" shares
    no start with it."""
    starts = _starts(name)
    if not starts:
        return False
    for match in _OTHER_SCRIPT.finditer(request):
        word = match.group(0)
        first = not request[: match.start()].strip(" ¿¡\"'«“") or bool(
            re.search(r"[.!?;]\s*$", request[: match.start()])
        )
        if _CASED.match(word) and (not word[:1].isupper() or first):
            continue  # "Будет ли дождь?" is no Budapest
        if _reads_as(starts, word):
            return True
    return False


def in_another_script(text: str) -> bool:
    """Whether ``text`` has a word in letters other than Latin ones ("北京", "Москва";
    not "Łódź" or "Tromsø")."""
    return _OTHER_SCRIPT.search(text) is not None


def transliterates(name: str, written: str) -> bool:
    """Whether ``name``, in Latin letters, is how ``written``, a name in another script,
    reads (as :func:`written_otherwise` judges a word): "Beijing" for 北京, "Moscow" for
    Москва, "Seoul" for 서울; not "Osaka" for 大阪, whose kanji read as Chinese."""
    starts = _starts(name)
    return bool(starts) and any(
        _reads_as(starts, m.group(0)) for m in _OTHER_SCRIPT.finditer(written)
    )


def _starts(name: str) -> set[str]:
    """The first :data:`SCRIPT_PREFIX` letters of each word of ``name``; none where a
    letter is not Latin."""
    if not plain(name).isascii():
        return set()
    return {w[:SCRIPT_PREFIX] for w in plain(name).split() if len(w) >= SCRIPT_PREFIX}


def _reads_as(starts: set[str], word: str) -> bool:
    """Whether ``word``, in another script, transliterated (``anyascii``), starts as
    one of ``starts``; from each letter on in a script without capitals: a name inside
    a run of Chinese or Japanese ("北京明天")."""
    for part in re.split(r"[-'’]", word):
        for i in range(len(part) if not _CASED.match(part) else 1):
            read = plain(anyascii(part[i:])).replace(" ", "")
            if read[:SCRIPT_PREFIX] in starts:
                return True
    return False
