"""What the model writes wrongly for a servo request, read again from the request.

Asked "move the camera 15 degrees back to the right", the model calls ``servo`` with
``right: -15``: "back" becomes a minus. The tool reads a negative ``left``/``right`` as
a position, because the model also writes "camera to minus 45" as ``left: -45``
(measured since run 4). The request tells the two apart: a turn names its direction
and no negative number; a position names a negative number ("minus 45", "-45") or the
center ("20 degrees left of center").

Asked for an end ("all the way to the left", "camera to the far left"), the model
writes a number of its own: ``left_of_center: -10``, ``left: 45``. A request that names
an end and no number means the servo's end on that side; one that names the center and
no number or side ("now back to the middle") means 0, which came as ``angle: 45``.

Asked to go back ("put it back where it was", "undo that move"), the model writes the
undone move's size (``right: -25``): a request that says so, with no number, side or
center, means ``back``. Asked to go part of the way back ("slightly too far, come back
fifteen degrees"), it writes ``back`` alone, which undoes the whole move: ``back`` and
one number, with no side or center, goes that many degrees back (``by``).

Asked for a position with a side and no center ("pan the camera to 40 degrees right",
"na posição de 45 graus à direita"), the model writes a turn (``right: 40``): a number
right after "to", "at", "auf", "sur", "para" or "position" is where to point, on that
side of center (its number, where the model wrote another). Asked to turn on ("25
degrees further right", "another 15 to the left"), it wrote ``right_of_center: 25``:
"further", "more", "another", "again" make it a turn.

Asked "Zet de camera op precies 45 graden rechts van het midden" (Dutch: at 45 degrees
right of the middle; servo at -10), it wrote the turn ``right: 45``, which ran to 35
(blind prompts). A position said from center is read in Dutch ("rechts van het midden",
"van het centrum"), German ("rechts der Mitte", "von der Mitte aus"), French, Spanish,
Italian ("rispetto al centro"), Portuguese, Polish ("w prawo od środka") and Swedish
("höger om mitten"), and with the center first ("45 Grad von der Mitte nach rechts");
"to N" also as Dutch "op"/"naar", Polish "na", Swedish "till"/"på", "hasta", "fino a",
"até", "bis"; "further" also as "verder", "nog", "weitere", "altri", "jeszcze", "dalej",
"ytterligare", "längre".

Asked "a little more, another ten the same way", it wrote ``left: 30``, the size of an
earlier move: a turn's size is the one number the request names.

Told of an overshoot ("the camera is 10 degrees too far right, fix it", "zu weit nach
links"), it turned further that way (``right: 10``): a turn toward the side the request
says is too far goes the other way (blind prompts).

Asked for a quarter turn ("give the camera a quarter turn to the right", servo at -45),
it wrote a size of its own (``right: 25``): a turn the request names as a quarter turn
("eine Vierteldrehung", "quart de tour", "cuarto de vuelta"), with no number and one
side, is 90 degrees that way (blind prompts). A half turn, 180 degrees, is more than the
servo's range: the tool refuses or clamps it as the model wrote it.

Asked to go halfway back to the center ("pan the camera halfway back toward the
centre", servo at -60), it wrote ``{"back": true, "center": true}``, which ran as the
center: a request that says halfway to the center ("half the way", "auf halbem Weg zur
Mitte", "a mi-chemin du centre"), with no number or side, means the angle halved
(``angle: -30``), read from the servo where it is (blind prompts).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from edgeagent.plugin import Reread, ToolArgumentError, fold
from edgeagent_servo.controller import aim
from edgeagent_servo.words import (
    _AGAIN,
    _BACK,
    _CENTER,
    _CENTER_WORDS,
    _ENDS,
    _HALF_AS,
    _HALFWAY,
    _NEGATIVE,
    _NUMBER,
    _ON,
    _OTHER_WAY,
    _QUARTER,
    _RETURN,
    _SIDES,
    _TO_NUMBER,
    _TOO_FAR,
    _TWICE,
    DIRECTIONS,
)


def position_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """A turn as the position N on its side of center where the request says "to N"
    (or "at N", "position N") once, without "more" or "further"; a position from
    center as the turn where the request says "more" or "further" of it; ``None``: as
    the model wrote them. A position from center with a sign, which the servo refuses,
    is that turn too ("bit more to the left, like another 15" came as
    ``left_of_center: -15``, blind prompts)."""
    meant = {k: v for k, v in arguments.items() if v not in (None, False, 0)}
    if len(meant) != 1:
        return None
    ((name, value),) = meant.items()
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    folded = fold(request)
    if _CENTER.search(folded) or _NEGATIVE.search(folded):
        return None
    onward = bool(_ON.search(folded))
    if value < 0:
        if name not in _SIDES.values() or not (onward or _back_toward(name, folded)):
            return None
        value, onward = -value, True
    if name in _SIDES and not onward:
        said = [
            float(next(g for g in m.groups() if g).replace(",", "."))
            for m in _TO_NUMBER.finditer(folded)
        ]
        if not said and _TO_THAT.search(folded):
            return {_SIDES[name]: value}  # the model's number for the value named back
        return {_SIDES[name]: said[0]} if len(said) == 1 else None
    turns = {v: k for k, v in _SIDES.items()}
    return {turns[name]: value} if name in turns and onward else None


_TO_THAT = re.compile(r"\b(?:to|at)\s+that\s+(?:angle|value|number|result|position)\b")
"""A position named back: "what's 360 divided by 8", then "turn the camera to that angle,
to the right", came as the turn ``right: 45`` (fresh67)."""


