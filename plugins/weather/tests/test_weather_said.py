"""A day named in the request, read from the request itself: the model translates other
languages' day words wrongly ("martedì" arrived as tomorrow) and now and then drops an
English one ("on Thursday" arrived as today)."""

from __future__ import annotations

import datetime as dt

import pytest
from edgeagent_weather.said import said_day
from edgeagent_weather.service import OpenMeteo

from edgeagent.plugin import Tool


@pytest.mark.parametrize(
    ("request_", "day"),
    [
        ("Che tempo farà a Verona martedì?", "tuesday"),
        ("Nevicherà a Verona MARTEDI", "tuesday"),
        ("¿Qué tiempo hará en Bilbao pasado mañana?", "day after tomorrow"),
        ("Che tempo fa a Bologna dopodomani?", "day after tomorrow"),
        ("Il pleuvra après-demain à Lyon ?", "day after tomorrow"),
        ("Vai chover depois de amanhã no Porto?", "day after tomorrow"),
        ("Und wie wird das Wetter morgen in Hamburg?", "tomorrow"),
        ("Wie wird das Wetter übermorgen in Köln?", "day after tomorrow"),
        ("Wetter heute Morgen in Wien", "today"),  # this morning, not tomorrow
        ("¿Llueve esta mañana en Sevilla?", "today"),
        ("Vai chover amanhã em Lisboa?", "tomorrow"),
        ("previsão para sexta-feira em Coimbra", "friday"),
        ("Quel temps fera-t-il dimanche à Nice ?", "sunday"),
        ("Wie wird das Wetter am Samstag in Köln?", "saturday"),
        ("Guten Morgen! Wie ist das Wetter in Berlin?", None),  # a greeting
        ("¿Llueve hoy o mañana en Madrid?", None),  # two days: the model's stands
        ("will it rain on tuesday in Paris?", "tuesday"),
        ("I'm going to Paris on Thursday. What's the weather looking like?", "thursday"),
        ("forecast for the day after tomorrow in Leeds", "day after tomorrow"),
        ("rain in York tonight?", "today"),
        ("is today warmer than tomorrow in Oslo?", None),  # two days
        ("Che tempo fa a Roma?", None),
        # A count of days ahead, in digits or words.
        ("and in three days? might stay a while", "in 3 days"),
        ("weather in Oslo in 4 days", "in 4 days"),
        ("Wetter in Graz in drei Tagen?", "in 3 days"),
        ("¿y en cinco días en Bilbao?", "in 5 days"),
        ("che tempo fa a Roma tra due giorni?", "day after tomorrow"),
        ("in one day, Perth", "tomorrow"),
        ("in a few days in Leeds?", None),
    ],
)
def test_said_day(request_: str, day: str | None) -> None:
    assert said_day(request_) == day


def weather_tool() -> Tool:
    # 2025-06-01 is a Sunday; no request is made, so no server is needed.
    service = OpenMeteo(
        geocoding_url="http://127.0.0.1:9",
        forecast_url="http://127.0.0.1:9",
        today=lambda: dt.date(2025, 6, 1),
    )
    return service.as_tool()


def test_the_weather_tool_asks_for_the_day_the_request_names() -> None:
    tool = weather_tool()
    reread = tool.reread
    assert reread is not None
    asked = {"location": "Verona", "day": "tomorrow"}
    assert reread(asked, "Che tempo farà a Verona martedì?") == {
        "location": "Verona",
        "day": "tuesday",
    }
    # The same day in other words, or no day named: the call runs as written.
    assert reread({"location": "Roma", "day": "tomorrow"}, "Piove domani a Roma?") is None
    assert reread({"location": "Roma", "day": "in 1 day"}, "Piove domani a Roma?") is None
    assert reread({"location": "Verona", "day": "tuesday"}, "Verona on tuesday?") is None
    assert reread({"location": "Paris", "day": "today"}, "Paris on Thursday?") == {
        "location": "Paris",
        "day": "thursday",
    }
    # A place's name is no day: "Santo Domingo" is not Sunday.
    assert (
        reread({"location": "Santo Domingo", "day": "tomorrow"}, "rain in Santo Domingo tomorrow?")
        is None
    )
    assert reread(
        {"location": "Santo Domingo", "day": "today"}, "¿Lloverá el lunes en Santo Domingo?"
    ) == {"location": "Santo Domingo", "day": "monday"}
    # A day the tool cannot read gives way to the request's.
    assert reread({"location": "Nice", "day": "le week-end"}, "Il fera beau dimanche ?") == {
        "location": "Nice",
        "day": "sunday",
    }
