"""The servo plugin: pulse widths on gpiozero's mock PWM pin, detaching, clamping,
relative moves, the backend and plugin contracts on every backend that loads here, the
pin claimed only by the first call, and ``real`` failing clearly without GPIO."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import edgeagent_servo
import httpx
import pytest
from edgeagent_servo.backends import BACKENDS, ServoBackend
from edgeagent_servo.backends.gpiozero_servo import GpiozeroServo
from edgeagent_servo.backends.mock import MockServo
from edgeagent_servo.backends.sysfs import SysfsServo
from edgeagent_servo.controller import ServoController
from edgeagent_servo.options import ServoOptions
from edgeagent_servo.said import as_said
from gpiozero.pins.mock import MockFactory, MockPWMPin

from edgeagent.compose import build_tools
from edgeagent.config import Config, ToolsConfig
from edgeagent.errors import HardwareError
from edgeagent.plugin import PluginContext, make_tool
from edgeagent.testing import BackendContract, LoadedPlugin, PluginContract, load_plugin
from edgeagent.tools.executor import ToolCall, ToolExecutor
from edgeagent.tools.registry import ToolRegistry
from tests.plugins.rereads import reread


def expected_pulse_s(angle: float, options: ServoOptions) -> float:
    """Linear map of [min_angle, max_angle] onto [min_pulse, max_pulse]."""
    span = (angle - options.min_angle) / (options.max_angle - options.min_angle)
    return (options.min_pulse_us + span * (options.max_pulse_us - options.min_pulse_us)) / 1e6


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    factory = MockFactory(pin_class=MockPWMPin)
    yield factory
    factory.close()


def open_mock_servo(
    factory: MockFactory, options: ServoOptions
) -> tuple[GpiozeroServo, Any, list[tuple[float, float | None, float]]]:
    """The backend on a mock pin; each settle records (pulse width, frequency, settle)."""
    pin = factory.pin(options.pin)
    held: list[tuple[float, float | None, float]] = []

    def settle(seconds: float) -> None:
        # While the backend waits for the servo to arrive, the pulse is on the pin.
        held.append((pin.state / pin.frequency, pin.frequency, seconds))

    servo = GpiozeroServo.open(options, pin_factory=factory, sleep=settle)
    return servo, pin, held


@pytest.mark.parametrize(
    "options",
    [
        ServoOptions(backend="real", pin=17),
        ServoOptions(backend="real", pin=12, min_pulse_us=500, max_pulse_us=2500, settle_s=0.3),
    ],
)
def test_gpiozero_pulse_widths_for_left_center_right(
    factory: MockFactory, options: ServoOptions
) -> None:
    servo, pin, held = open_mock_servo(factory, options)
    assert pin.frequency is None  # detached until the first move: no twitch at start-up
    for angle in (-90, 0, 90):
        servo.move_to(angle)
        width, frequency, settle = held[-1]
        assert width == pytest.approx(expected_pulse_s(angle, options), abs=1e-9)
        assert frequency == pytest.approx(1e6 / options.frame_us)
        assert settle == options.settle_s
        assert pin.frequency is None and pin.state == 0  # detached after the move
    assert servo.read() == 90
    servo.close()


def test_gpiozero_pin_history_shows_pulse_then_release(factory: MockFactory) -> None:
    options = ServoOptions(backend="real", pin=17)
    servo, pin, _ = open_mock_servo(factory, options)
    pin.clear_states()
    servo.move_to(-90)
    assert [s.state for s in pin.states] == pytest.approx([0.0, 0.05, 0.0])  # 1 ms / 20 ms
    servo.close()


def run_tool(executor: ToolExecutor, name: str, **arguments: Any) -> dict[str, Any]:
    return asyncio.run(executor.execute(ToolCall(name, arguments))).to_dict()


def executor_for(backend: Any) -> ToolExecutor:
    controller = ServoController(backend=backend)
    return ToolExecutor(
        ToolRegistry([make_tool(controller.servo), make_tool(controller.servo_state)])
    )


def test_absolute_and_relative_moves_with_clamping_reported() -> None:
    backend = MockServo()
    executor = executor_for(backend)
    assert run_tool(executor, "servo", angle=45)["result"] == {"angle": 45}
    assert run_tool(executor, "servo", left=15)["result"] == {"angle": 30}
    over = run_tool(executor, "servo", right=75)["result"]
    assert over == {"angle": 90, "note": "clamped to 90 (asked 105)"}
    run_tool(executor, "servo", angle=-60)
    under = run_tool(executor, "servo", left=100)["result"]
    assert under == {"angle": -90, "note": "clamped to -90 (asked -160)"}
    assert backend.history == [45, 30, 90, -60, -90]
    assert run_tool(executor, "servo_state")["result"] == {"angle": -90}


def test_a_position_off_the_range_or_a_turn_longer_than_it_moves_nothing() -> None:
    # "spin the camera round so it faces the moon" came as angle 180: clamped, the
    # servo went to its end for a request it cannot serve.
    backend = MockServo()
    executor = executor_for(backend)
    run_tool(executor, "servo", angle=10)
    moon = run_tool(executor, "servo", angle=180)
    assert moon["ok"] is False
    assert "only from -90 to 90 degrees (0 = center), not 180; nothing moved" in moon["error"]
    assert run_tool(executor, "servo", left_of_center=120)["ok"] is False
    spins = run_tool(executor, "servo", right=1080)
    assert "at most 180 degrees end to end, not 1080" in spins["error"]
    assert backend.history == [10]


def test_back_undoes_the_last_move_and_again_redoes_it() -> None:
    backend = MockServo()
    executor = executor_for(backend)
    run_tool(executor, "servo", angle=30)
    run_tool(executor, "servo", right=25)
    assert run_tool(executor, "servo", back=True)["result"] == {"angle": 30}
    assert run_tool(executor, "servo", back=True, left=0)["result"] == {"angle": 55}
    assert backend.history == [30, 55, 30, 55]


@pytest.mark.parametrize(("move", "back", "angle"), [(60, 15, 45), (-40, 10, -30), (60, 90, -30)])
def test_back_by_goes_that_many_degrees_towards_where_it_was(
    move: float, back: float, angle: float
) -> None:
    # "slightly too far, come back fifteen degrees": part of the last move, not all of it.
    backend = MockServo()  # at 0
    executor = executor_for(backend)
    run_tool(executor, "servo", by=move)
    assert run_tool(executor, "servo", back=True, by=back)["result"] == {"angle": angle}
    assert run_tool(executor, "servo", back=True, by=-back)["result"] == {"angle": move}


def test_back_before_any_move_or_with_a_position_fails_with_the_fix() -> None:
    executor = executor_for(MockServo())
    first = run_tool(executor, "servo", back=True)
    assert first["ok"] is False and "no earlier position" in first["error"]
    assert '{"angle": 0}' in first["error"]
    run_tool(executor, "servo", angle=10)
    both = run_tool(executor, "servo", back=True, angle=40)
    assert both["ok"] is False and "give back alone" in both["error"]


@pytest.mark.parametrize("arguments", [{"left": -45}, {"right": -45}])
def test_a_negative_turn_is_read_as_a_position(arguments: dict[str, Any]) -> None:
    # "camera to -45", "to minus forty-five": the model writes left=-45.
    backend = MockServo()
    executor = executor_for(backend)
    run_tool(executor, "servo", angle=30)
    assert run_tool(executor, "servo", **arguments)["result"] == {"angle": -45}


@pytest.mark.parametrize(
    ("arguments", "angle"),
    [
        ({"left": 30}, -30),  # left is the negative direction
        ({"right": 30}, 30),
        ({"angle": -30}, -30),
        ({"angle": 0}, 0),
        ({"left": 12.5}, -12.5),
        ({"left": 30, "right": 0}, -30),  # a small model fills unused arguments with 0
        ({"angle": 10, "left": 0}, 10),
        ({"left": None, "angle": 5}, 5),
        ({"left_of_center": 20}, -20),  # "20 degrees left of center": a position
        ({"right_of_center": 35}, 35),
        ({"left_of_center": 0, "right_of_center": 0}, 0),  # "center it", both filled
        ({"left_of_center": 0, "right_of_center": 25}, 25),
        ({"angle": 0, "left_of_center": 40}, -40),
        ({"center": True}, 0),  # "center it"
        ({"center": True, "left": 60}, -60),  # "60 degrees left from center"
        ({"center": True, "right": 50}, 50),
        ({"center": True, "angle": 0}, 0),
    ],
)
def test_arguments_mirror_the_users_words(arguments: dict[str, Any], angle: float) -> None:
    backend = MockServo()  # starts at 0 (center)
    result = run_tool(executor_for(backend), "servo", **arguments)
    assert result == {"ok": True, "result": {"angle": angle}}
    assert backend.angle == angle


@pytest.mark.parametrize(
    ("arguments", "shown"),
    [
        ({}, "got nothing"),
        ({"angle": 10, "left": 10}, "got angle=10, left=10"),
        ({"left": 10, "right": 5}, "got left=10, right=5"),
        ({"angle": 0, "right": 30}, "got angle=0, right=30"),
        ({"right": 50, "left_of_center": 50}, "got left_of_center=50, right=50"),
        ({"angle": 10, "right_of_center": 20}, "got angle=10, right_of_center=20"),
        ({"by": 10, "left": 5}, "got left=5, by=10"),
        ({"center": False}, "got nothing"),
    ],
)
def test_servo_needs_exactly_one_position_or_turn(arguments: dict[str, Any], shown: str) -> None:
    backend = MockServo()
    result = run_tool(executor_for(backend), "servo", **arguments)
    assert not result["ok"]
    assert (
        "exactly one of angle, left_of_center or right_of_center (a position), "
        "or left, right or by (a turn)"
    ) in result["error"]
    assert shown in result["error"] and '{"left": 30}' in result["error"]
    assert backend.history == []


@pytest.mark.parametrize(("by", "angle"), [(-20, 10), (35, 65)])
def test_by_is_a_signed_turn_from_where_it_points(by: float, angle: float) -> None:
    # "move the servo by -20 degrees" from 30 is 10, not the position -20.
    backend = MockServo()
    executor = executor_for(backend)
    run_tool(executor, "servo", angle=30)
    assert run_tool(executor, "servo", by=by)["result"] == {"angle": angle}


@pytest.mark.parametrize(
    "arguments", [{"left": 0}, {"right": 0}, {"by": 0}, {"left": 0, "right": 0, "by": 0}]
)
def test_a_turn_of_nothing_is_refused_and_moves_nothing(arguments: dict[str, Any]) -> None:
    # "move the camera into the kitchen" came as {"left": 0}, answered "now at 0°".
    backend = MockServo()
    result = run_tool(executor_for(backend), "servo", **arguments)
    assert not result["ok"] and "a turn of 0°, which moves nothing" in result["error"]
    assert '{"left": 30}' in result["error"]  # what to give instead
    assert backend.history == []


def test_center_and_another_position_are_refused() -> None:
    backend = MockServo()
    result = run_tool(executor_for(backend), "servo", center=True, angle=30)
    assert not result["ok"] and "center=true and a position (angle=30)" in result["error"]
    assert backend.history == []


@pytest.mark.parametrize("name", ["left_of_center", "right_of_center"])
def test_a_negative_distance_from_center_is_refused_with_the_fix(name: str) -> None:
    backend = MockServo()
    result = run_tool(executor_for(backend), "servo", **{name: -20})
    assert not result["ok"]
    assert f"{name} takes degrees from center, 0..90, got -20" in result["error"]
    assert '{"angle": -20}' in result["error"] and backend.history == []


def test_relative_move_on_real_servo_before_any_absolute_move(factory: MockFactory) -> None:
    servo, pin, _ = open_mock_servo(factory, ServoOptions(backend="real", pin=17))
    executor = executor_for(servo)
    for turn in ({"left": 10}, {"right": 10}):
        result = run_tool(executor, "servo", **turn)
        assert not result["ok"] and "give an absolute angle first" in result["error"]
    assert pin.frequency is None
    assert run_tool(executor, "servo", angle=10)["result"] == {"angle": 10}
    assert run_tool(executor, "servo", left=25)["result"] == {"angle": -15}
    assert run_tool(executor, "servo", right=5)["result"] == {"angle": -10}
    servo.close()


def test_schema_and_description_name_the_users_words() -> None:
    controller = ServoController(backend=MockServo())
    servo, state = make_tool(controller.servo), make_tool(controller.servo_state)
    assert servo.description == (
        "Point the servo/camera: angle = absolute -90..90 (0 = center); left/right = turn "
        "by that many degrees; left_of_center/right_of_center = position; by = signed turn "
        "(<0 = left); center = true points it straight ahead; back = true undoes the "
        "last move."
    )
    assert servo.parameters == {
        "properties": {
            "angle": {
                "type": "number",
                "description": "absolute position -90..90; 0 = center, <0 = left",
            },
            "left": {"type": "number", "description": "degrees to turn left"},
            "right": {"type": "number", "description": "degrees to turn right"},
            "left_of_center": {"type": "number"},
            "right_of_center": {"type": "number"},
            "by": {"type": "number"},
            "center": {"type": "boolean", "default": False},
            "back": {"type": "boolean", "default": False},
        },
        "type": "object",
        "required": [],
    }
    assert state.parameters == {"properties": {}, "type": "object", "required": []}


def test_answers_state_only_what_the_result_says() -> None:
    backend = MockServo()
    controller = ServoController(backend=backend)
    servo, state = make_tool(controller.servo), make_tool(controller.servo_state)
    assert servo.answer is not None and state.answer is not None
    assert servo.answer(controller.servo(left=30)) == "The servo is now at -30°."
    assert servo.answer(controller.servo(right=12.5)) == "The servo is now at -17.5°."
    assert servo.answer(controller.servo(right=120)) == (
        "The servo is now at 90°; clamped to 90 (asked 102.5)."
    )
    assert state.answer(controller.servo_state()) == "The servo is at 90°."
    backend.angle = None  # a real servo before its first move
    assert state.answer(controller.servo_state()) == (
        "The servo's angle is unknown until the servo is first moved."
    )


def test_sysfs_backend_writes_period_duty_and_releases(tmp_path: Path) -> None:
    chip = tmp_path / "pwmchip0"
    chip.mkdir()
    (chip / "export").write_text("")
    (chip / "pwm2").mkdir()  # what the kernel creates on export
    options = ServoOptions(backend="real", driver="sysfs", pwm_root=tmp_path, pwm_channel=2)
    enables: list[str] = []
    servo = SysfsServo.open(
        options, sleep=lambda _: enables.append((chip / "pwm2/enable").read_text())
    )
    servo.move_to(90)
    assert (chip / "pwm2/period").read_text() == "20000000"
    assert (chip / "pwm2/duty_cycle").read_text() == "2000000"
    assert enables == ["1"] and (chip / "pwm2/enable").read_text() == "0"


def test_plugin_registers_tools_and_closes_the_backend() -> None:
    loaded = load_plugin(edgeagent_servo, name="servo", options={"backend": "mock"})
    assert loaded.registry.names() == ["servo", "servo_state"]
    assert loaded.registry.get("servo").kind == "act"
    assert loaded.registry.get("servo_state").kind == "read"
    assert loaded.call("servo", angle=10).ok
    loaded.close()
    (servo,) = loaded.devices
    assert isinstance(servo.backend, MockServo) and servo.backend.closed


@pytest.mark.parametrize(
    ("arguments", "request_", "turned"),
    [
        # "back" became a minus; the request names the direction and no negative number.
        ({"right": -15}, "ok move the camera 15 degrees back to the right", {"right": 15}),
        ({"left": -45}, "swing the camera back 45 degrees to the left", {"left": 45}),
        ({"right": -20}, "gira la telecamera di venti gradi a destra", {"right": 20}),
        ({"left": 0, "right": -10}, "10 back to the right", {"left": 0, "right": 10}),
        # A position: the request names a negative number, or no direction.
        ({"left": -45}, "and the camera to -45", None),
        ({"left": -75}, "turn the arm to minus seventy-five degrees", None),
        ({"left": -20}, "turn it -20 to the left", None),
        ({"right": -20}, "go back 20", None),
        ({"left": -20}, "point it 20 degrees left of center", None),
        ({"right": 20}, "20 to the right", None),  # nothing to read again
        # An end named, and no number: the servo's end on that side.
        ({"left_of_center": -10}, "camera to the far left pls", {"angle": -90}),
        ({"left": 45}, "look all the way over to the left", {"angle": -90}),
        ({"right": 20}, "swing it right as far as you can", {"angle": 90}),
        ({"left": 30}, "ganz nach links bitte", {"angle": -90}),
        ({"right": 20}, "tourne la caméra tout à droite", {"angle": 90}),
        ({"left": 5}, "ruota la telecamera tutto a sinistra", {"angle": -90}),
        ({"left": 90}, "Tourne le servo à fond vers la gauche", {"angle": -90}),  # fresh78
        ({"right": 30}, "gira la cámara totalmente hacia la derecha", {"angle": 90}),
        # A number says where; "further" is no end; both ends, or already there.
        ({"left": 20}, "all the way to 45 on the left", {"left_of_center": 45.0}),
        ({"left": 20}, "a bit further left", None),
        ({"left": 5}, "tourne tout doucement à gauche", None),
        ({"left": 10}, "go far left then far right", None),
        ({"angle": -90}, "all the way left", None),
        # The center named, and no number or side: 0.
        ({"angle": 45}, "now back to the middle", {"angle": 0}),
        ({"left": 10}, "centre the camera again", {"angle": 0}),
        ({"center": True}, "center it", None),
        ({"left": 20}, "a bit left of center", None),
        # Back asked for, and no number, side or center: back.
        ({"right": -25}, "actually, undo that move", {"back": True}),
        ({"left": 0}, "hmm, put it back where it was before", {"back": True}),
        ({"angle": 0}, "now put the camera back the way it was", {"back": True}),
        ({"angle": 10}, "deshaz ese movimiento", {"back": True}),
        ({"back": True, "left": 0}, "undo that", None),
        ({"left": 20}, "go back 20 to the left", None),
        ({"angle": 30}, "put it back in the middle", {"angle": 0}),
        # Back, and one number with no side or center: that many degrees back.
        ({"back": True}, "slightly too far, come back 15 degrees", {"back": True, "by": 15}),
        ({"back": True}, "go back 20", {"back": True, "by": 20}),
        ({"back": True, "by": 15}, "come back 15 degrees", None),
        ({"back": True}, "back 30 to the left", None),
        ({"back": True}, "back to -30", None),
        ({"back": True}, "back 10 or 20 degrees", None),
        # A number for back, which the schema refuses, is the degrees to go back.
        ({"back": 10}, "hmm too far, back 10", {"back": True, "by": 10}),
        ({"back": 10}, "too far, come back ten degrees", {"back": True, "by": 10}),
        ({"back": 10.0}, "back 10 to the left", None),  # a turn: the schema's error
        ({"back": 1}, "go back", None),
        # "to N" with a side is a position on that side; "more"/"further" a turn.
        ({"right": 40}, "pan the camera to 40 degrees right", {"right_of_center": 40}),
        # A value named back, after "what's 360 divided by 8" (fresh67).
        ({"right": 45}, "turn the camera to that angle, to the right", {"right_of_center": 45}),
        ({"right": 45}, "turn the camera that much to the right", None),  # a turn
        ({"left": 35}, "Kamerayı sola 35 dereceye getir", {"left_of_center": 35}),  # Turkish
        # The Romance "a" before degrees (fresh71 "a 45 gradi a destra" ran as a turn).
        ({"right": 45}, "gira la camera a 45 gradi a destra", {"right_of_center": 45}),
        ({"left": 30}, "pon la cámara a 30 grados a la izquierda", {"left_of_center": 30}),
        ({"right": 20}, "tourne la caméra à 20 degrés à droite", {"right_of_center": 20}),
        ({"right": 45}, "gira la camera di 45 gradi a destra", None),  # a turn
        ({"left": 30}, "gira la cámara 30 grados a la izquierda", None),  # a turn
        ({"right": 15}, "Fordítsd a kamerát jobbra 15 fokra", {"right_of_center": 15}),
        ({"right": 25}, "Käännä kamera oikealle 25 asteeseen", {"right_of_center": 25}),
        ({"left": 10}, "Rotește camera la stânga la 10 grade", {"left_of_center": 10}),
        # fresh34: a turn of 45 from 10 ran to -35.
        ({"left": 45}, "turn the camera to face 45 degrees left", {"left_of_center": 45}),
        ({"right": 30}, "pan the camera to 40 degrees right", {"right_of_center": 40}),
        ({"left": 40}, "turn the camera to 40 degrees left", {"left_of_center": 40}),
        (
            {"right": 45},
            "coloca a câmera na posição de 45 graus à direita",
            {"right_of_center": 45},
        ),
        ({"right": 40}, "turn it 40 degrees to the right", None),
        ({"right": 30}, "now 30 more to the right, to 40 degrees", None),
        ({"right_of_center": 25}, "ok shift the camera 25 degrees further right", {"right": 25}),
        ({"left_of_center": 15}, "another 15 to the left", {"left": 15}),
        ({"left_of_center": -15}, "bit more to the left, like another 15", {"left": 15}),
        ({"left_of_center": -15}, "15 to the left of where it is", None),  # not onward
        # From where it points now (fresh56), in English and others.
        ({"left_of_center": 45}, "now 45 to the left from there", {"left": 45}),
        ({"right_of_center": 20}, "20 right from where it is now", {"right": 20}),
        ({"left_of_center": 30}, "von dort aus 30 Grad nach links", {"left": 30}),
        ({"right_of_center": 10}, "desde ahí, 10 grados a la derecha", {"right": 10}),
        ({"left_of_center": 45}, "set it to 45 left of center from there", None),  # center
        ({"right_of_center": 15}, "set the cam to 15 degrees right of center", None),
        # A turn's size is the one number the request names.
        ({"left": 30}, "a little more, another 10 the same way", {"left": 10.0}),
        ({"by": -30}, "by 20 more", {"by": -20.0}),
        ({"left": 30, "right": 0}, "10 more", {"left": 10.0, "right": 0}),
        ({"left": 30}, "another 10, then 20 more", None),
        ({"left": 30}, "left a bit more", None),
        # A turn toward the side the request says it is too far to goes the other way.
        ({"right": 10}, "the camera is 10 degrees too far right, fix it", {"left": 10}),
        ({"left": 5}, "a bit too much to the left, 5 back", {"right": 5}),
        ({"by": 15}, "15 zu weit nach rechts", {"by": -15}),
        ({"left": 20}, "tourne de 20, c'est trop a gauche", {"right": 20}),
        ({"right": 10}, "girala 10, esta demasiado a la izquierda", None),  # away already
        ({"right": 10}, "too far left, no, too far right, 10", None),  # both sides
        ({"right": 10}, "move it 10 to the right, too far is fine", None),  # no side too far
        # A position from center, where the model wrote a turn (blind prompts).
        (
            {"left": 60},
            "point the camera at the gate, it's at 60 degrees left of centre",
            {"left_of_center": 60.0},
        ),
        ({"right": 20}, "20 Grad rechts von der Mitte bitte", {"right_of_center": 20.0}),
        ({"angle": 30}, "a 30 grados a la izquierda del centro", {"left_of_center": 30.0}),
        ({"angle": -30}, "a 30 grados a la izquierda del centro", None),  # that position
        ({"left_of_center": 60}, "60 degrees left of center", None),  # already that
        # A turn by a negative number, where the model wrote it as a position (blind
        # prompts: "rotate the cam by minus twenty" came as left: -20).
        ({"left": -20}, "rotate the cam by minus 20", {"by": -20.0}),
        ({"angle": -15}, "shift the camera by -15 degrees", {"by": -15.0}),
        ({"left": -20}, "dreh die Kamera um minus 20 Grad", {"by": -20.0}),
        ({"by": -20}, "rotate the cam by minus 20", None),  # as written
        ({"angle": -20}, "move the camera to minus 20", None),  # a position
        ({"left": -30}, "rotate the cam by minus 20", None),  # another number
        ({"angle": -60}, "to -60, that's left of center", None),  # a sign: the model's
        ({"left": 20}, "20 more to the left, it's left of centre now", None),  # not "N left of"
        ({"left": 10}, "10 more to the left, it's 30 left of centre now", None),  # onward
        # A quarter turn named, with one side and no number: 90 that way (blind prompts).
        ({"right": 25}, "give the camera a quarter turn to the right", {"right": 90}),
        ({"left": 45}, "a quarter of a turn to the left please", {"left": 90}),
        ({"angle": 45}, "gib der Kamera eine Vierteldrehung nach links", {"left": 90}),
        ({"right": 30}, "fais un quart de tour à droite", {"right": 90}),
        ({"left": 20}, "dale un cuarto de vuelta a la izquierda", {"left": 90}),
        ({"right": 45}, "dai un quarto di giro a destra", {"right": 90}),
        ({"left": 30}, "dá um quarto de volta para a esquerda", {"left": 90}),
        ({"right": 90}, "a quarter turn to the right", None),  # already that
        ({"by": -90}, "quarter turn left", None),  # already that
        ({"right": 25}, "turn it a quarter to the right", None),  # no "quarter turn"
        ({"right": 25}, "give it a quarter turn", None),  # no side
        ({"left": 90}, "a quarter turn left, then a quarter turn right", None),  # two
        ({"right": 270}, "a three-quarter turn to the right", None),
        ({"right": 180}, "give it a half turn to the right", None),  # the tool clamps it
        ({"right": 30}, "move 30 degrees right", None),
        ({"right": 45}, "a quarter turn to the right, so 45 degrees", None),  # a number
    ],
)
def test_a_turn_or_an_end_the_request_names_is_read_again(
    arguments: dict[str, Any], request_: str, turned: dict[str, Any] | None
) -> None:
    assert reread(edgeagent_servo, "servo", arguments, request_) == turned


@pytest.mark.parametrize(
    ("at", "arguments", "request_", "halved"),
    [
        # Halfway to the center, no number or side: the angle halved (blind prompts).
        (
            -60,
            {"back": True, "center": True},
            "pan the camera halfway back toward the centre",
            {"angle": -30},
        ),
        (45, {"angle": 0}, "move it half way to the middle", {"angle": 22.5}),
        (-35, {"center": True}, "go half the way back to center", {"angle": -17.5}),
        (80, {"angle": 0}, "auf halbem Weg zurück zur Mitte", {"angle": 40}),
        (-50, {"center": True}, "halb zur Mitte bitte", {"angle": -25}),
        (60, {"back": True}, "tourne la caméra à mi-chemin du centre", {"angle": 30}),
        # Already there, by a position or a turn.
        (-60, {"angle": -30}, "pan the camera halfway back toward the centre", None),
        (-60, {"right": 30}, "halfway back to the middle", None),
        # A side, a number, no halfway, or an angle not known: as the model wrote them.
        (-60, {"left": 30}, "halfway to the left", None),
        (-60, {"center": True}, "halfway back to the centre from the left", None),
        (-60, {"angle": -20}, "halfway back to the centre, to -20", None),
        (-60, {"right": 30}, "move 30 degrees right", None),
        (-60, {"angle": 30}, "back to the centre", {"angle": 0}),
        (-60, {"center": True}, "back to the centre", None),
        (None, {"center": True}, "halfway back to the centre", None),
    ],
)
def test_halfway_to_the_center_is_the_angle_halved(
    at: float | None,
    arguments: dict[str, Any],
    request_: str,
    halved: dict[str, Any] | None,
) -> None:
    hook = as_said(lowest=-90, highest=90, current=lambda: at)
    assert hook(arguments, request_) == halved


def test_halfway_reads_the_servo_where_it_is() -> None:
    loaded = load_plugin(edgeagent_servo, name="servo", options={"backend": "mock"})
    hook = loaded.registry.get("servo").reread
    assert hook is not None
    assert loaded.call("servo", angle=-60).ok
    request = "pan the camera halfway back toward the centre"
    assert hook({"back": True, "center": True}, request) == {"angle": -30}
    loaded.close()


@pytest.mark.parametrize(
    ("arguments", "request_", "again"),
    [
        # "pan 35 degrees to the right", then this (blind prompts): right -35 is a position.
        ({"right": -25}, "and the same again", {"by": 25}),
        ({"angle": 25}, "do that once more", {"by": 25}),
        ({"left": 25}, "nochmal bitte", {"by": 25}),
        ({"right": 25}, "and the same again", None),  # already that turn
        ({"by": 25}, "encore une fois", None),
        # The other way (fresh61: after 25 to the right, right 30 is a position).
        ({"right": 30}, "now the other way, twice as far", {"by": -50}),
        ({"right": 25}, "the other way please", {"by": -25}),
        ({"left": 10}, "andersrum, halb so weit", {"by": -12.5}),
        ({"by": -25}, "now the opposite direction", None),  # already that turn
        # A number, a side, the center or a way back: the model's, or another reread's.
        ({"right": 20}, "again, 20 more", None),
        ({"left": 25}, "again, but to the left", None),
        ({"center": True}, "center it again", None),
        ({"back": True}, "hmm no, and back again", None),
        ({"angle": 0}, "otra vez donde estaba", None),
        ({"left": 40}, "the other way, 40 degrees", None),
        ({"left": 25}, "the other way, to the left", None),
        ({"back": True}, "back the other way", None),
        ({"right": 25}, "turn it right", None),  # neither
    ],
)
def test_again_or_the_other_way_is_the_last_turn_again_or_mirrored(
    arguments: dict[str, Any], request_: str, again: dict[str, Any] | None
) -> None:
    loaded = load_plugin(edgeagent_servo, name="servo", options={"backend": "mock"})
    hook = loaded.registry.get("servo").reread
    assert hook is not None
    assert hook({"right": -25}, "and the same again") is None  # no move yet
    assert hook({"right": 30}, "now the other way") is None
    assert loaded.call("servo", angle=-40).ok and loaded.call("servo", right=25).ok
    assert hook(arguments, request_) == again
    assert loaded.call("servo", **(again or arguments)).ok
    loaded.close()


def test_the_other_way_after_a_position_is_the_model_s_to_write() -> None:
    # fresh69: "aim the camera at 60 degrees" (from -40), then "no, the other way",
    # came as angle -60; mirrored, the turn of 100 took the servo back to -40.
    loaded = load_plugin(edgeagent_servo, name="servo", options={"backend": "mock"})
    hook = loaded.registry.get("servo").reread
    assert hook is not None
    assert loaded.call("servo", angle=-40).ok and loaded.call("servo", angle=60).ok
    assert hook({"angle": -60}, "no, the other way") is None
    assert hook({"angle": 60}, "do that once more") is None
    assert loaded.call("servo", left=20).ok  # a turn: mirrored again
    assert hook({"angle": -60}, "no, the other way") == {"by": 20}
    assert loaded.call("servo", back=True).ok  # back to a position
    assert hook({"angle": 0}, "now the other way") is None
    loaded.close()


def test_the_end_is_the_configured_one() -> None:
    options = {"backend": "mock", "min_angle": -60, "max_angle": 70}
    loaded = load_plugin(edgeagent_servo, name="servo", options=options)
    hook = loaded.registry.get("servo").reread
    assert hook is not None
    assert hook({"left": 10}, "all the way left") == {"angle": -60}
    assert hook({"right": 10}, "hard right") == {"angle": 70}
    assert loaded.call("servo", angle=-60).result["angle"] == -60
    loaded.close()


def test_real_without_gpio_fails_clearly(monkeypatch: pytest.MonkeyPatch) -> None:
    options = ServoOptions(backend="real")
    monkeypatch.setitem(sys.modules, "gpiozero", None)
    with pytest.raises(HardwareError, match=r"needs gpiozero.*pip install gpiozero lgpio"):
        BACKENDS.open(options, PluginContext(name="servo"))


def test_real_on_a_machine_without_pins_names_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = Path("/proc/device-tree/model")
    if model.exists() and "Raspberry Pi" in model.read_text(errors="replace"):
        pytest.skip("this machine is a Raspberry Pi: gpiozero finds real pins here")
    from gpiozero import Device

    # No pin factory chosen by the environment or an earlier test: the default search.
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr(Device, "pin_factory", None)
    config = Config(plugins={"servo": {"backend": "real"}}, tools=ToolsConfig(wrapped_dir=None))
    toolset = build_tools(config, plugins=[("servo", edgeagent_servo)])
    assert "servo" not in toolset.registry
    reason = toolset.report.failed["servo"]
    assert "HardwareError" in reason and "lgpio" in reason
    with pytest.raises(HardwareError, match="dtoverlay=pwm-2chan"):
        SysfsServo.open(ServoOptions(backend="real", driver="sysfs", pwm_root=tmp_path))


def test_with_gpio_but_no_pin_library_the_first_call_names_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gpiozero import Device

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")  # as on a Pi 5
    monkeypatch.setitem(sys.modules, "lgpio", None)  # ... without python3-lgpio
    monkeypatch.setattr(Device, "pin_factory", None)
    loaded = load_plugin(edgeagent_servo, name="servo", options={"backend": "real"})
    assert not loaded.opened
    result = loaded.call("servo", angle=10)
    assert not result.ok and result.error is not None
    assert "cannot drive a servo on GPIO17" in result.error and "install lgpio" in result.error


# --- the contracts, on every backend that loads here ----------------------------------


class TestServoBackends(BackendContract[ServoBackend, float]):
    """Mock, simulator, gpiozero on its mock PWM pins, and sysfs on a fake PWM chip."""

    @pytest.fixture(params=["mock", "sim", "gpiozero", "sysfs"])
    def backend(
        self, request: pytest.FixtureRequest, factory: MockFactory, tmp_path: Path
    ) -> Iterator[ServoBackend]:
        choice = request.param
        backend: ServoBackend
        if choice == "gpiozero":
            options = ServoOptions(backend="real", settle_s=0)
            backend = GpiozeroServo.open(options, pin_factory=factory, sleep=lambda _: None)
        elif choice == "sysfs":
            (tmp_path / "pwmchip0" / "pwm2").mkdir(parents=True)
            options = ServoOptions(backend="real", driver="sysfs", pwm_root=tmp_path)
            backend = SysfsServo.open(options, sleep=lambda _: None)
        else:
            url = request.getfixturevalue("simulator") if choice == "sim" else "http://unused"
            options = ServoOptions(backend=choice)
            backend = BACKENDS.open(options, PluginContext(name="servo", simulator_url=url))
        yield backend
        backend.close()

    def samples(self) -> list[float]:
        return [-45.0, 0.0, 90.0, 12.5]

    def write(self, backend: ServoBackend, state: float) -> None:
        backend.move_to(state)

    def read(self, backend: ServoBackend) -> float:
        angle = backend.read()
        assert angle is not None
        return angle


class TestServoPlugin(PluginContract):
    """The plugin as the daemon loads it, on the mock servo and in the simulator."""

    plugin = edgeagent_servo
    name = "servo"
    use = ("servo", {"angle": 30})
    bad_calls = (
        ("servo", {}),
        ("servo", {"angle": 10, "left": 10}),
        ("servo", {"angle": "north"}),
        ("servo", {"angle": float("nan")}),
    )
    safe_state: ClassVar[float] = 30.0  # released where it was: a servo holds its position
    backends = BACKENDS
    options_model = ServoOptions

    @pytest.fixture(params=["mock", "sim"])
    def plugin_options(self, request: pytest.FixtureRequest) -> dict[str, Any]:
        return {"backend": request.param}

    @pytest.fixture
    def simulator_url(self, request: pytest.FixtureRequest, plugin_options: dict[str, Any]) -> str:
        if plugin_options["backend"] == "sim":
            return str(request.getfixturevalue("simulator"))
        return "http://unused"

    def observe(self, loaded: LoadedPlugin) -> Any:
        if loaded.options["backend"] == "sim":
            reply = httpx.get(f"{loaded.simulator_url}/api/servo", trust_env=False)
            return reply.json()["angle"]
        (servo,) = loaded.devices
        assert isinstance(servo.backend, MockServo)
        return servo.backend.angle


# --- the pin is claimed by the first call, never by loading --------------------------


@pytest.fixture
def default_mock_pins(monkeypatch: pytest.MonkeyPatch) -> Iterator[MockFactory]:
    """gpiozero's default pin factory is mock pins, as GPIOZERO_PIN_FACTORY=mock makes it."""
    from gpiozero import Device

    factory = MockFactory(pin_class=MockPWMPin)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    monkeypatch.setattr(Device, "pin_factory", factory)
    yield factory
    factory.close()


def real_servo_config(**tools: Any) -> Config:
    return Config(
        plugins={"servo": {"backend": "real", "settle_s": 0}},
        tools=ToolsConfig(wrapped_dir=None, **tools),
    )


def test_loading_claims_no_pin_and_the_first_call_claims_it(
    default_mock_pins: MockFactory,
) -> None:
    toolset = build_tools(real_servo_config(), plugins=[("servo", edgeagent_servo)])
    assert toolset.registry.names() == ["servo", "servo_state"]
    assert default_mock_pins.pins == {}  # GPIO17 is free for a running daemon
    result = asyncio.run(ToolExecutor(toolset.registry).execute(ToolCall("servo", {"angle": 0})))
    assert result.ok, result.error
    assert len(default_mock_pins.pins) == 1
    toolset.close()


def test_a_disabled_servo_never_claims_its_pin(default_mock_pins: MockFactory) -> None:
    for config in (
        real_servo_config(disabled=["servo", "servo_state"]),
        real_servo_config(disabled_plugins=["servo"]),
    ):
        toolset = build_tools(config, plugins=[("servo", edgeagent_servo)])
        assert "servo" not in toolset.registry
        toolset.close()
    assert default_mock_pins.pins == {}
