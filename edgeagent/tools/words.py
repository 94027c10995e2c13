"""Words as people write them, compared without case or accents.

A tool that reads the user's request again (:attr:`~edgeagent.tools.tool.Tool.reread`)
and the agent's checks of the user's words both need "Martedì" to read as "martedi"
and "Weiß" as "weiss".
"""

from __future__ import annotations

import re
import unicodedata


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