def _back_toward(name: str, folded: str) -> bool:
    """Whether the ``folded`` request turns back toward the side of the position
    ``name`` ("now 15 back towards the left" came as ``left_of_center: -15``; fresh50)."""
    side = next(k for k, v in _SIDES.items() if v == name)
    words = set(re.findall(r"\w+", folded))
    return bool(_RETURN.search(folded)) and not words.isdisjoint(DIRECTIONS[side])


# "N (degrees) left of center", a position: "it's at 60 degrees left of centre", "60
# Grad links von der Mitte (aus)", "60 Grad links der Mitte", "45 graden rechts van het
# midden", "60 degrés à gauche du centre", "a 60 grados a la izquierda del centro", "60
# gradi a destra rispetto al centro", "60 graus à direita do centro", "60 stopni w lewo
# od środka", "60 grader höger om mitten"; or the center first, "60 degrees from the
# center to the left", "60 Grad von der Mitte nach links".
_OF = (
    r"of|from|von|vom|der|du|de|del|dal|do|da|van|vanaf|vanuit|od|om|fran|"
    r"relative\s+to|relativ\s+zur|par\s+rapport\s+au|(?:con\s+)?respecto\s+al|"
    r"rispetto\s+al|em\s+relacao\s+ao|ten\s+opzichte\s+van"
)
_FROM = r"from|von|vom|du|desde|dal|do|vanaf|vanuit|van|od|fran"
_FROM_CENTER = (
    r"(?<![\w.,-])(\d+(?:[.,]\d+)?)\W+(?:\w+\W+){0,3}?(%s)\W+(?:\w+\W+){0,1}?"
    rf"(?:{_OF})\W+(?:\w+\W+){{0,1}}?(?:{_CENTER_WORDS})\b"
)
_CENTER_FROM = (
    r"(?<![\w.,-])(\d+(?:[.,]\d+)?)\W+(?:\w+\W+){0,2}?"
    rf"(?:{_FROM})\W+(?:\w+\W+){{0,1}}?(?:{_CENTER_WORDS})\W+(?:\w+\W+){{0,2}}?(%s)\b"
)


