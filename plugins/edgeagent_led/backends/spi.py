"""WS2812 strip on the SPI MOSI pin (GPIO10), for the Raspberry Pi 5.

The Pi 5 cannot run rpi_ws281x, but SPI can shape the WS2812 waveform: at 2.4 MHz one
SPI bit lasts 0.417 us, so each WS2812 bit is sent as three SPI bits, ``110`` for a 1
(0.83 us high) and ``100`` for a 0 (0.42 us high), both within the WS2812 timing
tolerance. Colours go out in GRB order, followed by a latch of zero bytes (low line).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from edgeagent.plugin import HardwareError
from edgeagent_led.options import LedOptions
from edgeagent_led.strip import RGB, LedState

SPI_HZ = 2_400_000
# >= 300 us low: the reset newer WS2812B parts need (older ones need 50 us).
RESET_BYTES = 90


def _expand(byte: int) -> bytes:
    bits = 0
    for i in range(7, -1, -1):
        bits = (bits << 3) | (0b110 if byte >> i & 1 else 0b100)
    return bits.to_bytes(3, "big")


_TABLE = [_expand(b) for b in range(256)]


def encode_ws2812(pixels: Sequence[RGB]) -> bytes:
    """SPI bytes for ``pixels`` (RGB tuples), GRB order, with the reset latch."""
    out = bytearray()
    for r, g, b in pixels:
        out += _TABLE[g] + _TABLE[r] + _TABLE[b]
    out += bytes(RESET_BYTES)
    return bytes(out)


class SpiLed:
    name = "spi"

    def __init__(self, spi: Any, *, count: int, max_brightness: int) -> None:
        self._spi = spi
        self._max_brightness = max_brightness
        self._state = LedState.dark(count)

    @classmethod
    def check(cls, options: LedOptions, *, dev_dir: Path = Path("/dev")) -> Any:
        """spidev installed and the device node there; opens nothing. Returns spidev."""
        try:
            import spidev
        except ImportError:
            raise HardwareError(
                "LED backend 'real' (driver spi) needs the spidev module, which is not "
                "installed: run `pip install spidev` (or edgeagent[hardware]), or use "
                'backend = "sim" without hardware'
            ) from None
        device = dev_dir / f"spidev{options.spi_bus}.{options.spi_device}"
        if not device.exists():
            raise HardwareError(
                f"{device} does not exist: enable SPI with `sudo raspi-config nonint do_spi 0` "
                f"(or dtparam=spi=on in /boot/firmware/config.txt) and reboot"
            )
        return spidev

    @classmethod
    def open(cls, options: LedOptions, *, dev_dir: Path = Path("/dev")) -> SpiLed:
        spidev = cls.check(options, dev_dir=dev_dir)
        spi = spidev.SpiDev()
        try:
            spi.open(options.spi_bus, options.spi_device)
        except PermissionError:
            raise HardwareError(
                f"no permission to open {dev_dir / f'spidev{options.spi_bus}.{options.spi_device}'}"
                f": add this user to the spi group (`sudo usermod -aG spi $USER`, then log in "
                f"again)"
            ) from None
        spi.max_speed_hz = SPI_HZ
        spi.mode = 0
        return cls(spi, count=options.count, max_brightness=options.max_brightness)

    def write(self, state: LedState) -> None:
        if self._spi is None:
            raise HardwareError("the LED strip is closed")
        # writebytes2 accepts buffers longer than spidev's 4096-byte block.
        self._spi.writebytes2(encode_ws2812(state.rendered(self._max_brightness)))
        self._state = state

    def read(self) -> LedState:
        if self._spi is None:
            raise HardwareError("the LED strip is closed")
        return self._state

    def close(self) -> None:
        spi, self._spi = self._spi, None
        if spi is not None:
            spi.close()
