"""Paths a small model got wrong: mended where only one reading fits, else named.

A small model guesses paths (``app.log`` for ``logs/app.log``, ``file.txt`` for "the
files"), swaps grep's pattern and file, and does not correct itself from an error
message (measured: it answers "the file does not exist" instead). So before a command
runs, :func:`mend_paths` replaces a missing path where exactly one reading fits (the
only file of that name below the roots, or, for a name without an extension, the only
file of that stem: "notes" for ``notes.txt``, as people name files, and "to-do.txt"
for ``todo.md``, as the model guesses them; for a name whose
stem is a file type, the only file of that type: "log" or "log.txt" for ``logs/app.log``,
as people say "the log"; grep's pattern and path swapped; every file for a recursive
grep of a file that is not there; a number given to head or tail as a file is the line
count; a folder that holds one file, for a command that reads files, is that file), and
says so in the answer. What cannot be mended fails with the names that are
there (:func:`missing_paths`, :func:`files_hint`). After it runs, a ``grep`` that found
nothing tries its word's stem (:func:`stem_search`), and an ``ls`` of one file shows the
file's first lines too (:func:`listed_file`).
"""

from __future__ import annotations

import difflib
import itertools
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import snowballstemmer

MISSING = "No such file or directory"
MAX_SCANNED = 2000
"""Files looked at below the roots: a hint must stay cheap on a Pi's SD card."""
MAX_NAMED = 8
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "venv"})

# "cat: app.log: No such file...", "ls: cannot access 'x': No such...",
# "head: cannot open 'x' for reading: No such...", "find: 'x': No such..."
_MISSING_LINE = re.compile(
    r"^[\w.-]+: (?:cannot (?:access|open) )?['‘]?(?P<path>.+?)['’]?"
    r"(?: for reading)?: " + MISSING + r"$"
)


# Options whose value is the next word (``head -n 3``); attached forms need nothing.
VALUE_OPTIONS = {
    "head": frozenset({"-n", "-c"}),
    "tail": frozenset({"-n", "-c"}),
    "grep": frozenset({"-e", "-m", "-A", "-B", "-C", "--regexp", "--max-count"}),
    "wc": frozenset(),
    "cat": frozenset(),
    "ls": frozenset({"-I", "-T", "-w", "--ignore", "--hide", "--tabsize", "--width"}),
}
LINE_COUNTED = frozenset({"head", "tail"})
"""Commands whose bare number, written where a file goes, is the count of lines."""
FILE_READERS = frozenset({"head", "tail", "wc", "cat"})
"""Commands that, given no file, would read their (empty) input and print nothing."""
RECURSIVE = re.compile(r"^-[a-zA-Z]*r[a-zA-Z]*$|^--recursive$")


