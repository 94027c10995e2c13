"""Turns said from elsewhere than where the servo points (:mod:`edgeagent_servo.relative`):
from before a turn that went the wrong way, and toward the center."""

from __future__ import annotations

from typing import Any

import edgeagent_servo
import pytest
from edgeagent_servo.relative import side_as_said

from edgeagent.testing import load_plugin
from tests.plugins.rereads import undone


def _reread_after(moves: list[dict[str, Any]], arguments: dict[str, Any], request: str) -> Any:
    """What the loaded servo's reread makes of ``arguments`` for ``request`` after
    ``moves`` ran on its mock backend, and where the result then points it."""
    loaded = load_plugin(edgeagent_servo, name="servo", options={"backend": "mock"})
    try:
        for move in moves:
            assert loaded.call("servo", **move).ok
        hook = loaded.registry.get("servo").reread
        assert hook is not None
        meant = hook(arguments, request)
        outcome = loaded.call("servo", **(meant or arguments))
        assert outcome.ok
        return meant, outcome.result["angle"]
    finally:
        loaded.close()


@pytest.mark.parametrize(
    ("moves", "arguments", "request_", "angle"),
    [
        # At 40, "20 to the left" ran to 20; "20 to the right of where it was" is 60.
        (
            [{"angle": 40}, {"left": 20}],
            {"right": 20},
            "argh, wrong way, I meant right. 20 to the right of where it was",
            60,
        ),
        # At -45, 15 right ran to -30; "15 degrees left of where it was" is -60.
        (
            [{"angle": -45}, {"right": 15}],
            {"left": 15},
            "ugh, wrong way. I wanted it 15 degrees left of where it was",
            -60,
        ),
        ([{"angle": 0}, {"by": 30}], {"by": -30}, "falsche Richtung! 30 nach links", -30),
        ([{"angle": 10}, {"right": 25}], {"left": 25}, "no, I meant left", -15),
    ],
)
def test_a_wrong_way_turn_is_turned_from_where_the_servo_was(
    moves: list[dict[str, Any]], arguments: dict[str, Any], request_: str, angle: float
) -> None:
    assert _reread_after(moves, arguments, request_)[1] == angle


@pytest.mark.parametrize(
    ("moves", "arguments", "request_"),
    [
        # The other way with no wrong way said: a plain turn from here.
        ([{"angle": 30}, {"left": 15}], {"right": 40}, "now 40 the other way"),
        (
            [{"angle": 35}, {"by": -50}],
            {"by": 50},
            "now turn it back the same amount the other way",
        ),
        # The same way as the last turn: the model's to write.
        ([{"angle": 0}, {"left": 20}], {"left": 10}, "wrong way, sorry, 10 more left then"),
        # A position, not a turn.
        ([{"angle": 0}, {"left": 20}], {"angle": 20}, "wrong way, I meant 20 right of center"),
        # No move yet since edgeagent started.
        ([], {"right": 20}, "wrong way, I meant right"),
    ],
)
def test_other_turns_stay_as_written(
    moves: list[dict[str, Any]], arguments: dict[str, Any], request_: str
) -> None:
    assert _reread_after(moves, arguments, request_)[0] is None


@pytest.mark.parametrize(
    ("at", "arguments", "request_", "angle"),
    [
        (60, {"left_of_center": 30}, "turn the camera back 30 degrees toward the middle", 30),
        (-50, {"right_of_center": 20}, "move it 20 degrees towards the centre", -30),
        (40, {"angle": 10}, "10 Grad Richtung Mitte", 30),
        (-40, {"by": 15}, "15 degrees toward the center", -25),  # already so
    ],
)
def test_a_turn_toward_the_center_turns_toward_zero(
    at: float, arguments: dict[str, Any], request_: str, angle: float
) -> None:
    assert _reread_after([{"angle": at}], arguments, request_)[1] == angle


@pytest.mark.parametrize(
    ("at", "arguments", "request_"),
    [
        (60, {"angle": 30}, "halfway toward the middle"),  # no number: said.halfway_as_said
        (60, {"left": 30}, "30 degrees to the left, toward the middle"),  # a side: as written
        (0, {"left": 30}, "30 toward the centre"),  # at the center: no way toward it
        (60, {"angle": 0}, "back to the middle"),  # no number: the center
    ],
)
def test_toward_the_center_without_one_amount_stays_as_read(
    at: float, arguments: dict[str, Any], request_: str
) -> None:
    meant, _ = _reread_after([{"angle": at}], arguments, request_)
    assert meant is None or "by" not in meant


