"""What a count is of, read again from the request.

Asked "how many lines does the app log have?", the model calls ``wc`` without an
option, and wc prints lines, words and bytes: ``30 90 350 logs/app.log``. The user
reads three numbers for one question, and the next turn ("if every line is 48 bytes,
how many bytes is that?") computed with all three (two blind prompt sets, five turns).
A request that asks for one count (lines or rows, words, characters, bytes) and a
``wc`` given no option of its own counts only that.

Asked "what's on my todo list?", the model called ``wc todo`` (three blind prompt sets,
and the topic question said yes each time): counts for a request that asks none. A
``wc`` wrapper answers only a request for a count (:func:`asks_a_count`); any other is
off its topic, and the agent looks among the other wrappers (``cat``).
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from edgeagent.plugin import AskedIn, files_named, fold
from edgeagent_shell.rooted import unrooted_as_said

COUNTS = {
    "-l": r"lines?|rows?|entries|records|zeilen?|lignes?|lineas?|filas?|righe|righi|linhas?"
    r"|regels?|rader|linjer|linier|wierszy|wiersze|строк\w*",
    "-w": r"words?|worter|wort|mots?|palabras?|parole|parola|palavras?|слов\w*",
    "-m": r"characters?|chars?|letters?|zeichen|caracteres?|caratteri|символ\w*",
    "-c": r"bytes?|octets?|байт\w*",
}
_COUNTS = {option: re.compile(rf"\b(?:{words})\b") for option, words in COUNTS.items()}
# Japanese, Chinese and Korean, read inside words: "logs/app.log 有多少行？" came as
# ``wc`` and was refused as off its topic (fresh30).
_CJK_COUNTS = {
    "-l": re.compile(r"(?:多少|[几幾何])行|行数|(?:몇|개의?)\s*줄|줄\s*수"),
    "-m": re.compile("文字数|字数|글자"),
}
_ASKED = re.compile(
    r"\b(?:how\s+(?:many|much|long|big)|count\w*|number\s+of|total|wie\s*viele?|"
    r"combien|cuant[oa]s|quant[ioae]s?|hoeveel|ile|hur\s+m[aå]nga|hvor\s+mange|zahl|"
    r"nombre\s+de|numero\s+de|size|length|сколько|количество|посчитай)\b"
    r"|多少|几|幾|何行|何個|何件|いくつ|몇"
)
"""A request for a count in words other than what is counted: "how many", "count"."""
_OPTION = re.compile(r"^-[a-zA-Z]|^--(?:lines|words|chars|bytes|max-line-length)$")


def count_as_said(argv: list[str], request: str) -> list[str] | None:
    """``argv`` with the one count the ``request`` asks for, where it runs ``wc``
    without an option; ``None``: as it is."""
    if not argv or argv[0] != "wc" or any(_OPTION.match(a) for a in argv[1:]):
        return None
    folded = fold(request)
    asked = [o for o, words in _COUNTS.items() if words.search(folded)]
    asked += [o for o, words in _CJK_COUNTS.items() if words.search(request) and o not in asked]
    if len(asked) != 1:
        return None  # none, or "lines and words": wc's own three counts answer it
    return [argv[0], asked[0], *argv[1:]]


_LINE_COUNTED = frozenset({"head", "tail"})
_COUNT = re.compile(r"^\d+$")
_COUNT_OPTION = re.compile(r"^(?:-n|--lines)(?:=?(\d+))?$")
_A_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|few|some|first|top|last|"
    r"header|headers|heading|columns?|title)\b"
)
"""A number of lines said, or the file's first line named: "the column names in
data.csv" came as ``head data.csv 1``, which is what was meant."""


def lines_unsaid(argv: list[str], request: str) -> list[str] | None:
    """``argv`` without the number of lines the model gave ``head`` or ``tail`` (a bare
    number, ``-n N``), where the ``request`` speaks of no lines and says no number;
    ``None``: as it is. "what's in it", after a markdown file was found, came as ``head
    ./todo.md 1``, and the user read one line, its title (fresh59)."""
    if not argv or argv[0] not in _LINE_COUNTED:
        return None
    folded = fold(request)
    if _COUNTS["-l"].search(folded) or _CJK_COUNTS["-l"].search(request):
        return None
    if _A_NUMBER.search(folded):
        return None
    kept, dropped, args = [argv[0]], False, iter(argv[1:])
    for arg in args:
        option = _COUNT_OPTION.match(arg)
        if option is not None:
            if option.group(1) is None:
                next(args, None)  # its value
            dropped = True
        elif _COUNT.match(arg):
            dropped = True
        else:
            kept.append(arg)
    return kept if dropped and len(kept) > 1 else None


_QUOTED = re.compile(r"""['"‘“`«]([^'"’”`»]{1,40})['"’”`»]""")
_AND_THEN = re.compile(
    r"^\s*(?:and|or|what\s+about|how\s+about|und|et|y|e|en|och)\s+([^\W\d_][\w-]*)\s*[?.!]*\s*$"
)
"""A follow-up that names one other thing: "and 'servo'?", "what about milk?"."""
_NO_PATTERN = frozenset({
    "then", "now", "so", "yes", "no", "you", "me", "this", "that", "it", "there", "here",
    "today", "tomorrow", "more", "others", "else", "after", "later", "again", "why", "how",
})  # fmt: skip
"""Words a follow-up names that are no search: "and then?"."""


