"""``[plugins.led]`` options."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class LedOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    backend: Literal["real", "sim", "mock"] = "sim"
    """real: the strip on this Pi; sim: the simulator (`edgeagent sim`); mock: in memory.

    The default is ``sim`` on every machine, a Pi included: the same config file then
    behaves the same on a laptop and on a Pi, and a Pi whose strip is not wired yet (or
    whose user may not open SPI) does not fail at every call. A Pi on the default says so
    at start (a warning naming ``backend = "real"``) and in ``edgeagent config check``;
    the Pi's config file (config/edgeagent.pi.toml) sets ``backend = "real"``."""
    driver: Literal["auto", "ws281x", "spi"] = "auto"
    """For ``real``: ws281x (PWM, Pi 4 or older) or spi (Pi 5); auto picks by the Pi model."""
    count: int = Field(8, ge=1, le=1024)
    pin: int = Field(18, ge=0, le=27)
    """ws281x data pin (GPIO18 is PWM0)."""
    channel: int = Field(0, ge=0, le=1)
    dma: int = Field(10, ge=0, le=14)
    freq_hz: int = Field(800_000, ge=400_000, le=800_000)
    max_brightness: int = Field(255, ge=1, le=255)
    """Hardware brightness at 100 %; lower it to limit current drawn from the supply."""
    spi_bus: int = Field(0, ge=0)
    spi_device: int = Field(0, ge=0)
    effect_s: float = Field(3.0, gt=0, le=5.0)
    """How long blink/pulse run; the tool call blocks for this long."""
    timeout_s: float = Field(2.0, gt=0, le=30)
    """HTTP timeout of the sim backend."""
    device_model: Path = Path("/proc/device-tree/model")
    """Where ``driver = "auto"`` reads the Pi model."""
