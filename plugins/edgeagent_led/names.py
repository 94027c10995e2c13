"""The words people call the strip by: "kill the shop light", "could the light be sky
blue?", "Puoi alzare la luce al 90 per cento?".

The side questions ask the model, alone, whether a request is about the LED strip before
an LED call runs (:meth:`edgeagent.agent.checks.SideChecks.off_target`). For requests
that call the strip a light or a lamp, it said no to 5 real LED requests in the
benchmarks' records (topic or capability question), and to one absent device ("switch
on the heat lamp"); of the 54 absent devices it caught, none named a light. Here the
request itself says which device it means, so the plugin declares it
(:attr:`edgeagent.tools.tool.Tool.named_in`) and the agent asks no side question of an
LED call that holds only values the request said.

A light of another device ("the heat lamp", "the oven light", "street lights"), "light"
as a verb ("light the candles") and a request that says not to touch it are not the
strip.

The colours a request says (:attr:`edgeagent.tools.tool.Tool.said_in`): asked to turn
on a device that is not there ("¿Puedes encender el ahumador?", a beekeeper's smoker;
"Tu peux aussi ouvrir la fenêtre ?"), the model set the strip to a colour nobody said,
red or white, and both side questions said yes. Over every record in ``bench/results*``,
the first LED calls with a colour no user message said (in any language the strip
knows), for requests that do not name the strip, were 29 for no-tool turns (7 of them
ran) and 3 for LED requests: two ``#rrggbb`` colours (said, as written) and
"Aquarienlicht ... dunkelblau" (said, once read as darkblue). Such a call is a guess and
does not run. Keeping the colour the strip shows guesses nothing, and "off" where the
request says to switch off is the switch, not a colour.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from edgeagent.plugin import HardwareError, SaidIn, ToolError, fold
from edgeagent_led.strip import OFF_COLORS, LedState, foreign_colors

log = logging.getLogger(__name__)

_WORDS = (
    # English
    "light lights lamp lamps strip led leds ledstrip "
    # German, French, Spanish, Italian, Portuguese
    "licht lichter lampe lampen leuchte streifen lumiere lumieres ruban luz luces lampara "
    "tira luce luci lampada striscia luzes fita "
    # Dutch, Swedish, Danish and Norwegian, Polish
    "lichten verlichting ljus ljuset lampa lampan lamporna belysning belysningen lys lyset "
    "lampen swiatło swiatła swiatlo swiatla lampe lampy tasma"
)
_NAME = re.compile(r"\b(?:" + "|".join(sorted(set(_WORDS.split()), key=len, reverse=True)) + r")\b")
_OTHER_DEVICE = re.compile(
    r"\b(?:heat|heating|infrared|uv|lava|tanning|sun|street|traffic|brake|head|tail|fog|"
    r"flash|oven|fridge|freezer|microwave|hood)"
    r"\s+(?:lights?|lamps?)\b|\blight\s+(?:bulbs?|years?|switch)\b"
)
_VERB = re.compile(r"\blight\s+(?:the|a|an|some|my|our|up\s+the|them|it)\b")
_NOT = re.compile(
    r"\b(?:don'?t|do\s+not|never|leave\s+the|nicht|ne\s+touche|no\s+toques|non\s+toccare)\b"
)


def names_the_strip(request: str) -> bool:
    """Whether ``request`` calls the strip by one of its names, and by no name of
    another device's light."""
    text = fold(request)
    if _OTHER_DEVICE.search(text) or _VERB.search(text) or _NOT.search(text):
        return False
    return _NAME.search(text) is not None


_OFF = re.compile(
    r"\b(?:off|out|dark|kill|shut|aus|ausschalten|eteins|eteindre|eteignez|apaga|apague|"
    r"apagar|spegni|spegnere|desliga|desligar|slack|sluk|wyłacz|wylacz|uit)\b"
)
"""A request to switch it off, where "off" as a colour is no guess."""


def said_colors(current: Callable[[], LedState]) -> SaidIn:
    """The LED's ``said_in``: the CSS names of the colours a request names in another
    language, the colour of the ``current()`` strip (read only then) and, where it says
    to switch off, the words for off. "close the blackout blind behind me" came on a
    second look as ``color: "off"``: no word of it says off."""

    def said_in(request: str) -> set[str]:
        folded = fold(request)
        said = foreign_colors(folded) | (set(OFF_COLORS) if _OFF.search(folded) else set())
        try:
            shown = current().summary().get("color")
        except (HardwareError, ToolError) as error:  # a missing strip: its call says so
            log.info("the strip's colour is unknown here: %s", error)
            shown = None
        if isinstance(shown, str):
            said.add(shown)
        return said

    return said_in
