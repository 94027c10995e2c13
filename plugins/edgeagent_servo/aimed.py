"""Whether a request says where the servo should point, or by how much.

"point the camera at my cat" came as ``angle: 90`` (two blind sets), "move the servo to
Japan" as 90 and "Işığı turuncu yap." (the light, orange, in Turkish) as 90 too, and
both side questions said yes each time: a number the request gives no ground for.
A request aims the servo when it says a number (spelled-out numbers arrive as digits),
a side, the centre, an end, a way back, "further" or "again", a quarter or half turn,
or how far ("a bit", "slightly") in the languages its reread knows; any other request
gets no numeric move (:attr:`~edgeagent.tools.tool.Tool.aimed_in`). Measured over
every record: each servo call for a request that says none of it was a wrong turn.
"""

from __future__ import annotations

import re

from edgeagent.plugin import fold
from edgeagent_servo.words import (
    _AGAIN,
    _BACK,
    _CENTER,
    _HALFWAY,
    _NUMBER,
    _ON,
    _QUARTER,
    _RETURN,
    DIRECTIONS,
)

_SIDES = "|".join(word for words in DIRECTIONS.values() for word in words)
_SIDE = re.compile(rf"\b(?:{_SIDES})\b")
# How far or where, in words: "a bit", "slightly", "straight ahead", "the other side",
# "the same", "halfway", "opposite", "home". Not "up" or "down": the servo pans, and
# "make the camera look up at the ceiling" came as ``angle: 90`` (fresh62); over every
# record, no request for a servo move aimed it by those words alone.
_HOW = re.compile(
    r"\b(?:bit|little|tad|touch|slightly|nudge|straight|ahead|forward|front|opposite|"
    r"other\s+(?:side|way)|same|half|halfway|home|reset|neutral|zero|"
    r"etwas|bisschen|wenig|peu|poco|pouco|beetje|lite|troche|"
    r"gerade|droit|recto|dritto|reto|rechtdoor)\b"
)
# Sides, the middle, back and "a bit" in Danish and Norwegian, Russian and Turkish (as
# words), and in Japanese, Chinese and Korean (inside words: no space separates them).
_OTHER = re.compile(
    r"\b(?:venstre|h[oø]yre|h[oø]jre|midt\w*|tilbage|tilbake|влев\w*|вправ\w*|налев\w*|направ\w*|"
    r"центр\w*|середин\w*|назад|прям\w*|немного|sol\w*|sag\w*|orta\w*|geri)\b"
    r"|左|右|中央|真ん中|正面|戻|少し|中间|中間|回到|一点|왼|오른|가운데|중앙|정면|뒤로|조금|약간"
)
_AIMED = (
    _NUMBER, _SIDE, _CENTER, _BACK, _RETURN, _ON, _AGAIN, _QUARTER, _HALFWAY, _HOW, _OTHER,
)  # fmt: skip


def aimed(request: str) -> bool:
    """Whether ``request`` says where the servo should point, or by how much."""
    folded = fold(request)
    written = request.casefold()  # Korean as syllables: fold() splits them into letters
    return any(pattern.search(folded) for pattern in _AIMED) or bool(_OTHER.search(written))
