"""A turn "back to the right" that the model signed: read again from the request.

Asked "move the camera 15 degrees back to the right", the model calls ``servo`` with
``right: -15``: "back" becomes a minus. The tool reads a negative ``left``/``right`` as
a position, because the model also writes "camera to minus 45" as ``left: -45``
(measured since run 4). The request tells the two apart: a turn names its direction
and no negative number; a position names a negative number ("minus 45", "-45") or the
center ("20 degrees left of center").
"""

from __future__ import annotations

import re
from typing import Any

from edgeagent.plugin import fold

DIRECTIONS = {
    "left": ("left", "links", "gauche", "izquierda", "sinistra", "esquerda"),
    "right": ("right", "rechts", "droite", "derecha", "destra", "direita"),
}
_NEGATIVE = re.compile(r"(?<![\w-])-\s*\d|\b(?:minus|moins|menos|meno|negative|negativ)\b")
_CENTER = re.compile(r"\b(?:center|centre|middle|mitte|centro|milieu|meio)\b")


def turn_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``arguments`` with a negative ``left``/``right`` made a turn where the request
    names that direction and no negative number; ``None``: as the model wrote them."""
    folded = fold(request)
    if _NEGATIVE.search(folded) or _CENTER.search(folded):
        return None  # a position: "to minus 45", "20 degrees left of center"
    words = set(re.findall(r"\w+", folded))
    turned = dict(arguments)
    for name, said in DIRECTIONS.items():
        value = arguments.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
            if words.isdisjoint(said):
                return None
            turned[name] = -value
    return turned if turned != arguments else None
