"""When a request aims the servo (:mod:`edgeagent_servo.aimed`): a number for a request
that says no number, side, centre, way back or distance is a guess ("point the camera
at my cat" came as ``angle: 90`` in two blind sets)."""

from __future__ import annotations

import pytest
from edgeagent_servo.aimed import aimed

from edgeagent.agent.numerals import as_digits


@pytest.mark.parametrize(
    "request_",
    [
        "servo to ninety",  # spelled out: the agent writes it as digits first
        "look all the way to the left",
        "a bit more",
        "centre it",
        "undo that",
        "tilt it up a bit",
        "now the same on the other side",
        "Kannst du die Kamera etwas nach rechts drehen?",
        "把摄像头转到正中间",
        "カメラを左に向けて",
        "카메라를 왼쪽으로 돌려줘",
        "Поверни камеру влево",
        "Drej kameraet til højre",
        "kamerayı sola çevir",
    ],
)
def test_a_request_that_says_where_or_how_far_aims_the_servo(request_: str) -> None:
    assert aimed(as_digits(request_))


@pytest.mark.parametrize(
    "request_",
    [
        "point the camera at my cat",
        "move the servo to Japan",
        "Işığı turuncu yap.",  # the light, orange: came as angle 90
        "thanks! switch the radio on too",
        "rotate the camera to face the moon",
        "make the camera look up at the ceiling",  # a tilt: the servo pans (fresh62)
        "point it down at the floor",
    ],
)
def test_a_request_that_says_neither_aims_it_nowhere(request_: str) -> None:
    assert not aimed(as_digits(request_))
