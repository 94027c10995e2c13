"""A day named in the request, read from the request itself: the model translates other
languages' day words wrongly ("martedì" and Dutch "overmorgen" arrived as tomorrow) and now
and then drops an English one ("on Thursday" arrived as today)."""

from __future__ import annotations

import datetime as dt

import pytest
from edgeagent_weather.days import days_ahead
from edgeagent_weather.said import DAY_BEFORE, NEXT_DAY, SAME_DAY, said_day
from edgeagent_weather.service import OpenMeteo

from edgeagent.plugin import Tool


@pytest.mark.parametrize(
    ("request_", "day"),
    [
        ("Che tempo farà a Verona martedì?", "tuesday"),
        ("and tmrw?", "tomorrow"),
        # Japanese, Chinese, Korean (the day after tomorrow came as tomorrow; fresh47)
        ("Osakaの明後日の天気を教えてください", "day after tomorrow"),
        ("明日の大阪の天気は？", "tomorrow"),
        ("后天北京会下雨吗？", "day after tomorrow"),
        ("星期五上海天气怎么样", "friday"),
        ("金曜日の東京の天気", "friday"),
        ("부산 모레 날씨 어때?", "day after tomorrow"),
        ("Seoul 오늘 날씨 어때요?", "today"),
        # Greek, Russian, Ukrainian, Hungarian, Romanian (the day after tomorrow in
        # Greek came as today; fresh48)
        ("Τι καιρό θα κάνει μεθαύριο στη Thessaloniki;", "day after tomorrow"),
        ("Θα βρέξει αύριο στην Αθήνα;", "tomorrow"),
        ("Какая погода будет послезавтра в Moscow?", "day after tomorrow"),
        ("погода на завтра в Киеве", "tomorrow"),
        ("Яка погода сьогодні у Львові?", "today"),
        ("Milyen idő lesz holnapután Budapesten?", "day after tomorrow"),
        ("Cum va fi vremea poimâine în Cluj?", "day after tomorrow"),
        ("weather in Portland, Maine", None),  # Maine is no Romanian tomorrow
        ("Cum va fi vremea mâine în București?", "tomorrow"),  # written with its â
        ("Va ploua MÂINE la Iași?", "tomorrow"),
        ("rain in leeds tommorow", "tomorrow"),
        ("weather in oslo 2nite", "today"),
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
        ("over 3 days in Leeds", None),  # "over" + a count is Dutch only with "dagen"
    ],
)
def test_said_day(request_: str, day: str | None) -> None:
    assert said_day(request_) == day


@pytest.mark.parametrize(
    ("request_", "day"),
    [
        # Dutch
        ("Wat voor weer wordt het overmorgen in Rotterdam?", "day after tomorrow"),
        ("Regent het vandaag in Utrecht?", "today"),
        ("Hoe warm wordt het morgen in Gent?", "tomorrow"),
        ("Regent het morgenochtend in Delft?", "tomorrow"),
        ("Wordt het zonnig op zaterdag in Den Haag?", "saturday"),
        ("Hoe is het weer over drie dagen in Leiden?", "in 3 days"),
        ("En over 2 dagen?", "day after tomorrow"),
        ("Goedemorgen, hoe is het weer in Utrecht?", None),  # a greeting
        # Swedish
        ("Hur blir vädret i övermorgon i Göteborg?", "day after tomorrow"),
        ("Blir det regn idag i Malmö?", "today"),
        ("Hur blir vädret i dag i Uppsala?", "today"),
        ("Snöar det imorgon i Kiruna?", "tomorrow"),
        ("Blir det sol i morgon i Lund?", "tomorrow"),
        ("Regnade det i morse i Umeå?", "today"),  # this morning, not tomorrow
        ("Hur blir vädret på lördag i Visby?", "saturday"),
        ("Vad blir vädret om tre dagar i Luleå?", "in 3 days"),
        ("och om sex dagar?", "in 6 days"),
        # Danish and Norwegian
        ("Hvordan bliver vejret i overmorgen i Aarhus?", "day after tomorrow"),
        ("Regner det i dag i Odense?", "today"),
        ("Blir det sol i morgen i Bergen?", "tomorrow"),
        ("Hvordan blir været på søndag i Tromsø?", "sunday"),
        ("Hvordan bliver vejret tirsdag i Aalborg?", "tuesday"),
        ("Hvordan bliver vejret om to dage i Esbjerg?", "day after tomorrow"),
        ("Hvordan blir været om 3 dager i Oslo?", "in 3 days"),
        ("og om fire dage?", "in 4 days"),
        ("God morgen! Hvordan er vejret i Roskilde?", None),  # a greeting
        # Polish
        ("Jaka będzie pogoda pojutrze w Krakowie?", "day after tomorrow"),
        ("Czy dziś pada w Gdańsku?", "today"),
        ("Jaka jest pogoda dzisiaj w Łodzi?", "today"),
        ("Czy jutro będzie padać w Poznaniu?", "tomorrow"),
        ("Jaka będzie pogoda w sobotę we Wrocławiu?", "saturday"),
        ("A w środę?", "wednesday"),
        ("Pogoda na poniedziałek w Lublinie", "monday"),
        ("Jaka będzie pogoda za trzy dni w Warszawie?", "in 3 days"),
        ("a za pięć dni?", "in 5 days"),
        # Their count words count only in their own phrase.
        ("in sex days in Leeds?", None),
        ("what to wear in Oslo in five days", "in 5 days"),
        ("time to fire up the grill, in 4 days in Perth", "in 4 days"),
    ],
)
def test_said_day_in_dutch_swedish_danish_norwegian_polish(request_: str, day: str | None) -> None:
    assert said_day(request_) == day


