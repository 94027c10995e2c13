"""End to end on the default local model: one conversation, several turns, judged by the
devices.

``edgeagent ask --session`` against a running ``edgeagent run`` (Qwen2.5-Coder-1.5B on
llama.cpp, shipped ``.tool`` wrappers) with ``edgeagent sim``. Each turn must change the
simulator as asked, or leave it alone, and each answer must say what the devices show:
the promise that later turns of a conversation work like the first, and that an answer
never claims what did not happen.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from edgeagent.agent.honesty import claims_change
from tests.e2e.stack import Stack

TURN_TIMEOUT_S = 240.0
GREEN, BLUE = "#008000", "#0000ff"

pytestmark = [pytest.mark.model, pytest.mark.timeout(900)]


def ask(stack: Stack, session: str, prompt: str) -> dict[str, Any]:
    final: dict[str, Any] = stack.ask("--session", session, prompt, timeout_s=TURN_TIMEOUT_S)[-1]
    return final


def strip_color(stack: Stack) -> set[str]:
    led = stack.led()
    assert led["on"] is True, f"the simulated strip is off: {led}"
    return set(led["pixels"])


def test_a_conversation_changes_the_devices_turn_by_turn(stack: Stack) -> None:
    stack.set_led(on=True, color="white", brightness=80)
    stack.set_servo(angle=10)
    session = f"e2e-{uuid.uuid4().hex[:8]}"

    first = ask(stack, session, "please make the LED strip green")
    assert strip_color(stack) == {GREEN}, first
    assert stack.servo()["angle"] == 10
    assert "green" in first["text"].lower(), first

    second = ask(stack, session, "now turn the camera 20 degrees to the left")
    assert stack.servo()["angle"] == pytest.approx(-10, abs=1), second
    assert strip_color(stack) == {GREEN}
    assert "-10" in second["text"], second

    third = ask(stack, session, "who wrote Romeo and Juliet?")
    assert strip_color(stack) == {GREEN} and stack.servo()["angle"] == pytest.approx(-10, abs=1)
    log = stack.daemon.output()[-3000:]
    assert not [c for c in third["tool_calls"] if c.get("ok")], f"{third}\n{log}"
    assert not claims_change(third["text"]), third

    fourth = ask(stack, session, "and switch the lights to blue")
    assert strip_color(stack) == {BLUE}, fourth
    assert stack.servo()["angle"] == pytest.approx(-10, abs=1)
    assert "blue" in fourth["text"].lower(), fourth