def mend_paths(
    argv: Sequence[str], *, roots: Sequence[Path], cwd: Path
) -> tuple[list[str], list[str]]:
    """``argv`` with its missing paths mended where only one reading fits, and a note
    for each change; ``argv`` unchanged (and no note) when nothing needed or allowed it."""
    command, args = argv[0], list(argv[1:])
    takes_value = VALUE_OPTIONS.get(command)
    if takes_value is None:
        return list(argv), []
    operands = _operands(args, takes_value)
    grep = command == "grep"
    if grep and not any(a in ("-e", "--regexp") or a.startswith("--regexp=") for a in args):
        pattern, operands = (operands[0], operands[1:]) if operands else (None, [])
    else:
        pattern = None
    notes: list[str] = []
    if command in FILE_READERS:
        # "show me the last 3 lines of the log" as tail logs/: a folder that holds one
        # file is read as that file (blind prompts: "Is a directory", twice).
        for i in operands:
            if (cwd / args[i]).is_dir():
                inside = list(itertools.islice(_files([cwd / args[i]], cwd), 2))
                if len(inside) == 1:
                    notes.append(f"{args[i]} is a folder: read its one file, {inside[0]}")
                    args[i] = inside[0]
    missing = [i for i in operands if not (cwd / args[i]).exists()]
    if not missing:
        return [command, *args], notes
    counts = [i for i in missing if args[i].isdigit()] if command in LINE_COUNTED else []
    if len(counts) == 1 and not any(a.startswith(("-n", "--lines")) for a in args):
        # {"file": "data.csv", "lines": 3} arrives as ["data.csv", "3"].
        n = args.pop(counts[0])
        # Mended again for the file itself; "-n" now stops this branch.
        mended, more = mend_paths([command, "-n", n, *args], roots=roots, cwd=cwd)
        return mended, [*notes, f"{n} read as the number of lines", *more]
    if grep and pattern is not None and len(operands) == 1 and (cwd / args[pattern]).exists():
        # ["todo.md", "milk"] or ["logs", "ok"]: the file or folder came first.
        i = operands[0]
        args[pattern], args[i] = args[i], args[pattern]
        notes.append(f"searched {args[i]} for {args[pattern]!r}")
        return [command, *args], notes
    names: dict[str, list[str]] = {}
    stems: dict[str, list[str]] = {}
    types: dict[str, list[str]] = {}
    for path in itertools.islice(_files(roots, cwd), MAX_SCANNED):
        name = os.path.basename(path).lower()
        stem, suffix = os.path.splitext(name)
        names.setdefault(name, []).append(path)
        stems.setdefault(_loose(stem), []).append(path)
        if suffix:
            types.setdefault(suffix[1:], []).append(path)

    def a_file(word: str) -> bool:
        """Whether ``word`` is a path here, or names one file loosely ("todo")."""
        loose = _loose(os.path.splitext(os.path.basename(word))[0])
        return (cwd / word).exists() or len(stems.get(loose, [])) == 1

    def a_word(word: str) -> bool:
        """Whether ``word`` reads as a search word, not a file name: "milk", not the
        made-up "file.txt" of "which file mentions notes?"."""
        return not a_file(word) and "." not in word and "/" not in word

    if grep and pattern is not None and len(operands) == 1:
        i = operands[0]
        if a_file(args[pattern]) and a_word(args[i]):
            # ["todo", "milk"] for "does my todo file mention milk?" (blind prompts): a
            # file named loosely came first; it is mended below like any other.
            args[pattern], args[i] = args[i], args[pattern]
            notes.append(f"searched {args[i]} for {args[pattern]!r}")
            missing = [i]
    for i in missing:
        name = os.path.basename(args[i].rstrip("/")).lower()
        stem, suffix = os.path.splitext(name)
        loose = _loose(stem)
        found = names.get(name, [])
        if not found and loose:
            # "cat notes": the only file called notes.*; "to-do.txt" (a guessed
            # extension, a hyphen): the only todo.*.
            found = stems.get(loose, [])
        if not found and loose not in stems:
            found = types.get(stem, [])  # "tail log", "tail log.txt": the only *.log
        if len(found) == 1:
            notes.append(f"{args[i]} is {found[0]}")
            args[i] = found[0]
    still = [i for i in missing if not (cwd / args[i]).exists()]
    if grep and still and any(RECURSIVE.match(a) for a in args):
        # A made-up file name for "which file mentions X?": search them all.
        notes.append(f"no {', '.join(args[i] for i in still)} here; searched every file")
        # With no path left, a recursive grep searches the working directory.
        args = [a for i, a in enumerate(args) if i not in still]
    return [command, *args], notes


def stem_search(argv: Sequence[str]) -> tuple[list[str], str] | None:
    """``grep`` again for the stem of its one-word pattern, and a note saying so, after a
    search that found nothing; ``None`` when the pattern is no plain word or is its own
    stem. People search in word forms: "which file talks about soldering?" found nothing
    in a todo list that says "solder the header", and "calibrating" missed "Calibrate".
    English stems (Snowball), cut back to what the word itself starts with."""
    if argv[0] != "grep" or any(a in ("-e", "--regexp") or a.startswith("--regexp=") for a in argv):
        return None
    args = list(argv[1:])
    operands = _operands(args, VALUE_OPTIONS["grep"])
    if not operands or not re.fullmatch(r"[A-Za-z]{5,}", args[operands[0]]):
        return None
    word = args[operands[0]]
    stemmed = snowballstemmer.stemmer("english").stemWord(word.lower())
    pairs = zip(word.lower(), stemmed, strict=False)
    stem = "".join(a for a, _ in itertools.takewhile(lambda pair: pair[0] == pair[1], pairs))
    if len(stem) < 4 or stem == word.lower():
        return None
    args[operands[0]] = stem
    return [argv[0], *args], f"nothing matched {word!r}; searched for its stem {stem!r}"