@pytest.mark.parametrize(
    ("request_", "day"),
    [
        # Czech
        ("Jaké bude zítra počasí v Brně?", "tomorrow"),
        ("Bude v Praze pozítří pršet?", "day after tomorrow"),
        ("Jaké je dnes počasí v Olomouci?", "today"),
        ("Jaké bude počasí v pátek v Ostravě?", "friday"),
        ("Bude ve středu sněžit v Liberci?", "wednesday"),
        ("A v neděli?", "sunday"),
        ("Předpověď na čtvrtek v Plzni", "thursday"),
        ("Jak bude v sobotu v Jihlavě?", "saturday"),
        ("Bude v úterý foukat v Českých Budějovicích?", "tuesday"),
        ("Počasí v pondělí v Ústí", "monday"),
        ("Jaké bude počasí za tři dny v Brně?", "in 3 days"),
        ("Jaké je počasí v Brně?", None),
        ("Bude dnes nebo zítra pršet v Brně?", None),  # two days
        # Slovak
        ("Aké bude počasie zajtra v Bratislave?", "tomorrow"),
        ("Bude pozajtra pršať v Košiciach?", "day after tomorrow"),
        ("Aké je dnes počasie v Prešove?", "today"),
        ("Aké bude počasie vo štvrtok v Žiline?", "thursday"),
        ("A v nedeľu?", "sunday"),
        ("Bude v piatok slnečno v Nitre?", "friday"),
        ("Počasie na pondelok v Trnave", "monday"),
        ("Aké počasie bude o 4 dni v Nitre?", "in 4 days"),
        # Finnish
        ("Millainen sää on huomenna Helsingissä?", "tomorrow"),
        ("Sataako Tampereella ylihuomenna?", "day after tomorrow"),
        ("Mikä on sää tänään Oulussa?", "today"),
        ("Millainen sää on perjantaina Turussa?", "friday"),
        ("Sääennuste sunnuntaiksi Espoossa", "sunday"),
        ("Sataako keskiviikkona Vaasassa?", "wednesday"),
        ("Entä kolmen päivän päästä Lahdessa?", "in 3 days"),
        ("Hyvää huomenta! Millainen sää on Helsingissä?", None),  # a greeting
        # Turkish, with and without its letters
        ("Yarın İstanbul'da hava nasıl olacak?", "tomorrow"),
        ("yarin Istanbul'da hava nasil olacak?", "tomorrow"),
        ("Ankara'da bugün yağmur yağacak mı?", "today"),
        ("Öbür gün İzmir'de hava nasıl?", "day after tomorrow"),
        ("Yarından sonra Bodrum'da hava nasıl?", "day after tomorrow"),
        ("Cumartesi Antalya'da hava nasıl?", "saturday"),
        ("Cuma günü Eskişehir'de kar yağacak mı?", "friday"),
        ("Pazartesi Kayseri'de hava nasıl?", "monday"),
        ("Salı Konya'da hava nasıl?", "tuesday"),
        ("Çarşamba Adana'da yağmur var mı?", "wednesday"),
        ("Pazar günü Bursa'da yağmur var mı?", "sunday"),
        ("Bu pazar Samsun'da hava nasıl?", "sunday"),
        ("3 gün sonra Trabzon'da hava nasıl?", "in 3 days"),
        ("Pazar yerinde hava nasıl, Rize?", None),  # a market, not Sunday
        ("Pazar'da hava nasıl?", None),  # a town in Rize
        # Russian, Ukrainian, Greek, Hungarian, Romanian
        ("Будет ли дождь в Казани в пятницу?", "friday"),
        ("Яка погода у Львові в неділю?", "sunday"),
        ("Θα βρέξει στη Θεσσαλονίκη την Κυριακή;", "sunday"),
        ("Milyen idő lesz Debrecenben pénteken?", "friday"),
        ("Cum va fi vremea la Cluj sâmbătă?", "saturday"),
        # Homographs stay no day: Italian "sali", the greetings, "Guten Morgen".
        ("Se sali in montagna, che tempo fa?", None),
        ("Che tempo fa domani a Sali?", "tomorrow"),
        ("Guten Morgen! Wie ist das Wetter in Berlin?", None),
    ],
)
def test_said_day_in_czech_slovak_finnish_turkish(request_: str, day: str | None) -> None:
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
    # Czech "zítra" came as today (blind prompts).
    assert reread({"location": "Brno", "day": "today"}, "Jaké bude zítra počasí v Brně?") == {
        "location": "Brno",
        "day": "tomorrow",
    }
    assert reread({"location": "Brno", "day": "tomorrow"}, "Jaké bude zítra počasí v Brně?") is None
    # A day the tool cannot read gives way to the request's.
    assert reread({"location": "Nice", "day": "le week-end"}, "Il fera beau dimanche ?") == {
        "location": "Nice",
        "day": "sunday",
    }


