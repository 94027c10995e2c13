"""First-party plugin: an addressable LED strip (WS2812) as the ``led`` tools.

``[plugins.led] backend = "real" | "sim" | "mock"`` picks where the strip is; see
:mod:`edgeagent_led.options` for the rest.
"""

from __future__ import annotations

from edgeagent.tools import PluginContext, hookimpl
from edgeagent.tools.plugins import Register
from edgeagent_led.backends import open_backend
from edgeagent_led.controller import LedController
from edgeagent_led.options import LedOptions

__all__ = ["LedController", "LedOptions", "register_tools"]


@hookimpl
def register_tools(register: Register, context: PluginContext) -> None:
    options = context.options_as(LedOptions)
    backend = open_backend(options, simulator_url=context.simulator_url)
    controller = LedController(backend=backend, count=options.count, effect_s=options.effect_s)
    register(controller.led)
    register(controller.led_state)
    context.on_close(controller.close)
