"""Devices a request names that no tool here drives (edgeagent.agent.absent)."""

from __future__ import annotations

import dataclasses

import pytest

from edgeagent.agent.absent import absent_for, names_absent, names_own
from edgeagent.tools import make_tool
from edgeagent.tools.tool import ToolKind

INSTALLED = ["the LED strip (lights, lamp, colors, brightness)", "the camera servo"]


@pytest.mark.parametrize(
    ("request_", "device"),
    [
        ("fan on high please", "fan"),
        ("Tu peux aussi fermer les volets ?", "volets"),
        ("Kannst du die Rollläden runterlassen?", "rollladen"),
        ("enciende el ventilador, por favor", "ventilador"),
        ("put the coffee machine on", "coffee machine"),
        ("also the garage door is stuck halfway, close it would you", "garage"),
        # more of the house in more languages: each asked for in blind prompts
        ("Kannst du den Luftbefeuchter anschalten?", "luftbefeuchter"),
        ("Otwórz okno w salonie", "okno"),
        ("Desliga a televisão da sala", "televisao"),
        ("Kun je de gordijnen dichtdoen?", "gordijnen"),
        ("obrigado! liga o ar condicionado da sala", "ar condicionado"),
        ("Sæt højttaler på", "højttaler"),
        ("Włącz czajnik", "czajnik"),
        ("エアコンをつけて。", "エアコン"),
        ("把空调打开", "空调"),
        ("선풍기 좀 켜줘", "선풍기"),
        ("온도조절기를 22도로 맞춰줘", "온도조절기"),  # a thermostat: ran the servo (fresh78)
        ("暖房をつけて", "暖房"),
        ("把温控器调到22度", "温控器"),
        # a camera's zoom: the servo only turns it ("now zoom in 2x" ran the servo)
        ("now zoom in 2x", "zoom"),
        ("kannst du reinzoomen? nein: zoomen bitte", "zoomen"),
        ("ズームして", "ズーム"),
    ],
)
def test_a_household_device_no_tool_drives_is_named(request_: str, device: str) -> None:
    assert names_absent(request_, installed=INSTALLED) == device


@pytest.mark.parametrize(
    "request_",
    [
        "make the lights blue",
        "I'm a bit blind in here, brighter please",  # no device: "blind" is not "blinds"
        "turn the lights to four",  # French "four" (oven) is not on the list
        "what's the weather tomorrow?",
        "porta la luce al 50%",  # Italian "porta" (bring), not the door: not listed
        "把灯调成蓝色",
        "部门的灯",  # 门 (a door) alone is never read: here it is in 部门, a department
    ],
)
def test_a_request_without_such_a_device_names_none(request_: str) -> None:
    assert names_absent(request_, installed=INSTALLED) is None


def test_a_device_an_installed_tool_drives_is_not_absent() -> None:
    fan = [*INSTALLED, "the ceiling fan"]
    assert names_absent("fan on high please", installed=fan) is None


@pytest.mark.parametrize(
    ("request_", "named"),
    [
        ("Dreh die Kamera ganz nach links, zum Ofen hin.", True),
        ("point the cam at the door", True),  # cut short
        ("camera to the door", False),  # the word itself: names_device reads it
        ("turn on the fan", False),  # "turn" is no slip of "turns": too short
        ("Kannst du die Heizung höher drehen?", False),
    ],
)
def test_names_own_reads_a_title_word_written_one_letter_off(request_: str, named: bool) -> None:
    assert names_own(request_, "the servo that turns the camera (angles, left, right)") is named


def _servo(angle: int) -> dict[str, int]:
    """Turn the camera."""
    return {"angle": angle}


def _servo_state() -> dict[str, int]:
    """Where the camera points."""
    return {"angle": 0}


@pytest.mark.parametrize(
    ("request_", "device"),
    [
        ("what's the fan speed set to?", "fan"),  # came as servo_state (fresh29)
        ("is the heater still on?", "heater"),
        ("where is the camera pointing?", None),
        ("what angle is it at now?", None),
    ],
)
def test_a_device_state_read_stands_for_its_plugins_acting_tool(
    request_: str, device: str | None
) -> None:
    title = "the servo that turns the camera (angles, left, right)"
    servo = make_tool(_servo, plugin="servo")
    servo = dataclasses.replace(servo, kind=ToolKind.ACT, title=title)
    state = dataclasses.replace(make_tool(_servo_state, plugin="servo"), kind=ToolKind.READ)
    assert absent_for(state, request_, installed=[servo, state]) == device
    alone = dataclasses.replace(state, plugin="?")  # no plugin: nothing stands for it
    assert absent_for(alone, request_, installed=[servo, alone]) is None


@pytest.mark.parametrize(
    ("request_", "device"),
    [
        ("now zoom in 2x", "zoom"),  # came as the servo's turn by 2 (fresh47)
        ("can the camera zoom in?", None),  # names the camera: the side questions ask
    ],
)
def test_a_zoom_is_no_turn_of_the_servo(request_: str, device: str | None) -> None:
    title = "the servo that turns the camera (angles, left, right)"
    servo = make_tool(_servo, plugin="servo")
    servo = dataclasses.replace(servo, kind=ToolKind.ACT, title=title)
    assert absent_for(servo, request_, installed=[servo]) == device
