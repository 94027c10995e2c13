"""What the model writes wrongly for an LED request, read again from the request.

Asked for a brightness relative to the one the strip has ("half as bright as it is
right now", "add ten to the brightness", "twice as bright"), the model writes a number
of its own: 50 for half, 110 for "add ten" (it assumed 100), whatever the strip shows
(four turns in three blind prompt sets). The tool knows the level, so the level the
request names is computed from it. Asked for an end ("orange, dimmest setting",
"minimum brightness"), it wrote 10 or 50: the end is 1 or 100; "max it out" came as
math on the level, and then as ``brightness: 3000`` (fresh59). Asked to keep the
brightness ("change it to white, same brightness", "switch the strip to white but keep
it that dim"), it still wrote ``brightness: 100`` or 50; the request's word wins. A part
of the level ("a quarter of what they are now", "70% of its current brightness") is read
by :mod:`edgeagent_led.level`.

Asked to undo ("put the light back how it was"), it wrote a colour of its own: the
strip's state before its last change is what was meant (:mod:`edgeagent_led.undo`).

Asked to switch it off ("apaga la luz"), the model wrote ``{"off": true}``, an argument
the tool does not have: it is ``on: false``. Asked for light ("bright white, full
power", "look all the way to the right"), it added ``effect: "blink"``, which fails
without a colour or runs three seconds nobody asked for: an effect the request does not
name is dropped; so are ``first`` and ``last`` when the request names no pixels: "make
the night lamp a soft purple, ten percent" came as ``first: 0, last: 0``, and one pixel
of eight turned purple (blind prompts; every range seen in the benchmarks' records was
one the request never asked for).

A colour named in another language is read by :func:`edgeagent_led.strip.color_as_said`.

Asked for a colour while complaining about the one the strip has ("make my reading lamp
orange at 60%, this yellow is giving me a headache", the strip yellow), the model wrote
the colour it has: a change to the colour the strip already shows, where the request
names one other colour and nothing that keeps the first, is that other colour (blind
prompts).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import webcolors

from edgeagent.plugin import Reread, ToolArgumentError, fold
from edgeagent_led.level import NOT_A_PART, PERCENT, shares_of_now
from edgeagent_led.strip import (
    OFF_COLORS,
    OFF_VERBS,
    LedState,
    color_as_said,
    foreign_colors,
    name_of,
    to_hex,
)
from edgeagent_led.undo import undone_as_said
from edgeagent_led.unsaid import level_unsaid

_N = r"(\d+(?:[.,]\d+)?)"
_DIGIT = re.compile(r"\d")
_HALF = re.compile(
    r"\bhalf\s+as\s+bright|\bhalve\b|\bhalf\s+(?:of\s+)?(?:what\s+it\s+is|the\s+current|"
    r"its\s+current|of\s+now)|\b(?:by|in)\s+half\b|\bhalf\s+again\b|\bum\s+die\s+halfte|"
    r"\bde\s+moitie|\bdella\s+meta|\bpela\s+metade|\bhalb\s+so\s+hell|\bdeux\s+fois\s+moins|\bla\s+mitad\s+de\s+"
    r"(?:brillo|luz)|\bmeta\s+(?:della\s+)?luminosita"
)
_DOUBLE = re.compile(
    r"\btwice\s+as\s+bright|\bdouble\s+(?:the\s+|its\s+)?brightness|\bdouble\s+(?:it|them)\b|"
    r"\bdoppelt\s+so\s+hell|"
    r"\bdeux\s+fois\s+plus\s+(?:fort|lumineu)|\bel\s+doble\s+de\s+(?:brillo|luz)"
)
_UP = (
    re.compile(
        r"\b(?:add|plus|up\s+by|increase\s+(?:it\s+|the\s+brightness\s+)?by|raise\s+(?:it\s+)?by|"
        r"bump\s+(?:it\s+)?(?:up\s+)?by|turn\s+(?:it\s+)?up\s+by)\s+" + _N + NOT_A_PART
    ),
    re.compile(_N + r"\s*(?:%|percent|points?)?\s+(?:more\s+bright|brighter|higher)\b"),
)
_DOWN = (
    re.compile(
        r"\b(?:minus|subtract|take\s+off|down\s+by|decrease\s+(?:it\s+|the\s+brightness\s+)?by|"
        r"lower\s+(?:it\s+)?by|reduce\s+(?:it\s+)?by|drop\s+(?:it\s+)?by|dim\s+(?:it\s+)?by|"
        r"turn\s+(?:it\s+)?down\s+by)\s+" + _N + NOT_A_PART
    ),
    re.compile(_N + r"\s*(?:%|percent|points?)?\s+(?:less\s+bright|dimmer|darker|lower)\b"),
)
_LOWEST = re.compile(
    r"\b(?:dimmest|lowest|minimum)\b(?!\s+(?:of|than))|\bas\s+(?:dim|low)\s+as\s+"
    r"(?:it\s+(?:goes|gets|can)|possible)|\ball\s+the\s+way\s+down\b|\b(?:thap|nho)\s+nhat\b|"
    r"\b(?:minimale?|minima|minimo|minimum)\b"
)
_HIGHEST = re.compile(
    r"\b(?:full|max(?:imum)?|brightest|highest)\s+(?:brightness|setting|level|power)|"
    r"\bas\s+bright\s+as\s+(?:it\s+(?:goes|gets|can)|possible)|\ball\s+the\s+way\s+up\b|"
    r"\bmax(?:ed)?\s+(?:it|them|that|this|the\s+\w+)\s+out\b|\bfull\s+blast\b|\bcao\s+nhat\b|"
    r"\bvolle\s+helligkeit|"
    r"\bpleine\s+puissance|\bmaximo\s+brillo|\bmassima\s+luminosita"
)
_SAME = re.compile(
    r"\bsame\s+brightness|\bkeep\s+(?:the\s+|its\s+)?brightness|\bbrightness\s+(?:as\s+it\s+is|"
    r"unchanged|the\s+same)|\bdon'?t\s+change\s+the\s+brightness|\bgleiche[nr]?\s+helligkeit|"
    r"\bmeme\s+luminosite|\bmismo\s+brillo|\bstessa\s+luminosita|\bmesmo\s+brilho"
)
_KEEP_LEVEL = re.compile(
    r"\bkeep\s+(?:it|them|the\s+(?:light|lamp|strip)s?)\s+(?:(?:that|this|as|so|just\s+as)\s+)?"
    r"(?:dim|bright|low|dark)\b|\bsame\s+(?:level|intensity|dimness)\b|"
    r"\b(?:at|on)\s+(?:that|this|the\s+same)\s+(?:level|brightness)\b"
)
"""Keeping the level without naming "brightness": "white but keep it that dim"."""


def brightness_as_said(
    arguments: dict[str, Any], request: str, *, current: Callable[[], int]
) -> dict[str, Any] | None:
    """``arguments`` with the brightness the ``request`` names relative to the
    ``current()`` level (read only then), or without the one it says to keep, where the
    model wrote a brightness and the request names exactly one change; with the end of
    the range the request names (:func:`end_added`) where it wrote none; ``None``: as
    written."""
    brightness = arguments.get("brightness")
    if isinstance(brightness, bool):
        return None
    folded = fold(request)
    if brightness is None:
        return end_added(arguments, folded)
    if _SAME.search(folded) or (_KEEP_LEVEL.search(folded) and not _DIGIT.search(folded)):
        return {k: v for k, v in arguments.items() if k != "brightness"}
    ends = [level for level, words in ((1, _LOWEST), (100, _HIGHEST)) if words.search(folded)]
    if len(ends) == 1:
        # "orange, dimmest setting" came as brightness 10, "minimum brightness" as 50.
        return None if brightness == ends[0] else {**arguments, "brightness": ends[0]}
    # (share of the level, points added): "half as bright" (0.5, 0), "add 10" (1, 10)
    changes = {(share, 0.0) for share in shares_of_now(folded)}
    if _HALF.search(folded):
        changes.add((0.5, 0.0))
    if _DOUBLE.search(folded):
        changes.add((2.0, 0.0))
    for patterns, sign in ((_UP, 1), (_DOWN, -1)):
        for n in {m.group(1) for p in patterns for m in p.finditer(folded)}:
            changes.add((1.0, sign * float(n.replace(",", "."))))
    if len(changes) != 1:
        return None  # none, or more than one: the model's reading stands
    ((share, points),) = changes
    level = max(1, min(100, round(current() * share + points)))
    return None if brightness == level else {**arguments, "brightness": level}


def end_added(arguments: dict[str, Any], folded: str) -> dict[str, Any] | None:
    """``arguments`` with brightness 1 or 100 where the ``folded`` request names that
    one end of the range and no number, and nothing switches off: "baja el brillo al
    mínimo" came on a look as ``brightness: 0``, which the strip reads as 1, but a
    value read only from the model's own was no value the request said (fresh44);
    read from the request alone, it is. ``None``: as written."""
    color = arguments.get("color")
    off = isinstance(color, str) and color.strip().lower() in OFF_COLORS
    if off or arguments.get("on") is False or _DIGIT.search(folded):
        return None
    ends = [level for level, words in ((1, _LOWEST), (100, _HIGHEST)) if words.search(folded)]
    return {**arguments, "brightness": ends[0]} if len(ends) == 1 else None


_EFFECT = re.compile(
    r"\b(?:blink|flash|puls|flicker|strob|breath|twinkl|sparkl|animat|effect|"
    r"clignot|parpade|destell|lampeggi|pisc|effet|efecto|effetto|"
    r"efeito)\w*"
)


def effect_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``arguments`` without an ``effect`` the ``request`` names no effect for;
    ``None``: as written."""
    if arguments.get("effect") is None or _EFFECT.search(fold(request)):
        return None
    return {k: v for k, v in arguments.items() if k != "effect"}


