"""LED backends behind one seam: :data:`BACKENDS` is the only place that picks one.

``[plugins.led] backend`` chooses ``real``, ``sim`` or ``mock``; for ``real``,
``driver`` chooses how the strip is driven (:data:`REAL_DRIVERS`). Each is opened on the
first tool call, never while the plugin loads. ``real`` never falls back to ``sim``: a
Pi without the strip's driver fails loudly with what to install or enable.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Protocol

from edgeagent.plugin import Backend, Backends, PluginContext, board_model
from edgeagent_led.options import LedOptions
from edgeagent_led.strip import LedState


class LedBackend(Protocol):
    """Drives one strip. ``read`` returns the strip's state (the simulator's may have been
    changed by hand on the dashboard; hardware returns what was last written). After
    ``close`` (idempotent), ``write`` raises :class:`HardwareError`."""

    name: str

    def write(self, state: LedState) -> None: ...

    def read(self) -> LedState: ...

    def close(self) -> None: ...


def is_pi5(model_file: Path) -> bool:
    return "Raspberry Pi 5" in board_model(model_file)


def real_driver(options: LedOptions) -> Literal["spi", "ws281x"]:
    """The driver ``real`` uses: ``driver``, or for ``auto`` the one this Pi needs."""
    if options.driver != "auto":
        return options.driver
    # The Pi 5's RP1 has no PWM/DMA path that rpi_ws281x can drive; SPI works on all.
    return "spi" if is_pi5(options.device_model) else "ws281x"


def _open_mock(options: LedOptions, context: PluginContext) -> LedBackend:
    from edgeagent_led.backends.mock import MockLed

    return MockLed(count=options.count)


def _open_sim(options: LedOptions, context: PluginContext) -> LedBackend:
    from edgeagent_led.backends.sim import SimLed

    return SimLed(context.simulator_url, count=options.count, timeout_s=options.timeout_s)


def _check_spi(options: LedOptions) -> None:
    from edgeagent_led.backends.spi import SpiLed

    SpiLed.check(options)


def _open_spi(options: LedOptions, context: PluginContext) -> LedBackend:
    from edgeagent_led.backends.spi import SpiLed

    return SpiLed.open(options)


def _check_ws281x(options: LedOptions) -> None:
    from edgeagent_led.backends.ws281x import Ws281xLed

    Ws281xLed.check(options)


def _open_ws281x(options: LedOptions, context: PluginContext) -> LedBackend:
    from edgeagent_led.backends.ws281x import Ws281xLed

    return Ws281xLed.open(options)


REAL_DRIVERS: dict[Literal["spi", "ws281x"], Backend[LedOptions, LedBackend]] = {
    "spi": Backend(
        open=_open_spi,
        check=_check_spi,
        about=lambda o, _: f"{o.count} pixels on SPI {o.spi_bus}.{o.spi_device} (GPIO10)",
        hardware=True,
    ),
    "ws281x": Backend(
        open=_open_ws281x,
        check=_check_ws281x,
        about=lambda o, _: f"{o.count} pixels through rpi_ws281x on GPIO{o.pin}",
        hardware=True,
    ),
}


def _real(options: LedOptions) -> Backend[LedOptions, LedBackend]:
    return REAL_DRIVERS[real_driver(options)]


BACKENDS: Backends[LedOptions, LedBackend] = Backends(
    "LED strip",
    {
        "real": Backend(
            open=lambda o, c: _real(o).open(o, c),
            check=lambda o: _real(o).check(o),
            about=lambda o, c: _real(o).about(o, c),
            hardware=True,
        ),
        "sim": Backend(
            open=_open_sim,
            about=lambda o, c: f"the simulator at {c.simulator_url} (run `edgeagent sim`)",
        ),
        "mock": Backend(
            open=_open_mock, about=lambda o, _: f"{o.count} pixels in memory (nothing lights)"
        ),
    },
)
"""``[plugins.led] backend`` -> how the strip is reached."""
