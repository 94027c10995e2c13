"""The servo's rereads in other languages: a position said from center ("45 graden rechts
van het midden" came as the turn ``right: 45`` on a blind prompt), "to N" as a position
and "further" as a turn, in Dutch, German, French, Spanish, Italian, Portuguese, Polish
and Swedish."""

from __future__ import annotations

from typing import Any

import edgeagent_servo
import pytest

from edgeagent.testing import load_plugin
from tests.plugins.rereads import reread


@pytest.mark.parametrize(
    ("arguments", "request_", "read"),
    [
        # Dutch
        (
            {"right": 45},
            "Zet de camera op precies 45 graden rechts van het midden.",
            {"right_of_center": 45.0},
        ),
        (
            {"left": 30},
            "Draai de camera naar 30 graden links van het centrum",
            {"left_of_center": 30.0},
        ),
        ({"angle": 20}, "zet hem 20 graden links vanaf het midden", {"left_of_center": 20.0}),
        ({"right": 15}, "camera 15° rechts ten opzichte van het midden", {"right_of_center": 15.0}),
        # German
        ({"right": 20}, "Stell die Kamera auf 20 Grad rechts der Mitte", {"right_of_center": 20.0}),
        ({"left": 35}, "Kamera 35 Grad links von der Mitte aus, bitte", {"left_of_center": 35.0}),
        ({"right": 25}, "Kamera 25 Grad von der Mitte nach rechts", {"right_of_center": 25.0}),
        ({"left": 10}, "dreh sie auf 10 Grad links relativ zur Mitte", {"left_of_center": 10.0}),
        # French
        ({"left": 40}, "Mets la caméra à 40 degrés à gauche du centre", {"left_of_center": 40.0}),
        ({"right": 15}, "place la caméra à 15° à droite du milieu", {"right_of_center": 15.0}),
        (
            {"right": 30},
            "oriente la caméra 30 degrés à droite par rapport au centre",
            {"right_of_center": 30.0},
        ),
        # Spanish
        (
            {"left": 50},
            "pon la cámara a 50 grados a la izquierda del centro",
            {"left_of_center": 50.0},
        ),
        (
            {"right": 30},
            "gira la cámara 30 grados desde el centro hacia la derecha",
            {"right_of_center": 30.0},
        ),
        # Italian
        (
            {"right": 30},
            "metti la telecamera a 30 gradi a destra del centro",
            {"right_of_center": 30.0},
        ),
        (
            {"left": 20},
            "porta la camera a 20 gradi a sinistra rispetto al centro",
            {"left_of_center": 20.0},
        ),
        # Portuguese
        (
            {"right": 35},
            "coloca a câmera a 35 graus à direita do centro",
            {"right_of_center": 35.0},
        ),
        ({"left": 25}, "põe a câmara 25 graus à esquerda do meio", {"left_of_center": 25.0}),
        # Polish
        ({"right": 40}, "Ustaw kamerę 40 stopni w prawo od środka", {"right_of_center": 40.0}),
        ({"left": 20}, "ustaw kamerę na 20 stopni na lewo od srodka", {"left_of_center": 20.0}),
        # Swedish
        ({"right": 30}, "Ställ kameran på 30 grader höger om mitten", {"right_of_center": 30.0}),
        (
            {"left": 30},
            "vrid kameran till 30 grader till vänster från mitten",
            {"left_of_center": 30.0},
        ),
        # Already that position, a sign, onward from a position, two positions, no number.
        ({"angle": -45}, "zet de camera op 45 graden links van het midden", None),
        ({"left_of_center": 45}, "45 Grad links von der Mitte", None),
        ({"angle": -45}, "zet hem op -45, dat is links van het midden", None),
        ({"right": 10}, "nog 10 graden naar rechts, hij staat nu 30 rechts van het midden", None),
        ({"left": 10}, "noch 10 Grad nach links, sie ist jetzt 30 links der Mitte", None),
        ({"left": 30}, "30 graden links van het midden of 30 rechts van het midden", None),
        ({"left": 20}, "etwas links der Mitte bitte", None),
        ({"left": 20}, "troszkę w lewo od środka", None),
        # A turn, with no center: the model's (or the size it names).
        ({"right": 30}, "draai de camera 30 graden naar rechts", None),
        ({"left": 40}, "obróć kamerę o 40 stopni w lewo", None),
        ({"right": 30}, "vrid kameran 30 grader åt höger", None),
        ({"right": 20}, "Kamera 20 Grad nach rechts", None),
    ],
)
def test_a_position_from_center_in_other_languages(
    arguments: dict[str, Any], request_: str, read: dict[str, Any] | None
) -> None:
    assert reread(edgeagent_servo, "servo", arguments, request_) == read


