"""``ps`` without environments: the argument forms of procps' ``ps`` that print them.

BSD-style ``e`` (``ps e``, ``ps aux e``, ``ps eww``) appends each process's environment
to its command line, and that holds the daemon's secrets (``EDGEAGENT_MQTT__PASSWORD``).
Finding it takes ps's own parser, modelled here (procps-ng ``ps/parser.c``):

* An argument is a BSD cluster (``aux``), a SysV cluster (``-ef``), a GNU long option
  (``--format``) or a list of process ids. Some letters take a value: the rest of their
  cluster or the next argument (``-o args``, ``-opid``, ``axo pid``).
* When the first reading fails (an unknown user, a bad format), ps reads every argument
  again as BSD, the leading ``-`` dropped, so ``-e`` (all processes) becomes ``e``.

So BSD ``e`` is refused, SysV ``e`` is rewritten as its documented twin ``A`` (which the
second reading refuses outright), and the second reading is checked too.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from edgeagent.plugin import ToolDeniedError

SYSV_VALUE = frozenset("CDGOUgopqstu")
BSD_VALUE = frozenset("OUkopqt")
BSD_LETTERS = frozenset("HLMOSTUVWXZacefghjklmnopqrstuvwx")
"""The letters ps's BSD reading knows; any other one ends that reading with an error."""
GNU_VALUE = frozenset({
    "Group", "User", "cols", "columns", "date-format", "delimiter", "format", "group",
    "help", "lines", "pid", "ppid", "quick-pid", "rows", "sid", "sort", "tty", "user",
    "width",
})  # fmt: skip
ENVIRONMENT = "e"


@dataclass(frozen=True)
class Cluster:
    """The option letters of one argument (its value part excluded)."""

    index: int
    start: int
    """Where the letters begin in the argument (after a leading ``-``)."""
    letters: str
    sysv: bool


def check_ps(argv: list[str]) -> list[str]:
    """``argv`` with SysV ``-e`` spelled ``-A``; refuse any form that prints environments."""
    rewritten = list(argv)
    for cluster in _clusters(argv, force_bsd=False):
        if ENVIRONMENT not in cluster.letters:
            continue
        if not cluster.sysv:
            _refuse(argv[cluster.index])
        arg = rewritten[cluster.index]
        end = cluster.start + len(cluster.letters)
        rewritten[cluster.index] = (
            arg[: cluster.start] + cluster.letters.replace(ENVIRONMENT, "A") + arg[end:]
        )
    for cluster in _clusters(rewritten, force_bsd=True):
        if ENVIRONMENT in cluster.letters:
            _refuse(argv[cluster.index])
    return rewritten


def _refuse(arg: str) -> None:
    raise ToolDeniedError(
        f"ps option 'e' (in {arg!r}) is not allowed: it prints each process's environment, "
        f"which holds passwords and tokens. Leave it out, e.g. 'ps aux' or 'ps -ef'"
    )


def _clusters(argv: list[str], *, force_bsd: bool) -> Iterator[Cluster]:
    """The option clusters ps sees in one reading, in order. The second (``force_bsd``)
    reading stops where ps would stop with an error."""
    index = 1
    while index < len(argv):
        arg, at = argv[index], index
        index += 1
        if arg.startswith("--") and arg[2:3].isalpha():
            name = arg[2:].split("=", 1)[0].split(":", 1)[0]
            if name in GNU_VALUE and name == arg[2:]:
                index += 1  # its value is the next argument
            continue
        dashed = arg.startswith("-") and arg[1:2].isalpha()
        if not (dashed or arg[:1].isalpha()):
            return  # process ids take every argument after them; anything else fails
        sysv = dashed and not force_bsd
        start = 1 if dashed else 0
        values = SYSV_VALUE if sysv else BSD_VALUE
        letters = ""
        for letter in arg[start:]:
            if letter.isdigit() and not sysv:
                break  # BSD: the rest is a list of process ids
            if force_bsd and letter not in BSD_LETTERS:
                yield Cluster(at, start, letters, sysv)
                return
            letters += letter
            if letter in values:
                if start + len(letters) == len(arg):
                    index += 1  # nothing after it: its value is the next argument
                break
        yield Cluster(at, start, letters, sysv)
