"""The strip's names and colours in Russian (:mod:`edgeagent_led.names`,
:mod:`edgeagent_led.strip`): "Сделай свет жёлтым" came as ``color: "yellow"`` and was
refused as a guess, since the strip knew neither "свет" nor "жёлтым" (fresh30)."""

from __future__ import annotations

import pytest
from edgeagent_led.names import names_the_strip
from edgeagent_led.strip import foreign_colors

from tests.agent.scripted_agent import run_turn
from tests.agent.test_honesty import fence, final
from tests.plugins.test_led_names_cjk import led_agent


@pytest.mark.parametrize(
    ("request_", "named", "colors"),
    [
        ("Сделай свет жёлтым", True, {"yellow"}),
        ("Включи красный свет", True, {"red"}),
        ("Поставь голубой цвет на лампе", True, {"lightblue"}),
        ("сделай ленту серой", True, {"gray"}),
        ("Подсветку синюю, пожалуйста", True, {"blue"}),
        ("Выключи свет", True, set()),
        # no colour: a stem alone, or inside another word
        ("белка прекрасная", False, set()),
        ("посмотри три серии", False, set()),
        ("какая погода завтра?", False, set()),
    ],
)
def test_a_request_names_the_strip_and_its_colours_in_russian(
    request_: str, named: bool, colors: set[str]
) -> None:
    assert names_the_strip(request_) is named
    assert foreign_colors(request_) == colors


def test_the_measured_request_runs_without_a_side_question() -> None:
    agent, engine, strip = led_agent([(r".", fence("led", color="yellow"))], side="no")
    final(run_turn(agent, "Сделай свет жёлтым"))
    assert strip.commands == ["yellow"]
    assert not any(r.aside for r in engine.requests)