def from_center_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """The position N on a side of center where the request says "N left of center"
    once and no sign, and the model wrote a turn or another position ("point the camera
    at the gate, it's at 60 degrees left of centre" came as ``left: 60``, a turn, on a
    blind prompt); ``None``: as the model wrote them."""
    folded = fold(request)
    if _NEGATIVE.search(folded) or (
        _ON.search(folded) and {"left", "right", "by"} & set(arguments)
    ):
        return None  # a sign, or a turn onward from a position the request also says
    said = [
        (side, float(m.group(1).replace(",", ".")))
        for side in _SIDES
        for pattern in (_FROM_CENTER, _CENTER_FROM)
        for m in re.finditer(pattern % "|".join(DIRECTIONS[side]), folded)
    ]
    if len(said) != 1:
        return None
    ((side, value),) = said
    wanted = {_SIDES[side]: value}
    meant = {k: v for k, v in arguments.items() if v not in (None, False)}
    angle = -value if side == "left" else value
    if meant == wanted or meant == {"angle": angle}:
        return None
    if any(
        isinstance(v, int | float) and not isinstance(v, bool) and v < 0 for v in meant.values()
    ):
        return None  # a negative turn, which the servo reads as a position already
    return wanted


def size_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """A turn (``left``, ``right`` or ``by``) of the size the request names, where it
    names one number and no center or sign and the model wrote another size; ``None``:
    as the model wrote them."""
    meant = {k: v for k, v in arguments.items() if v not in (None, False, 0)}
    if len(meant) != 1:
        return None
    ((name, value),) = meant.items()
    if name not in ("left", "right", "by") or not isinstance(value, int | float):
        return None
    folded = fold(request)
    numbers = re.findall(r"\d+(?:[.,]\d+)?", folded)
    if len(numbers) != 1 or _CENTER.search(folded) or _NEGATIVE.search(folded):
        return None
    if _TO_NUMBER.search(folded) and not _ON.search(folded):
        return None  # "to 45 on the left": a position
    size = float(numbers[0].replace(",", "."))
    if not size or size == abs(value):
        return None
    return {**arguments, name: size if value > 0 else -size}


def overshoot_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """A turn (``left``, ``right`` or ``by``) toward the one side the request says the
    servo is too far to, turned the other way; ``None``: as the model wrote them."""
    meant = {k: v for k, v in arguments.items() if v not in (None, False, 0)}
    if len(meant) != 1:
        return None
    ((name, value),) = meant.items()
    if name not in ("left", "right", "by") or isinstance(value, bool):
        return None
    if not isinstance(value, int | float) or (name != "by" and value < 0):
        return None  # a negative side is a position (turn_as_said)
    toward = name if name != "by" else ("right" if value > 0 else "left")
    folded = fold(request)
    too_far = {
        side
        for side, words in DIRECTIONS.items()
        if re.search(_TOO_FAR % ("|".join(words), "|".join(words)), folded)
    }
    if too_far != {toward}:
        return None  # no side too far, both, or a turn already away from it
    return {"by": -value} if name == "by" else {_OTHER[name]: value}


_OTHER = {"left": "right", "right": "left"}


