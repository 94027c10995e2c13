"""``[plugins.servo]`` options."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class ServoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    backend: Literal["real", "sim", "mock"] = "sim"
    """real: the servo on this Pi; sim: the simulator (`edgeagent sim`); mock: in memory.

    ``sim`` on every machine, a Pi included, for the reasons given for the LED strip
    (``edgeagent_led.options``); a Pi on the default says so at start and in
    ``edgeagent config check``."""
    driver: Literal["gpiozero", "sysfs"] = "gpiozero"
    """For ``real``: gpiozero (any GPIO; lgpio on a Pi 5) or sysfs hardware PWM (GPIO18/19)."""
    pin: int = Field(17, ge=0, le=27)
    min_angle: float = Field(-90, ge=-180, le=0)
    max_angle: float = Field(90, ge=0, le=180)
    min_pulse_us: int = Field(1000, ge=100, le=3000)
    """Pulse width at ``min_angle`` (many hobby servos want 500-1000)."""
    max_pulse_us: int = Field(2000, ge=100, le=3000)
    frame_us: int = Field(20000, ge=5000, le=50000)
    settle_s: float = Field(0.5, ge=0, le=5)
    """How long to hold the pulse after a move before detaching (stops jitter)."""
    pwm_root: Path = Path("/sys/class/pwm")
    pwm_chip: int = Field(0, ge=0)
    pwm_channel: int = Field(2, ge=0)
    """Pi 5 with dtoverlay=pwm-2chan: GPIO18 is channel 2, GPIO19 channel 3."""
    timeout_s: float = Field(2.0, gt=0, le=30)

    @model_validator(mode="after")
    def _pulses_ordered(self) -> ServoOptions:
        if not self.min_pulse_us < self.max_pulse_us < self.frame_us:
            raise ValueError(
                f"need min_pulse_us < max_pulse_us < frame_us, got {self.min_pulse_us}, "
                f"{self.max_pulse_us}, {self.frame_us}"
            )
        return self
