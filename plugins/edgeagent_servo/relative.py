"""Turns said from somewhere other than where the servo points now.

Told a turn went the wrong way ("argh, wrong way, I meant right. 20 to the right of
where it was", after "rotate the camera 20 degrees to the left"), the model writes the
corrected turn from where the servo is now (``right: 20``), which only undoes the
wrong one: the turn is meant from where the servo was before it. A request that says
the last turn went the wrong way, where the model turns the other way, turns from the
position before that last turn (two blind prompt sets, one each).

Asked to turn toward the center by an amount ("turn the camera back 30 degrees toward
the middle", servo at 60), the model wrote a position (``left_of_center: 30``): a
request that names the center as a direction ("toward the middle", "Richtung Mitte",
"vers le centre"), one number and no side turns that many degrees toward 0 (blind
prompts).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from edgeagent.plugin import Reread, fold
from edgeagent_servo.said import reaches
from edgeagent_servo.words import (
    _BACK,
    _CENTER,
    _HALFWAY,
    _NEGATIVE,
    _TOO_FAR,
    DIRECTIONS,
)

_WRONG_WAY = re.compile(
    r"\bwrong\s+(?:way|direction|side)\b|\bi\s+meant\s+(?:to\s+the\s+)?(?:left|right|the\s+other)\b|"
    r"\bfalsche\s+(?:richtung|seite)\b|\bich\s+meinte\s+(?:nach\s+)?(?:links|rechts)\b|"
    r"\bmauvais(?:e)?\s+(?:sens|direction|cote)\b|\bje\s+voulais\s+dire\s+(?:a\s+)?(?:gauche|droite)\b|"
    r"\b(?:direccion|lado)\s+equivocad[oa]\b|\bqueria\s+decir\s+(?:a\s+la\s+)?(?:izquierda|derecha)\b|"
    r"\b(?:direzione|lato)\s+sbagliat[oa]\b|\bintendevo\s+(?:a\s+)?(?:sinistra|destra)\b|"
    r"\b(?:direcao|lado)\s+errad[oa]\b|\bverkeerde\s+(?:kant|richting)\b|\bfel\s+(?:hall|riktning)\b"
)
"""A turn that went the wrong way, in English, German, French, Spanish, Italian,
Portuguese, Dutch and Swedish (folded)."""
_TURNS = frozenset({"left", "right", "by"})
_TOWARD_CENTER = re.compile(
    r"\btowards?\s+(?:the\s+)?(?:center|centre|middle)\b|\brichtung\s+(?:der\s+)?mitte\b|"
    r"\bzur\s+mitte\s+hin\b|\bvers\s+le\s+(?:centre|milieu)\b|\bhacia\s+el\s+(?:centro|medio)\b|"
    r"\bverso\s+il\s+centro\b|\bem\s+direcao\s+ao\s+centro\b|\bnaar\s+het\s+midden\s+toe\b"
)
_NUMBERS = re.compile(r"\d+(?:[.,]\d+)?")


def wrong_way_as_said(
    arguments: dict[str, Any],
    request: str,
    *,
    current: Callable[[], float | None],
    last_turn: Callable[[], float | None],
) -> dict[str, Any] | None:
    """``{"by": turn - last}`` where the request says the last turn (``last_turn()``)
    went the wrong way and the model wrote a turn the other way from ``current()``: the
    turn from where the servo was before; ``None``: as the model wrote them."""
    if not arguments or not set(arguments) <= _TURNS or not _WRONG_WAY.search(fold(request)):
        return None
    now, last = current(), last_turn()
    if now is None or not last:
        return None
    target = reaches(arguments, now)
    if target is None or target == now or (target > now) == (last > 0):
        return None  # no turn, or one the same way as the last: the model's to write
    return {"by": round(target - now - last, 1)}


def toward_center_as_said(
    arguments: dict[str, Any], request: str, *, current: Callable[[], float | None]
) -> dict[str, Any] | None:
    """``{"by": N}`` toward 0 where the request turns toward the center by one number N
    and names no side or half, the servo is off center and the model's arguments go
    elsewhere; ``None``: as the model wrote them."""
    folded = fold(request)
    if not _TOWARD_CENTER.search(folded) or _HALFWAY.search(folded):
        return None
    numbers = _NUMBERS.findall(folded)
    words = set(re.findall(r"\w+", folded))
    if len(numbers) != 1 or not words.isdisjoint(DIRECTIONS["left"] + DIRECTIONS["right"]):
        return None
    now = current()
    if not now:
        return None  # unknown, or at the center: no way toward it
    turn = -math.copysign(float(numbers[0].replace(",", ".")), now)
    if reaches(arguments, now) == round(now + turn, 1):
        return None
    return {"by": turn}


def side_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """A turn of the same size toward the one side the request names, where the model's
    turn goes the other way and the request says no sign, center, overshoot or wrong
    way ("Vrid kameran 30 grader åt vänster", Swedish for 30 degrees left, came as
    ``right: 30``, and Finnish "vasemmalle" the same; fresh43); ``None``: as the
    model wrote them."""
    meant = {k: v for k, v in arguments.items() if v not in (None, False, 0)}
    if len(meant) != 1:
        return None
    ((name, value),) = meant.items()
    if name not in _TURNS or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    folded = fold(request)
    every_side = "|".join(w for words in DIRECTIONS.values() for w in words)
    if (
        _WRONG_WAY.search(folded)
        or _CENTER.search(folded)
        or _NEGATIVE.search(folded)
        or re.search(_TOO_FAR % (every_side, every_side), folded)
    ):
        return None
    words = set(re.findall(r"\w+", folded))
    sides = [side for side, said in DIRECTIONS.items() if not words.isdisjoint(said)]
    if len(sides) != 1:
        return None  # no side, or both: the model's to write
    goes = "left" if (name == "left") == (value > 0) else "right"
    return None if goes == sides[0] else {sides[0]: abs(value)}


def asks_undo(request: str) -> bool:
    """The servo's ``undone_in``: whether the ``request`` asks to go back where the
    servo was ("undo that", "go back to where it was", "comme avant"); "back" alone may
    be a turn ("back 20 to the left") and is not."""
    return bool(_BACK.search(fold(request)))


def corrected(
    reread: Reread,
    *,
    current: Callable[[], float | None],
    last_turn: Callable[[], float | None],
) -> Reread:
    """``reread`` (the servo's :func:`~edgeagent_servo.said.as_said`), then a turn
    from before a wrong-way turn, toward the center, or toward the side the request
    names, read from what it gave."""

    def read(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
        read_so_far = reread(arguments, request)
        meant = read_so_far or arguments
        return (
            wrong_way_as_said(meant, request, current=current, last_turn=last_turn)
            or toward_center_as_said(meant, request, current=current)
            or side_as_said(meant, request)
            or read_so_far
        )

    return read
