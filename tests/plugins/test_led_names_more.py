"""The strip's names and colours in Turkish, Greek, Czech, Hungarian, Finnish, Romanian,
Danish and Ukrainian (:mod:`edgeagent_led.names`, :mod:`edgeagent_led.strip`): a
Turkish request to make the light red came as ``color: "red"`` and was refused as a
guess, since the strip knew neither its name nor its colour (fresh42)."""

from __future__ import annotations

import pytest
from edgeagent_led.names import names_the_strip
from edgeagent_led.strip import foreign_colors, slipped_colors

from edgeagent.plugin import fold
from tests.agent.scripted_agent import run_turn
from tests.agent.test_honesty import fence, final
from tests.plugins.test_led_names_cjk import led_agent


@pytest.mark.parametrize(
    ("request_", "named", "colors"),
    [
        ("Işıkları mavi yap lütfen", True, {"blue"}),
        ("Lambayı yeşile çevir", True, {"green"}),
        ("isiklari kirmizi yap", True, {"red"}),  # typed without Turkish letters
        ("Άναψε το φως κόκκινο", True, {"red"}),
        ("Rozsviť světlo modře", True, {"blue"}),
        ("Kapcsold a lámpát zöldre", True, {"green"}),
        ("Laita valot keltaiseksi", True, {"yellow"}),
        ("Laita valot violetiksi", True, {"violet"}),  # fresh64: the cognate, not purple
        ("Fă lumina albastră", True, {"blue"}),
        ("Sæt lyset til rødt", True, {"red"}),
        ("Зроби світло зеленим", True, {"green"}),
        # no colour, no strip
        ("bugün hava nasıl?", False, set()),
        ("fewer people play the flute now", False, set()),
    ],
)
def test_a_request_names_the_strip_and_its_colours_in_more_languages(
    request_: str, named: bool, colors: set[str]
) -> None:
    assert names_the_strip(request_) is named
    assert foreign_colors(request_) == colors
    assert slipped_colors(fold(request_)) <= colors


@pytest.mark.parametrize(
    ("request_", "colors"),
    [
        ("Đổi đèn sang màu đỏ, độ sáng thấp nhất nhé.", {"red"}),  # fresh61
        ("Bật đèn màu xanh lá cây", {"green"}),
        ("đèn màu tím nhé", {"purple"}),
        ("point the cam left", set()),  # "cam" only after "màu"
        ("Tim says the trans flag is pretty", set()),
    ],
)
def test_vietnamese_colours(request_: str, colors: set[str]) -> None:
    assert foreign_colors(request_) == colors
    assert slipped_colors(fold(request_)) <= colors


def test_a_turkish_colour_request_runs_without_a_side_question() -> None:
    agent, engine, strip = led_agent([(r".", fence("led", color="blue"))], side="no")
    final(run_turn(agent, "Lambayı maviye çevir"))
    assert strip.commands == ["blue"]
    assert not any(r.aside for r in engine.requests)