def pattern_as_said(argv: list[str], request: str) -> list[str] | None:
    """``argv`` of ``grep`` with the one word the ``request`` quotes or asks about next
    ("and 'servo'?", "what about milk?") as its pattern, where the pattern is a word
    the request does not say; ``None``: as it is. "and 'servo'?", after "grep for LED
    in the notes file", was refused, and the last search, read again from it, keeps
    its file (fresh59; :mod:`edgeagent.agent.follow_up`)."""
    if not argv or argv[0] != "grep":
        return None
    operands = [i for i, a in enumerate(argv[1:], 1) if not a.startswith("-")]
    if not operands:
        return None
    named = _QUOTED.findall(request) or _AND_THEN.findall(request)
    if len(named) != 1 or fold(named[0]) in _NO_PATTERN:
        return None
    word, pattern = named[0].strip(), argv[operands[0]]
    if not word or fold(pattern) in fold(request) or fold(word) == fold(pattern):
        return None
    return [*argv[: operands[0]], word, *argv[operands[0] + 1 :]]


_JOINERS = re.compile(r"^(?:[\s.*]|in\b)+|(?:[\s.*]|\bin)+$")


def glued_as_said(argv: list[str], request: str) -> list[str] | None:
    """``argv`` of a ``grep`` given no file, whose pattern is a word the ``request``
    says and a file it names written together, as that word searched in that file:
    "does todo.md mention solder anywhere" came as the pattern ``solder.*todo.md``,
    searched in nothing (fresh68); ``None``: as it is."""
    if not argv or argv[0] != "grep":
        return None
    operands = [i for i, a in enumerate(argv[1:], 1) if not a.startswith("-")]
    if len(operands) != 1:
        return None
    pattern = argv[operands[0]]
    for path in files_named(request):
        if path not in pattern or path == pattern:
            continue
        word = _JOINERS.sub("", pattern.replace(path, " "))
        if word and fold(word) in fold(request):
            return [*argv[: operands[0]], word, path, *argv[operands[0] + 1 :]]
    return None


def piped_as_said(argv: list[str], request: str) -> list[str] | None:
    """``argv`` of a ``grep`` written as a pipeline of words ("todo.md | grep milk",
    "cat notes.txt | grep servo | wc -l"), which runs as no pipeline, as the one word
    the ``request`` says searched in the files it names: "how many lines in todo.md
    mention milk" came as the pattern ``todo.md`` searched in ``|``, ``grep`` and
    ``milk`` (fresh74); ``None``: as it is."""
    if not argv or argv[0] != "grep" or "|" not in argv:
        return None
    named = set(files_named(request))
    options: list[str] = []
    words: list[str] = []
    segments: list[list[str]] = [[]]
    for word in argv[1:]:
        if word == "|":
            segments.append([])
        else:
            segments[-1].append(word)
    for n, segment in enumerate(segments):
        program = "grep" if n == 0 else (segment[:1] or [""])[0]
        if segment[:1] and segment[0] in ("cat", "grep"):
            program, segment = segment[0], segment[1:]
        if program == "grep":
            options += [w for w in segment if w.startswith("-")]
        if program in ("grep", "cat"):
            words += [w for w in segment if not w.startswith("-")]
    files = [w for w in words if w in named]
    patterns = [w for w in words if w not in named]
    if len(patterns) != 1 or not files or fold(patterns[0]) not in fold(request):
        return None
    return ["grep", *options, patterns[0], *files]


def asks_a_count(request: str) -> bool:
    """Whether the ``request`` asks for a count ("how many lines", "count the words",
    "Combien de lignes"): what a ``wc`` answers."""
    folded = fold(request)
    return (
        bool(_ASKED.search(folded))
        or any(w.search(folded) for w in _COUNTS.values())
        or any(w.search(request) for w in _CJK_COUNTS.values())
    )


def asked_of(template: str) -> AskedIn | None:
    """The shell's ``asked_wrapped``: :func:`asks_a_count` for a wrapper of ``wc``;
    ``None`` for every other wrapper, which answers what its topic question says."""
    return asks_a_count if template.split(" ", 1)[0] == "wc" else None


def command_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """The ``shell`` tool's reread: its ``command`` with the count the request asks for,
    without a number of lines nobody asked for (:func:`lines_unsaid`), with the word it
    searches for next (:func:`pattern_as_said`), and the paths it says relative
    (:mod:`edgeagent_shell.rooted`)."""
    command = arguments.get("command")
    if not isinstance(command, str):
        return None
    try:
        argv = shlex.split(command)
    except ValueError:
        return None  # the policy's error says what is wrong with it
    counted = (
        count_as_said(argv, request)
        or lines_unsaid(argv, request)
        or pattern_as_said(argv, request)
        or glued_as_said(argv, request)
    )
    counted = unrooted_as_said(counted or argv, request) or counted
    return None if counted is None else {**arguments, "command": shlex.join(counted)}


def wrapped_as_said(template: str, arguments: list[str], request: str) -> list[str] | None:
    """A ``.tool`` wrapper's argument list with the count the request asks for, where
    its ``template`` runs ``wc`` with the list right after the program, without a number
    of lines nobody asked for where it runs ``head`` or ``tail`` so, with the word a
    ``grep`` is asked for next, and the paths the request says relative."""
    program, _, rest = template.partition(" ")
    # A count is added only where the list follows the program (no options of its own).
    listed = [program, *arguments]
    counted = (
        count_as_said(listed, request) or lines_unsaid(listed, request)
        if rest.startswith("{arguments}")
        else None
    )
    counted = (
        counted
        or piped_as_said(listed, request)
        or pattern_as_said(listed, request)
        or glued_as_said(listed, request)
    )
    counted = unrooted_as_said(counted or [program, *arguments], request) or counted
    return None if counted is None else counted[1:]
