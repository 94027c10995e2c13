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
