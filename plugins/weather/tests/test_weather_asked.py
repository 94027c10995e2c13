"""Whether a request asks for a forecast when the call's place comes from an earlier
turn (:mod:`edgeagent_weather.asked`): remarks about the weather do not."""

from __future__ import annotations

import pytest
from edgeagent_weather.asked import asks_a_forecast
from edgeagent_weather.service import OpenMeteo


@pytest.mark.parametrize(
    "request_",
    [
        "and on friday?",
        "부산 날씨 알려줘",  # Korean, which folding splits into letters
        "what about the day after?",
        "and two days from now, same city?",
        "and what's it like right now?",
        "will it rain?",
        "is it going to be cold there tonight?",
        "what's the forecast?",
        "und das Wetter am Wochenende?",
        "e domani?",
        "¿y mañana?",
        "明日は？",
        "а погода завтра?",
        "and tmrw?",  # refused as off the weather's topic (fresh45)
        "n 2moro?",
    ],
)
def test_a_follow_up_that_names_a_day_or_the_weather_asks_for_a_forecast(request_: str) -> None:
    assert asks_a_forecast(request_)


@pytest.mark.parametrize(
    "request_",
    [
        # Blind prompts: each came as the last forecast again.
        "guess i'm packing a raincoat then",
        "do you think I'll need a rain jacket?",
        "sweet, gonna be a bbq day then",
        "do bees fly when it rains?",
        "is it true it rains like 250 days a year there?",
        "brr. how do you say cold in norwegian?",
        "know any good tapas places there?",
    ],
)
def test_a_remark_about_the_weather_asks_for_none(request_: str) -> None:
    assert not asks_a_forecast(request_)


def test_the_weather_tool_declares_it() -> None:
    assert OpenMeteo().as_tool().asked_in is asks_a_forecast