@pytest.mark.parametrize(
    ("arguments", "request_", "read"),
    [
        # "to N" with a side: a position on that side.
        ({"right": 30}, "zet de camera op 40 graden rechts", {"right_of_center": 40.0}),
        ({"left": 40}, "draai de camera naar 40 graden links", {"left_of_center": 40.0}),
        ({"left": 10}, "ustaw kamerę na 40 stopni w lewo", {"left_of_center": 40.0}),
        ({"right": 10}, "ställ kameran på 40 grader höger", {"right_of_center": 40.0}),
        ({"left": 25}, "vrid kameran till 25 grader vänster", {"left_of_center": 25.0}),
        ({"right": 10}, "lleva la cámara hasta 40 grados a la derecha", {"right_of_center": 40.0}),
        ({"left": 15}, "porta la telecamera fino a 30 gradi a sinistra", {"left_of_center": 30.0}),
        ({"right": 20}, "gira a câmera até 20 graus à direita", {"right_of_center": 20.0}),
        ({"right": 45}, "Kamera bis 45 Grad nach rechts", {"right_of_center": 45.0}),
        # A turn: no "to N", or onward.
        ({"right": 40}, "draai de camera 40 graden naar rechts", None),
        ({"right": 10}, "draai de camera 40 graden naar rechts", {"right": 40.0}),  # its size
        ({"left": 40}, "obróć kamerę o 40 stopni w lewo", None),
        ({"right": 30}, "nog 30 graden naar rechts, op 40 graden", None),
        # "further" and its kin: a turn, where the model wrote a position.
        (
            {"right_of_center": 25},
            "draai de camera nog 25 graden verder naar rechts",
            {"right": 25},
        ),
        ({"left_of_center": 15}, "nog 15 graden naar links", {"left": 15}),
        ({"left_of_center": 15}, "jeszcze 15 stopni w lewo", {"left": 15}),
        ({"right_of_center": 10}, "obróć dalej o 10 stopni w prawo", {"right": 10}),
        ({"right_of_center": 15}, "vrid ytterligare 15 grader åt höger", {"right": 15}),
        ({"left_of_center": 15}, "weitere 15 Grad nach links", {"left": 15}),
        ({"right_of_center": 15}, "altri 15 gradi a destra", {"right": 15}),
        ({"left_of_center": 15}, "15 graden naar links", None),  # not onward
        # The center named, and no number or side: 0.
        ({"angle": 30}, "zet de camera terug in het midden", {"angle": 0}),
        ({"left": 30}, "ustaw kamerę na środek", {"angle": 0}),
        ({"right": 10}, "vrid kameran tillbaka till mitten", {"angle": 0}),
        ({"center": True}, "zet hem in het centrum", None),
    ],
)
def test_to_n_further_and_the_center_in_other_languages(
    arguments: dict[str, Any], request_: str, read: dict[str, Any] | None
) -> None:
    assert reread(edgeagent_servo, "servo", arguments, request_) == read


def test_the_dutch_position_from_center_points_there_from_where_it_was() -> None:
    loaded = load_plugin(edgeagent_servo, name="servo", options={"backend": "mock"})
    try:
        hook = loaded.registry.get("servo").reread
        assert hook is not None
        assert loaded.call("servo", angle=-10).ok
        request = "Zet de camera op precies 45 graden rechts van het midden."
        read = hook({"right": 45}, request)
        assert read == {"right_of_center": 45.0}
        assert loaded.call("servo", **read).result == {"angle": 45}
    finally:
        loaded.close()