@pytest.mark.parametrize(
    "request_",
    [
        "and the day after that?",
        "n the day aftr?",
        "hmm and the following day, same town?",
        "what about the next day",
        "Und am Tag danach?",
        "et le lendemain ?",
        "¿y al día siguiente?",
        "e il giorno dopo?",
        "e no dia seguinte?",
        "en de dag erna?",
        "och dagen efter?",
        "a następnego dnia?",
        "その翌日は？",
    ],
)
def test_said_day_after_the_last_one(request_: str) -> None:
    assert said_day(request_) == NEXT_DAY


@pytest.mark.parametrize(
    ("request_", "day"),
    [
        ("and the day after tomorrow?", "day after tomorrow"),
        ("the day after tmrw in Leeds", "day after tomorrow"),  # "tmrw" typed in a hurry
        ("¿y el día después de mañana?", None),
        ("and the day before?", DAY_BEFORE),
        ("the day before yesterday", None),
        ("the day after friday", None),  # two days: the model's to write
    ],
)
def test_said_day_after_is_not_the_day_after_tomorrow(request_: str, day: str | None) -> None:
    assert said_day(request_) == day


def test_the_day_after_counts_from_the_last_forecast() -> None:
    """After the forecast for Thursday, "and the day after that?" came as ``day: "day
    after tomorrow"`` (blind prompts): it is Friday."""
    tool = weather_tool()  # today: Sunday 2025-06-01
    assert tool.reread is not None and tool.recall is not None
    asked = {"location": "Cardiff", "day": "day after tomorrow"}
    read = tool.reread(asked, "and the day after that?")
    assert read == {"location": "Cardiff", "day": NEXT_DAY}
    thursday = {"place": "Cardiff, UK", "date": "2025-06-05", "weekday": "Thursday"}
    earlier = [thursday, {"expression": "2 + 2", "result": 4}]
    assert tool.recall(read, earlier) == {"location": "Cardiff", "day": "2025-06-06"}
    before = tool.recall({"location": "Cardiff", "day": DAY_BEFORE}, earlier)
    assert before == {"location": "Cardiff", "day": "2025-06-04"}
    # "what about Dublin the same day?" after Friday's forecast came as today.
    same = tool.reread({"location": "Dublin", "day": "today"}, "what about Dublin the same day?")
    assert same == {"location": "Dublin", "day": SAME_DAY}
    assert tool.recall(same, earlier) == {"location": "Dublin", "day": "2025-06-05"}
    assert said_day("und am selben Tag in Wien?") == SAME_DAY
    assert said_day("et à Lyon le même jour ?") == SAME_DAY
    # The day the model wrote, when the request counts from nothing before.
    assert tool.recall({"location": "Cardiff", "day": "friday"}, earlier) is None
    # No forecast before: the day after today.
    assert tool.recall(read, [{"expression": "2 + 2", "result": 4}]) is None
    assert days_ahead(NEXT_DAY, dt.date(2025, 6, 1)) == 1
    # Already as the request says it: nothing to read again.
    assert tool.reread(read, "and the day after that?") is None
