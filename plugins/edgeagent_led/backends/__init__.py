"""LED backends behind one seam; ``open_backend`` is the only place that picks one.

``real`` never falls back to ``sim``: a Pi without the strip's driver fails loudly
with what to install or enable.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from edgeagent_led.options import LedOptions
from edgeagent_led.strip import LedState


class LedBackend(Protocol):
    """Drives one strip. ``read`` returns the strip's state (the simulator's may have been
    changed by hand on the dashboard; hardware returns what was last written)."""

    name: str

    def write(self, state: LedState) -> None: ...

    def read(self) -> LedState: ...

    def close(self) -> None: ...


def is_pi5(model_file: Path) -> bool:
    try:
        return "Raspberry Pi 5" in model_file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def open_backend(options: LedOptions, *, simulator_url: str) -> LedBackend:
    if options.backend == "mock":
        from edgeagent_led.backends.mock import MockLed

        return MockLed(count=options.count)
    if options.backend == "sim":
        from edgeagent_led.backends.sim import SimLed

        return SimLed(simulator_url, count=options.count, timeout_s=options.timeout_s)
    driver = options.driver
    if driver == "auto":
        # The Pi 5's RP1 has no PWM/DMA path that rpi_ws281x can drive; SPI works on all.
        driver = "spi" if is_pi5(options.device_model) else "ws281x"
    if driver == "spi":
        from edgeagent_led.backends.spi import SpiLed

        return SpiLed.open(options)
    from edgeagent_led.backends.ws281x import Ws281xLed

    return Ws281xLed.open(options)
