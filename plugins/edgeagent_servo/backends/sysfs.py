"""A servo on a hardware PWM channel through /sys/class/pwm (GPIO18/19 on a Pi).

Needs ``dtoverlay=pwm-2chan`` in /boot/firmware/config.txt. Hardware PWM does not
jitter, but the servo is still released after each move so it does not hum.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path

from edgeagent.plugin import HardwareError
from edgeagent_servo.options import ServoOptions


class SysfsServo:
    name = "sysfs"

    def __init__(
        self,
        channel: Path,
        options: ServoOptions,
        *,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.channel = channel
        self.options = options
        self._sleep = sleep
        self._angle: float | None = None
        self._closed = False

    @classmethod
    def check(cls, options: ServoOptions) -> Path:
        """The PWM chip is there; touches nothing. Returns its directory."""
        chip = options.pwm_root / f"pwmchip{options.pwm_chip}"
        if not chip.is_dir():
            raise HardwareError(
                f"{chip} does not exist: add dtoverlay=pwm-2chan to /boot/firmware/config.txt "
                f'and reboot, or use driver = "gpiozero"'
            )
        return chip

    @classmethod
    def open(
        cls, options: ServoOptions, *, sleep: Callable[[float], None] = time.sleep
    ) -> SysfsServo:
        chip = cls.check(options)
        channel = chip / f"pwm{options.pwm_channel}"
        try:
            if not channel.is_dir():
                (chip / "export").write_text(str(options.pwm_channel))
            (channel / "period").write_text(str(options.frame_us * 1000))
        except OSError as exc:
            raise HardwareError(
                f"cannot set up {channel}: {exc}; add this user to the gpio group "
                f"(udev makes /sys/class/pwm writable for it)"
            ) from None
        return cls(channel, options, sleep=sleep)

    def pulse_us(self, angle: float) -> int:
        o = self.options
        span = (angle - o.min_angle) / (o.max_angle - o.min_angle)
        return round(o.min_pulse_us + span * (o.max_pulse_us - o.min_pulse_us))

    def move_to(self, angle: float) -> None:
        if self._closed:
            raise HardwareError("the servo is closed")
        (self.channel / "duty_cycle").write_text(str(self.pulse_us(angle) * 1000))
        (self.channel / "enable").write_text("1")
        self._sleep(self.options.settle_s)
        (self.channel / "enable").write_text("0")
        self._angle = angle

    def read(self) -> float | None:
        if self._closed:
            raise HardwareError("the servo is closed")
        return self._angle

    def close(self) -> None:
        self._closed = True
        with contextlib.suppress(OSError):  # already released, or the chip went away
            (self.channel / "enable").write_text("0")