def _loose(stem: str) -> str:
    """A file's stem as people spell it: "To-Do", "to_do" and "todo" are one."""
    return re.sub(r"[\W_]+", "", stem.lower())


def _operands(args: Sequence[str], takes_value: frozenset[str]) -> list[int]:
    """Indices of the words in ``args`` that are not options or their values."""
    operands: list[int] = []
    options_done = skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
        elif options_done or not arg.startswith("-") or arg == "-":
            operands.append(i)
        elif arg == "--":
            options_done = True
        else:
            skip = arg in takes_value
    return operands


def listed_file(argv: Sequence[str], *, cwd: Path) -> str | None:
    """The one regular file an ``ls`` names, when it names nothing else: the model lists
    a file it means to read. Measured on Qwen2.5-Coder-1.5B: "open todo.md", "what's on
    todo.md" and "whats left on todo.md, cant remember" ran ``ls todo.md`` (also in blind
    prompts), and its listing line answers none of them. ``None`` for folders, several
    paths, or anything but ``ls``."""
    if argv[0] != "ls":
        return None
    operands = [argv[1:][i] for i in _operands(argv[1:], VALUE_OPTIONS["ls"])]
    if len(operands) != 1 or not (cwd / operands[0]).is_file():
        return None
    return operands[0]


def lacks_file(argv: Sequence[str]) -> bool:
    """Whether ``argv`` runs a command that reads a file (``tail -n 3``) without naming
    one: it would read its empty input and say nothing. Measured: for "show the last 3
    lines of it" the model called ``tail`` with the count alone and got "(no output)"."""
    command = argv[0]
    if command not in FILE_READERS:
        return False
    return not _operands(argv[1:], VALUE_OPTIONS[command])


def missing_paths(output: str) -> list[str]:
    """The paths a command's output says are missing, when that is all it says;
    ``[]`` when it printed anything else (matches, a listing): then it did its job."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    found = [m.group("path") for line in lines if (m := _MISSING_LINE.match(line))]
    return found if lines and len(found) == len(lines) else []


def _files(roots: Sequence[Path], cwd: Path) -> Iterator[str]:
    """Files below the roots (hidden ones and caches left out), relative to ``cwd``."""
    for root in roots:
        for directory, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
            for name in sorted(names):
                if not name.startswith("."):
                    yield os.path.relpath(os.path.join(directory, name), cwd)


def files_hint(missing: Sequence[str], *, roots: Sequence[Path], cwd: Path) -> str:
    """A sentence naming the files most like ``missing`` (by file name), or the first
    files found when none is alike; ``""`` when the roots hold no file at all."""
    files = list(itertools.islice(_files(roots, cwd), MAX_SCANNED))
    if not files:
        return ""
    by_name: dict[str, list[str]] = {}
    for path in files:
        by_name.setdefault(os.path.basename(path).lower(), []).append(path)
    alike: list[str] = []
    for wanted in missing:
        name = os.path.basename(wanted.rstrip("/")).lower()
        for close in difflib.get_close_matches(name, by_name, n=MAX_NAMED, cutoff=0.5):
            alike += [p for p in by_name[close] if p not in alike]
    if alike:
        return f"Files with a similar name: {', '.join(alike[:MAX_NAMED])}."
    plus = "+" if len(files) >= MAX_SCANNED else ""
    more = f" (and {len(files) - MAX_NAMED}{plus} more)" if len(files) > MAX_NAMED else ""
    return f"Files here: {', '.join(files[:MAX_NAMED])}{more}."
