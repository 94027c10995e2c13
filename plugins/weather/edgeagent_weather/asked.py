"""Whether a request asks for a forecast, where the call's place comes from earlier.

After a forecast, remarks and questions about the weather came as the same forecast
again: "guess i'm packing a raincoat then", "do you think I'll need a rain jacket?",
"sweet, gonna be a bbq day then", "do bees fly when it rains?" (blind prompts). In the
benchmarks' records, of the nine weather calls whose request named neither the place
nor a day, eight were such turns, which need no tool; the ninth said "two days from
now". A call whose place the request does not say (carried from an earlier turn) is
asked for only by a request that names a day or a time, the weather or forecast itself,
or asks what it will be like ("will it rain?", "is it going to be cold?");
:meth:`~edgeagent.agent.checks.SideChecks.off_target` refuses the others as off the
tool's topic.
"""

from __future__ import annotations

import re

from edgeagent.plugin import fold
from edgeagent_weather.said import said_day

_ASKED = re.compile(
    # the weather itself, in the languages the tool reads days in, and Russian and CJK
    r"\b(?:weather|forecast|temperature|wetter|vorhersage|meteo|temps|tiempo|clima|"
    r"pronostico|previs|tempo|weer|verwachting|vader|vejr|vaer|pogod|prognoz|saa|hava)\w*"
    r"|погод|прогноз|天気|天气|気温|날씨|기온"
    # a time of its own: "today", "tonight", "now", "this weekend", "two days from now"
    r"|\b(?:today|tonight|now|weekend|week|morning|afternoon|evening|days?\s+from\s+now|"
    r"next\s+few\s+days|heute|jetzt|morgens|abends|aujourd|ce\s+soir|maintenant|hoy|ahora|"
    r"esta\s+noche|oggi|stasera|adesso|hoje|agora|vandaag|vanavond|nu|idag|ikvall|i\s+kvall|"
    r"dzis|teraz|dnes|tanaan|bugun)\b|сегодня|сейчас|завтра|выходн|今日|今夜|今天|今晚|现在|"
    r"明日|明天|明後日|后天|週末|周末|오늘|지금|내일|모레|주말"
    # what it will be like: "will it rain?", "is it going to be cold?", "how warm"
    r"|\b(?:will\s+it|is\s+it\s+going\s+to|it\s+gonna|going\s+to\s+be|how\s+(?:cold|hot|"
    r"warm|windy|wet|sunny))\b"
)


def asks_a_forecast(request: str) -> bool:
    """The ``weather`` tool's ``asked_in``: whether ``request`` asks for a forecast
    without naming the place."""
    return said_day(request) is not None or _matches(_ASKED, request)


_NAMED = re.compile(
    r"\b(?:weather|forecast\w*|rain|rains|rainy|raining|snow|snows|snowy|snowing|umbrella|"
    r"sunny|cloudy|windy|storms?|stormy|thunder\w*|wetter\w*|regnet|regen|schneit|meteo|pluie|"
    r"pleut|neige|lluvia|llueve|llover|nieve|pioggia|piove|chuva|chove|regent|pogod\w*|"
    r"vader\w*|vejr\w*|"
    # Turkish, Finnish, Czech, Hungarian, Romanian (folded): "Yarın yağmur yağacak mı?"
    # was asked back word for word, then looked at as a forecast for a place nobody said
    r"yagmur\w*|hava\s+durumu\w*|saa|saata|sataa\w*|pocasi|prsi|idojaras\w*|esik|"
    r"vremea|ploua|ninge|"
    # "tempo" and "tiempo" are also time: the weather only as asked what it is doing
    # ("Che tempo fa domani?" ran uptime)
    r"(?:che|que|quel)\s+(?:tempo|tiempo|temps)\s+(?:fa|fara|faz|hace|hara|fait|fera|"
    r"va|vai))\b|погод|дожд|καιρ|βροχ|天気|天气|날씨"
)


def names_the_weather(request: str) -> bool:
    """The ``weather`` tool's ``named_in``: whether ``request`` names the weather, the
    forecast or the rain itself (not "temperature", which water and ovens have too:
    "what water temperature do neon tetras like?" came as a forecast for "Neon
    Tetras", and the topic question refused it)."""
    return _matches(_NAMED, request)


def _matches(pattern: re.Pattern[str], request: str) -> bool:
    """Whether ``pattern`` is in the folded ``request``, or, for Korean (which folding
    splits into letters: "부산 날씨 알려줘" named no weather), as written."""
    return bool(pattern.search(fold(request)) or pattern.search(request.casefold()))
