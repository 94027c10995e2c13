"""A brightness nobody said (:mod:`edgeagent_led.unsaid`): the strip keeps its level
when switched on or recoloured, unless the request gives ground for one."""

from __future__ import annotations

from typing import Any

import edgeagent_led
import pytest

from edgeagent.agent.numerals import as_digits
from edgeagent.testing import load_plugin


def _after(start: dict[str, Any], arguments: dict[str, Any], request: str) -> dict[str, Any]:
    """The strip's state after the ``led`` call ``arguments`` for ``request`` ran
    through the tool's reread, the strip set to ``start`` first."""
    loaded = load_plugin(edgeagent_led, name="led", options={"backend": "mock"})
    try:
        assert loaded.call("led", **start).ok
        hook = loaded.registry.get("led").reread
        assert hook is not None
        outcome = loaded.call("led", **(hook(arguments, as_digits(request)) or arguments))
        assert outcome.ok
        result: dict[str, Any] = outcome.result
        return result
    finally:
        loaded.close()


TEAL_OFF = {"color": "teal", "brightness": 60, "on": False}
WHITE_50 = {"color": "white", "brightness": 50}


@pytest.mark.parametrize(
    ("start", "arguments", "request_"),
    [
        # Blind prompts: each came with brightness 100.
        (TEAL_OFF, {"on": True, "color": "teal", "brightness": 100},
         "actually turn them back on, I need to find my keys"),
        (WHITE_50, {"color": "coral", "brightness": 100}, "morning! lights to coral please"),
        (WHITE_50, {"color": "gold", "brightness": 100}, "brr. make the light warmer, gold maybe"),
        (WHITE_50, {"color": "turquoise", "brightness": 100}, "lights. turquoise. now."),
        (WHITE_50, {"color": "violet", "brightness": 100},
         "Liga a fita de LED em violeta, por favor"),
    ],
)  # fmt: skip
def test_a_level_nobody_said_leaves_the_strip_at_its_own(
    start: dict[str, Any], arguments: dict[str, Any], request_: str
) -> None:
    after = _after(start, arguments, request_)
    assert after["on"] is True
    assert after["brightness"] == start["brightness"]


@pytest.mark.parametrize(
    ("arguments", "request_", "level"),
    [
        ({"color": "red", "brightness": 40}, "red at 40 please", 40),
        ({"color": "red", "brightness": 30}, "red, thirty percent", 30),
        ({"color": "blue", "brightness": 100}, "full blue", 100),
        ({"color": "orange", "brightness": 20}, "make it a dim orange", 20),
        ({"color": "purple", "brightness": 10}, "purple night light for the baby", 10),
        ({"color": "red", "brightness": 100}, "rot, volle Helligkeit", 100),
        ({"color": "blue", "brightness": 30}, "bleu, luminosité faible", 30),
        ({"color": "white", "brightness": 100}, "bright white please", 100),
        ({"color": "red", "brightness": 100}, "mets la lumière en rouge, à fond stp", 100),
        ({"color": "green", "brightness": 100}, "luz verde a tope", 100),
        ({"color": "red", "brightness": 100}, "明るさを最大にして、赤で", 100),  # unread script
        ({"brightness": 70}, "make the lights louder", 70),  # the level is the only change
    ],
)
def test_a_level_the_request_grounds_stays(
    arguments: dict[str, Any], request_: str, level: int
) -> None:
    assert _after(WHITE_50, arguments, request_)["brightness"] == level
