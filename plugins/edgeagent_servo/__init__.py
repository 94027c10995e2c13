"""First-party plugin: a hobby servo as the ``servo`` tools.

``[plugins.servo] backend = "real" | "sim" | "mock"`` picks where the servo is (the
default is the simulator, on every machine: see :mod:`edgeagent_servo.options`); its
pin is claimed by the first ``servo`` call, never while the plugin loads.
"""

from __future__ import annotations

from dataclasses import replace

from edgeagent.plugin import PluginContext, Register, hookimpl, make_tool
from edgeagent_servo.aimed import aimed
from edgeagent_servo.backends import BACKENDS
from edgeagent_servo.controller import ServoController
from edgeagent_servo.names import names_the_servo
from edgeagent_servo.options import ServoOptions
from edgeagent_servo.relative import asks_undo, corrected
from edgeagent_servo.said import as_said

__all__ = ["ServoController", "ServoOptions", "register_tools"]


@hookimpl
def register_tools(register: Register, context: PluginContext) -> None:
    options = context.options_as(ServoOptions)
    servo = context.device(BACKENDS, options)
    controller = ServoController(
        backend=servo, min_angle=options.min_angle, max_angle=options.max_angle
    )

    # "15 degrees back to the right" arrives as right: -15, "all the way left" as
    # left_of_center: -10, "halfway back to the centre" as center: true, read again
    # against the servo's angle now (edgeagent_servo.said); "wrong way, I meant right"
    # and "30 degrees toward the middle" turn from elsewhere (edgeagent_servo.relative).
    def current() -> float | None:
        angle: float | None = controller.servo_state()["angle"]
        return angle

    reread = corrected(
        as_said(
            lowest=options.min_angle,
            highest=options.max_angle,
            current=current,
            last_turn=controller.last_turn_turned,
        ),
        current=current,
        last_turn=controller.last_turn,
    )
    # "point the camera at my cat" came as angle 90: a number the request gives no
    # ground for is a guess (edgeagent_servo.aimed).
    servo_tool = make_tool(controller.servo, plugin="servo")
    # "actually no, go back to where it was" after a move is the servo's; "servo to 30
    # degrees" names it, and faces no side question (edgeagent_servo.names).
    servo_tool = replace(servo_tool, reread=reread, aimed_in=aimed, named_in=names_the_servo)
    register(replace(servo_tool, undone_in=asks_undo))
    register(controller.servo_state)
    context.on_close(controller.close)