@pytest.mark.parametrize(
    ("request_", "undoes"),
    [
        ("actually no, go back to where it was", True),
        ("undo that", True),
        ("put it back in its previous position", True),
        ("back 20 to the left", False),  # a turn
        ("turn it back on", False),
    ],
)
def test_the_servo_reads_an_undo(request_: str, undoes: bool) -> None:
    assert undone(edgeagent_servo, "servo", request_) is undoes


def test_an_undo_read_from_no_arguments_goes_back() -> None:
    # What the agent moves here when the model gave the undo to another device.
    meant, angle = _reread_after([{"angle": 40}, {"left": 20}], {}, "hmm no, undo that")
    assert meant == {"back": True}
    assert angle == 40


@pytest.mark.parametrize(
    ("arguments", "request_", "angle"),
    [
        # "Vrid kameran 30 grader åt vänster" (Swedish, 30 left) came as right: 30.
        ({"right": 25}, "Vrid kameran 25 grader åt vänster", -25),
        ({"right": 15}, "Käännä kameraa 15 astetta vasemmalle", -15),  # Finnish
        ({"left": 20}, "Kamerayı 20 derece sağa çevir", 20),  # Turkish
        ({"by": -10}, "Otoč kameru o 10 stupňů doprava", 10),  # Czech
        ({"left": 35}, "Στρίψε την κάμερα 35 μοίρες δεξιά", 35),  # Greek
    ],
)
def test_a_turn_goes_to_the_one_side_the_request_names(
    arguments: dict[str, Any], request_: str, angle: float
) -> None:
    meant, reached = _reread_after([], arguments, request_)
    assert meant is not None and reached == angle


@pytest.mark.parametrize(
    ("arguments", "request_"),
    [
        ({"left": 10}, "it's 10 degrees too far right, fix it"),  # an overshoot
        ({"right": 20}, "argh, wrong way, I meant right"),  # a correction, read apart
        ({"left": 30}, "turn left 30, no, right 30"),  # both sides
        ({"right": 15}, "15 degrees, please"),  # no side
        ({"right": 20}, "20 degrees left of center"),  # a position
    ],
)
def test_a_turn_the_request_does_not_name_one_side_of_stays(
    arguments: dict[str, Any], request_: str
) -> None:
    assert side_as_said(arguments, request_) is None


@pytest.mark.parametrize(
    ("moves", "arguments", "request_", "angle"),
    [
        # At 35, "now 15 back towards the left" came as left_of_center: -15, which the
        # servo refuses (fresh50): a turn back toward that side.
        ([{"angle": 35}], {"left_of_center": -15}, "now 15 back towards the left", 20),
        ([{"angle": -35}], {"right_of_center": -15}, "go 15 back to the right", -20),
        # "point the camera straight ahead again" came as center: true, the right call,
        # and ran as the last turn again (fresh49).
        (
            [{"angle": 70}, {"left": 15}],
            {"center": True},
            "point the camera straight ahead again",
            0,
        ),
        ([{"angle": 70}, {"left": 15}], {"by": -15}, "straight ahead again please", 0),
        ([{"angle": 70}, {"left": 15}], {"angle": 30}, "Kamera wieder geradeaus", 0),
        ([{"angle": 35}], {"angle": 90}, "Zet de camera recht naar voren", 0),  # fresh69
        ([{"angle": 35}], {"angle": 90}, "Richte die Kamera nach vorne", 0),
        ([{"angle": -20}], {"left": 20}, "pon la cámara hacia adelante", 0),
    ],
)
def test_back_toward_a_side_and_straight_ahead_are_read_as_said(
    moves: list[dict[str, Any]], arguments: dict[str, Any], request_: str, angle: float
) -> None:
    assert _reread_after(moves, arguments, request_)[1] == angle


def test_a_signed_position_back_toward_the_other_side_is_not_guessed() -> None:
    # The request's side is not the position's: the servo's refusal says why.
    loaded = load_plugin(edgeagent_servo, name="servo", options={"backend": "mock"})
    try:
        hook = loaded.registry.get("servo").reread
        assert hook is not None
        assert hook({"left_of_center": -15}, "now 15 back towards the right") is None
    finally:
        loaded.close()
