"""First-party plugin: an addressable LED strip (WS2812) as the ``led`` tools.

``[plugins.led] backend = "real" | "sim" | "mock"`` picks where the strip is (the
default is the simulator, on every machine: see :mod:`edgeagent_led.options`); the
strip is opened by the first ``led`` call, never while the plugin loads.
"""

from __future__ import annotations

from dataclasses import replace

from edgeagent.plugin import PluginContext, Register, hookimpl, make_tool
from edgeagent_led.backends import BACKENDS
from edgeagent_led.controller import LedController
from edgeagent_led.names import names_the_strip, said_colors
from edgeagent_led.options import LedOptions
from edgeagent_led.said import as_said
from edgeagent_led.undo import asks_undo

__all__ = ["LedController", "LedOptions", "register_tools"]


@hookimpl
def register_tools(register: Register, context: PluginContext) -> None:
    options = context.options_as(LedOptions)
    strip = context.device(BACKENDS, options)
    controller = LedController(backend=strip, count=options.count, effect_s=options.effect_s)
    # "para roxo" arrives as color: "red", "half as bright" as brightness: 50, "turn
    # the lights up to 90" as red at 100, "undo that" as a colour of its own
    # (edgeagent_led.said).
    reread = as_said(controller.state, named=names_the_strip, before=controller.before)
    # "kill the shop light" is about the strip, whatever a side question says; a colour
    # nobody said, for a request that names no light, is a guess (edgeagent_led.names).
    led = make_tool(controller.led, plugin="led")
    said_in = said_colors(controller.state)
    # "hmm no, undo that" after a change of the strip is the strip's (edgeagent_led.undo).
    led = replace(led, reread=reread, named_in=names_the_strip, said_in=said_in)
    register(replace(led, undone_in=asks_undo))
    register(controller.led_state)
    context.on_close(controller.close)
