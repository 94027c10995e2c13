"""The LED reread: a level named as a part of the strip's own ("a quarter of what they
are now", "70% of its current brightness"), and a request to undo the strip's last
change ("put the light back how it was"), read from the state it had before."""

from __future__ import annotations

from typing import Any

import edgeagent_led
import pytest
from edgeagent_led.backends.mock import MockLed
from edgeagent_led.controller import LedController
from edgeagent_led.strip import LedState

from edgeagent.plugin import ToolArgumentError
from edgeagent.testing import LoadedPlugin, load_plugin
from tests.plugins.rereads import undone


def reread_after(calls: list[dict[str, Any]], arguments: dict[str, Any], request: str) -> Any:
    """The ``led`` reread of ``arguments`` for ``request`` after the ``led`` ``calls``
    on the mock strip."""
    loaded = load_plugin(edgeagent_led, name="led", options={"backend": "mock"})
    try:
        for call in calls:
            assert loaded.call("led", **call).ok
        hook = loaded.registry.get("led").reread
        assert hook is not None
        return hook(arguments, request)
    finally:
        loaded.close()


AT_80: list[dict[str, Any]] = [{"color": "green", "brightness": 80}]


@pytest.mark.parametrize(
    ("arguments", "request_", "read"),
    [
        # The strip at 80 %: a part of its level, the model's number its own (blind prompts).
        ({"brightness": 50}, "and dim the lights to a quarter of what they are now", 20),
        ({"brightness": 70}, "set the light to 70% of its current brightness", 56),
        ({"brightness": 75}, "3 quarters of the current level please", 60),
        ({"brightness": 66}, "bring it down to 2 thirds of what it's at now", 53),
        ({"brightness": 50}, "lamp at 50 percent of current brightness", 40),
        ({"brightness": 25}, "too bright, cut it to a quarter of that", 20),
        ({"brightness": 50}, "1/4 of now", 20),
        ({"brightness": 50}, "reduce it by a quarter", 60),
        ({"brightness": 79}, "reduce it by 1 third", 53),  # not "by 1"
        ({"brightness": 90}, "increase the brightness by a half", 100),  # capped
        ({"brightness": 50}, "150% of its current brightness", 100),  # capped
        ({"brightness": 10}, "5% of the current brightness", 4),
        ({"brightness": 5}, "1 percent of the current brightness", 1),  # floored: dim, not off
        # German, French, Spanish, Italian, Portuguese
        ({"brightness": 25}, "Licht auf ein Viertel der aktuellen Helligkeit", 20),
        ({"brightness": 70}, "Stell die Lampe auf 70 % der aktuellen Helligkeit", 56),
        ({"brightness": 50}, "die Hälfte der jetzigen Helligkeit, bitte", 40),
        ({"brightness": 25}, "mets la lumière à un quart de la luminosité actuelle", 20),
        ({"brightness": 66}, "deux tiers du niveau actuel", 53),
        ({"brightness": 25}, "pon la luz a la cuarta parte del brillo actual", 20),
        ({"brightness": 70}, "baja la luz al 70 % del brillo actual", 56),
        ({"brightness": 25}, "metti la luce a un quarto della luminosità attuale", 20),
        ({"brightness": 70}, "il 70 per cento della luminosità attuale", 56),
        ({"brightness": 25}, "coloca a luz em um quarto do brilho atual", 20),
        # A level of its own, a part of something else, two changes, or already so.
        ({"brightness": 70}, "set the lights to 70% brightness", None),
        ({"brightness": 70}, "lamp to 70%", None),
        ({"brightness": 70}, "reduce it to 70%", None),
        ({"brightness": 30}, "set it to 20% of 150", None),
        ({"brightness": 25}, "dim it to a quarter", None),
        ({"brightness": 33}, "reduce the brightness to a third", None),
        # at 60, meant as 25 and read as 15 when "to a quarter" was a part (fresh46)
        ({"brightness": 25}, "actually bring the brightness down to a quarter", None),
        ({"brightness": 25}, "cut it to a quarter of the maximum", None),
        ({"brightness": 70}, "70 % der maximalen Helligkeit", None),
        ({"brightness": 50}, "a quarter of its current brightness, no, add 10", None),
        ({"brightness": 20}, "a quarter of what it is now", None),
        ({"color": "red"}, "red, at a quarter of the current brightness", None),
        # a part of an earlier result named back (128 / 4 after 1024 / 8; fresh74)
        ({"brightness": 32}, "set the strip brightness to a quarter of that number", None),
        ({"brightness": 30}, "use a third of that result as the brightness", None),
    ],
)
def test_a_part_of_the_strips_level_is_computed_from_it(
    arguments: dict[str, Any], request_: str, read: int | None
) -> None:
    again = reread_after(AT_80, arguments, request_)
    assert (again and again["brightness"]) == read