def as_said(
    *,
    lowest: float,
    highest: float,
    current: Callable[[], float | None],
    last_turn: Callable[[], float | None] = lambda: None,
) -> Reread:
    """The servo's reread for a servo whose ends are ``lowest`` and ``highest``, whose
    angle is ``current()`` (``None`` while unknown) and whose last move turned it by
    ``last_turn()``: a signed turn (:func:`signed_as_said`, :func:`turn_as_said`), an
    end (:func:`end_as_said`), the center or back (:func:`placed_as_said`), a position
    from center (:func:`from_center_as_said`), a position or a turn's size, a quarter
    turn (:func:`quarter_as_said`), part of the way back, an overshoot undone
    (:func:`overshoot_as_said`), halfway to the center (:func:`halfway_as_said`), and,
    where none of these applies, the last move again or the other way
    (:func:`again_as_said`)."""

    def reread(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
        signed = signed_as_said(arguments, request)
        turned = turn_as_said(signed or arguments, request) or signed
        ended = end_as_said(turned or arguments, request, lowest=lowest, highest=highest)
        placed = placed_as_said(ended or turned or arguments, request) or ended or turned
        centered = from_center_as_said(placed or arguments, request) or placed
        sided = position_as_said(centered or arguments, request) or centered
        sized = size_as_said(sided or arguments, request) or sided
        sized = quarter_as_said(sized or arguments, request) or sized
        parted = part_back_as_said(sized or arguments, request) or sized
        undone = overshoot_as_said(parted or arguments, request) or parted
        halved = halfway_as_said(undone or arguments, request, current=current) or undone
        if halved is not None:
            return halved
        return again_as_said(arguments, request, current=current, last_turn=last_turn)

    return reread


def quarter_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """A turn of 90 degrees toward the one side the request names, where it names one
    quarter turn and no number, and the model wrote another move; ``None``: as the
    model wrote them."""
    folded = fold(request)
    if _NUMBER.search(folded) or len(_QUARTER.findall(folded)) != 1:
        return None
    words = set(re.findall(r"\w+", folded))
    sides = [side for side, said in DIRECTIONS.items() if not words.isdisjoint(said)]
    if len(sides) != 1:
        return None  # no side, or both: the model's to write
    wanted = {sides[0]: 90}
    meant = {k: v for k, v in arguments.items() if v not in (None, False, 0)}
    if meant == wanted or meant == {"by": 90 if sides[0] == "right" else -90}:
        return None
    return wanted


def halfway_as_said(
    arguments: dict[str, Any], request: str, *, current: Callable[[], float | None]
) -> dict[str, Any] | None:
    """``{"angle": current() / 2}`` where the request says halfway to the center and no
    number or side, the angle is known, and the model's arguments go elsewhere;
    ``None``: as the model wrote them."""
    folded = fold(request)
    words = set(re.findall(r"\w+", folded))
    if not _HALFWAY.search(folded) or _NUMBER.search(folded):
        return None
    if not words.isdisjoint(DIRECTIONS["left"] + DIRECTIONS["right"]):
        return None  # "halfway back to center from the left": the model's to write
    now = current()
    if now is None:
        return None  # unknown until the servo is first moved: nothing to halve
    half = round(now / 2, 1)
    wanted = int(half) if half == int(half) else half
    return None if reaches(arguments, now) == wanted else {"angle": wanted}


def again_as_said(
    arguments: dict[str, Any],
    request: str,
    *,
    current: Callable[[], float | None],
    last_turn: Callable[[], float | None],
) -> dict[str, Any] | None:
    """The last move's turn again (``by``), where the request says "again", or the other
    way, twice or half as far where it says so, where it says "the other way"; and no
    number, side, center or way back, and the model's arguments go elsewhere. "pan 35
    degrees to the right", then "and the same again", came as ``right: -35``, which the
    servo reads as a position (blind prompts); "now the other way, twice as far", after
    a turn of 25 to the right, as ``right: 30`` (fresh61); ``None``: as the model wrote
    them."""
    folded = fold(request)
    words = set(re.findall(r"\w+", folded))
    other = _OTHER_WAY.search(folded)
    if not (other or _AGAIN.search(folded)) or _NUMBER.search(folded):
        return None
    if _CENTER.search(folded) or _RETURN.search(folded) or _BACK.search(folded):
        return None
    if arguments.get("back") or arguments.get("center"):
        return None  # a place, not a move: "straight ahead again" (fresh49)
    if not words.isdisjoint(DIRECTIONS["left"] + DIRECTIONS["right"]):
        return None  # "again, to the left": the model's to write
    now, turn = current(), last_turn()
    if now is None or not turn:
        return None
    if other:
        turn = -turn * (2.0 if _TWICE.search(folded) else 0.5 if _HALF_AS.search(folded) else 1)
    wanted = round(turn, 1)
    if reaches(arguments, now) == round(now + wanted, 1):
        return None
    return {"by": int(wanted) if wanted == int(wanted) else wanted}


def reaches(arguments: dict[str, Any], now: float) -> float | None:
    """Where ``arguments`` would point the servo from ``now`` (rounded to 0.1 degree),
    or ``None`` for ``back`` (where it was before, unknown here) or arguments the servo
    refuses."""
    if arguments.get("back"):
        return None
    try:
        target, turn = aim(**arguments)
    except (ToolArgumentError, TypeError):
        return None
    return round(target if target is not None else now + turn, 1)


def part_back_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``{"back": true, "by": N}`` where the model wrote ``back`` and the request names
    one number N and no side or center; ``None``: as the model wrote them.

    "hmm too far, back 10" came as ``back: 10``, which the schema refuses (fresh64): a
    number for ``back`` is taken as that request's degrees, the model's own where the
    request writes none in digits ("back ten")."""
    back = arguments.get("back")
    degrees = isinstance(back, int | float) and not isinstance(back, bool) and back > 1
    if back is not True and not degrees:
        return None
    folded = fold(request)
    words = set(re.findall(r"\w+", folded))
    numbers = re.findall(r"\d+(?:[.,]\d+)?", folded)
    if degrees and not numbers:
        numbers = [str(back)]
    if len(numbers) != 1 or _CENTER.search(folded) or _NEGATIVE.search(folded):
        return None
    if not words.isdisjoint(DIRECTIONS["left"] + DIRECTIONS["right"]):
        return None  # "back 30 to the left": a turn, the model's to write
    wanted = {"back": True, "by": float(numbers[0].replace(",", "."))}
    return None if arguments == wanted else wanted


def placed_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``{"angle": 0}`` where the request names the center, or ``{"back": true}`` where
    it asks to go back, with no number or side either way, and the model's arguments
    are another; ``None``: as the model wrote them."""
    folded = fold(request)
    words = set(re.findall(r"\w+", folded))
    if _NUMBER.search(folded) or not words.isdisjoint(DIRECTIONS["left"] + DIRECTIONS["right"]):
        return None  # "20 left of center", "back to the left": the model's numbers
    if _HALFWAY.search(folded):
        return None  # halfway to the center (halfway_as_said)
    if _CENTER.search(folded):
        wanted: dict[str, Any] = {"angle": 0}
    elif _BACK.search(folded):
        wanted = {"back": True}
    else:
        return None
    return None if _same(arguments, wanted) else wanted


def _same(arguments: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """Whether ``arguments`` already say ``wanted`` (zeros and false are unsaid, and
    ``{"center": true}`` is angle 0)."""
    meant = {k: v for k, v in arguments.items() if v not in (None, False, 0)}
    if wanted == {"angle": 0}:
        return meant in ({}, {"center": True})
    return meant == wanted


def end_as_said(
    arguments: dict[str, Any], request: str, *, lowest: float, highest: float
) -> dict[str, Any] | None:
    """``{"angle": end}`` where the request names one side's end and no number, and the
    model's arguments are another; ``None``: as the model wrote them."""
    folded = fold(request)
    if _NUMBER.search(folded):
        return None  # "all the way to 45": the number says where
    ends = [
        end
        for side, end in (("left", lowest), ("right", highest))
        if any(re.search(p % "|".join(DIRECTIONS[side]), folded) for p in _ENDS)
    ]
    if len(ends) != 1 or arguments == {"angle": ends[0]}:
        return None
    return {"angle": ends[0]}


# A signed turn: "by minus twenty" (numbers reach the tool as digits: "by minus 20"),
# "by -15 degrees", "um minus 20 Grad", "de moins 20 degrés".
_SIGNED = re.compile(r"\b(?:by|um|de)\s+(?:minus\s+|moins\s+|negative\s+|-\s*)(\d+(?:[.,]\d+)?)\b")


def signed_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """A turn ``by`` the negative number the request names ("rotate the cam by minus
    twenty"), where the model wrote that number otherwise: it came as ``left: -20``,
    which the servo reads as a position (blind prompts); ``None``: as written."""
    found = _SIGNED.findall(fold(request))
    if len(found) != 1:
        return None
    size = float(found[0].replace(",", "."))
    wanted = {"by": -size}
    numbers = [
        v for v in arguments.values() if isinstance(v, int | float) and not isinstance(v, bool)
    ]
    if _same(arguments, wanted) or [abs(v) for v in numbers] != [size]:
        return None
    return wanted


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
