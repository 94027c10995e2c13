"""First-party plugin: an addressable LED strip (WS2812) as the ``led`` tools.

``[plugins.led] backend = "real" | "sim" | "mock"`` picks where the strip is (the
default is the simulator, on every machine: see :mod:`edgeagent_led.options`); the
strip is opened by the first ``led`` call, never while the plugin loads.
"""

from __future__ import annotations

from edgeagent.plugin import PluginContext, Register, hookimpl
from edgeagent_led.backends import BACKENDS
from edgeagent_led.controller import LedController
from edgeagent_led.options import LedOptions

__all__ = ["LedController", "LedOptions", "register_tools"]


@hookimpl
def register_tools(register: Register, context: PluginContext) -> None:
    options = context.options_as(LedOptions)
    strip = context.device(BACKENDS, options)
    controller = LedController(backend=strip, count=options.count, effect_s=options.effect_s)
    register(controller.led)
    register(controller.led_state)
    context.on_close(controller.close)
