"""WS2812 strip through rpi_ws281x (PWM + DMA on GPIO18; Raspberry Pi 4 and older)."""

from __future__ import annotations

from typing import Any

from edgeagent.plugin import HardwareError
from edgeagent_led.options import LedOptions
from edgeagent_led.strip import LedState


class Ws281xLed:
    name = "ws281x"

    def __init__(self, strip: Any, module: Any, *, count: int, max_brightness: int) -> None:
        self._strip = strip
        self._color = module.Color
        self._max_brightness = max_brightness
        self._state = LedState.dark(count)

    @classmethod
    def check(cls, options: LedOptions) -> Any:
        """rpi_ws281x installed; opens nothing. Returns the module."""
        try:
            import rpi_ws281x
        except ImportError:
            raise HardwareError(
                "LED backend 'real' (driver ws281x) needs the rpi_ws281x module, which is "
                "not installed: run `pip install rpi-ws281x` (or edgeagent[hardware]). "
                'It works on a Raspberry Pi 4 or older; on a Pi 5 set driver = "spi", '
                'or use backend = "sim" without hardware'
            ) from None
        return rpi_ws281x

    @classmethod
    def open(cls, options: LedOptions) -> Ws281xLed:
        rpi_ws281x = cls.check(options)
        strip = rpi_ws281x.PixelStrip(
            options.count,
            options.pin,
            freq_hz=options.freq_hz,
            dma=options.dma,
            invert=False,
            brightness=options.max_brightness,
            channel=options.channel,
        )
        try:
            strip.begin()
        except RuntimeError as exc:
            raise HardwareError(
                f"rpi_ws281x could not start the strip on GPIO{options.pin}: {exc}. It needs "
                f'root (or /dev/mem access) and a Pi 4 or older; on a Pi 5 use driver = "spi"'
            ) from None
        return cls(strip, rpi_ws281x, count=options.count, max_brightness=options.max_brightness)

    def write(self, state: LedState) -> None:
        if self._strip is None:
            raise HardwareError("the LED strip is closed")
        level = round(state.brightness / 100 * self._max_brightness) if state.on else 0
        if state.on and state.brightness > 0:
            level = max(1, level)  # 1 % is the dimmest light, never darkness
        self._strip.setBrightness(level)
        for i, (r, g, b) in enumerate(LedState(True, 100, state.pixels).rendered()):
            self._strip.setPixelColor(i, self._color(r, g, b))
        self._strip.show()
        self._state = state

    def read(self) -> LedState:
        if self._strip is None:
            raise HardwareError("the LED strip is closed")
        return self._state

    def close(self) -> None:
        # rpi_ws281x frees its DMA buffers when the strip object is collected.
        self._strip = None