# Pixels named: "pixel 3", "píxeles", "the first three LEDs", "LEDs 2 to 5", "led 4".
_PIXELS = re.compile(
    r"\bpixel\w*|\b(?:first|last|erste\w*|letzte\w*|premi\w*|derni\w*|primer\w*|ultim\w*)"
    r"\s+(?:\w+\s+)?(?:leds?|lamps?|lights?|bulbs?)\b|\bleds?\s*#?\d|\d+\s*leds?\b"
)


def pixels_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``arguments`` without ``first`` and ``last`` where they select pixels for a
    colour and the ``request`` names no pixels; ``None``: as written. Without a colour
    the range selects nothing, and its error says so: "look all the way to the left"
    came as ``led`` with ``first: 0`` alone, and stays a failure, not a call that
    changes nothing."""
    ranged = "first" in arguments or "last" in arguments
    if not ranged or arguments.get("color") is None or _PIXELS.search(fold(request)):
        return None
    return {k: v for k, v in arguments.items() if k not in ("first", "last")}


_CSS_WORDS = frozenset(webcolors.names())
_COMMON = frozenset({"tan"})
"""CSS names that are common words of another language (Spanish "tan", so)."""
_KEEP = re.compile(r"\b(?:keep|stay|leave|same|not|don\W?t|instead\s+of|rather\s+than)\b")


def _css_names(folded: str) -> set[str]:
    """The CSS colour names a folded request may say: each word that is one, and each
    two or three words that are one together ("make the light pink" says pink, or
    lightpink). A name of more words says its last word no more ("make the lights sky
    blue then" is skyblue, not blue as the model wrote it; blind prompts), except after
    "light", which may be the strip itself."""
    words = re.findall(r"[a-z]+", folded)
    names: set[str] = set()
    covered: set[int] = set()
    for size in (3, 2, 1):
        for i in range(len(words) - size + 1):
            name = "".join(words[i : i + size])
            if name not in _CSS_WORDS or name in _COMMON or i in covered:
                continue
            names.add(name)
            if size > 1 and words[i] not in ("light", "lights"):
                covered.update(range(i + 1, i + size))
    return names


def change_as_said(
    arguments: dict[str, Any], request: str, *, current: Callable[[], LedState]
) -> dict[str, Any] | None:
    """``arguments`` with the one other colour the ``request`` names where the model
    set the colour the ``current()`` strip already shows all over, and the request
    names that one too but nothing that keeps it ("keep", "same", "not", "instead
    of"); ``None``: as written."""
    color = arguments.get("color")
    folded = fold(request)
    if not isinstance(color, str) or _KEEP.search(folded):
        return None
    said = {to_hex(name) for name in _css_names(folded)}
    try:
        wrote = to_hex(color)
    except ToolArgumentError:
        return None
    others = said - {wrote}
    if wrote not in said or len(others) != 1 or set(current().pixels) != {wrote}:
        return None  # the colour written unnamed, no other or several, or not the strip's
    return {**arguments, "color": name_of(others.pop())}


_SWITCHED_OFF = (
    r"\b(?:turn|switch|shut|power|lights?|lamps?|strip|leds?|it|them|all)\s+(?:\w+\s+)?off\b|"
    r"^\W*off\b|\boff\W*$|\b(?:kill|" + OFF_VERBS + r")\b"
)
_SWITCH_OFF = re.compile(_SWITCHED_OFF)
"""Off said as a switch ("turn it off", "lights off", "switch off the lamp"), not as in
"the glare off the anvil"."""
_OFF_WORDS = re.compile(_SWITCHED_OFF + r"|\b(?:out|dark|black)\b")
"""Off said as a switch, or as the dark it leaves ("lights out", "make it dark")."""


def dimmed_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``arguments`` without an "off" colour where they also set a brightness and the
    ``request`` says nothing of off ("turn the shop light down to 40" came as ``color:
    "off", brightness: 40``, and the strip went dark; blind prompts); ``None``: as
    written."""
    color, brightness = arguments.get("color"), arguments.get("brightness")
    if not isinstance(color, str) or color.strip().lower() not in OFF_COLORS:
        return None
    if not brightness or _OFF_WORDS.search(fold(request)):
        return None
    return {k: v for k, v in arguments.items() if k != "color"}


def named_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``arguments`` with the one CSS colour name the ``request`` says, where the model
    wrote another name ("a nice warm orangered" came as ``orange``; blind prompts); a
    colour it wrote as ``#rrggbb`` or "off" stays, and so does one of the names a
    request may say ("make the light pink": pink or lightpink); ``None``: as
    written."""
    color = arguments.get("color")
    if not isinstance(color, str) or color.startswith("#") or color.lower() in OFF_COLORS:
        return None
    if foreign_colors(request):
        return None  # a colour word of another language: color_as_said reads those
    named = {to_hex(name) for name in _css_names(fold(request))}
    try:
        if len(named) != 1 or to_hex(color) in named:
            return None
    except ToolArgumentError:
        pass  # a made-up name: the one said is what was meant
    return {**arguments, "color": name_of(named.pop())}


_SHADE = re.compile(
    r"\b(?:light(?:er)?|dark(?:er)?|pale(?:r)?|deep(?:er)?|soft(?:er)?|warm(?:er)?|"
    r"cool(?:er)?|bright(?:er)?|dim(?:mer)?|shade|tint|tone|hint|touch|bit|slightly|"
    r"more|less|mix|between|\w+ish|(?<=-)ish|hell(?:er)?|dunkel(?:er)?|clair|fonce|claro|oscuro|"
    r"chiaro|scuro|licht|donker|jasn\w*|ciemn\w*|ljus|mork)\b"
)
"""A shade of a colour, said ("a lighter blue", "purple-ish", "hellblau"): its
``#rrggbb`` is the model's, not the name's."""


def hex_as_named(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``arguments`` with the one colour the ``request`` names, where the model wrote
    another as ``#rrggbb`` that the request does not write, and the request says no
    shade of it (:data:`_SHADE`): "turn the strip on and make it lavender" came as
    ``#e699ff`` (lavender is ``#e6e6fa``; fresh74); ``None``: as written."""
    color = arguments.get("color")
    if not isinstance(color, str) or not color.startswith("#"):
        return None
    folded = fold(request)
    if color.lstrip("#").lower() in folded or _SHADE.search(folded):
        return None
    said = _colors_said(request)
    if len(said) != 1:
        return None
    (name,) = said
    try:
        if to_hex(color) == to_hex(name):
            return None
    except ToolArgumentError:
        pass  # not a colour at all: the one said is what was meant
    return {**arguments, "color": name}


def color_added(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``arguments`` with the one colour the ``request`` names, where the model set no
    colour and did not switch the strip off: "make the strip white at half brightness"
    came as ``brightness: 50`` alone, and the strip stayed cyan (fresh67). A request
    that keeps a colour ("keep the teal") adds none; ``None``: as written."""
    if "color" in arguments or arguments.get("on") is False or not arguments:
        return None
    said = _colors_said(request)
    if len(said) != 1 or _KEEP.search(fold(request)):
        return None
    return {**arguments, "color": said.pop()}


def switch_as_meant(arguments: dict[str, Any]) -> dict[str, Any] | None:
    """``{"off": true}`` as ``{"on": false}`` (and ``off: false`` as ``on: true``) where
    ``on`` is not given; ``None``: as written."""
    off = arguments.get("off")
    if not isinstance(off, bool) or "on" in arguments:
        return None
    return {**{k: v for k, v in arguments.items() if k != "off"}, "on": not off}


_SWITCH_ON = re.compile(
    r"\b(?:on|an|ein\w*|allum\w*|encend\w*|enciend\w*|prend\w*|accend\w*|lig[au]\w*|aan|"
    r"zapn\w*|rozsvit\w*|wlacz\w*|включ\w*|увімкн\w*|ac|αναψ\w*|sytyta|aprinde)\b|"
    r"켜|つけ|点け|打开|开灯"
)
"""On said as a switch, in the languages of :data:`OFF_VERBS`."""


def off_as_said(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
    """``{"on": false}`` where the ``request`` says to switch off and names no colour,
    and the model wrote a colour that is not off ("Zhasni prosím světlo.", Czech for
    "switch the light off, please", came as ``color: "white"``; fresh39), or only
    ``on: true`` where it says nothing of on ("Zhasni světla." came so on a second look,
    and the strip stayed on; fresh60); ``None``: as written."""
    folded = fold(request)
    if arguments == {"on": True}:
        # Not the dark words: "it's dark in here" asks for light.
        switched = _SWITCH_OFF.search(folded) and not _SWITCH_ON.search(folded)
        return {"on": False} if switched else None
    color = arguments.get("color")
    if not isinstance(color, str) or color.strip().lower() in OFF_COLORS or "on" in arguments:
        return None
    if not _OFF_WORDS.search(folded) or _colors_said(request):
        return None
    return {"on": False}


_LEVEL = re.compile(
    r"(?<![\d.,])(\d{1,3})(?![\d.,])\s*" + PERCENT + r"?(?=\s*(?:[.,!?]|$|\s+(?:please|pls|"
    r"thanks|bitte|tack|por\s+favor|per\s+favore|s'il)\b))"
)
"""A level said alone at the request's end: "turn the shop sign lights up to 90",
"lights at 40%, please"."""
_ONE_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_RELATIVE = re.compile(r"\b(?:by|more|less|further|another|extra|brighter|dimmer|times)\b")


def level_as_said(
    arguments: dict[str, Any], request: str, *, named: Callable[[str], bool]
) -> dict[str, Any] | None:
    """``{"brightness": N}`` (and ``on``) where the ``request`` names the strip
    (``named``), says one number N of 1-100, at the end of a sentence, and no colour, pixels or
    change by an amount, and the model wrote another level or a colour nobody said;
    ``None``: as written.

    "can u turn the shop sign lights up to 90" came as ``color: "red", brightness:
    100, effect: "pulse"`` (blind prompts): a request that names only a level changes
    only the level."""
    folded = fold(request)
    numbers = _ONE_NUMBER.findall(folded)
    level = _LEVEL.search(folded)
    if len(numbers) != 1 or level is None or not named(request):
        return None
    n = int(level.group(1))
    color = arguments.get("color")
    wrote = fold(color).strip() if isinstance(color, str) else ""
    said_color = bool(
        _colors_said(request)
        or _OFF_WORDS.search(folded)
        or (wrote and re.search(rf"\b{re.escape(wrote)}\b", folded))
    )
    if not 1 <= n <= 100 or said_color or _RELATIVE.search(folded) or _PIXELS.search(folded):
        return None
    meant: dict[str, Any] = {"brightness": n}
    if arguments.get("on") is True:
        meant["on"] = True
    return None if meant == arguments else meant


def _colors_said(request: str) -> set[str]:
    """The CSS names of the colours a request says, in any language the strip knows."""
    return _css_names(fold(request)) | foreign_colors(request)


def as_said(
    current: Callable[[], LedState],
    *,
    named: Callable[[str], bool],
    before: Callable[[], LedState | None] = lambda: None,
) -> Reread:
    """The ``led`` tool's reread: for a request to undo, the strip as it was ``before()``
    its last change; off as on=false, an "off" colour with a brightness
    the request never calls off dropped, an effect or pixels the request does not name
    dropped, a colour named in another language or the one CSS name said (added where
    none was written), a change to another colour
    than the one the ``current()`` strip shows, then a brightness named relative to its
    level, and one nobody said dropped (:mod:`edgeagent_led.unsaid`); or, for a request
    that names the strip (``named``) and only a level, that level alone."""

    def reread(arguments: dict[str, Any], request: str) -> dict[str, Any] | None:
        if undone := undone_as_said(request, before=before, colors=_colors_said):
            return undone
        if alone := level_as_said(arguments, request, named=named):
            return alone
        if off := off_as_said(arguments, request):
            return off
        switched = switch_as_meant(arguments)
        switched = dimmed_as_said(switched or arguments, request) or switched
        calm = effect_as_said(switched or arguments, request) or switched
        whole = pixels_as_said(calm or arguments, request) or calm
        colored = color_as_said(whole or arguments, request) or whole
        colored = named_as_said(colored or arguments, request) or colored
        colored = hex_as_named(colored or arguments, request) or colored
        colored = color_added(colored or arguments, request) or colored
        changed = change_as_said(colored or arguments, request, current=current) or colored
        level = brightness_as_said(
            changed or arguments, request, current=lambda: current().brightness
        )
        return level_unsaid(level or changed or arguments, request) or level or changed

    return reread
