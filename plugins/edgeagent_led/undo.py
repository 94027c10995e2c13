"""Undo: the strip put back as it was before its last change.

"actually, undo that last change to the light, put it back how it was" (the strip green
at 20, green at 90 before that) came as ``on: true, color: green``, and "ok they're
stuck again, put the light back to how it was" as green at 100 (blind prompts): the
model cannot know the earlier state, the controller remembers it
(:meth:`edgeagent_led.controller.LedController.before`), and a request that asks to undo
is that state (:func:`undone_as_said`): its colour by name, its level, on or off. A
request that also says a number or another colour ("undo that and make it blue") is
left to the model, and so is an earlier strip of several colours, which no one call
sets. An undo is a change too: a second one undoes it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from edgeagent.plugin import fold
from edgeagent_led.strip import BLACK, LedState, to_hex

_UNDO = re.compile(
    # English: "undo that", "put it back how it was", "the previous colour"
    r"\bundo\b|\brevert\b|\broll\s+(?:it\s+|that\s+|them\s+)?back\b|\bback\s+to\s+before\b"
    r"|\bback\s+(?:to\s+)?(?:how|the\s+way|what|as|where)\s+(?:it|they|that|things)\s*"
    r"(?:was|were|had\s+been|['’]s\s+been)"
    r"|\b(?:how|the\s+way|as)\s+(?:it|they)\s+(?:was|were)\s+(?:before|earlier|previously)"
    # "go back to the colour it was before" (fresh31)
    r"|\bback\s+to\s+the\s+(?:colou?r|brightness|setting|state|look)s?\s+(?:it|they)\s+"
    r"(?:was|were|had)\b"
    r"|\b(?:change|switch|set|put|turn)\s+(?:it|them|that|the\s+(?:\w+\s+)?(?:colou?r|lights?|"
    r"lamps?|strip|brightness))\s+back\b(?!\s+(?:on|off|up|down)\b)"
    r"|\b(?:previous|earlier|former|prior|old)\s+(?:colou?rs?|settings?|state|brightness|"
    r"look|level)\b"
    # "the old one" is a thing ("the old one broke last week" ran as an undo; fresh74),
    # unless it is gone back to: "back to the previous one", "use the old one again".
    r"|\b(?:back\s+to|to|use|restore|bring\s+back)\s+(?:the\s+|that\s+)?"
    r"(?:previous|earlier|former|prior|old)\s+one\b"
    # German: "wie vorher", "mach das rückgängig", "die vorherige Farbe"
    r"|\bwie\s+(?:vorher|zuvor|davor|es\s+war|sie\s+war(?:en)?)\b|\bruckgangig\b|\bvorherige"
    # French: "comme avant", "annule ça", "la couleur précédente"
    r"|\bcomme\s+(?:avant|c['’]etait|elle\s+etait|il\s+etait)\b|\bannul(?:e|er|ez)\b"
    r"|\bprecedent(?:e|es|s|i)?\b"
    # Spanish: "como estaba", "deshazlo", "el color anterior"
    r"|\bcomo\s+(?:estaba|estaban|antes)\b|\bdesh(?:az|acer|aga|ace)\w*|\banterior(?:es)?\b"
    # Italian: "com'era", "come prima", "annulla"
    r"|\bcom['’]\s*er(?:a|ano)\b|\bcome\s+(?:prima|era|erano)\b|\bannulla\w*"
    # Portuguese: "como estava", "desfaz"
    r"|\bcomo\s+estava\w*|\bdesfa(?:z|zer|ca)\w*"
)
"""Asked to undo, in a folded request (accents dropped): "back the way it was", "wie
vorher", "comme avant", "deshaz", "com'era"; not "turn it back on"."""


def restoring(state: LedState) -> dict[str, Any] | None:
    """The ``led`` arguments that set the strip to ``state``: on or off, its colour by
    name (none for a strip all black) and its level; ``None`` for pixels of several
    colours, which no one call sets."""
    color = state.summary().get("color")
    if color is None:
        return None
    arguments: dict[str, Any] = {"on": state.on}
    if color != "black":
        arguments["color"] = color
    if state.brightness:
        arguments["brightness"] = state.brightness
    return arguments


def undone_as_said(
    request: str,
    *,
    before: Callable[[], LedState | None],
    colors: Callable[[str], set[str]],
) -> dict[str, Any] | None:
    """The arguments that set the strip back to the state it had ``before()`` its last
    change, whatever the model wrote, where the ``request`` asks to undo and says no
    number and no colour (``colors``: the CSS names it says) but that state's;
    ``None``: as written (nothing remembered, or pixels of several colours)."""
    folded = fold(request)
    if not _UNDO.search(folded) or re.search(r"\d", folded):
        return None
    state = before()
    meant = None if state is None else restoring(state)
    if meant is None:
        return None
    said = {to_hex(name) for name in colors(request)}
    return None if said - {to_hex(meant.get("color", BLACK))} else meant


def asks_undo(request: str) -> bool:
    """The ``led`` tool's ``undone_in``: whether the ``request`` asks to undo."""
    return bool(_UNDO.search(fold(request)))
