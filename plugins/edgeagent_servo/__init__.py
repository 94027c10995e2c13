"""First-party plugin: a hobby servo as the ``servo`` tools.

``[plugins.servo] backend = "real" | "sim" | "mock"`` picks where the servo is; see
:mod:`edgeagent_servo.options` for the rest.
"""

from __future__ import annotations

from edgeagent.tools import PluginContext, hookimpl
from edgeagent.tools.plugins import Register
from edgeagent_servo.backends import open_backend
from edgeagent_servo.controller import ServoController
from edgeagent_servo.options import ServoOptions

__all__ = ["ServoController", "ServoOptions", "register_tools"]


@hookimpl
def register_tools(register: Register, context: PluginContext) -> None:
    options = context.options_as(ServoOptions)
    backend = open_backend(options, simulator_url=context.simulator_url)
    controller = ServoController(
        backend=backend, min_angle=options.min_angle, max_angle=options.max_angle
    )
    register(controller.servo)
    register(controller.servo_state)
    context.on_close(controller.close)
