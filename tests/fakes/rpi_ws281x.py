"""A stand-in for rpi_ws281x (its PixelStrip API) that records what reaches the strip.

A test asks the ``fake_library`` fixture (tests/conftest.py) for ``"rpi_ws281x"`` and reads
``strips``.
"""

from __future__ import annotations

from typing import Any

strips: list[PixelStrip] = []


def Color(red: int, green: int, blue: int, white: int = 0) -> int:
    """The library's 32-bit packing: white, red, green, blue from high to low byte."""
    return (white << 24) | (red << 16) | (green << 8) | blue


class PixelStrip:
    def __init__(
        self,
        num: int,
        pin: int,
        freq_hz: int = 800000,
        dma: int = 10,
        invert: bool = False,
        brightness: int = 255,
        channel: int = 0,
        strip_type: Any = None,
        gamma: Any = None,
    ) -> None:
        self.num, self.pin, self.freq_hz, self.dma, self.channel = num, pin, freq_hz, dma, channel
        self.brightness = brightness
        self.pixels = [0] * num
        self.begun = False
        self.shown: list[tuple[int, list[int]]] = []
        """(brightness, pixel buffer) at each show()."""
        strips.append(self)

    def begin(self) -> None:
        self.begun = True

    def numPixels(self) -> int:
        return self.num

    def setPixelColor(self, n: int, color: int) -> None:
        if not self.begun:
            raise RuntimeError("begin() was not called")
        if not 0 <= color <= 0xFFFFFFFF:
            raise ValueError(f"color {color} is not a 32-bit value")
        self.pixels[n] = color  # IndexError past the end, like the C buffer would corrupt

    def setBrightness(self, brightness: int) -> None:
        if not 0 <= brightness <= 255:
            raise ValueError(f"brightness {brightness} is not 0-255")
        self.brightness = brightness

    def getBrightness(self) -> int:
        return self.brightness

    def show(self) -> None:
        if not self.begun:
            raise RuntimeError("begin() was not called")
        self.shown.append((self.brightness, list(self.pixels)))
