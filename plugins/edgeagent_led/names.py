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

Two right LED calls were refused so on blind prompts. "ライトを赤にして" (make the light
red) came as ``color: "red"``, but the strip knew neither ライト nor 赤: its names and
colour words (:data:`edgeagent_led.strip.CJK_COLORS`) are now in Japanese, Chinese and
Korean too, read inside longer words since no space separates them ("赤" in "赤色",
"灯" in "台灯"), but not in words that are no light or another device's ("電気代", the
electricity bill; "路灯", a street light; "ハイライト") nor colour words that say no
colour ("赤ちゃん", a baby; "蓝牙", Bluetooth). "tunr the lihgts to yelow" came as
``color: "yellow"``: a word typed with one slip of the keyboard
(:func:`edgeagent.plugin.one_slip`), its first letter right, is the name or the colour it
misses ("lihgts", "yelow", "purpel"), unless it is a word of its own ("lighter",
"stripe", "while", "greed").
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from edgeagent.plugin import HardwareError, SaidIn, ToolError, fold, one_slip
from edgeagent_led.strip import (
    OFF_COLORS,
    OFF_VERBS,
    LedState,
    as_written,
    foreign_colors,
    slipped_colors,
    turkish_forms,
)

log = logging.getLogger(__name__)

_WORDS = (
    # English
    "light lights lite lites lamp lamps strip led leds ledstrip "
    # German, French, Spanish, Italian, Portuguese
    "licht lichter lampe lampen leuchte streifen lumiere lumieres ruban luz luces lampara "
    "tira luce luci lampada striscia luzes fita "
    # Dutch, Swedish, Danish and Norwegian, Polish
    "lichten verlichting ljus ljuset lampa lampan lamporna belysning belysningen lys lyset "
    "lampen swiatło swiatła swiatlo swiatla lampe lampy tasma "
    # Russian, folded ("й" as "и")
    "свет света свету светом свете лампа лампу лампы лампе лампои лампочка лампочку "
    "лампочки подсветка подсветку подсветки подсветкои лента ленту ленты светодиоды "
    # Turkish, Greek, Czech, Hungarian, Finnish, Romanian, Ukrainian (folded below):
    # "Işığı kırmızı yap." named no strip the plugin knew (fresh42)
    "ışık ışığı ışıkları ışıklar lamba lambayı φως φώτα λάμπα λάμπες světlo světla "
    "osvětlení lampu lámpa lámpát fény fényt villany világítás valo valot valoa lamppu "
    "lampun lumina lumini lumină світло світла лампу лампочку стрічку"
)
_NAMES = frozenset(form for w in _WORDS.split() for form in turkish_forms(fold(w)))
_NAME = re.compile(r"\b(?:" + "|".join(sorted(_NAMES, key=len, reverse=True)) + r")\b")
_OTHER_DEVICE = re.compile(
    r"\b(?:heat|heating|infrared|uv|lava|tanning|sun|street|traffic|brake|head|tail|fog|"
    r"flash|oven|fridge|freezer|microwave|hood)"
    r"\s+(?:lights?|lamps?)\b|\blight\s+(?:bulbs?|years?|switch)\b"
)
_VERB = re.compile(
    r"(?<!\bthe\s)(?<!\bmy\s)(?<!\bour\s)(?<!\byour\s)(?<!\bthis\s)(?<!\bthat\s)"
    r"\blight\s+(?:the|a|an|some|my|our|up\s+the|them|it)\b"
)
""""light" as a verb ("light the candles"), not the noun after "the": "dim the light a
bit"."""
_NOT = re.compile(
    r"\b(?:don'?t|do\s+not|never|leave\s+the|nicht|ne\s+touche|no\s+toques|non\s+toccare)\b"
)