def test_the_controller_remembers_the_state_before_its_last_change() -> None:
    controller = LedController(backend=MockLed(count=4), count=4)
    assert controller.before() is None
    controller.led(color="green", brightness=90)
    assert controller.before() == LedState.dark(4)
    controller.led(brightness=20)
    green_at_90 = LedState(on=True, brightness=90, pixels=("#008000",) * 4)
    assert controller.before() == green_at_90
    controller.led(brightness=20)  # no change: the one before stays
    with pytest.raises(ToolArgumentError):
        controller.led(color="red", first=2, last=9)
    assert controller.before() == green_at_90


GREEN_90_THEN_20: list[dict[str, Any]] = [{"color": "green", "brightness": 90}, {"brightness": 20}]
GREEN_AT_90 = {"on": True, "color": "green", "brightness": 90}


@pytest.mark.parametrize(
    "request_",
    [
        "actually, undo that last change to the light, put it back how it was",
        "ok they're stuck again, put the light back to how it was",
        "hmm no, revert that",
        "go back to the previous colour please",
        "hm, actually go back to the colour it was before",  # fresh31
        "I liked it the way it was before",
        "can you change it back",
        "put the lamp back the way it was, the green was fine",
        "mach das rückgängig",
        "Licht bitte wieder wie vorher",
        "remets la lumière comme avant",
        "annule ça",
        "déjala como estaba",
        "deshazlo por favor",
        "rimetti la luce com'era",
        "annulla l'ultima modifica",
        "deixa a luz como estava",
        "go back to the previous one",
        "nah, use the old one",
    ],
)
def test_a_request_to_undo_is_the_state_before_the_last_change(request_: str) -> None:
    model = {"on": True, "color": "green"}
    assert reread_after(GREEN_90_THEN_20, model, request_) == GREEN_AT_90
    # what the checks read from the request alone (a call with no arguments)
    assert reread_after(GREEN_90_THEN_20, {}, request_) == GREEN_AT_90


@pytest.mark.parametrize(
    ("arguments", "request_", "read"),
    [
        ({"on": True}, "turn the light back on", None),
        ({"on": True}, "turn it back on please", None),
        ({"brightness": 50}, "put it back to 50", None),
        ({"color": "blue"}, "undo that and make it blue", None),
        ({"on": False}, "deshabilita la luz", None),
        ({"brightness": 40}, "make it brighter than before", None),
    ],
)
def test_a_request_that_does_not_ask_to_undo_is_left_alone(
    arguments: dict[str, Any], request_: str, read: Any
) -> None:
    assert reread_after(GREEN_90_THEN_20, arguments, request_) == read


def restored(loaded: LoadedPlugin, request: str) -> dict[str, Any]:
    """The strip's state after the ``led`` call the reread makes of ``request``."""
    hook = loaded.registry.get("led").reread
    assert hook is not None
    again = hook({"on": True, "color": "green"}, request)
    assert again is not None and loaded.call("led", **again).ok
    result: dict[str, Any] = loaded.call("led_state").result
    return result


def test_an_undo_runs_through_the_plugin_and_a_second_undoes_it() -> None:
    loaded = load_plugin(edgeagent_led, name="led", options={"backend": "mock"})
    try:
        hook = loaded.registry.get("led").reread
        assert hook is not None
        assert hook({"on": True, "color": "green"}, "undo that") is None  # nothing yet
        loaded.call("led", color="green", brightness=90)
        loaded.call("led", brightness=20)
        back = {"on": True, "brightness": 90, "color": "green"}
        assert restored(loaded, "put it back how it was") == back
        again = {"on": True, "brightness": 20, "color": "green"}
        assert restored(loaded, "undo") == again
    finally:
        loaded.close()


def test_an_undo_switches_back_on_or_off_as_it_was() -> None:
    off: list[dict[str, Any]] = [{"color": "green", "brightness": 90}, {"on": False}]
    assert reread_after(off, {"on": True}, "undo that") == GREEN_AT_90
    on_again = [*off, {"color": "red"}]
    assert reread_after(on_again, {}, "undo that") == {
        "on": False,
        "color": "green",
        "brightness": 90,
    }
    # before the first change: dark
    assert reread_after([{"color": "red"}], {}, "undo") == {"on": False, "brightness": 100}


def test_an_undo_to_pixels_of_several_colours_is_left_to_the_model() -> None:
    mixed: list[dict[str, Any]] = [{"color": "red", "first": 0, "last": 1}, {"color": "blue"}]
    assert reread_after(mixed, {"color": "red"}, "undo that") is None


@pytest.mark.parametrize(
    ("request_", "undoes"),
    [
        ("hmm no, undo that", True),
        ("put the light back how it was", True),
        ("wie vorher bitte", True),
        ("turn it back on", False),
        ("make it blue", False),
        ("haha yeah the old one broke last week", False),  # fresh74: a thing, no undo
        ("the previous one was from ikea", False),
    ],
)
def test_the_strip_reads_an_undo(request_: str, undoes: bool) -> None:
    assert undone(edgeagent_led, "led", request_) is undoes