# Japanese, Chinese (simplified) and Korean, read inside longer words (no space
# separates them): "ライトを赤にして", "把灯调成蓝色", "거실 조명을 파란색으로".
_CJK_WORDS = (
    "ライト", "照明", "ランプ", "明かり", "灯", "조명", "램프", "라이트", "전등", "스트립",
    "무드등",
)  # fmt: skip
_CJK_NAME = re.compile(
    "|".join(_CJK_WORDS)
    # "LEDテープ", "LED灯带", "LED를": a CJK letter after it is no \b
    + r"|(?<![a-z0-9])leds?(?![a-z0-9])"
    # 電気 (the light, "電気をつけて"), not in a word: 電気代, 静電気, 電気ストーブ
    + r"|(?<![\u3400-\u9fff])電気(?![\u3400-\u9fff\u30a0-\u30ff])"
    # 불 (the light, "불 켜줘", "불을 꺼"), not in a word: 불편, 불가능, 촛불
    + r"|(?<![가-힣])불(?:빛)?(?:을|이|은|도)?(?:(?![가-힣])|(?=[켜꺼끄좀]))"
)
_CJK_NOT_NAMES = re.compile(
    "ハイライト|フライト|ブライト|ライトノベル|ライト級|ライト(?=ブルー|グリーン|ピンク|イエロー|グレー)"
    "|灯油|하이라이트|라이트급"
)
"""Words that hold a name and are no light: highlight, flight, bright, a light novel, a
light blue, kerosene (灯油)."""
_CJK_OTHER_DEVICE = re.compile(
    "路灯|红绿灯|信号灯|交通灯|车灯|车头灯|前灯|尾灯|刹车灯|头灯|雾灯|闪光灯|灯塔|灯笼|灯泡|"
    "指示灯|加热灯|浴霸|紫外|红外|烤箱灯|冰箱灯|油灯|酒精灯|街灯|提灯|懐中電灯|灯台|電球|"
    "赤外|信号|ヒートランプ|ヘッドライト|テールライト|フォグランプ|ブレーキランプ|"
    "フラッシュライト|ブラックライト|uvライト|헤드라이트|플래시라이트|손전등|자외선|적외선|"
    "히트램프|불을 ?피[우워]"
)
"""Another device's light: street and traffic lights, a car's, a camera's flash, a
lighthouse, a lantern, a bulb (as "light bulb"), a heat, UV or infrared lamp, a torch,
and 불 as a fire to make."""
_CJK_NOT = re.compile(
    r"ないで|触らない|(?<!要)不要|(?<![特区分告级类性识离个差辨])别(?![的人墅处])|지\s?마|하지\s?말"
)
"""Don't: "ライトは消さないで", "别关灯", "불 끄지 마"."""

_LONG_NAMES = sorted(w for w in _NAMES if len(w) >= 5)
NOT_SLIPS = frozenset({
    "lighter", "lighten", "leicht", "leichter", "lacht", "lichen", "lucas", "lunes", "lucks",
    "ruben", "stripe", "strap", "strop", "lumps", "lumpy", "limps", "lamda", "lamba",
})  # fmt: skip
"""Words one slip from a name of the strip that are words of their own: "make it a bit
lighter" is not "lichter" (German lights), "stripe" not "strip", German "leicht" not
"licht"."""


def _as_named(folded: str) -> str:
    """``folded`` with each word typed with one slip of a name of five letters or more,
    its first letter right, as that name: "tunr the lihgts to yelow" as "tunr the lights
    to yelow" (blind prompts), so that "the heat lihgt" is still another device's."""

    def named(word: re.Match[str]) -> str:
        written = word.group()
        if written in _NAMES or written in NOT_SLIPS:
            return written
        for name in _LONG_NAMES:
            if name[0] == written[0] and one_slip(written, name):
                return name
        return written

    return re.sub(r"[^\W\d_]{5,}", named, folded)


def names_the_strip(request: str) -> bool:
    """Whether ``request`` calls the strip by one of its names (in Japanese, Chinese and
    Korean too, or with one slip of the keyboard), and by no name of another device's
    light."""
    text = _as_named(fold(request))
    if _OTHER_DEVICE.search(text) or _NOT.search(text):
        return False
    # "light" as a verb names nothing, but the strip may be named beside it: "light
    # the radio desk strip up in gold at 60%".
    text = _VERB.sub(lambda verb: verb.group(0).replace("light", " ", 1), text)
    written = as_written(request)
    if _CJK_OTHER_DEVICE.search(written) or _CJK_NOT.search(written):
        return False
    return bool(_NAME.search(text) or _CJK_NAME.search(_CJK_NOT_NAMES.sub(" ", written)))


_OFF = re.compile(r"\b(?:off|out|dark|kill|shut|" + OFF_VERBS + r")\b")
"""A request to switch it off, where "off" as a colour is no guess."""


def said_colors(current: Callable[[], LedState]) -> SaidIn:
    """The LED's ``said_in``: the CSS names of the colours a request names in another
    language or with one slip of the keyboard ("yelow"), the colour of the ``current()``
    strip (read only then) and, where it says to switch off, the words for off. "close
    the blackout blind behind me" came on a second look as ``color: "off"``: no word of
    it says off."""

    def said_in(request: str) -> set[str]:
        folded = fold(request)
        said = foreign_colors(request) | slipped_colors(folded)
        if _OFF.search(folded):
            said |= OFF_COLORS
        try:
            shown = current().summary().get("color")
        except (HardwareError, ToolError) as error:  # a missing strip: its call says so
            log.info("the strip's colour is unknown here: %s", error)
            shown = None
        if isinstance(shown, str):
            said.add(shown)
        return said

    return said_in
